// Writes VALUE (from kernel.isph) from tasks; reports its gang width.
#include "kernel.isph"
task void put(uniform int out[]) { out[taskIndex] = VALUE; }
export void fill(uniform int out[], uniform int n) { launch[n] put(out); }
export uniform int width() { return programCount; }
