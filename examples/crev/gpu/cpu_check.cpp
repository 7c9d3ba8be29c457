// Checks the examples/crev/gpu kernels on the CPU before they go to a GPU: each .spmd kernel
// (PAR and CREV) built for x86 as a task (cpu_tasks.spmd) and launched as 1, 3, 7 and 64
// tasks, a task standing for a warp, against the scalar references of inputs.h, exactly.
// Run by `scripts/gpu-bench-crev.sh prepare` and by the lit test test/crev/gpu-kernels-cpu.test.
#include "cpu_tasks.h"
#include "inputs.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace crevgpu;

namespace {

int Failures = 0;
const int TaskCounts[] = {1, 3, 7, 64};

// Compares Got with Want exactly (after poisoning, so unwritten entries show).
void compare(const std::string &What, int Tasks, const std::vector<int8_t> &Want,
             const std::vector<int8_t> &Got, size_t Count) {
  size_t Bad = 0, Ones = 0;
  for (size_t I = 0; I < Count; ++I) {
    Bad += Got[I] != Want[I];
    Ones += Want[I] == 1;
  }
  std::printf("%-32s %2d tasks %s: %zu entries, %zu set\n", What.c_str(), Tasks,
              Bad ? "FAIL" : "ok", Count, Ones);
  Failures += Bad != 0;
}

void checkStringMatch() {
  Rng R(7);
  for (unsigned Alphabet : {2u, 4u}) {
    std::vector<int8_t> Text = randomText(100003, Alphabet, R);
    for (int M : {1, 4, 5, 32, 33, 70}) {
      size_t At = R.below(unsigned(Text.size() - 80));
      std::vector<int8_t> Pat(Text.begin() + long(At), Text.begin() + long(At) + M);
      size_t Positions = Text.size() - size_t(M) + 1;
      std::vector<int8_t> Want(Text.size()), Got(Text.size());
      matchReference(Text, Pat, Want);
      std::string Name = "string_match m=" + std::to_string(M) + " a=" + std::to_string(Alphabet);
      for (int Tasks : TaskCounts) {
        std::fill(Got.begin(), Got.end(), 7);
        spmd::match_par_tasks(Tasks, Text.data(), int(Text.size()), Pat.data(), M, Got.data());
        compare(Name + " PAR", Tasks, Want, Got, Positions);
        std::fill(Got.begin(), Got.end(), 7);
        spmd::match_crev_tasks(Tasks, Text.data(), int(Text.size()), Pat.data(), M, Got.data());
        compare(Name + " CREV", Tasks, Want, Got, Positions);
      }
    }
  }
}

void checkBookFilter() {
  Rng R(11);
  for (int Records : {1, 45, 1001}) {
    Books B = randomBooks(Records, R);
    std::vector<int8_t> Want(static_cast<size_t>(Records)), Got(static_cast<size_t>(Records));
    filterReference(B, Want);
    int M = int(B.Keyword.size());
    std::string Name = "book_filter " + std::to_string(Records) + " records";
    for (int Tasks : TaskCounts) {
      std::fill(Got.begin(), Got.end(), 7);
      spmd::filter_par_tasks(Tasks, B.Text.data(), B.Offsets.data(), Records, B.Keyword.data(), M,
                             Got.data());
      compare(Name + " PAR", Tasks, Want, Got, size_t(Records));
      std::fill(Got.begin(), Got.end(), 7);
      spmd::filter_crev_tasks(Tasks, B.Text.data(), B.Offsets.data(), Records, B.Keyword.data(), M,
                              Got.data());
      compare(Name + " CREV", Tasks, Want, Got, size_t(Records));
    }
  }
}

} // namespace

int main() {
  checkStringMatch();
  checkBookFilter();
  std::printf("crev gpu kernels on the CPU: %s\n", Failures ? "FAILED" : "all ok");
  return Failures ? 1 : 0;
}
