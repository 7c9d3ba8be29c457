struct S { int32 m0; };
export void run_i32(uniform int RET[], uniform const int IN[], uniform int N) {
  uniform S usa[4];
  for (uniform int z = 0; z < 4; ++z) usa[z].m0 = z;
  foreach (y = 0 ... 3, x = 0 ... 8) {
    RET[y * 8 + x] = usa[y & 3].m0;
  }
}
