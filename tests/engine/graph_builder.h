#pragma once
// Test fixture: builds small graphs by name, node by node in topological order, with each node's
// output count taken from the operator registry (as a loader would).

#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio::test {

class GraphBuilder {
public:
    NodeEntry addVariable(const std::string& name) {
        Node n;
        n.name = name;
        return append(std::move(n));
    }

    // Output 0 of the new node; use output(entry, i) for the others.
    NodeEntry addOp(const std::string& op, const std::string& name, std::vector<NodeEntry> inputs,
                    Attributes attrs = {}) {
        Node n;
        n.op = op;
        n.name = name;
        n.inputs = std::move(inputs);
        n.attrs = std::move(attrs);
        n.numOutputs = MxnetOpFacts::instance().numOutputs(n);
        return append(std::move(n));
    }

    static NodeEntry output(NodeEntry e, uint32_t index) { return {e.node, index, 0}; }

    Graph finish(std::vector<NodeEntry> heads) {
        Graph g = m_graph;
        g.heads = std::move(heads);
        g.validate();
        return g;
    }

private:
    NodeEntry append(Node n) {
        m_graph.nodes.push_back(std::move(n));
        return {static_cast<NodeId>(m_graph.nodes.size() - 1), 0, 0};
    }

    Graph m_graph;
};

}  // namespace ampstudio::test
