#include "layout/graph_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "layout/place_problem.h"
#include "layout/ranking.h"

namespace ampstudio {
namespace {

using layout_detail::Adjacency;
using layout_detail::CancelFlag;
using layout_detail::Direction;
using layout_detail::LayeredGraph;
using layout_detail::LayoutProblem;
using layout_detail::PlacedProblem;
using layout_detail::Spacing;
using Edge = std::pair<uint32_t, uint32_t>;

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

double sanitizedGap(double gap, double fallback) {
    if (std::isnan(gap)) {
        return fallback;
    }
    // Below 1 px, zero-sized nodes would coincide and a layer could touch the next one.
    return std::clamp(gap, 1.0, 1e6);
}

// What the phases see of the input edges: unique, no self-loops, each pointing down.
struct PreparedEdges {
    std::vector<Edge> oriented;          // sorted, unique, acyclic
    std::vector<uint32_t> ofInput;       // per input edge: its oriented edge, kNone for a self-loop
    std::vector<uint8_t> reversedInput;  // per input edge: it closes a cycle, so it points up
};

PreparedEdges prepareEdges(uint32_t n, const std::vector<Edge>& edges) {
    std::vector<Edge> proper;
    proper.reserve(edges.size());
    for (const Edge& e : edges) {
        if (e.first != e.second) {
            proper.push_back(e);
        }
    }
    const Adjacency successors = layout_detail::buildAdjacency(n, proper, Direction::Successors);
    const Adjacency predecessors = layout_detail::buildAdjacency(n, proper, Direction::Predecessors);
    std::vector<uint32_t> place(n);
    {
        const std::vector<uint32_t> order = layout_detail::topologicalOrder(successors, predecessors);
        for (uint32_t i = 0; i < n; ++i) {
            place[order[i]] = i;
        }
    }
    auto orient = [&](const Edge& e) {
        return place[e.first] > place[e.second] ? Edge{e.second, e.first} : e;
    };

    PreparedEdges prepared;
    prepared.oriented.reserve(proper.size());
    for (const Edge& e : proper) {
        prepared.oriented.push_back(orient(e));
    }
    std::sort(prepared.oriented.begin(), prepared.oriented.end());
    prepared.oriented.erase(std::unique(prepared.oriented.begin(), prepared.oriented.end()),
                            prepared.oriented.end());
    prepared.ofInput.resize(edges.size(), kNone);
    prepared.reversedInput.resize(edges.size(), 0);
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (edges[i].first == edges[i].second) {
            continue;
        }
        const Edge o = orient(edges[i]);
        prepared.ofInput[i] =
            static_cast<uint32_t>(std::lower_bound(prepared.oriented.begin(), prepared.oriented.end(), o) -
                                  prepared.oriented.begin());
        prepared.reversedInput[i] = o != edges[i];
    }
    return prepared;
}

// A part of the graph laid out on its own: a connected component, all edge-less nodes together,
// or, with pinned coordinates, the whole graph.
struct Part {
    std::vector<uint32_t> nodes;  // global ids, ascending
    std::vector<Edge> edges;      // local ids, sorted
    std::vector<NodeSize> sizes;
    std::vector<PinnedPlace> pins;
    PlacedProblem placed;
    double shift = 0;  // added to the part's x
};

uint32_t findRoot(std::vector<uint32_t>& parent, uint32_t v) {
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

// Parts in the order of their smallest node; edge-less nodes form one part, last. partOfEdge gets
// (part, local edge index) per oriented edge.
std::vector<Part> splitIntoParts(uint32_t n, const std::vector<Edge>& oriented, bool whole,
                                 std::vector<std::pair<uint32_t, uint32_t>>& partOfEdge) {
    std::vector<uint32_t> partOf(n, 0);
    std::vector<Part> parts;
    if (whole) {
        parts.resize(n > 0 ? 1 : 0);
    } else {
        std::vector<uint32_t> parent(n);
        std::iota(parent.begin(), parent.end(), 0u);
        std::vector<uint8_t> hasEdge(n, 0);
        for (const auto& [a, b] : oriented) {
            hasEdge[a] = hasEdge[b] = 1;
            const uint32_t ra = findRoot(parent, a);
            const uint32_t rb = findRoot(parent, b);
            parent[std::max(ra, rb)] = std::min(ra, rb);  // the root is the smallest member
        }
        std::vector<uint32_t> partOfRoot(n, kNone);
        uint32_t isolatedPart = kNone;
        for (uint32_t v = 0; v < n; ++v) {
            if (hasEdge[v]) {
                const uint32_t root = findRoot(parent, v);
                if (partOfRoot[root] == kNone) {
                    partOfRoot[root] = static_cast<uint32_t>(parts.size());
                    parts.emplace_back();
                }
                partOf[v] = partOfRoot[root];
            }
        }
        for (uint32_t v = 0; v < n; ++v) {
            if (!hasEdge[v]) {
                if (isolatedPart == kNone) {
                    isolatedPart = static_cast<uint32_t>(parts.size());
                    parts.emplace_back();
                }
                partOf[v] = isolatedPart;
            }
        }
    }
    std::vector<uint32_t> local(n);
    for (uint32_t v = 0; v < n; ++v) {
        local[v] = static_cast<uint32_t>(parts[partOf[v]].nodes.size());
        parts[partOf[v]].nodes.push_back(v);
    }
    partOfEdge.resize(oriented.size());
    for (std::size_t e = 0; e < oriented.size(); ++e) {
        Part& part = parts[partOf[oriented[e].first]];
        partOfEdge[e] = {partOf[oriented[e].first], static_cast<uint32_t>(part.edges.size())};
        part.edges.emplace_back(local[oriented[e].first], local[oriented[e].second]);
    }
    return parts;
}

}  // namespace

GraphLayout layoutGraph(const LayoutInput& input, const LayoutOptions& rawOptions) {
    const std::size_t nodeCount = input.sizes.size();
    if (nodeCount >= kNone) {
        throw std::invalid_argument("layoutGraph: too many nodes");
    }
    const auto n = static_cast<uint32_t>(nodeCount);
    for (std::size_t i = 0; i < input.edges.size(); ++i) {
        if (input.edges[i].first >= n || input.edges[i].second >= n) {
            throw std::invalid_argument("layoutGraph: edge " + std::to_string(i) +
                                        " names a node outside 0.." + std::to_string(n));
        }
    }
    if (!rawOptions.pinned.empty() && rawOptions.pinned.size() != n) {
        throw std::invalid_argument("layoutGraph: " + std::to_string(rawOptions.pinned.size()) +
                                    " pinned places for " + std::to_string(n) + " nodes");
    }
    LayoutOptions options;  // the numbers only; the hook and the pins are read from rawOptions
    const LayoutOptions defaults;
    options.layerGap = sanitizedGap(rawOptions.layerGap, defaults.layerGap);
    options.nodeGap = sanitizedGap(rawOptions.nodeGap, defaults.nodeGap);
    options.edgeGap = sanitizedGap(rawOptions.edgeGap, defaults.edgeGap);
    options.componentGap = sanitizedGap(rawOptions.componentGap, defaults.componentGap);
    options.sweeps = std::clamp(rawOptions.sweeps, 0, 1000);
    options.crossingReduction = rawOptions.crossingReduction;
    const Spacing spacing{options.nodeGap, options.edgeGap};
    CancelFlag cancelled(rawOptions.cancelled, &rawOptions.progress);
    GraphLayout cancelledLayout;
    cancelledLayout.cancelled = true;
    if (cancelled()) {
        return cancelledLayout;
    }

    std::vector<NodeSize> sizes(input.sizes);
    for (NodeSize& size : sizes) {
        size.width = std::isfinite(size.width) ? std::max(size.width, 0.0) : 0.0;
        size.height = std::isfinite(size.height) ? std::max(size.height, 0.0) : 0.0;
    }
    const bool pinnedX = std::any_of(rawOptions.pinned.begin(), rawOptions.pinned.end(),
                                     [](const PinnedPlace& p) { return std::isfinite(p.x); });

    const PreparedEdges prepared = prepareEdges(n, input.edges);
    std::vector<std::pair<uint32_t, uint32_t>> partOfEdge;
    std::vector<Part> parts = splitIntoParts(n, prepared.oriented, pinnedX, partOfEdge);

    // Phases 1-4 per part, then the parts side by side (or, pinned, where the pins put them).
    double cursor = 0, left = 0, right = 0;
    uint32_t layerCount = 0;
    uint64_t crossings = 0;
    double laidOut = 0;  // nodes of the parts before this one, for the progress hook
    for (Part& part : parts) {
        const double share = n > 0 ? static_cast<double>(part.nodes.size()) / n : 1.0;
        cancelled.setPart(laidOut, laidOut + share);
        laidOut += share;
        for (const uint32_t v : part.nodes) {
            part.sizes.push_back(sizes[v]);
            if (!rawOptions.pinned.empty()) {
                part.pins.push_back(rawOptions.pinned[v]);
            }
        }
        std::optional<PlacedProblem> placed = layout_detail::placeProblem(
            LayoutProblem{part.sizes, part.edges, part.pins}, options, spacing, cancelled);
        if (!placed) {
            return cancelledLayout;
        }
        part.placed = std::move(*placed);
        const LayeredGraph& graph = part.placed.graph;
        double partLeft = std::numeric_limits<double>::infinity();
        double partRight = -std::numeric_limits<double>::infinity();
        for (uint32_t v = 0; v < graph.nodeCount(); ++v) {
            partLeft = std::min(partLeft, part.placed.x[v] - 0.5 * graph.width[v]);
            partRight = std::max(partRight, part.placed.x[v] + 0.5 * graph.width[v]);
        }
        if (!pinnedX) {
            part.shift = cursor - partLeft;
            cursor = partRight + part.shift + options.componentGap;
        }
        left = std::min(left, partLeft + part.shift);
        right = std::max(right, partRight + part.shift);
        layerCount = std::max(layerCount, graph.layerCount);
        crossings += part.placed.crossings;
    }
    if (pinnedX && left < 0) {  // keep the pins' frame unless something would fall off the left edge
        for (Part& part : parts) {
            part.shift = -left;
        }
        right -= left;
    }

    // Phase 5: layers one below the other, each as tall as its tallest node, then the polylines.
    GraphLayout layout;
    layout.nodePositions.resize(n);
    layout.nodeLayers.resize(n);
    std::vector<double> height(layerCount, 0.0);
    std::vector<double> wantedCentre(layerCount, -std::numeric_limits<double>::infinity());
    for (const Part& part : parts) {
        for (uint32_t local = 0; local < part.nodes.size(); ++local) {
            const uint32_t v = part.nodes[local];
            const uint32_t layer = part.placed.graph.layerOf[local];
            layout.nodeLayers[v] = layer;
            height[layer] = std::max(height[layer], sizes[v].height);
            if (!rawOptions.pinned.empty() && std::isfinite(rawOptions.pinned[v].y)) {
                wantedCentre[layer] = std::max(wantedCentre[layer], rawOptions.pinned[v].y);
            }
        }
    }
    std::vector<double> top(layerCount), centre(layerCount), bottom(layerCount);
    for (uint32_t layer = 0; layer < layerCount; ++layer) {
        const double earliest = layer == 0 ? 0.0 : bottom[layer - 1] + options.layerGap;
        top[layer] = std::max(earliest, wantedCentre[layer] - 0.5 * height[layer]);
        centre[layer] = top[layer] + 0.5 * height[layer];
        bottom[layer] = top[layer] + height[layer];
    }
    for (const Part& part : parts) {
        for (uint32_t local = 0; local < part.nodes.size(); ++local) {
            const uint32_t v = part.nodes[local];
            layout.nodePositions[v] = {part.placed.x[local] + part.shift, centre[layout.nodeLayers[v]]};
        }
    }

    // A point per layer a chain passes: two (its top and bottom) where the layer has height.
    auto passLayer = [&](std::vector<Point>& points, double x, uint32_t layer) {
        if (height[layer] > 0) {  // vertical through the layer, clear of the nodes beside it
            points.push_back({x, top[layer]});
            points.push_back({x, bottom[layer]});
        } else {
            points.push_back({x, centre[layer]});
        }
    };
    // The trunks, each drawn once; bundleIndex maps (part, local bundle) to layout.bundles.
    std::vector<std::vector<uint32_t>> bundleIndex(parts.size());
    std::vector<std::vector<uint32_t>> trunkOffsets;  // per layout bundle: point index per trunk layer
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const Part& part = parts[p];
        const LayeredGraph& graph = part.placed.graph;
        for (const layout_detail::Bundle& bundle : graph.bundles) {
            bundleIndex[p].push_back(static_cast<uint32_t>(layout.bundles.size()));
            EdgeBundle& drawn = layout.bundles.emplace_back();
            drawn.node = part.nodes[bundle.node];
            drawn.gathers = bundle.gathers;
            const uint32_t nodeLayer = graph.layerOf[bundle.node];
            const double nodeX = part.placed.x[bundle.node] + part.shift;
            std::vector<uint32_t>& offsets = trunkOffsets.emplace_back();
            if (!bundle.gathers) {
                drawn.points.push_back({nodeX, centre[nodeLayer] + 0.5 * part.sizes[bundle.node].height});
            }
            for (uint32_t layer = bundle.topLayer; layer <= bundle.bottomLayer; ++layer) {
                offsets.push_back(static_cast<uint32_t>(drawn.points.size()));
                passLayer(drawn.points, part.placed.x[bundle.firstDummy + (layer - bundle.topLayer)] + part.shift,
                          layer);
            }
            if (bundle.gathers) {
                drawn.points.push_back({nodeX, centre[nodeLayer] - 0.5 * part.sizes[bundle.node].height});
            }
        }
    }

