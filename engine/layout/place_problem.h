#pragma once
// Internal to the layout: phases 1 to 4 on one problem (a connected component, or the whole graph
// when nodes are pinned to coordinates), leaving the vertical placement and the edge polylines,
// which need every component, to layoutGraph().

#include <cstdint>
#include <optional>
#include <vector>

#include "layout/cancel_flag.h"
#include "layout/graph_layout.h"
#include "layout/layered_graph.h"
#include "layout/layout_problem.h"

namespace ampstudio::layout_detail {

struct PlacedProblem {
    LayeredGraph graph;     // layers, dummies and widths
    std::vector<double> x;  // centre per node of `graph`, dummies included
    uint64_t crossings = 0;
};

// Pinned x coordinates (any finite PinnedPlace::x) switch ordering and placement to the pinned
// variants. Returns nothing when cancelled.
std::optional<PlacedProblem> placeProblem(const LayoutProblem& problem, const LayoutOptions& options,
                                          const Spacing& spacing, CancelFlag& cancelled);

}  // namespace ampstudio::layout_detail
