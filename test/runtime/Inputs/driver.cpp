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
//
// Horizontal-fusion tests (docs/hfuse.md) export kernels side_a, side_b and
// maybe side_c, each `void side_X(int32_t RET[], const int32_t IN[], int N)`,
// and fuse them (`#pragma hfuse` or a `// SPMDC-FLAGS: --hfuse=...` line). The
// driver runs each side apart (`side_X: ...`), then the fused kernel
// hfuse_side_a_side_b[_side_c] with blocks_a = 3, blocks_b = 5, blocks_c = 2
// and one RET per side (`hfuse side_X: ...`); the kernels' results must not
// depend on the partition, so the lines of a side agree.
#include <cinttypes>
#include <cstdint>
#include <cstdio>

extern "C" {
void run(float *, const float *, int) __attribute__((weak));
void run_i32(int32_t *, const int32_t *, int) __attribute__((weak));
void run_i64(int64_t *, const int64_t *, int) __attribute__((weak));
void run_f64(double *, const double *, int) __attribute__((weak));
void side_a(int32_t *, const int32_t *, int) __attribute__((weak));
void side_b(int32_t *, const int32_t *, int) __attribute__((weak));
void side_c(int32_t *, const int32_t *, int) __attribute__((weak));
void hfuse_side_a_side_b(int32_t *, const int32_t *, int, int32_t *, const int32_t *, int, int, int)
    __attribute__((weak));
void hfuse_side_a_side_b_side_c(int32_t *, const int32_t *, int, int32_t *, const int32_t *, int,
                                int32_t *, const int32_t *, int, int, int, int)
    __attribute__((weak));
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

static void print(const char *Name, const int32_t *Ret) {
  std::printf("%s:", Name);
  for (int I = 0; I < N; ++I)
    std::printf(" %" PRId32, Ret[I]);
  std::printf("\n");
}

/// The fused kernel of side_a, side_b (and side_c), one output per side.
static void callFused() {
  int32_t In[N], Ret[3][N];
  for (int I = 0; I < N; ++I) {
    In[I] = I + 1;
    for (auto &R : Ret)
      R[I] = -1;
  }
  if (hfuse_side_a_side_b_side_c)
    hfuse_side_a_side_b_side_c(Ret[0], In, N, Ret[1], In, N, Ret[2], In, N, 3, 5, 2);
  else
    hfuse_side_a_side_b(Ret[0], In, N, Ret[1], In, N, 3, 5);
  print("hfuse side_a", Ret[0]);
  print("hfuse side_b", Ret[1]);
  if (hfuse_side_a_side_b_side_c)
    print("hfuse side_c", Ret[2]);
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
  if (side_a)
    call<int32_t>("side_a", side_a, "%" PRId32);
  if (side_b)
    call<int32_t>("side_b", side_b, "%" PRId32);
  if (side_c)
    call<int32_t>("side_c", side_c, "%" PRId32);
  if (hfuse_side_a_side_b || hfuse_side_a_side_b_side_c)
    callFused();
  return 0;
}
