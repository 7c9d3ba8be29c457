// Bellman-Ford benchmark: sequential frontier Bellman-Ford, PAR and CREV, distances checked
// exactly.
#include "../common/bench.h"
#include "../common/graph.h"
#include "bellman_ford.h"

using namespace crev;

namespace {
const int Infinity = 0x3fffffff;

/// The same frontier algorithm, one vertex and one edge at a time.
int bellmanFordSequential(const Graph &G, int Source, std::vector<int> &Dist,
                          std::vector<int> &Frontier, std::vector<int> &Next,
                          std::vector<int> &InNext) {
  int Count = 1, Rounds = 0;
  Frontier[0] = Source;
  while (Count > 0) {
    int NextCount = 0;
    for (int I = 0; I < Count; ++I) {
      int U = Frontier[I], Du = Dist[U];
      for (int E = G.Offsets[U]; E < G.Offsets[U + 1]; ++E) {
        int To = G.Edges[E], Candidate = Du + G.Weights[E];
        if (Candidate < Dist[To]) {
          Dist[To] = Candidate;
          if (!InNext[To]) {
            InNext[To] = 1;
            Next[NextCount++] = To;
          }
        }
      }
    }
    for (int I = 0; I < NextCount; ++I)
      InNext[Next[I]] = 0;
    std::swap(Frontier, Next);
    Count = NextCount;
    ++Rounds;
  }
  return Rounds;
}
} // namespace

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  int Vertices = O.Small ? 20000 : int(500000 * O.Scale);
  Rng R(O.Seed);
  Graph G = randomGraph(Vertices, R, false);
  int Source = 0;
  size_t Room = size_t(G.edgeCount()) + 1;
  std::vector<int> RefDist(Vertices), Dist(Vertices), Frontier(Room), Next(Room),
      InNext(Vertices, 0);
  int State[1];
  auto ResetInto = [&](std::vector<int> &D) {
    std::fill(D.begin(), D.end(), Infinity);
    D[Source] = 0;
    std::fill(InNext.begin(), InNext.end(), 0);
  };
  int RefRounds = 0;
  double Seq = bestOf(
      O.Reps, [&] { ResetInto(RefDist); },
      [&] { RefRounds = bellmanFordSequential(G, Source, RefDist, Frontier, Next, InNext); });
  double Par = bestOf(
      O.Reps, [&] { ResetInto(Dist); },
      [&] {
        ispc::bellman_ford_par(G.Offsets.data(), G.Edges.data(), G.Weights.data(), Source,
                               Dist.data(), Frontier.data(), Next.data(), InNext.data(), State);
      });
  if (Dist != RefDist)
    return fail("bellman_ford", "PAR", "distances differ");
  double Crev = bestOf(
      O.Reps, [&] { ResetInto(Dist); },
      [&] {
        ispc::bellman_ford_crev(G.Offsets.data(), G.Edges.data(), G.Weights.data(), Source,
                                Dist.data(), Frontier.data(), Next.data(), InNext.data(), State);
      });
  if (Dist != RefDist)
    return fail("bellman_ford", "CREV", "distances differ");
  std::printf("  %d vertices, %d edges, %d sequential rounds\n", Vertices, G.edgeCount(),
              RefRounds);
  printResult("bellman_ford", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
