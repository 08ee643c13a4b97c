#include "layout/crossing_reduction.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "layout/crossing_count.h"

namespace ampstudio::layout_detail {
namespace {

constexpr int kMaxTransposePasses = 16;

// Real nodes by input index; a dummy right after its edge's source (MXNet files list nodes in a
// depth-first topological order, so this is already a reasonable picture).
LayerOrder inputOrder(const LayeredGraph& graph) {
    struct Key {
        uint32_t layer, anchor, tiebreak, node;
        bool operator<(const Key& o) const {
            return std::tie(layer, anchor, tiebreak) < std::tie(o.layer, o.anchor, o.tiebreak);
        }
    };
    const uint32_t n = graph.nodeCount();
    std::vector<Key> keys;
    keys.reserve(n);
    for (uint32_t v = 0; v < n; ++v) {
        if (graph.isDummy(v)) {
            const uint32_t edge = graph.dummyEdge[v - graph.realCount];
            keys.push_back({graph.layerOf[v], graph.edges[edge].first, 1 + edge, v});
        } else {
            keys.push_back({graph.layerOf[v], v, 0, v});
        }
    }
    std::sort(keys.begin(), keys.end());
    LayerOrder order;
    order.layers.resize(graph.layerCount);
    order.pos.resize(n);
    for (const Key& key : keys) {
        order.pos[key.node] = static_cast<uint32_t>(order.layers[key.layer].size());
        order.layers[key.layer].push_back(key.node);
    }
    return order;
}

// Nodes enter their layer in the order a depth-first walk over edges in both directions meets them,
// so the neighbourhood of a node tends to be contiguous: a different start for the sweeps.
LayerOrder depthFirstOrder(const LayeredGraph& graph) {
    const uint32_t n = graph.nodeCount();
    LayerOrder order;
    order.layers.resize(graph.layerCount);
    order.pos.resize(n);
    std::vector<uint8_t> visited(n, 0);
    std::vector<uint32_t> stack;
    for (uint32_t start = 0; start < graph.realCount; ++start) {
        stack.push_back(start);
        while (!stack.empty()) {
            const uint32_t v = stack.back();
            stack.pop_back();
            if (visited[v]) {
                continue;
            }
            visited[v] = 1;
            order.pos[v] = static_cast<uint32_t>(order.layers[graph.layerOf[v]].size());
            order.layers[graph.layerOf[v]].push_back(v);
            // Pushed in reverse so that the first neighbour is walked first; downward edges first.
            const auto up = graph.upper.of(v);
            for (auto it = up.rbegin(); it != up.rend(); ++it) {
                if (!visited[it->node]) {
                    stack.push_back(it->node);
                }
            }
            const auto down = graph.lower.of(v);
            for (auto it = down.rbegin(); it != down.rend(); ++it) {
                if (!visited[it->node]) {
                    stack.push_back(it->node);
                }
            }
        }
    }
    return order;
}

struct Keyed {
    double key;
    uint32_t index;  // the current position: ties keep the current order
    uint32_t node;
    bool operator<(const Keyed& o) const { return key < o.key || (key == o.key && index < o.index); }
};

// Scratch for the sweeps, sized once per node of the layered graph.
struct SweepScratch {
    std::vector<Keyed> keyed;
    std::vector<double> key;          // this layer's barycenters, NaN where there is none
    std::vector<double> siblingMean;  // per node of the next layer: the mean key of its neighbours here
    std::vector<uint32_t> stamp;      // which layer siblingMean[c] was computed for, plus one
    std::vector<std::pair<uint32_t, double>> inferred;  // keys taken from siblings
};

// One barycenter sweep: each layer ordered by the mean position of its neighbours in the layer just
// fixed. The textbook rule leaves a node with no neighbour there where it is. fromSiblings instead
// gives it the mean key of its siblings, the nodes that share a neighbour on the other side with it:
// a parameter variable in a downward sweep then lands next to the operator input it joins instead
// of staying wherever it happened to be (half the nodes of an MXNet graph are such variables). Nodes
// still without a key keep their place and the others are sorted into the remaining places.
void barycenterSweep(const LayeredGraph& graph, LayerOrder& order, bool downward, bool fromSiblings,
                     SweepScratch& scratch) {
    const Adjacency& fixedSide = downward ? graph.upper : graph.lower;
    const Adjacency& otherSide = downward ? graph.lower : graph.upper;
    const auto layerCount = static_cast<uint32_t>(order.layers.size());
    scratch.key.resize(graph.nodeCount());
    scratch.siblingMean.resize(graph.nodeCount());
    scratch.stamp.assign(graph.nodeCount(), 0);
    for (uint32_t step = 1; step < layerCount; ++step) {
        const uint32_t layer = downward ? step : layerCount - 1 - step;
        std::vector<uint32_t>& nodes = order.layers[layer];
        bool someWithout = false;
        for (const uint32_t v : nodes) {
            const auto neighbours = fixedSide.of(v);
            double sum = 0;
            for (const Adjacency::Entry& u : neighbours) {
                sum += order.pos[u.node];
            }
            scratch.key[v] = neighbours.empty() ? std::nan("") : sum / static_cast<double>(neighbours.size());
            someWithout = someWithout || neighbours.empty();
        }
        if (someWithout && fromSiblings) {
            scratch.inferred.clear();
            for (const uint32_t v : nodes) {
                if (!std::isnan(scratch.key[v])) {
                    continue;
                }
                double sum = 0;
                int count = 0;
                for (const Adjacency::Entry& c : otherSide.of(v)) {
                    if (scratch.stamp[c.node] != layer + 1) {  // each sibling group once per layer
                        scratch.stamp[c.node] = layer + 1;
                        double siblingSum = 0;
                        int siblings = 0;
                        for (const Adjacency::Entry& sibling : fixedSide.of(c.node)) {
                            if (!std::isnan(scratch.key[sibling.node])) {
                                siblingSum += scratch.key[sibling.node];
                                ++siblings;
                            }
                        }
                        scratch.siblingMean[c.node] = siblings > 0 ? siblingSum / siblings : std::nan("");
                    }
                    if (!std::isnan(scratch.siblingMean[c.node])) {
                        sum += scratch.siblingMean[c.node];
                        ++count;
                    }
                }
                if (count > 0) {
                    scratch.inferred.emplace_back(v, sum / count);
                }
            }
            for (const auto& [v, key] : scratch.inferred) {  // only now: siblings count by their own edges
                scratch.key[v] = key;
            }
        }
        scratch.keyed.clear();
        for (uint32_t i = 0; i < nodes.size(); ++i) {
            if (!std::isnan(scratch.key[nodes[i]])) {
                scratch.keyed.push_back({scratch.key[nodes[i]], i, nodes[i]});
            }
        }
        std::sort(scratch.keyed.begin(), scratch.keyed.end());
        std::size_t next = 0;
        for (uint32_t& slot : nodes) {
            if (!std::isnan(scratch.key[slot])) {
                slot = scratch.keyed[next++].node;
            }
        }
        order.updatePositions(layer);
    }
}

// `sweeps` sweeps from `start`, down first. With keepBest, the best order seen (the start included),
// else the last one, as PlainBarycenter defines it.
// Reports progress from `shareFrom` to `shareTo` of the ordering phase, a step per sweep.
std::optional<Ordering> runSweeps(const LayeredGraph& graph, LayerOrder start, int sweeps, bool keepBest,
                                  bool fromSiblings, CrossingCounter& counter, CancelFlag& cancelled,
                                  double shareFrom = 0, double shareTo = 1) {
    Ordering best{start, counter.total(graph, start)};
    LayerOrder current = std::move(start);
    uint64_t crossings = best.crossings;
    SweepScratch scratch;
    for (int sweep = 0; sweep < sweeps && (crossings > 0 || !keepBest); ++sweep) {
        if (cancelled()) {
            return std::nullopt;
        }
        barycenterSweep(graph, current, sweep % 2 == 0, fromSiblings, scratch);
        crossings = counter.total(graph, current);
        cancelled.report(shareFrom + (shareTo - shareFrom) * (sweep + 1) / sweeps);
        if (keepBest && crossings < best.crossings) {
            best = {current, crossings};
        }
    }
    if (!keepBest) {
        best = {std::move(current), crossings};
    }
    return best;
}

// Positions of v's neighbours on one side, ascending.
void sortedNeighbourPositions(const Adjacency& side, const LayerOrder& order, uint32_t v,
                              std::vector<uint32_t>& out) {
    out.clear();
    for (const Adjacency::Entry& u : side.of(v)) {
        out.push_back(order.pos[u.node]);
    }
    std::sort(out.begin(), out.end());
}

// Swaps neighbours u, v (u left) while that removes crossings with either adjacent layer. Each swap
// strictly lowers the total, so the passes end; a node in `fixed` never passes another fixed node.
bool transpose(const LayeredGraph& graph, LayerOrder& order, std::span<const uint8_t> fixed,
               CancelFlag& cancelled) {
    std::vector<uint32_t> a, b;
    for (int pass = 0; pass < kMaxTransposePasses; ++pass) {
        if (cancelled()) {
            return false;
        }
        bool improved = false;
        for (std::vector<uint32_t>& nodes : order.layers) {
            for (std::size_t i = 0; i + 1 < nodes.size(); ++i) {
                const uint32_t u = nodes[i];
                const uint32_t v = nodes[i + 1];
                if (!fixed.empty() && fixed[u] && fixed[v]) {
                    continue;
                }
                uint64_t asIs = 0, swapped = 0;
                for (const Adjacency* side : {&graph.upper, &graph.lower}) {
                    if (side->degree(u) == 0 || side->degree(v) == 0) {
                        continue;
                    }
                    sortedNeighbourPositions(*side, order, u, a);
                    sortedNeighbourPositions(*side, order, v, b);
                    std::size_t below = 0, atOrBelow = 0;
                    for (const uint32_t p : a) {
                        while (below < b.size() && b[below] < p) {
                            ++below;
                        }
                        while (atOrBelow < b.size() && b[atOrBelow] <= p) {
                            ++atOrBelow;
                        }
                        asIs += below;                    // u's edge ends right of v's: they cross
                        swapped += b.size() - atOrBelow;  // after the swap, the others do
                    }
                }
                if (swapped < asIs) {
                    std::swap(nodes[i], nodes[i + 1]);
                    order.pos[u] = static_cast<uint32_t>(i + 1);
                    order.pos[v] = static_cast<uint32_t>(i);
                    improved = true;
                }
            }
        }
        if (!improved) {
            break;
        }
    }
    return true;
}

}  // namespace

std::optional<Ordering> orderLayers(const LayeredGraph& graph, CrossingReduction method, int sweeps,
                                    CancelFlag& cancelled) {
    CrossingCounter counter;
    sweeps = std::max(sweeps, 0);
    switch (method) {
        case CrossingReduction::None: {
            LayerOrder order = inputOrder(graph);
            const uint64_t crossings = counter.total(graph, order);
            return Ordering{std::move(order), crossings};
        }
        case CrossingReduction::PlainBarycenter:
            return runSweeps(graph, inputOrder(graph), sweeps, false, false, counter, cancelled);
        case CrossingReduction::Full:
            break;
    }
    std::optional<Ordering> best =
        runSweeps(graph, inputOrder(graph), sweeps, true, false, counter, cancelled, 0, 0.45);
    if (!best) {
        return std::nullopt;
    }
    if (best->crossings > 0) {
        std::optional<Ordering> other =
            runSweeps(graph, depthFirstOrder(graph), sweeps, true, true, counter, cancelled, 0.45, 0.9);
        if (!other) {
            return std::nullopt;
        }
        if (other->crossings < best->crossings) {
            best = std::move(other);
        }
    }
    if (best->crossings > 0) {
        if (!transpose(graph, best->order, {}, cancelled)) {
            return std::nullopt;
        }
        best->crossings = counter.total(graph, best->order);
    }
    cancelled.report(1);
    return best;
}

std::optional<Ordering> orderLayersNearPins(const LayeredGraph& graph, std::span<const double> pinnedX,
                                            int sweeps, CancelFlag& cancelled, std::vector<double>& keys) {
    const uint32_t n = graph.nodeCount();
    std::vector<uint8_t> fixed(n, 0);
    keys.assign(n, std::nan(""));
    for (uint32_t v = 0; v < graph.realCount; ++v) {
        if (std::isfinite(pinnedX[v])) {
            fixed[v] = 1;
            keys[v] = pinnedX[v];
        }
    }
    // Unpinned nodes start at the mean of their known neighbours above, else below; the rest to the
    // right of everything, in index order.
    LayerOrder order;
    order.layers.resize(graph.layerCount);
    order.pos.resize(n);
    for (uint32_t v = 0; v < n; ++v) {
        order.layers[graph.layerOf[v]].push_back(v);
    }
    auto meanKnownKey = [&](const Adjacency& side, uint32_t v) {
        double sum = 0;
        int known = 0;
        for (const Adjacency::Entry& u : side.of(v)) {
            if (!std::isnan(keys[u.node])) {
                sum += keys[u.node];
                ++known;
            }
        }
        return known > 0 ? sum / known : std::nan("");
    };
    for (const std::vector<uint32_t>& nodes : order.layers) {
        for (const uint32_t v : nodes) {
            if (!fixed[v]) {
                keys[v] = meanKnownKey(graph.upper, v);
            }
        }
    }
    for (auto layer = order.layers.rbegin(); layer != order.layers.rend(); ++layer) {
        for (const uint32_t v : *layer) {
            if (std::isnan(keys[v])) {
                keys[v] = meanKnownKey(graph.lower, v);
            }
        }
    }
    double right = 0;
    for (const double key : keys) {
        if (!std::isnan(key)) {
            right = std::max(right, key);
        }
    }
    for (double& key : keys) {
        if (std::isnan(key)) {
            key = right += 1;
        }
    }

    std::vector<Keyed> keyed;
    auto sortByKeys = [&](uint32_t layer) {
        std::vector<uint32_t>& nodes = order.layers[layer];
        keyed.clear();
        for (uint32_t i = 0; i < nodes.size(); ++i) {
            keyed.push_back({keys[nodes[i]], i, nodes[i]});
        }
        std::sort(keyed.begin(), keyed.end());
        for (uint32_t i = 0; i < nodes.size(); ++i) {
            nodes[i] = keyed[i].node;
        }
        order.updatePositions(layer);
    };
    for (uint32_t layer = 0; layer < graph.layerCount; ++layer) {
        sortByKeys(layer);
    }

    CrossingCounter counter;
    Ordering best{order, counter.total(graph, order)};
    std::vector<double> bestKeys = keys;
    for (int sweep = 0; sweep < sweeps && best.crossings > 0; ++sweep) {
        if (cancelled()) {
            return std::nullopt;
        }
        cancelled.report(static_cast<double>(sweep) / sweeps);
        const bool downward = sweep % 2 == 0;
        const Adjacency& fixedSide = downward ? graph.upper : graph.lower;
        for (uint32_t step = 1; step < graph.layerCount; ++step) {
            const uint32_t layer = downward ? step : graph.layerCount - 1 - step;
            for (const uint32_t v : order.layers[layer]) {
                if (!fixed[v] && fixedSide.degree(v) > 0) {
                    keys[v] = meanKnownKey(fixedSide, v);
                }
            }
            sortByKeys(layer);
        }
        const uint64_t crossings = counter.total(graph, order);
        if (crossings < best.crossings) {
            best = {order, crossings};
            bestKeys = keys;
        }
    }
    keys = std::move(bestKeys);
    if (best.crossings > 0) {
        if (!transpose(graph, best.order, fixed, cancelled)) {
            return std::nullopt;
        }
        best.crossings = counter.total(graph, best.order);
    }
    return best;
}

}  // namespace ampstudio::layout_detail
