// Checks the examples/crev/gpu kernels on the CPU before they go to a GPU: each .spmd kernel
// (PAR and CREV) built for x86 as a task (cpu_tasks.spmd) and launched as 1, 3, 7 and 64
// tasks, a task standing for a warp, against the scalar references of inputs.h, exactly. The
// graph kernels run under the same host loops (steps, rounds, sweeps) as in bench.cu.
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
        ispc::match_par_tasks(Tasks, Text.data(), int(Text.size()), Pat.data(), M, Got.data());
        compare(Name + " PAR", Tasks, Want, Got, Positions);
        std::fill(Got.begin(), Got.end(), 7);
        ispc::match_crev_tasks(Tasks, Text.data(), int(Text.size()), Pat.data(), M, Got.data());
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
      ispc::filter_par_tasks(Tasks, B.Text.data(), B.Offsets.data(), Records, B.Keyword.data(), M,
                             Got.data());
      compare(Name + " PAR", Tasks, Want, Got, size_t(Records));
      std::fill(Got.begin(), Got.end(), 7);
      ispc::filter_crev_tasks(Tasks, B.Text.data(), B.Offsets.data(), Records, B.Keyword.data(), M,
                              Got.data());
      compare(Name + " CREV", Tasks, Want, Got, size_t(Records));
    }
  }
}

// Compares two vectors of any element type exactly (the float scores bit for bit).
template <typename T>
void compareAll(const std::string &What, int Tasks, const std::vector<T> &Want,
                const std::vector<T> &Got) {
  size_t Bad = 0;
  for (size_t I = 0; I < Want.size(); ++I)
    Bad += !(Got[I] == Want[I]);
  std::printf("%-32s %2d tasks %s: %zu entries\n", What.c_str(), Tasks, Bad ? "FAIL" : "ok",
              Want.size());
  Failures += Bad != 0;
}

// The graphs of the graph checks: a single vertex, a small and a larger one.
std::vector<Graph> checkGraphs(bool Symmetric) {
  Rng R(13);
  std::vector<Graph> Graphs;
  for (int Vertices : {1, 97, 5000})
    Graphs.push_back(randomGraph(Vertices, R, Symmetric));
  return Graphs;
}

void checkDfs() {
  for (const Graph &G : checkGraphs(false)) {
    std::vector<float> Want;
    dfsReference(G, 0, Want);
    for (int Crev = 0; Crev < 2; ++Crev)
      for (int Tasks : TaskCounts) {
        // The host loop of bench.cu: pop the whole stack per step until a step pushes nothing.
        std::vector<int> Visited(size_t(G.Vertices), 0), Stack(size_t(G.Vertices) + 1),
            Next(size_t(G.Vertices) + 1), State(1);
        std::vector<float> F(size_t(G.Vertices), -1.0f);
        Visited[0] = 1;
        Stack[0] = 0;
        int Count = 1;
        while (Count > 0) {
          State[0] = 0;
          (Crev ? ispc::dfs_step_crev_tasks : ispc::dfs_step_par_tasks)(
              Tasks, G.Offsets.data(), G.Edges.data(), G.Vertices, Stack.data(), Count,
              Visited.data(), F.data(), Next.data(), State.data());
          Count = State[0];
          Stack.swap(Next);
        }
        compareAll("dfs " + std::to_string(G.Vertices) + " vertices " + (Crev ? "CREV" : "PAR"),
                   Tasks, Want, F);
      }
  }
}

void checkBellmanFord() {
  for (const Graph &G : checkGraphs(false)) {
    std::vector<int> Want;
    bellmanFordReference(G, 0, Want);
    for (int Crev = 0; Crev < 2; ++Crev)
      for (int Tasks : TaskCounts) {
        std::vector<int> Dist(size_t(G.Vertices), Infinity), Stamp(size_t(G.Vertices), 0),
            Frontier(size_t(G.Vertices)), Next(size_t(G.Vertices)), State(1);
        Dist[0] = 0;
        Frontier[0] = 0;
        int Count = 1;
        for (int Round = 1; Count > 0; ++Round) {
          State[0] = 0;
          (Crev ? ispc::bf_round_crev_tasks : ispc::bf_round_par_tasks)(
              Tasks, G.Offsets.data(), G.Edges.data(), G.Weights.data(), Dist.data(),
              Frontier.data(), Count, Stamp.data(), Round, Next.data(), State.data());
          Count = State[0];
          Frontier.swap(Next);
        }
        compareAll("bellman_ford " + std::to_string(G.Vertices) + " vertices " +
                       (Crev ? "CREV" : "PAR"),
                   Tasks, Want, Dist);
      }
  }
}

void checkComponents() {
  for (const Graph &G : checkGraphs(true)) {
    std::vector<int> Want;
    componentsReference(G, Want);
    for (int Crev = 0; Crev < 2; ++Crev)
      for (int Tasks : TaskCounts) {
        std::vector<int> Labels(size_t(G.Vertices)), Changed(1, 1);
        for (int V = 0; V < G.Vertices; ++V)
          Labels[size_t(V)] = V;
        while (Changed[0]) {
          Changed[0] = 0;
          (Crev ? ispc::cc_sweep_crev_tasks : ispc::cc_sweep_par_tasks)(
              Tasks, G.Offsets.data(), G.Edges.data(), G.Vertices, Labels.data(), Changed.data());
        }
        compareAll("components " + std::to_string(G.Vertices) + " vertices " +
                       (Crev ? "CREV" : "PAR"),
                   Tasks, Want, Labels);
      }
  }
}

void checkSorts() {
  Rng R(17);
  // One key, all lengths up to 1500 (parts of at most 32 keys, runs of 16, duplicates).
  for (auto [Arrays, MaxLength] : {std::pair{1, 1}, std::pair{45, 40}, std::pair{150, 1500}}) {
    Batch B = randomBatch(Arrays, MaxLength, R);
    std::vector<int> Want;
    sortReference(B, Want);
    std::string Name = std::to_string(Arrays) + " arrays ";
    std::vector<int> Scratch(B.Keys.size()), Cells(4 * 64);
    for (int Tasks : TaskCounts) {
      std::vector<int> Keys = B.Keys;
      ispc::qsort_par_tasks(Tasks, Keys.data(), B.Offsets.data(), Arrays);
      compareAll("quicksort " + Name + "PAR", Tasks, Want, Keys);
      Keys = B.Keys;
      ispc::qsort_crev_tasks(Tasks, Keys.data(), Scratch.data(), B.Offsets.data(), Arrays,
                             Cells.data());
      compareAll("quicksort " + Name + "CREV", Tasks, Want, Keys);
      Keys = B.Keys;
      ispc::msort_par_tasks(Tasks, Keys.data(), Scratch.data(), B.Offsets.data(), Arrays);
      compareAll("mergesort " + Name + "PAR", Tasks, Want, Keys);
      Keys = B.Keys;
      ispc::msort_crev_tasks(Tasks, Keys.data(), Scratch.data(), B.Offsets.data(), Arrays);
      compareAll("mergesort " + Name + "CREV", Tasks, Want, Keys);
    }
  }
}

} // namespace

int main() {
  checkStringMatch();
  checkBookFilter();
  checkDfs();
  checkBellmanFord();
  checkComponents();
  checkSorts();
  std::printf("crev gpu kernels on the CPU: %s\n", Failures ? "FAILED" : "all ok");
  return Failures ? 1 : 0;
}
