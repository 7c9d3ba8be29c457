// Host of debug-lines.spmd for debug-info-gdb-breakpoint.test: the sum of the saturated ramp.
#include <cstdio>
extern "C" void saturate(float *a, int n);
int main() { float a[19]; for (int i = 0; i < 19; ++i) a[i] = i; saturate(a, 19); float s = 0; for (float v : a) s += v; printf("%.4f\n", s); }
