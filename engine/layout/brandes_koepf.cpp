#include "layout/brandes_koepf.h"

#include <algorithm>
#include <array>
#include <limits>

#include "layout/ranking.h"

namespace ampstudio::layout_detail {
namespace {

enum class Vertical { AlignUp, AlignDown };          // align with upper / lower neighbours
enum class Horizontal { LeftToRight, RightToLeft };  // which side the compaction packs towards

// The adjacency with each node's neighbours sorted by their position, as the median step needs.
Adjacency sortedByPosition(const Adjacency& adjacency, const LayerOrder& order) {
    Adjacency sorted = adjacency;
    for (uint32_t v = 0; v + 1 < sorted.offsets.size(); ++v) {
        auto neighbours = sorted.of(v);
        std::sort(neighbours.begin(), neighbours.end(),
                  [&](const Adjacency::Entry& a, const Adjacency::Entry& b) {
                      return order.pos[a.node] < order.pos[b.node];
                  });
    }
    return sorted;
}

// Type 1 conflicts: a segment with a real end that crosses an inner segment (both ends dummies).
// Marked segments are never aligned, so the long edge keeps its straight line.
std::vector<uint8_t> markType1Conflicts(const LayeredGraph& graph, const LayerOrder& order,
                                        const Adjacency& upperSorted) {
    std::vector<uint8_t> marked(graph.segmentCount, 0);
    for (uint32_t layer = 0; layer + 1 < order.layers.size(); ++layer) {
        const std::vector<uint32_t>& lower = order.layers[layer + 1];
        const auto upperSize = static_cast<int64_t>(order.layers[layer].size());
        int64_t leftBound = 0;  // k0 of the paper: the upper end of the previous inner segment
        std::size_t scanned = 0;
        for (std::size_t i = 0; i < lower.size(); ++i) {
            const uint32_t v = lower[i];
            int64_t innerUpper = -1;
            if (graph.isDummy(v)) {  // a dummy has at most one dummy above it (a trunk's may have more)
                for (const Adjacency::Entry& up : graph.upper.of(v)) {
                    if (graph.isDummy(up.node)) {
                        innerUpper = order.pos[up.node];
                    }
                }
            }
            if (i + 1 != lower.size() && innerUpper < 0) {
                continue;
            }
            const int64_t rightBound = innerUpper >= 0 ? innerUpper : upperSize - 1;
            for (; scanned <= i; ++scanned) {
                const uint32_t w = lower[scanned];
                for (const Adjacency::Entry& up : upperSorted.of(w)) {
                    const int64_t k = order.pos[up.node];
                    const bool inner = graph.isDummy(w) && graph.isDummy(up.node);
                    if ((k < leftBound || k > rightBound) && !inner) {
                        marked[up.edge] = 1;
                    }
                }
            }
            leftBound = rightBound;
        }
    }
    return marked;
}

// One of the four candidate layouts, as centre x per node.
std::vector<double> alignAndCompact(const LayeredGraph& graph, const LayerOrder& order,
                                    const Spacing& spacing, const Adjacency& upperSorted,
                                    const Adjacency& lowerSorted, const std::vector<uint8_t>& marked,
                                    Vertical vertical, Horizontal horizontal) {
    const uint32_t n = graph.nodeCount();
    const auto layerCount = static_cast<uint32_t>(order.layers.size());
    const bool leftToRight = horizontal == Horizontal::LeftToRight;
    auto hpos = [&](uint32_t v) -> int64_t {
        return leftToRight ? order.pos[v]
                           : static_cast<int64_t>(order.layers[graph.layerOf[v]].size()) - 1 - order.pos[v];
    };
    auto nodeAt = [&](const std::vector<uint32_t>& nodes, std::size_t k) {
        return leftToRight ? nodes[k] : nodes[nodes.size() - 1 - k];
    };

    // Vertical alignment: blocks are chains root -> align[root] -> ... -> root.
    std::vector<uint32_t> root(n), align(n);
    for (uint32_t v = 0; v < n; ++v) {
        root[v] = align[v] = v;
    }
    const Adjacency& towards = vertical == Vertical::AlignUp ? upperSorted : lowerSorted;
    for (uint32_t step = 1; step < layerCount; ++step) {
        const uint32_t layer = vertical == Vertical::AlignUp ? step : layerCount - 1 - step;
        const std::vector<uint32_t>& nodes = order.layers[layer];
        int64_t taken = -1;  // r of the paper: alignments in this layer must not cross
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            const uint32_t v = nodeAt(nodes, k);
            auto neighbours = towards.of(v);
            if (graph.isDummy(v) && neighbours.size() > 1) {
                // A trunk dummy, joined by edges from real nodes: it aligns with the trunk's next
                // dummy, so the trunk stays one straight line.
                for (std::size_t k = 0; k < neighbours.size(); ++k) {
                    if (graph.isDummy(neighbours[k].node)) {
                        neighbours = neighbours.subspan(k, 1);
                        break;
                    }
                }
            }
            const std::size_t d = neighbours.size();
            if (d == 0) {
                continue;
            }
            for (const std::size_t m : {(d - 1) / 2, d / 2}) {
                if (align[v] != v) {
                    break;
                }
                const Adjacency::Entry& median = neighbours[leftToRight ? m : d - 1 - m];
                const int64_t p = hpos(median.node);
                if (!marked[median.edge] && taken < p) {
                    align[median.node] = v;
                    root[v] = root[median.node];
                    align[v] = root[v];
                    taken = p;
                }
            }
        }
    }