    layout.edges.resize(input.edges.size());
    for (std::size_t i = 0; i < input.edges.size(); ++i) {
        if (prepared.ofInput[i] == kNone) {
            continue;  // a self-loop
        }
        const auto [partIndex, localEdge] = partOfEdge[prepared.ofInput[i]];
        const Part& part = parts[partIndex];
        const LayeredGraph& graph = part.placed.graph;
        const auto [a, b] = graph.edges[localEdge];
        const uint32_t layerA = graph.layerOf[a];
        const uint32_t layerB = graph.layerOf[b];
        const Point from{part.placed.x[a] + part.shift, centre[layerA] + 0.5 * part.sizes[a].height};
        const Point to{part.placed.x[b] + part.shift, centre[layerB] - 0.5 * part.sizes[b].height};
        EdgePath& path = layout.edges[i];
        std::vector<Point>& points = path.points;
        const uint32_t bundle = graph.bundleOfEdge[localEdge];
        if (bundle != LayeredGraph::kNoBundle && !prepared.reversedInput[i]) {
            const layout_detail::Bundle& trunk = graph.bundles[bundle];
            path.bundle = bundleIndex[partIndex][bundle];
            const std::vector<Point>& trunkPoints = layout.bundles[path.bundle].points;
            const std::vector<uint32_t>& offsets = trunkOffsets[path.bundle];
            if (trunk.gathers) {  // to the trunk's top point in the layer below the source
                path.bundlePoint = offsets[layerA + 1 - trunk.topLayer];
                points = {from, trunkPoints[path.bundlePoint]};
            } else {  // from the trunk's last point in the layer above the target
                const uint32_t leave = layerB - 1 - trunk.topLayer;
                path.bundlePoint = leave + 1 < offsets.size() ? offsets[leave + 1] - 1
                                                              : static_cast<uint32_t>(trunkPoints.size() - 1);
                points = {trunkPoints[path.bundlePoint], to};
            }
            continue;
        }
        points.reserve(2 * (layerB - layerA) + 1);
        points.push_back(from);
        for (uint32_t layer = layerA + 1; layer < layerB; ++layer) {
            passLayer(points, part.placed.x[graph.chainStart[localEdge] + (layer - layerA - 1)] + part.shift, layer);
        }
        points.push_back(to);
        if (prepared.reversedInput[i]) {
            std::reverse(points.begin(), points.end());
        }
    }
    layout.width = right;
    layout.height = layerCount > 0 ? bottom[layerCount - 1] : 0.0;
    layout.layers = layerCount;
    layout.crossings = crossings;
    return layout;
}

std::vector<Point> edgePolyline(const GraphLayout& layout, std::size_t edge) {
    const EdgePath& path = layout.edges.at(edge);
    if (path.bundle == EdgePath::kNoBundle) {
        return path.points;
    }
    const EdgeBundle& bundle = layout.bundles.at(path.bundle);
    std::vector<Point> points;
    if (bundle.gathers) {  // its own points end where the trunk's from bundlePoint begin
        points.assign(path.points.begin(), path.points.end() - 1);
        points.insert(points.end(), bundle.points.begin() + path.bundlePoint, bundle.points.end());
    } else {
        points.assign(bundle.points.begin(), bundle.points.begin() + path.bundlePoint);
        points.insert(points.end(), path.points.begin(), path.points.end());
    }
    return points;
}

}  // namespace ampstudio
