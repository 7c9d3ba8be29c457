// Graph traversal benchmark: sequential DFS, PAR (lane walks its list) and CREV, checked exactly.
#include "../common/bench.h"
#include "../common/graph.h"
#include "dfs.h"

using namespace crev;

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  int Vertices = O.Small ? 20000 : int(2000000 * O.Scale);
  Rng R(O.Seed);
  Graph G = randomGraph(Vertices, R, false);
  int Root = 0;
  std::vector<int> RefVisited(Vertices), Visited(Vertices);
  std::vector<float> RefF(Vertices), F(Vertices);
  std::vector<int> Stack(G.edgeCount() + Vertices + 64);
  auto Reset = [&] {
    std::fill(Visited.begin(), Visited.end(), 0);
    std::fill(F.begin(), F.end(), -1.0f);
  };
  double Seq = bestOf(
      O.Reps,
      [&] {
        std::fill(RefVisited.begin(), RefVisited.end(), 0);
        std::fill(RefF.begin(), RefF.end(), -1.0f);
      },
      [&] {
        int Top = 0;
        RefVisited[Root] = 1;
        Stack[Top++] = Root;
        while (Top > 0) {
          int V = Stack[--Top];
          int Begin = G.Offsets[V], End = G.Offsets[V + 1];
          RefF[V] = float(End - Begin) / float(Vertices);
          for (int E = Begin; E < End; ++E) {
            int Child = G.Edges[E];
            if (!RefVisited[Child]) {
              RefVisited[Child] = 1;
              Stack[Top++] = Child;
            }
          }
        }
      });
  auto Check = [&](const char *Version) {
    if (Visited != RefVisited)
      return fail("dfs", Version, "visited set differs");
    if (F != RefF)
      return fail("dfs", Version, "scores differ");
    return 0;
  };
  int State[1];
  double Par = bestOf(O.Reps, Reset, [&] {
    ispc::dfs_par(G.Offsets.data(), G.Edges.data(), Vertices, Root, Visited.data(), F.data(),
                  Stack.data(), State);
  });
  if (int Rc = Check("PAR"))
    return Rc;
  double Crev = bestOf(O.Reps, Reset, [&] {
    ispc::dfs_crev(G.Offsets.data(), G.Edges.data(), Vertices, Root, Visited.data(), F.data(),
                   Stack.data(), State);
  });
  if (int Rc = Check("CREV"))
    return Rc;
  long Reached = 0;
  for (int V : RefVisited)
    Reached += V;
  std::printf("  %d vertices, %d edges, %ld reached\n", Vertices, G.edgeCount(), Reached);
  printResult("dfs", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
