// print_tests.cpp - calls spmdc_print the way generated code does: every type, uniform and
// varying, with and without inactive lanes; and from many threads at once.

#include "spmdc_runtime.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

void everyType() {
  uint8_t B = 1;
  int32_t I = -42;
  uint32_t U = 4000000000u;
  int64_t L = -9000000000LL;
  uint64_t V = 18000000000000000000ULL;
  float F = 1.5f;
  double D = -2.25;
  void *P = reinterpret_cast<void *>(uintptr_t(0x1234));
  void *Uniforms[] = {&B, &I, &U, &L, &V, &F, &D, &P};
  spmdc_print("b=% i=% u=% l=% v=% f=% d=% p=%\n", "biulvfdp", 4, 0xf, Uniforms);

  uint8_t Bs[4] = {1, 0, 1, 0};
  int32_t Is[4] = {0, -1, 2, -3};
  uint32_t Us[4] = {0, 1, 4294967295u, 3};
  int64_t Ls[4] = {-1, 1LL << 40, 0, 7};
  uint64_t Vs[4] = {0, 1, 18446744073709551615ULL, 3};
  float Fs[4] = {0.5f, -1.0f, 3.25f, 1e10f};
  double Ds[4] = {0.1, -0.5, 2.0, 1e-7};
  void *Ps[4] = {nullptr, reinterpret_cast<void *>(uintptr_t(0x10)),
                 reinterpret_cast<void *>(uintptr_t(0xff)),
                 reinterpret_cast<void *>(~uintptr_t(0))};
  void *Varyings[] = {Bs, Is, Us, Ls, Vs, Fs, Ds, Ps};
  spmdc_print("B=%\nI=%\nU=%\nL=%\nV=%\nF=%\nD=%\nP=%\n", "BIULVFDP", 4, 0xf, Varyings);
  // Lanes 1 and 2 inactive.
  spmdc_print("B=%\nI=%\nU=%\nL=%\nV=%\nF=%\nD=%\nP=%\n", "BIULVFDP", 4, 0x9, Varyings);
}

void mixedAndEdgeCases() {
  int32_t Index[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int32_t Count = 8;
  void *Args[] = {&Count, Index};
  spmdc_print("programCount=% programIndex=%\n", "iI", 8, 0xaa, Args);
  spmdc_print("no arguments, 100% literal text\n", "", 8, 0xff, nullptr);
  spmdc_print("more % than % arguments\n", "i", 8, 0xff, Args);
  spmdc_print("all lanes off: %\n", "I", 8, 0, Args + 1);
  spmdc_print("unknown type: %\n", "q", 8, 0xff, Args);
  int32_t Wide[16];
  for (int I = 0; I < 16; ++I)
    Wide[I] = I * I;
  void *WideArgs[] = {Wide};
  spmdc_print("width 16: %\n", "I", 16, 0x00ff, WideArgs);
  std::fflush(stdout);
}

// Threads print long lines concurrently; each line must come out whole.
void concurrentLines(int Threads, int Lines) {
  std::vector<std::thread> Printers;
  for (int T = 0; T < Threads; ++T)
    Printers.emplace_back([T, Lines] {
      int32_t Values[64];
      for (int I = 0; I < 64; ++I)
        Values[I] = T * 1000 + I;
      int32_t Thread = T;
      void *Args[] = {&Thread, Values};
      for (int Line = 0; Line < Lines; ++Line)
        spmdc_print("thread % % end\n", "iI", 64, ~uint64_t(0) >> (T % 2), Args);
    });
  for (auto &Printer : Printers)
    Printer.join();
}

} // namespace

int main(int argc, char **argv) {
  std::string Mode = argc == 2 ? argv[1] : "";
  if (Mode == "types")
    everyType();
  else if (Mode == "edge")
    mixedAndEdgeCases();
  else if (Mode == "concurrent")
    concurrentLines(8, 500);
  else {
    std::fprintf(stderr, "usage: print_tests types | edge | concurrent\n");
    return 2;
  }
  return 0;
}
