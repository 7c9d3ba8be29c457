// An assertion that fails for the input the host passes.
export void f(uniform int a[]) {
  assert(a[programIndex] > 100);
  a[programIndex] = 7;
}
