// x[i] = x[i] * FACTOR + OFFSET, in tasks of 8 elements.
#include "offset.isph"
task void scale_part(uniform float x[], uniform int n) {
  foreach (i = taskIndex * 8 ... min(n, (taskIndex + 1) * 8))
    x[i] = x[i] * FACTOR + OFFSET;
}
export void scale(uniform float x[], uniform int n) { launch[(n + 7) / 8] scale_part(x, n); }
