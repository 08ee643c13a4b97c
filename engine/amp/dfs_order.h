#pragma once
// Internal to the conversion pass: NNVM's post-order DFS from the heads (inputs in order, then
// control dependencies), the order graph/reachableInDfsOrder() gives and MXNet's SaveJSON writes,
// computed on a compact adjacency (CSR: the edges of node n are edges[edgeBegin[n] .. edgeBegin[n+1])),
// so that the conversion can write each node once, directly in that order.

#include <vector>

#include "graph/graph.h"

namespace ampstudio::amp_detail {

// The reachable nodes in post-order. Iterative: a deep chain must not overflow the stack.
std::vector<NodeId> nnvmPostOrder(const std::vector<uint32_t>& edgeBegin, const std::vector<NodeId>& edges,
                                  const std::vector<NodeId>& heads);

}  // namespace ampstudio::amp_detail
