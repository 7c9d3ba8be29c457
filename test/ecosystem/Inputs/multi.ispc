// Exports whose results tell which target ran them (programCount), a global variable the
// targets share, and a task launch (each target's own task function).
uniform int offset = 100;
export uniform int gang_width() { return programCount; }
task void twice(uniform float a[]) { a[taskIndex] = 2.0f * a[taskIndex] + offset; }
export void fill(uniform float a[], uniform int n) {
  foreach (i = 0 ... n)
    a[i] = i;
  launch[n] twice(a);
}
