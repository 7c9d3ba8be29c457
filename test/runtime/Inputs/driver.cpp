// The shared driver of the runtime tests: calls a test's exported entry points
// on a fixed input and prints the results, one line per entry point.
//
// A test exports any of
//   void run(float RET[], const float IN[], int N)        (IN[i] = i + 1)
//   void run_i32(int32_t RET[], const int32_t IN[], int N) (IN[i] = i + 1)
//   void run_i64(int64_t RET[], const int64_t IN[], int N) (IN[i] = i + 1)
//   void run_f64(double RET[], const double IN[], int N)  (IN[i] = i + 1)
// with N = 37 (a multiple of no gang width). RET starts filled with -1; the
// driver prints `<name>: RET[0] RET[1] ... RET[N-1]`, so tests FileCheck it.
#include <cinttypes>
#include <cstdint>
#include <cstdio>

extern "C" {
void run(float *, const float *, int) __attribute__((weak));
void run_i32(int32_t *, const int32_t *, int) __attribute__((weak));
void run_i64(int64_t *, const int64_t *, int) __attribute__((weak));
void run_f64(double *, const double *, int) __attribute__((weak));
}

static const int N = 37;

template <typename T, typename Fn> static void call(const char *Name, Fn F, const char *Fmt) {
  T In[N], Ret[N];
  for (int I = 0; I < N; ++I) {
    In[I] = static_cast<T>(I + 1);
    Ret[I] = static_cast<T>(-1);
  }
  F(Ret, In, N);
  std::printf("%s:", Name);
  for (int I = 0; I < N; ++I) {
    std::printf(" ");
    std::printf(Fmt, Ret[I]);
  }
  std::printf("\n");
}

int main() {
  if (run)
    call<float>("run", run, "%g");
  if (run_i32)
    call<int32_t>("run_i32", run_i32, "%" PRId32);
  if (run_i64)
    call<int64_t>("run_i64", run_i64, "%" PRId64);
  if (run_f64)
    call<double>("run_f64", run_f64, "%.17g");
  return 0;
}
