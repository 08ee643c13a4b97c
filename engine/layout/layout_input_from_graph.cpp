#include "layout/layout_input_from_graph.h"

#include <algorithm>

namespace ampstudio {

LayoutInput layoutInputFromGraph(const Graph& graph, const NodeSizeFunction& sizeOf) {
    LayoutInput input;
    input.sizes.reserve(graph.size());
    std::vector<uint32_t> sources;
    for (NodeId id = 0; id < graph.size(); ++id) {
        const Node& node = graph.node(id);
        input.sizes.push_back(sizeOf(node));
        sources.clear();
        for (const NodeEntry& entry : node.inputs) {
            sources.push_back(entry.node);
        }
        std::sort(sources.begin(), sources.end());
        sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
        // In input order, so that the edges of a node list its operands left to right.
        for (const NodeEntry& entry : node.inputs) {
            const auto it = std::lower_bound(sources.begin(), sources.end(), entry.node);
            if (it != sources.end() && *it == entry.node) {
                input.edges.emplace_back(entry.node, id);
                sources.erase(it);
            }
        }
    }
    return input;
}

}  // namespace ampstudio
