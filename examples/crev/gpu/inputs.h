// The inputs and scalar references of the examples/crev/gpu benchmark, shared by the GPU
// benchmark (bench.cu) and the CPU check of the spmdc kernels (cpu_check.cpp): the same
// generators as the CPU examples in examples/crev/, sized by the caller.
#pragma once

#include "graph.h"
#include "rng.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace crevgpu {

using std::size_t;

/// The CPU examples' generator (examples/crev/common/rng.h): the same seed gives the same
/// inputs here.
using Rng = crev::Rng;

/// Letters by English frequency; the first `Alphabet` of them make up the text.
inline const char *letters() { return "etaoinshrdlcumwfgypbvkjxqz"; }

/// `Size` characters drawn uniformly from the first `Alphabet` letters.
inline std::vector<int8_t> randomText(size_t Size, unsigned Alphabet, Rng &R) {
  std::vector<int8_t> Text(Size);
  for (auto &C : Text)
    C = int8_t(letters()[R.below(Alphabet)]);
  return Text;
}

/// Scalar reference: found[p] = the pattern occurs at p, the naive search position by position.
inline void matchReference(const std::vector<int8_t> &Text, const std::vector<int8_t> &Pat,
                           std::vector<int8_t> &Found) {
  long N = long(Text.size()), M = long(Pat.size());
#pragma omp parallel for schedule(static)
  for (long P = 0; P <= N - M; ++P) {
    long J = 0;
    while (J < M && Text[P + J] == Pat[J])
      ++J;
    Found[P] = J == M;
  }
}

/// Book records: most 64-511 characters, one in four 2048-8191, one in five holding the
/// keyword once (the CPU example's law).
struct Books {
  std::vector<int8_t> Text;
  std::vector<int> Offsets; // Records + 1 entries
  std::vector<int8_t> Keyword;
};

inline Books randomBooks(int Records, Rng &R) {
  Books B;
  B.Keyword = {'c', 'r', 'e', 'v', 'o', 'l', 'u', 't', 'i', 'o', 'n'};
  int M = int(B.Keyword.size());
  B.Offsets.assign(size_t(Records) + 1, 0);
  for (int Rec = 0; Rec < Records; ++Rec) {
    int Length = R.below(4) == 0 ? 2048 + int(R.below(6144)) : 64 + int(R.below(448));
    size_t Start = B.Text.size();
    for (int I = 0; I < Length; ++I)
      B.Text.push_back(int8_t(letters()[R.below(12)]));
    if (R.below(5) == 0) {
      size_t At = Start + R.below(unsigned(Length - M));
      std::copy(B.Keyword.begin(), B.Keyword.end(), B.Text.begin() + long(At));
    }
    B.Offsets[size_t(Rec) + 1] = int(B.Text.size());
  }
  return B;
}

