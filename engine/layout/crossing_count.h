#pragma once
// Counting edge crossings between two adjacent layers in O(E log V) with the accumulator tree of
// Barth, Juenger and Mutzel ("Simple and efficient bilayer cross counting", 2004): with the edges
// sorted by upper position, then lower position, two edges cross exactly when a later edge ends left
// of an earlier one, and a binary tree over the lower positions counts those as the edges go in.
// Edges that share an end never count as crossing.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ampstudio {

// `edges` are (position in the upper layer, position in the lower layer) in any order; each lower
// position must be below lowerLayerSize.
uint64_t countBilayerCrossings(std::span<const std::pair<uint32_t, uint32_t>> edges, uint32_t lowerLayerSize);

}  // namespace ampstudio

namespace ampstudio::layout_detail {

struct LayeredGraph;
struct LayerOrder;

// The tree and buffers are kept between calls: the crossing reduction counts after every sweep.
class CrossingCounter {
public:
    // Lower positions of the edges already in (upper, lower) order.
    uint64_t count(std::span<const uint32_t> lowerPositions, uint32_t lowerLayerSize);
    // Between layer `upper` and the next.
    uint64_t betweenLayers(const LayeredGraph& graph, const LayerOrder& order, uint32_t upper);
    uint64_t total(const LayeredGraph& graph, const LayerOrder& order);

private:
    std::vector<uint32_t> m_tree;
    std::vector<uint32_t> m_lowerPositions;
};

}  // namespace ampstudio::layout_detail
