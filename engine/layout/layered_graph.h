#pragma once
// Internal to the layout, phase 2: the "proper" layered graph, in which every edge joins adjacent
// layers because each longer edge is split by dummy nodes, one per layer it passes. Real nodes keep
// their ids; the dummies of problem edge e are chainStart[e], chainStart[e] + 1, ... top to bottom.
//
// Edge concentration: when a node gathers at least kMinBundle long edges (a loss sum, a
// detection head, a dense block's Concat), those edges share one chain of dummies, a trunk from the
// layer below the highest source down to the node, and each joins it one layer below its source; when
// a node feeds at least kMinBundle long edges (a mask read by every transformer layer), they share a
// trunk from the node down to the lowest target and each leaves it one layer above its target. The
// dummies then number about the layers the trunk spans instead of the sum of the edges' spans, which
// for one node gathering thousands of tensors from all over a graph of thousands of layers is the
// difference between linear and quadratic. Nothing is lost to the reader: every edge of a trunk
// ends (or starts) at the same node. A trunk's dummies are consecutive ids, top to bottom, so
// chainStart[e] + k is still edge e's dummy k layers below its first.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "layout/adjacency.h"
#include "layout/layout_problem.h"

namespace ampstudio::layout_detail {

// A trunk gathers (or feeds) at least kMinBundle edges, each passing at least kMinBundledPass layers:
// shorter edges cost two dummies at most and read better on their own, so a node's few inputs from
// just above it never merge.
inline constexpr uint32_t kMinBundle = 3;
inline constexpr uint32_t kMinBundledPass = 3;

// A trunk: the shared dummies, firstDummy .. firstDummy + (bottomLayer - topLayer), one per layer.
struct Bundle {
    uint32_t node = 0;     // the node all its edges end at (gathers) or start from
    bool gathers = false;  // edges into `node`, else edges out of it
    uint32_t topLayer = 0;
    uint32_t bottomLayer = 0;
    uint32_t firstDummy = 0;
};

struct LayeredGraph {
    uint32_t realCount = 0;
    uint32_t layerCount = 0;
    std::vector<uint32_t> layerOf;                     // per node, dummies after the real nodes
    std::vector<double> width;                         // per node; dummies are 0 wide
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // the problem's edges
    std::vector<uint32_t> chainStart;  // per problem edge: its first dummy (it has span - 1 of them)
    std::vector<uint32_t> dummyEdge;   // per dummy (id - realCount): its problem edge (a trunk's: one of them)
    std::vector<Bundle> bundles;
    std::vector<uint32_t> bundleOfEdge;  // per problem edge: its bundle, or kNoBundle
    static constexpr uint32_t kNoBundle = UINT32_MAX;
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