/// Scalar reference of the book filter: kept[r] = record r contains the keyword.
inline void filterReference(const Books &B, std::vector<int8_t> &Kept) {
  int Records = int(B.Offsets.size()) - 1, M = int(B.Keyword.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (int Rec = 0; Rec < Records; ++Rec) {
    bool Found = false;
    for (int P = B.Offsets[size_t(Rec)]; P <= B.Offsets[size_t(Rec) + 1] - M && !Found; ++P) {
      int J = 0;
      while (J < M && B.Text[size_t(P + J)] == B.Keyword[size_t(J)])
        ++J;
      Found = J == M;
    }
    Kept[size_t(Rec)] = Found;
  }
}

/// Random graphs in compressed sparse row form, the CPU graph examples' generator
/// (examples/crev/common/graph.h).
using Graph = crev::Graph;
using crev::randomGraph;

/// Scalar reference of the traversal: the CPU example's sequential DFS from Root; F[v] =
/// degree / Vertices for every reached vertex, -1 for the others.
inline void dfsReference(const Graph &G, int Root, std::vector<float> &F) {
  std::vector<char> Visited(size_t(G.Vertices), 0);
  std::vector<int> Stack{Root};
  F.assign(size_t(G.Vertices), -1.0f);
  Visited[size_t(Root)] = 1;
  while (!Stack.empty()) {
    int V = Stack.back();
    Stack.pop_back();
    int Begin = G.Offsets[size_t(V)], End = G.Offsets[size_t(V) + 1];
    F[size_t(V)] = float(End - Begin) / float(G.Vertices);
    for (int E = Begin; E < End; ++E) {
      int Child = G.Edges[size_t(E)];
      if (!Visited[size_t(Child)]) {
        Visited[size_t(Child)] = 1;
        Stack.push_back(Child);
      }
    }
  }
}

/// "No path" in the shortest-path distances (the CPU example's value).
constexpr int Infinity = 0x3fffffff;

/// Scalar reference of Bellman-Ford: the CPU example's sequential frontier algorithm.
inline void bellmanFordReference(const Graph &G, int Source, std::vector<int> &Dist) {
  Dist.assign(size_t(G.Vertices), Infinity);
  Dist[size_t(Source)] = 0;
  std::vector<char> InNext(size_t(G.Vertices), 0);
  std::vector<int> Frontier{Source}, Next;
  while (!Frontier.empty()) {
    Next.clear();
    for (int U : Frontier)
      for (int E = G.Offsets[size_t(U)]; E < G.Offsets[size_t(U) + 1]; ++E) {
        int To = G.Edges[size_t(E)], Candidate = Dist[size_t(U)] + G.Weights[size_t(E)];
        if (Candidate < Dist[size_t(To)]) {
          Dist[size_t(To)] = Candidate;
          if (!InNext[size_t(To)]) {
            InNext[size_t(To)] = 1;
            Next.push_back(To);
          }
        }
      }
    for (int V : Next)
      InNext[size_t(V)] = 0;
    Frontier.swap(Next);
  }
}

/// Scalar reference of connected components: Leader[v] = the smallest vertex id of v's
/// component, by breadth-first search from every vertex not reached yet, in id order.
inline void componentsReference(const Graph &G, std::vector<int> &Leader) {
  Leader.assign(size_t(G.Vertices), -1);
  std::vector<int> Queue;
  for (int S = 0; S < G.Vertices; ++S) {
    if (Leader[size_t(S)] >= 0)
      continue;
    Leader[size_t(S)] = S;
    Queue.assign(1, S);
    for (size_t I = 0; I < Queue.size(); ++I)
      for (int E = G.Offsets[size_t(Queue[I])]; E < G.Offsets[size_t(Queue[I]) + 1]; ++E)
        if (Leader[size_t(G.Edges[size_t(E)])] < 0) {
          Leader[size_t(G.Edges[size_t(E)])] = S;
          Queue.push_back(G.Edges[size_t(E)]);
        }
  }
}

/// A batch of arrays to sort, the CPU sorting examples' law: array a is
/// Keys[Offsets[a] .. Offsets[a + 1]), of 1..MaxLength keys below 2^20 (duplicates on purpose).
struct Batch {
  std::vector<int> Offsets, Keys;
};

inline Batch randomBatch(int Arrays, int MaxLength, Rng &R) {
  Batch B;
  B.Offsets.assign(size_t(Arrays) + 1, 0);
  for (int A = 0; A < Arrays; ++A)
    B.Offsets[size_t(A) + 1] = B.Offsets[size_t(A)] + 1 + int(R.below(unsigned(MaxLength)));
  B.Keys.resize(size_t(B.Offsets[size_t(Arrays)]));
  for (auto &K : B.Keys)
    K = int(R.below(1u << 20));
  return B;
}

/// Scalar reference of both sorts: every array sorted by std::sort.
inline void sortReference(const Batch &B, std::vector<int> &Sorted) {
  Sorted = B.Keys;
  long Arrays = long(B.Offsets.size()) - 1;
#pragma omp parallel for schedule(dynamic, 64)
  for (long A = 0; A < Arrays; ++A)
    std::sort(Sorted.begin() + B.Offsets[size_t(A)], Sorted.begin() + B.Offsets[size_t(A) + 1]);
}

} // namespace crevgpu
