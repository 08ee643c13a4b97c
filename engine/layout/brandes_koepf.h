#pragma once
// Internal to the layout, phase 4: horizontal coordinates after Brandes and Koepf ("Fast and Simple
// Horizontal Coordinate Assignment", 2001). Four times (aligning to the upper or lower neighbours,
// sweeping from the left or the right) each node is aligned with a median neighbour unless that
// edge crosses an edge between two dummies (so long edges win and run straight); the aligned
// blocks are compacted; the four results are balanced by taking the average of their two medians.
// Compaction here places the block graph by longest path and then pulls each block towards its
// right-hand neighbours (as dagre does), which avoids the class-shift step whose original
// formulation is known to be wrong in corner cases (Brandes, Walter, Zink, 2020).

#include <optional>
#include <vector>

#include "layout/cancel_flag.h"
#include "layout/layered_graph.h"

namespace ampstudio::layout_detail {

// Centre x per node (dummies included). Neighbours in a layer are at least Spacing::between apart.
// Returns nothing when cancelled.
std::optional<std::vector<double>> brandesKoepf(const LayeredGraph& graph, const LayerOrder& order,
                                                const Spacing& spacing, CancelFlag& cancelled);

}  // namespace ampstudio::layout_detail
