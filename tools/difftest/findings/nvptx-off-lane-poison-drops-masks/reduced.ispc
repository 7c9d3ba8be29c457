export void f(uniform uint64 OUT[], uniform const int32 IN[], uniform int N) {
  uniform uint64 ua4[8];
  for (uniform int z = 0; z < 8; ++z) ua4[z] = IN[z];
  uniform uint64 * varying p = &ua4[IN[programIndex] & 7];
  uniform uint16 us[16];
  for (uniform int z = 0; z < 16; ++z) us[z] = IN[z + 8];
  foreach (i = 0 ... N) {
    int d = (IN[20] <= i) ? IN[i] / ((int)(ua4[us[i & 15] & 7] & 7) + 1) : i;
    OUT[i] = d;
  }
}
