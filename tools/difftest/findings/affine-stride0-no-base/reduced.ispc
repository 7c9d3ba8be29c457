export void f(uniform int64 OUT[]) {
  foreach (i = 0 ... 8) {
    OUT[i] = i + (i - programIndex);
  }
}
