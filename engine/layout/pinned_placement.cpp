#include "layout/pinned_placement.h"

#include <algorithm>
#include <cmath>

namespace ampstudio::layout_detail {
namespace {

constexpr double kPinnedWeight = 1.0;
constexpr double kFreeWeight = 0.01;

struct Pool {
    double weight = 0;
    double weightedSum = 0;
    std::size_t count = 0;
    double mean() const { return weightedSum / weight; }
};

}  // namespace

std::vector<double> placeNearPins(const LayeredGraph& graph, const LayerOrder& order, const Spacing& spacing,
                                  std::span<const double> pinnedX, std::span<const double> keys) {
    std::vector<double> x(graph.nodeCount(), 0.0);
    std::vector<double> offset, target, weight;
    std::vector<Pool> pools;
    for (const std::vector<uint32_t>& nodes : order.layers) {
        const std::size_t n = nodes.size();
        offset.assign(n, 0.0);
        target.assign(n, 0.0);
        weight.assign(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const uint32_t v = nodes[i];
            if (i > 0) {
                offset[i] = offset[i - 1] + spacing.between(graph, nodes[i - 1], v);
            }
            if (!graph.isDummy(v) && std::isfinite(pinnedX[v])) {
                target[i] = pinnedX[v];
                weight[i] = kPinnedWeight;
            } else {
                const auto above = graph.upper.of(v);
                double sum = 0;
                for (const Adjacency::Entry& u : above) {
                    sum += x[u.node];  // the layer above is placed already
                }
                target[i] = above.empty() ? keys[v] : sum / static_cast<double>(above.size());
                weight[i] = kFreeWeight;
            }
        }
        // Pool adjacent violators on y = x - offset, which must not decrease.
        pools.clear();
        for (std::size_t i = 0; i < n; ++i) {
            Pool pool{weight[i], weight[i] * (target[i] - offset[i]), 1};
            while (!pools.empty() && pools.back().mean() >= pool.mean()) {
                pool.weight += pools.back().weight;
                pool.weightedSum += pools.back().weightedSum;
                pool.count += pools.back().count;
                pools.pop_back();
            }
            pools.push_back(pool);
        }
        std::size_t i = 0;
        for (const Pool& pool : pools) {
            const double y = pool.mean();
            for (std::size_t k = 0; k < pool.count; ++k, ++i) {
                x[nodes[i]] = y + offset[i];
            }
        }
        // Rounding in the pooled means can shave a hair off the spacing; restore it exactly.
        for (std::size_t k = 1; k < n; ++k) {
            x[nodes[k]] =
                std::max(x[nodes[k]], x[nodes[k - 1]] + spacing.between(graph, nodes[k - 1], nodes[k]));
        }
    }
    return x;
}

}  // namespace ampstudio::layout_detail
