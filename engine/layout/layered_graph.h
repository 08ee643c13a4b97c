#pragma once
// Internal to the layout, phase 2: the "proper" layered graph, in which every edge joins adjacent
// layers because each longer edge is split by dummy nodes, one per layer it passes. Real nodes keep
// their ids; the dummies of problem edge e are chainStart[e], chainStart[e] + 1, ... top to bottom.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "layout/adjacency.h"
#include "layout/layout_problem.h"

namespace ampstudio::layout_detail {

struct LayeredGraph {
    uint32_t realCount = 0;
    uint32_t layerCount = 0;
    std::vector<uint32_t> layerOf;                     // per node, dummies after the real nodes
    std::vector<double> width;                         // per node; dummies are 0 wide
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // the problem's edges
    std::vector<uint32_t> chainStart;  // per problem edge: its first dummy (it has span - 1 of them)
    std::vector<uint32_t> dummyEdge;   // per dummy (id - realCount): its problem edge
    Adjacency upper;                   // neighbours one layer up; entry.edge is the segment's id
    Adjacency lower;                   // neighbours one layer down, same segment ids
    uint32_t segmentCount = 0;

    uint32_t nodeCount() const { return static_cast<uint32_t>(layerOf.size()); }
    bool isDummy(uint32_t v) const { return v >= realCount; }
};

LayeredGraph buildLayeredGraph(const LayoutProblem& problem, std::span<const uint32_t> layers);

// The left-to-right order of every layer: layers[l] lists layer l's nodes, pos[v] is v's index there.
struct LayerOrder {
    std::vector<std::vector<uint32_t>> layers;
    std::vector<uint32_t> pos;

    void updatePositions(uint32_t layer) {
        const std::vector<uint32_t>& nodes = layers[layer];
        for (uint32_t i = 0; i < nodes.size(); ++i) {
            pos[nodes[i]] = i;
        }
    }
};

// Horizontal room two neighbours in a layer need between their centres: half of each width plus
// the node gap, or the (smaller) edge gap when an edge passes through either place.
struct Spacing {
    double nodeGap = 0;
    double edgeGap = 0;

    double between(const LayeredGraph& graph, uint32_t a, uint32_t b) const {
        const double gap = graph.isDummy(a) || graph.isDummy(b) ? edgeGap : nodeGap;
        return 0.5 * (graph.width[a] + graph.width[b]) + gap;
    }
};

}  // namespace ampstudio::layout_detail
