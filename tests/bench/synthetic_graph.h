#pragma once
// Seeded random DAGs shaped like real networks, for benchmarks and stress tests: mostly local
// connections with some long skips, every AMP list kind represented (target, FP32, widest,
// conditional FP32, neutral, unlisted), parameters as variables the way MXNet names them.

#include <cstdint>

#include "graph/graph.h"

namespace ampstudio::bench {

// About `nodes` nodes in all (variables included); the same seed gives the same graph.
Graph syntheticGraph(std::size_t nodes, uint64_t seed = 1);

// Issue 24's graphs with long edges: `opNodes` operators (plus their parameter variables), each
// reading one to three tensors chosen uniformly among the 64 most recent outputs, so the graph is
// wide and about a quarter of the outputs are read by nothing; one last add_n gathers every such
// tensor (as a loss sum or a detection head's concatenation does), so thousands of edges run from
// all over the graph to its bottom. The same seed gives the same graph.
Graph gatheringGraph(std::size_t opNodes, uint64_t seed = 1);

// The same graph with Gluon-style scoped names: operator k (and its parameters) is named
// "block<k/1000>_unit<k/50 % 20>_<name>", so grouping by scope shows one box per block of 1,000
// operators, twenty units inside each.
Graph scopedGatheringGraph(std::size_t opNodes, uint64_t seed = 1);

}  // namespace ampstudio::bench
