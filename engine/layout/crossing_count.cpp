#include "layout/crossing_count.h"

#include <algorithm>

#include "layout/layered_graph.h"

namespace ampstudio {

uint64_t countBilayerCrossings(std::span<const std::pair<uint32_t, uint32_t>> edges,
                               uint32_t lowerLayerSize) {
    std::vector<std::pair<uint32_t, uint32_t>> sorted(edges.begin(), edges.end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> lowerPositions;
    lowerPositions.reserve(sorted.size());
    for (const auto& edge : sorted) {
        lowerPositions.push_back(edge.second);
    }
    return layout_detail::CrossingCounter().count(lowerPositions, lowerLayerSize);
}

}  // namespace ampstudio

namespace ampstudio::layout_detail {

uint64_t CrossingCounter::count(std::span<const uint32_t> lowerPositions, uint32_t lowerLayerSize) {
    if (lowerPositions.size() < 2) {
        return 0;
    }
    // A complete binary tree whose leaves are the lower positions; each inner node holds how many
    // edges end below it. A left child adds its right sibling's count: edges that end further right
    // and came earlier, i.e. that cross the new one.
    std::size_t firstLeaf = 1;
    while (firstLeaf < lowerLayerSize) {
        firstLeaf *= 2;
    }
    m_tree.assign(2 * firstLeaf - 1, 0);
    --firstLeaf;
    uint64_t crossings = 0;
    for (const uint32_t position : lowerPositions) {
        std::size_t index = position + firstLeaf;
        ++m_tree[index];
        while (index > 0) {
            if (index % 2 == 1) {
                crossings += m_tree[index + 1];
            }
            index = (index - 1) / 2;
            ++m_tree[index];
        }
    }
    return crossings;
}

uint64_t CrossingCounter::betweenLayers(const LayeredGraph& graph, const LayerOrder& order, uint32_t upper) {
    m_lowerPositions.clear();
    for (const uint32_t v : order.layers[upper]) {
        const std::size_t first = m_lowerPositions.size();
        for (const Adjacency::Entry& below : graph.lower.of(v)) {
            m_lowerPositions.push_back(order.pos[below.node]);
        }
        std::sort(m_lowerPositions.begin() + static_cast<std::ptrdiff_t>(first), m_lowerPositions.end());
    }
    return count(m_lowerPositions, static_cast<uint32_t>(order.layers[upper + 1].size()));
}

uint64_t CrossingCounter::total(const LayeredGraph& graph, const LayerOrder& order) {
    uint64_t crossings = 0;
    for (uint32_t layer = 0; layer + 1 < order.layers.size(); ++layer) {
        crossings += betweenLayers(graph, order, layer);
    }
    return crossings;
}

}  // namespace ampstudio::layout_detail