    // The block graph: an edge from the block of each node's predecessor in sweep order to the
    // block of the node, weighted by the room the two need.
    std::vector<std::pair<uint32_t, uint32_t>> blockEdges;
    std::vector<double> weights;
    for (const std::vector<uint32_t>& nodes : order.layers) {
        for (std::size_t k = 1; k < nodes.size(); ++k) {
            const uint32_t left = nodeAt(nodes, k - 1);
            const uint32_t right = nodeAt(nodes, k);
            blockEdges.emplace_back(root[left], root[right]);
            weights.push_back(spacing.between(graph, left, right));
        }
    }
    const Adjacency successors = buildAdjacency(n, blockEdges, Direction::Successors);
    const Adjacency predecessors = buildAdjacency(n, blockEdges, Direction::Predecessors);
    // Non-crossing alignments make the block graph acyclic; topologicalOrder() would survive a cycle.
    const std::vector<uint32_t> blocks = topologicalOrder(successors, predecessors);

    std::vector<double> x(n, 0.0);
    for (const uint32_t b : blocks) {  // as far left as the predecessors allow
        for (const Adjacency::Entry& next : successors.of(b)) {
            x[next.node] = std::max(x[next.node], x[b] + weights[next.edge]);
        }
    }
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {  // then towards the right-hand blocks
        const uint32_t b = *it;
        if (successors.degree(b) == 0) {
            continue;
        }
        double room = std::numeric_limits<double>::infinity();
        for (const Adjacency::Entry& next : successors.of(b)) {
            room = std::min(room, x[next.node] - weights[next.edge]);
        }
        x[b] = std::max(x[b], room);
    }
    std::vector<double> result(n);
    for (uint32_t v = 0; v < n; ++v) {
        result[v] = leftToRight ? x[root[v]] : -x[root[v]];
    }
    return result;
}

}  // namespace

std::optional<std::vector<double>> brandesKoepf(const LayeredGraph& graph, const LayerOrder& order,
                                                const Spacing& spacing, CancelFlag& cancelled) {
    const uint32_t n = graph.nodeCount();
    const Adjacency upperSorted = sortedByPosition(graph.upper, order);
    const Adjacency lowerSorted = sortedByPosition(graph.lower, order);
    const std::vector<uint8_t> marked = markType1Conflicts(graph, order, upperSorted);

    constexpr std::array<std::pair<Vertical, Horizontal>, 4> kRuns{{
        {Vertical::AlignUp, Horizontal::LeftToRight},
        {Vertical::AlignUp, Horizontal::RightToLeft},
        {Vertical::AlignDown, Horizontal::LeftToRight},
        {Vertical::AlignDown, Horizontal::RightToLeft},
    }};
    std::array<std::vector<double>, 4> candidates;
    std::array<double, 4> left{}, right{};
    for (std::size_t c = 0; c < kRuns.size(); ++c) {
        if (cancelled()) {
            return std::nullopt;
        }
        candidates[c] = alignAndCompact(graph, order, spacing, upperSorted, lowerSorted, marked,
                                        kRuns[c].first, kRuns[c].second);
        cancelled.report(static_cast<double>(c + 1) / kRuns.size());
        left[c] = std::numeric_limits<double>::infinity();
        right[c] = -std::numeric_limits<double>::infinity();
        for (uint32_t v = 0; v < n; ++v) {
            left[c] = std::min(left[c], candidates[c][v] - 0.5 * graph.width[v]);
            right[c] = std::max(right[c], candidates[c][v] + 0.5 * graph.width[v]);
        }
    }
    if (n == 0) {
        return std::vector<double>{};
    }
    // Align the four to the narrowest: those packed to the left by their left edge, the others by
    // their right edge; then each node takes the mean of its two median candidates. Each candidate
    // keeps the spacing, and so do their order statistics, hence so does the result.
    std::size_t narrowest = 0;
    for (std::size_t c = 1; c < kRuns.size(); ++c) {
        if (right[c] - left[c] < right[narrowest] - left[narrowest]) {
            narrowest = c;
        }
    }
    for (std::size_t c = 0; c < kRuns.size(); ++c) {
        const double shift = kRuns[c].second == Horizontal::LeftToRight ? left[narrowest] - left[c]
                                                                        : right[narrowest] - right[c];
        for (double& x : candidates[c]) {
            x += shift;
        }
    }
    std::vector<double> x(n);
    for (uint32_t v = 0; v < n; ++v) {
        std::array<double, 4> values{candidates[0][v], candidates[1][v], candidates[2][v], candidates[3][v]};
        std::sort(values.begin(), values.end());
        x[v] = 0.5 * (values[1] + values[2]);
    }
    // Rounding can shave a hair off the spacing; restore it exactly, left to right.
    for (const std::vector<uint32_t>& nodes : order.layers) {
        for (std::size_t k = 1; k < nodes.size(); ++k) {
            x[nodes[k]] =
                std::max(x[nodes[k]], x[nodes[k - 1]] + spacing.between(graph, nodes[k - 1], nodes[k]));
        }
    }
    return x;
}

}  // namespace ampstudio::layout_detail
