#include "layout/layered_graph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ampstudio::layout_detail {
namespace {

constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();

// Which edges share a trunk, decided before any dummy is made: gathering first (the long edges into
// a node), then feeding among the long edges left.
void chooseBundles(LayeredGraph& graph, const LayoutProblem& problem, std::span<const uint32_t> layers) {
    const uint32_t n = graph.realCount;
    auto isLong = [&](const std::pair<uint32_t, uint32_t>& e) {
        return layers[e.second] > layers[e.first] + kMinBundledPass;
    };
    std::vector<uint32_t> longIn(n, 0), longOut(n, 0);
    for (const auto& e : problem.edges) {
        if (isLong(e)) {
            ++longIn[e.second];
        }
    }
    for (const auto& e : problem.edges) {
        if (isLong(e) && longIn[e.second] < kMinBundle) {
            ++longOut[e.first];
        }
    }
    std::vector<uint32_t> gathering(n, LayeredGraph::kNoBundle), feeding(n, LayeredGraph::kNoBundle);
    graph.bundleOfEdge.assign(problem.edges.size(), LayeredGraph::kNoBundle);
    for (uint32_t e = 0; e < problem.edges.size(); ++e) {
        const auto [source, target] = problem.edges[e];
        if (!isLong(problem.edges[e])) {
            continue;
        }
        const bool gathers = longIn[target] >= kMinBundle;
        if (!gathers && longOut[source] < kMinBundle) {
            continue;
        }
        std::vector<uint32_t>& bundleAt = gathers ? gathering : feeding;
        const uint32_t node = gathers ? target : source;
        if (bundleAt[node] == LayeredGraph::kNoBundle) {
            bundleAt[node] = static_cast<uint32_t>(graph.bundles.size());
            Bundle bundle;
            bundle.node = node;
            bundle.gathers = gathers;
            bundle.topLayer = gathers ? std::numeric_limits<uint32_t>::max() : layers[source] + 1;
            bundle.bottomLayer = gathers ? layers[target] - 1 : 0;
            graph.bundles.push_back(bundle);
        }
        Bundle& bundle = graph.bundles[bundleAt[node]];
        if (gathers) {
            bundle.topLayer = std::min(bundle.topLayer, layers[source] + 1);
        } else {
            bundle.bottomLayer = std::max(bundle.bottomLayer, layers[target] - 1);
        }
        graph.bundleOfEdge[e] = bundleAt[node];
    }
}

}  // namespace

LayeredGraph buildLayeredGraph(const LayoutProblem& problem, std::span<const uint32_t> layers) {
    LayeredGraph graph;
    graph.realCount = static_cast<uint32_t>(problem.sizes.size());
    chooseBundles(graph, problem, layers);
    std::size_t dummyCount = 0;
    for (uint32_t e = 0; e < problem.edges.size(); ++e) {
        const auto [source, target] = problem.edges[e];
        if (graph.bundleOfEdge[e] == LayeredGraph::kNoBundle) {
            dummyCount += layers[target] - layers[source] - 1;
        }
    }
    for (const Bundle& bundle : graph.bundles) {
        dummyCount += bundle.bottomLayer - bundle.topLayer + 1;
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
    graph.dummyEdge.assign(dummyCount, LayeredGraph::kNoBundle);
    graph.chainStart.resize(problem.edges.size());

    std::vector<std::pair<uint32_t, uint32_t>> segments;  // (upper, lower)
    segments.reserve(problem.edges.size() + dummyCount);
    auto next = graph.realCount;
    // The trunks first: a chain of dummies each, joined to the node at its end.
    for (Bundle& bundle : graph.bundles) {
        bundle.firstDummy = next;
        uint32_t above = bundle.gathers ? kNoNode : bundle.node;
        for (uint32_t layer = bundle.topLayer; layer <= bundle.bottomLayer; ++layer) {
            graph.layerOf[next] = layer;
            if (above != kNoNode) {
                segments.emplace_back(above, next);
            }
            above = next++;
        }
        if (bundle.gathers) {
            segments.emplace_back(above, bundle.node);
        }
    }
    for (uint32_t e = 0; e < problem.edges.size(); ++e) {
        const auto [source, target] = problem.edges[e];
        if (const uint32_t b = graph.bundleOfEdge[e]; b != LayeredGraph::kNoBundle) {
            const Bundle& bundle = graph.bundles[b];
            if (bundle.gathers) {  // joins the trunk one layer below its source
                graph.chainStart[e] = bundle.firstDummy + (layers[source] + 1 - bundle.topLayer);
                segments.emplace_back(source, graph.chainStart[e]);
                // A trunk dummy stands for the edge that joins there, else for the one above it.
                uint32_t& represented = graph.dummyEdge[graph.chainStart[e] - graph.realCount];
                represented = std::min(represented, e);
            } else {  // leaves the trunk one layer above its target
                graph.chainStart[e] = bundle.firstDummy;
                segments.emplace_back(bundle.firstDummy + (layers[target] - 1 - bundle.topLayer), target);
                uint32_t& represented = graph.dummyEdge[bundle.firstDummy - graph.realCount];
                represented = std::min(represented, e);
            }
            continue;
        }
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
    for (const Bundle& bundle : graph.bundles) {  // fill each trunk's representatives down from its top
        const uint32_t first = bundle.firstDummy - graph.realCount;
        for (uint32_t k = 1; k <= bundle.bottomLayer - bundle.topLayer; ++k) {
            if (graph.dummyEdge[first + k] == LayeredGraph::kNoBundle) {
                graph.dummyEdge[first + k] = graph.dummyEdge[first + k - 1];
            }
        }
    }
    graph.segmentCount = static_cast<uint32_t>(segments.size());
    graph.upper = buildAdjacency(static_cast<uint32_t>(total), segments, Direction::Predecessors);
    graph.lower = buildAdjacency(static_cast<uint32_t>(total), segments, Direction::Successors);
    graph.layerCount = layers.empty() ? 0 : *std::max_element(layers.begin(), layers.end()) + 1;
    return graph;
}

}  // namespace ampstudio::layout_detail
