// Includes two headers, one through the other, one from a subdirectory.
#include "b.isph"
#include "sub/a.isph"
export void f(uniform float x[]) { x[0] = A_VALUE + B_VALUE; }
