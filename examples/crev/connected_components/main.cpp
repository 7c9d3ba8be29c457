// Connected components benchmark: sequential label propagation, PAR and CREV, leaders checked
// exactly.
#include "../common/bench.h"
#include "../common/graph.h"
#include "connected_components.h"

#include <numeric>

using namespace crev;

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  int Vertices = O.Small ? 20000 : int(400000 * O.Scale);
  Rng R(O.Seed);
  // Sparse on purpose (many vertices of degree 1-2 after symmetrizing are
  // still joined), so there are several components and propagation takes sweeps.
  Graph G = randomGraph(Vertices, R, true);
  std::vector<int> Ref(Vertices), Labels(Vertices);
  auto ResetInto = [&](std::vector<int> &L) { std::iota(L.begin(), L.end(), 0); };
  int RefSweeps = 0;
  double Seq = bestOf(
      O.Reps, [&] { ResetInto(Ref); },
      [&] {
        bool Changed = true;
        RefSweeps = 0;
        while (Changed) {
          Changed = false;
          for (int V = 0; V < Vertices; ++V) {
            int Best = Ref[V];
            for (int E = G.Offsets[V]; E < G.Offsets[V + 1]; ++E)
              Best = std::min(Best, Ref[G.Edges[E]]);
            Best = std::min(Best, Ref[Best]);
            if (Best < Ref[V]) {
              Ref[V] = Best;
              Changed = true;
            }
          }
          ++RefSweeps;
        }
      });
  // The leaders must be the smallest id of each component: check the
  // reference itself with a breadth-first search before trusting it.
  {
    std::vector<int> Leader(Vertices, -1), Queue;
    for (int S = 0; S < Vertices; ++S) {
      if (Leader[S] >= 0)
        continue;
      Leader[S] = S;
      Queue.assign(1, S);
      for (size_t I = 0; I < Queue.size(); ++I)
        for (int E = G.Offsets[Queue[I]]; E < G.Offsets[Queue[I] + 1]; ++E)
          if (Leader[G.Edges[E]] < 0) {
            Leader[G.Edges[E]] = S;
            Queue.push_back(G.Edges[E]);
          }
    }
    if (Leader != Ref)
      return fail("connected_components", "sequential", "leaders differ from BFS");
  }
  double Par = bestOf(
      O.Reps, [&] { ResetInto(Labels); },
      [&] { ispc::components_par(G.Offsets.data(), G.Edges.data(), Vertices, Labels.data()); });
  if (Labels != Ref)
    return fail("connected_components", "PAR", "labels differ");
  double Crev = bestOf(
      O.Reps, [&] { ResetInto(Labels); },
      [&] { ispc::components_crev(G.Offsets.data(), G.Edges.data(), Vertices, Labels.data()); });
  if (Labels != Ref)
    return fail("connected_components", "CREV", "labels differ");
  std::printf("  %d vertices, %d edges, %d sequential sweeps\n", Vertices, G.edgeCount(),
              RefSweeps);
  printResult("connected_components", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
