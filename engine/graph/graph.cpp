#include "graph/graph.h"

#include <string>
#include <utility>

namespace ampstudio {

const std::string* Node::attr(std::string_view key) const {
    const auto it = attrs.find(key);
    return it == attrs.end() ? nullptr : &it->second;
}

std::vector<NodeId> Graph::argNodes() const {
    std::vector<NodeId> ids;
    for (NodeId id = 0; id < nodes.size(); ++id) {
        if (nodes[id].isVariable()) {
            ids.push_back(id);
        }
    }
    return ids;
}

std::vector<uint32_t> Graph::nodeRowPtr() const {
    std::vector<uint32_t> rows;
    rows.reserve(nodes.size() + 1);
    uint32_t row = 0;
    rows.push_back(row);
    for (const Node& n : nodes) {
        row += n.numOutputs;
        rows.push_back(row);
    }
    return rows;
}

void Graph::validate() const {
    auto fail = [](const Node& n, NodeId id, const std::string& what) {
        throw GraphError("node " + std::to_string(id) + " ('" + n.name + "'): " + what);
    };
    for (NodeId id = 0; id < nodes.size(); ++id) {
        const Node& n = nodes[id];
        if (n.numOutputs == 0) {
            fail(n, id, "has no outputs");
        }
        for (std::size_t i = 0; i < n.inputs.size(); ++i) {
            const NodeEntry& e = n.inputs[i];
            if (e.node >= id) {
                fail(n, id,
                     "input " + std::to_string(i) + " refers to node " + std::to_string(e.node) +
                         ", which is not an earlier node (a forward reference or a cycle)");
            }
            if (e.index >= nodes[e.node].numOutputs) {
                fail(n, id,
                     "input " + std::to_string(i) + " reads output " + std::to_string(e.index) + " of node " +
                         std::to_string(e.node) + ", which has " + std::to_string(nodes[e.node].numOutputs) +
                         " output(s)");
            }
        }
        for (NodeId dep : n.controlDeps) {
            if (dep >= id) {
                fail(n, id, "control dependency " + std::to_string(dep) + " is not an earlier node");
            }
        }
    }
    for (std::size_t i = 0; i < heads.size(); ++i) {
        const NodeEntry& h = heads[i];
        if (h.node >= nodes.size() || h.index >= nodes[h.node].numOutputs) {
            throw GraphError("head " + std::to_string(i) + " refers to entry (" + std::to_string(h.node) +
                             ", " + std::to_string(h.index) + "), which does not exist");
        }
    }
}

std::vector<std::vector<NodeId>> Graph::consumers() const {
    std::vector<std::vector<NodeId>> result(nodes.size());
    for (NodeId id = 0; id < nodes.size(); ++id) {
        for (const NodeEntry& e : nodes[id].inputs) {
            auto& list = result[e.node];
            if (list.empty() || list.back() != id) {
                list.push_back(id);
            }
        }
    }
    return result;
}

std::vector<NodeId> dfsPostOrder(const Graph& graph) {
    std::vector<NodeId> order;
    order.reserve(graph.nodes.size());
    std::vector<bool> visited(graph.nodes.size(), false);
    std::vector<std::pair<NodeId, std::size_t>> stack;  // node, next input or control dependency
    for (const NodeEntry& head : graph.heads) {
        if (visited[head.node]) {
            continue;
        }
        visited[head.node] = true;
        stack.emplace_back(head.node, 0);
        while (!stack.empty()) {
            auto& [id, next] = stack.back();
            const Node& n = graph.nodes[id];
            if (next == n.inputs.size() + n.controlDeps.size()) {
                order.push_back(id);
                stack.pop_back();
                continue;
            }
            const NodeId input =
                next < n.inputs.size() ? n.inputs[next].node : n.controlDeps[next - n.inputs.size()];
            ++next;
            if (!visited[input]) {
                visited[input] = true;
                stack.emplace_back(input, 0);
            }
        }
    }
    return order;
}

bool isInDfsOrder(const Graph& graph) {
    const std::vector<NodeId> order = dfsPostOrder(graph);
    if (order.size() != graph.nodes.size()) {
        return false;
    }
    for (NodeId i = 0; i < order.size(); ++i) {
        if (order[i] != i) {
            return false;
        }
    }
    return true;
}

Graph reachableInDfsOrder(const Graph& graph) {
    constexpr NodeId kUnvisited = ~NodeId{0};
    const std::vector<NodeId> order = dfsPostOrder(graph);
    std::vector<NodeId> newId(graph.nodes.size(), kUnvisited);
    for (NodeId i = 0; i < order.size(); ++i) {
        newId[order[i]] = i;
    }

    Graph result;
    result.attrs = graph.attrs;
    result.nodes.reserve(order.size());
    for (NodeId old : order) {
        Node n = graph.nodes[old];
        for (NodeEntry& e : n.inputs) {
            e.node = newId[e.node];
        }
        for (NodeId& dep : n.controlDeps) {
            dep = newId[dep];
        }
        result.nodes.push_back(std::move(n));
    }
    result.heads = graph.heads;
    for (NodeEntry& h : result.heads) {
        h.node = newId[h.node];
    }
    return result;
}

}  // namespace ampstudio
