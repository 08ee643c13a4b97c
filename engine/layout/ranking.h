#pragma once
// Internal to the layout, phase 1: which layer each node goes on.

#include <cstdint>
#include <vector>

#include "layout/adjacency.h"
#include "layout/layout_problem.h"

namespace ampstudio::layout_detail {

// Kahn's algorithm, first in first out. When every remaining node still waits for an input (only in a
// cycle) the remaining node with the smallest index goes next, so the order always has every node;
// an edge that then points backwards in the order is one that closes a cycle.
std::vector<uint32_t> topologicalOrder(const Adjacency& successors, const Adjacency& predecessors);

// Longest path from the sources (at least each node's pinned layer), then, bottom up, nodes with
// more edges going down than up, sources, and chains hanging from a source alone (a parameter and
// the cast that reads it) are pulled down to just above their highest successor: without that,
// every parameter variable of an MXNet graph would sit on layer 0, far above the operator that
// reads it. Layers start at 0.
std::vector<uint32_t> assignLayers(const LayoutProblem& problem);

}  // namespace ampstudio::layout_detail
