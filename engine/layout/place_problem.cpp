#include "layout/place_problem.h"

#include <cmath>

#include "layout/brandes_koepf.h"
#include "layout/crossing_reduction.h"
#include "layout/pinned_placement.h"
#include "layout/ranking.h"

namespace ampstudio::layout_detail {

std::optional<PlacedProblem> placeProblem(const LayoutProblem& problem, const LayoutOptions& options,
                                          const Spacing& spacing, CancelFlag& cancelled) {
    if (cancelled()) {
        return std::nullopt;
    }
    // Progress windows by the phases' usual share of the time.
    cancelled.setPhase(0, 0.05);
    const std::vector<uint32_t> layers = assignLayers(problem);
    if (cancelled()) {
        return std::nullopt;
    }
    cancelled.setPhase(0.05, 0.1);
    PlacedProblem placed{buildLayeredGraph(problem, layers), {}, 0};
    if (cancelled()) {
        return std::nullopt;
    }

    std::vector<double> pinnedX;
    bool anyPinnedX = false;
    if (!problem.pins.empty()) {
        pinnedX.resize(problem.pins.size());
        for (std::size_t v = 0; v < pinnedX.size(); ++v) {
            pinnedX[v] = problem.pins[v].x;
            anyPinnedX = anyPinnedX || std::isfinite(pinnedX[v]);
        }
    }

    cancelled.setPhase(0.1, 0.8);
    std::optional<Ordering> ordering;
    std::vector<double> keys;
    if (anyPinnedX) {
        ordering = orderLayersNearPins(placed.graph, pinnedX, options.sweeps, cancelled, keys);
    } else {
        ordering = orderLayers(placed.graph, options.crossingReduction, options.sweeps, cancelled);
    }
    if (!ordering || cancelled()) {
        return std::nullopt;
    }
    placed.crossings = ordering->crossings;
    cancelled.setPhase(0.8, 1.0);
    if (anyPinnedX) {
        placed.x = placeNearPins(placed.graph, ordering->order, spacing, pinnedX, keys);
    } else {
        std::optional<std::vector<double>> x =
            brandesKoepf(placed.graph, ordering->order, spacing, cancelled);
        if (!x) {
            return std::nullopt;
        }
        placed.x = std::move(*x);
    }
    cancelled.report(1);
    return placed;
}

}  // namespace ampstudio::layout_detail
