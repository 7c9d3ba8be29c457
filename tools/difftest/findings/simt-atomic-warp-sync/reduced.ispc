uniform int32 counter;
export void k(uniform int32 out[], uniform const int32 in[], uniform int n) {
  foreach (i = 0 ... n) {
    int32 v = in[i];
    if (v > 3) {
      atomic_add_global(&counter, v);
    } else {
      v = v * 7;
    }
    out[i] = v;
  }
}
