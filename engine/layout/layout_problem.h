#pragma once
// Internal to the layout: what the phases work on, after layoutGraph() has checked the input,
// collapsed parallel edges, dropped self-loops and turned cycle-closing edges around.

#include <cstdint>
#include <span>
#include <utility>

#include "layout/graph_layout.h"

namespace ampstudio::layout_detail {

struct LayoutProblem {
    std::span<const NodeSize> sizes;  // finite, non-negative
    // Unique, no self-loops, acyclic; the first node of each pair is drawn above the second.
    std::span<const std::pair<uint32_t, uint32_t>> edges;
    std::span<const PinnedPlace> pins;  // empty, or one per node
};

}  // namespace ampstudio::layout_detail
