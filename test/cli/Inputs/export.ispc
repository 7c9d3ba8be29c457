// One export function, for tests that look at generated code.
export void f(uniform float a[]) { a[programIndex] = 1.0f; }
