#pragma once
// The layout's input from the graph IR: one layout node per IR node (same index), an edge from each
// input entry's node to the node that reads it. A node that reads several outputs of another, or
// one output twice, gets one edge. Control dependencies are not drawn.

#include <functional>

#include "graph/graph.h"
#include "layout/graph_layout.h"

namespace ampstudio {

using NodeSizeFunction = std::function<NodeSize(const Node&)>;

LayoutInput layoutInputFromGraph(const Graph& graph, const NodeSizeFunction& sizeOf);

}  // namespace ampstudio
