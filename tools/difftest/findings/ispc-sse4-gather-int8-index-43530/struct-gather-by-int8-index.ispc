struct S1 { int32 m0; float m1; uint32 m2; uint32 m3; };
export void t(uniform int OUT[], uniform const int IN[]) {
  int8 va[2];
  for (uniform int z = 0; z < 2; ++z) va[z] = (int8)(IN[programIndex] + z);
  uniform S1 usa[16];
  for (uniform int z = 0; z < 16; ++z) { usa[z].m0 = 100 + z; usa[z].m1 = z; usa[z].m2 = z; usa[z].m3 = z; }
  foreach (y = 0 ... 1, x = 0 ... 8) {
    int i = y * 8 + x;
    OUT[i] = usa[((int32)va[0] - 4) & 15].m0;
    OUT[8 + i] = ((int32)va[0] - 4) & 15;
  }
}
