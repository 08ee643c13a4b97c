#pragma once
// The graph IR: an MXNet/NNVM symbol as plain values. Nodes live in one vector in topological
// order (every input refers to an earlier node), which is the order NNVM's SaveJSON writes and the
// order every pass here visits, so "topological order" never has to be recomputed.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "graph/attributes.h"

namespace ampstudio {

using NodeId = uint32_t;

// One output of one node: NNVM's NodeEntry. Equality includes the version, as NNVM's NodeEntryEqual.
struct NodeEntry {
    NodeId node = 0;
    uint32_t index = 0;
    uint32_t version = 0;
    friend bool operator==(const NodeEntry&, const NodeEntry&) = default;
};

struct Node {
    std::string op;  // empty for a variable (the JSON's "null")
    std::string name;
    Attributes attrs;
    std::vector<NodeEntry> inputs;
    std::vector<NodeId> controlDeps;
    std::vector<std::string> subgraphs;  // nested symbol JSON documents, kept as compact JSON text
    uint32_t numOutputs = 1;             // what node_row_ptr counts: all outputs, hidden ones included

    bool isVariable() const { return op.empty(); }
    // The attribute's value, or nullptr when the node does not carry it explicitly.
    const std::string* attr(std::string_view key) const;
};

// Structural problems: an entry that points at a later node or past a node's outputs, and so on.
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Graph {
public:
    std::vector<Node> nodes;
    std::vector<NodeEntry> heads;
    // Graph attributes as compact JSON text per key, e.g. "mxnet_version" -> `["int",10901]`.
    std::map<std::string, std::string> attrs;

    std::size_t size() const { return nodes.size(); }
    const Node& node(NodeId id) const { return nodes[id]; }
    const Node& node(const NodeEntry& e) const { return nodes[e.node]; }

    // The variables ("arg_nodes" of the JSON: arguments and auxiliary states alike), in node order.
    std::vector<NodeId> argNodes() const;
    // Prefix sums of numOutputs: entry (n, i) has the flat id nodeRowPtr()[n] + i.
    std::vector<uint32_t> nodeRowPtr() const;
    // Throws GraphError naming the node when an input or control dependency does not refer to an
    // earlier node, an output index is out of range, a head is invalid, or a node has no outputs.
    void validate() const;
    // For every node, the nodes that read one of its outputs (each consumer listed once per node).
    std::vector<std::vector<NodeId>> consumers() const;
};

// The ids of the nodes reachable from the heads, in NNVM's post-order DFS (heads in order; inputs in
// order, then control dependencies): the order MXNet's SaveJSON writes. Iterative, so a deep chain
// cannot overflow the stack. The graph must be acyclic (validate() guarantees it).
std::vector<NodeId> dfsPostOrder(const Graph& graph);

// True when reachableInDfsOrder(graph) would return the graph unchanged.
bool isInDfsOrder(const Graph& graph);

// The nodes reachable from the heads in NNVM's post-order DFS (inputs in order, then control
// dependencies), renumbered: what MXNet keeps and the order its SaveJSON writes. Unreachable nodes
// are dropped. The input must be acyclic (validate() guarantees it).
Graph reachableInDfsOrder(const Graph& graph);

}  // namespace ampstudio
