// Tasks record ISPC's threadIndex and threadCount.
task void record(uniform int index[], uniform int count[]) {
  index[taskIndex] = threadIndex;
  count[taskIndex] = threadCount;
}
export void run(uniform int index[], uniform int count[], uniform int n) {
  launch[n] record(index, count);
}
