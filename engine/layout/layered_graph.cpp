#include "layout/layered_graph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ampstudio::layout_detail {

LayeredGraph buildLayeredGraph(const LayoutProblem& problem, std::span<const uint32_t> layers) {
    LayeredGraph graph;
    graph.realCount = static_cast<uint32_t>(problem.sizes.size());
    std::size_t dummyCount = 0;
    for (const auto& [source, target] : problem.edges) {
        dummyCount += layers[target] - layers[source] - 1;
    }
    const std::size_t total = graph.realCount + dummyCount;
    if (total >= std::numeric_limits<uint32_t>::max()) {  // ids are 32 bits; memory would run out first
        throw std::length_error("layoutGraph: the long edges need " + std::to_string(dummyCount) +
                                " bends, too many to lay out");
    }
    graph.layerOf.assign(layers.begin(), layers.end());
    graph.layerOf.resize(total);
    graph.width.resize(total, 0.0);
    for (uint32_t v = 0; v < graph.realCount; ++v) {
        graph.width[v] = problem.sizes[v].width;
    }
    graph.edges.assign(problem.edges.begin(), problem.edges.end());
    graph.dummyEdge.resize(dummyCount);
    graph.chainStart.resize(problem.edges.size());

    std::vector<std::pair<uint32_t, uint32_t>> segments;  // (upper, lower)
    segments.reserve(problem.edges.size() + dummyCount);
    auto next = graph.realCount;
    for (uint32_t e = 0; e < problem.edges.size(); ++e) {
        const auto [source, target] = problem.edges[e];
        graph.chainStart[e] = next;
        uint32_t above = source;
        for (uint32_t layer = layers[source] + 1; layer < layers[target]; ++layer) {
            graph.layerOf[next] = layer;
            graph.dummyEdge[next - graph.realCount] = e;
            segments.emplace_back(above, next);
            above = next++;
        }
        segments.emplace_back(above, target);
    }
    graph.segmentCount = static_cast<uint32_t>(segments.size());
    graph.upper = buildAdjacency(static_cast<uint32_t>(total), segments, Direction::Predecessors);
    graph.lower = buildAdjacency(static_cast<uint32_t>(total), segments, Direction::Successors);
    graph.layerCount = layers.empty() ? 0 : *std::max_element(layers.begin(), layers.end()) + 1;
    return graph;
}

}  // namespace ampstudio::layout_detail
