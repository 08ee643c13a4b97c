#pragma once
// Internal to the layout, phase 3: the left-to-right order within each layer, chosen to cross few
// edges. Layered crossing minimisation is NP-hard even for two layers, so this is the usual
// heuristic: barycenter sweeps, alternately downwards (each layer ordered by the mean position of its
// upper neighbours) and upwards, a fixed number of times, keeping the best order seen; then adjacent
// swaps that each remove crossings (Gansner et al.'s "transpose").

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "layout/cancel_flag.h"
#include "layout/graph_layout.h"
#include "layout/layered_graph.h"

namespace ampstudio::layout_detail {

struct Ordering {
    LayerOrder order;
    uint64_t crossings = 0;
};

// Full runs the plain barycenter sweeps from the input order and, separately, sweeps that also
// place nodes without neighbours on the fixed side by their siblings, from a depth-first order; it
// keeps the best order of both runs (so it is never worse than PlainBarycenter) and transposes it.
// Returns nothing when cancelled.
std::optional<Ordering> orderLayers(const LayeredGraph& graph, CrossingReduction method, int sweeps,
                                    CancelFlag& cancelled);

// For layouts that follow pinned x coordinates: the sweeps order by x-like keys instead of by
// positions. A real node with a pinned x has that as its fixed key, so pinned nodes always keep
// their order by x; the others take the mean key of their neighbours in the layer just fixed.
// `keys` receives the final key of every node (an x to aim for). Returns nothing when cancelled.
std::optional<Ordering> orderLayersNearPins(const LayeredGraph& graph, std::span<const double> pinnedX,
                                            int sweeps, CancelFlag& cancelled, std::vector<double>& keys);

}  // namespace ampstudio::layout_detail
