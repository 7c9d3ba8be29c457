// Random graphs in compressed sparse row form for the CREV graph benchmarks, on the CPU
// (examples/crev/*/main.cpp) and on the GPU (examples/crev/gpu/inputs.h).
#pragma once

#include "rng.h"

#include <vector>

namespace crev {

/// Out-edges of vertex v are Edges[Offsets[v] .. Offsets[v + 1]).
struct Graph {
  int Vertices = 0;
  std::vector<int> Offsets, Edges, Weights;
  int edgeCount() const { return int(Edges.size()); }
};

/// Degrees are skewed on purpose (most vertices have a handful of edges, one in
/// ten has dozens to hundreds): that is the divergence a lane-per-vertex loop
/// suffers from and crev removes. Targets are uniform (Erdos-Renyi-like).
/// With `Symmetric`, every edge is also added in the other direction.
inline Graph randomGraph(int Vertices, Rng &R, bool Symmetric) {
  std::vector<std::vector<int>> Adj(Vertices);
  for (int V = 0; V < Vertices; ++V) {
    int Degree = R.below(10) == 0 ? 16 + int(R.below(240)) : 1 + int(R.below(8));
    for (int D = 0; D < Degree; ++D) {
      int To = int(R.below(unsigned(Vertices)));
      Adj[V].push_back(To);
      if (Symmetric)
        Adj[To].push_back(V);
    }
  }
  Graph G;
  G.Vertices = Vertices;
  G.Offsets.resize(Vertices + 1);
  for (int V = 0; V < Vertices; ++V) {
    G.Offsets[V] = int(G.Edges.size());
    G.Edges.insert(G.Edges.end(), Adj[V].begin(), Adj[V].end());
  }
  G.Offsets[Vertices] = int(G.Edges.size());
  G.Weights.resize(G.Edges.size());
  for (auto &W : G.Weights)
    W = 1 + int(R.below(100));
  return G;
}

} // namespace crev
