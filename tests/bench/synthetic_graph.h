#pragma once
// Seeded random DAGs shaped like real networks, for benchmarks and stress tests: mostly local
// connections with some long skips, every AMP list kind represented (target, FP32, widest,
// conditional FP32, neutral, unlisted), parameters as variables the way MXNet names them.

#include <cstdint>

#include "graph/graph.h"

namespace ampstudio::bench {

// About `nodes` nodes in all (variables included); the same seed gives the same graph.
Graph syntheticGraph(std::size_t nodes, uint64_t seed = 1);

}  // namespace ampstudio::bench
