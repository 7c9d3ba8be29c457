// A three-dimensional launch whose tasks record where they ran, and an export that launches
// nothing (so it must not call ISPCSync).
task void record(uniform int out[], uniform int scale) {
  uniform int ok = taskCount == taskCount0 * taskCount1 * taskCount2 &&
                   taskIndex == taskIndex0 + taskCount0 * (taskIndex1 + taskCount1 * taskIndex2);
  out[taskIndex] = ok ? scale * (taskIndex0 + 10 * taskIndex1 + 100 * taskIndex2) : -1;
}
export void run(uniform int out[], uniform int scale) { launch[4, 3, 2] record(out, scale); }
export void launches_nothing(uniform int out[]) { out[0] = 7; }
