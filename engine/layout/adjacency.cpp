#include "layout/adjacency.h"

namespace ampstudio::layout_detail {

Adjacency buildAdjacency(uint32_t nodeCount, std::span<const std::pair<uint32_t, uint32_t>> edges,
                         Direction direction) {
    const bool bySource = direction == Direction::Successors;
    Adjacency adjacency;
    adjacency.offsets.assign(static_cast<std::size_t>(nodeCount) + 1, 0);
    for (const auto& [source, target] : edges) {
        ++adjacency.offsets[(bySource ? source : target) + 1];
    }
    for (uint32_t v = 0; v < nodeCount; ++v) {
        adjacency.offsets[v + 1] += adjacency.offsets[v];
    }
    adjacency.entries.resize(edges.size());
    std::vector<uint32_t> cursor(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
    for (uint32_t e = 0; e < edges.size(); ++e) {
        const auto& [source, target] = edges[e];
        const uint32_t owner = bySource ? source : target;
        adjacency.entries[cursor[owner]++] = {bySource ? target : source, e};
    }
    return adjacency;
}

}  // namespace ampstudio::layout_detail
