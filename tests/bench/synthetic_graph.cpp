#include "synthetic_graph.h"

#include <random>
#include <string>

#include "ops/mxnet_op_facts.h"

namespace ampstudio::bench {
namespace {

class Builder {
public:
    explicit Builder(uint64_t seed) : m_rng(seed) {}

    NodeEntry variable(const std::string& name) {
        Node n;
        n.name = name;
        return push(std::move(n));
    }

    NodeEntry op(const char* op, std::vector<NodeEntry> inputs, Attributes attrs = {}) {
        Node n;
        n.op = op;
        n.name = std::string(op) + std::to_string(m_graph.nodes.size());
        n.inputs = std::move(inputs);
        n.attrs = std::move(attrs);
        n.numOutputs = MxnetOpFacts::instance().numOutputs(n);
        return push(std::move(n));
    }

    // The previous compute output: every op reads it first, so the graph is one long path with side
    // branches and everything is reachable from the output, as in a real network.
    NodeEntry last() const { return m_outputs.back(); }

    // A recent compute output most of the time, sometimes one further back (a skip connection).
    // Skips stay within a block of 64 outputs, as residual and dense connections do in real
    // networks; a skip across the whole graph would be drawn as an edge thousands of layers long.
    NodeEntry pick() {
        const std::size_t n = m_outputs.size();
        std::size_t back = std::uniform_int_distribution<std::size_t>(0, 3)(m_rng);
        if (std::uniform_int_distribution<int>(0, 9)(m_rng) == 0) {
            back = std::uniform_int_distribution<std::size_t>(0, 63)(m_rng);
        }
        return m_outputs[n - 1 - std::min(back, n - 1)];
    }

    std::mt19937_64& rng() { return m_rng; }
    int roll(int sides) { return std::uniform_int_distribution<int>(0, sides - 1)(m_rng); }
    std::size_t size() const { return m_graph.nodes.size(); }
    void keep(NodeEntry e) { m_outputs.push_back(e); }

    Graph finish() {
        m_graph.heads = {m_outputs.back()};
        return std::move(m_graph);
    }

private:
    NodeEntry push(Node n) {
        m_graph.nodes.push_back(std::move(n));
        return {static_cast<NodeId>(m_graph.nodes.size() - 1), 0, 0};
    }

    std::mt19937_64 m_rng;
    Graph m_graph;
    std::vector<NodeEntry> m_outputs;  // compute outputs that later ops may read
};

}  // namespace

Graph syntheticGraph(std::size_t nodes, uint64_t seed) {
    Builder b(seed);
    b.keep(b.variable("data"));
    while (b.size() + 8 < nodes) {
        const std::string id = std::to_string(b.size());
        NodeEntry out;
        switch (b.roll(10)) {
            case 0:  // target dtype op with parameters
            case 1: {
                const NodeEntry x = b.last();
                out = b.op("FullyConnected",
                           {x, b.variable("fc" + id + "_weight"), b.variable("fc" + id + "_bias")},
                           {{"num_hidden", "64"}});
                break;
            }
            case 2:  // neutral op with FP32 parameters and mutable statistics
                out = b.op("BatchNorm", {b.last(), b.variable("bn" + id + "_gamma"), b.variable("bn" + id + "_beta"),
                                         b.variable("bn" + id + "_moving_mean"), b.variable("bn" + id + "_moving_var")});
                break;
            case 3:  // widest-type ops
                out = b.op("elemwise_add", {b.last(), b.pick()});
                break;
            case 4:
                out = b.op("Concat", {b.last(), b.pick(), b.pick()}, {{"dim", "1"}, {"num_args", "3"}});
                break;
            case 5:  // FP32 op
                out = b.op("exp", {b.last()});
                break;
            case 6:  // conditional FP32, matching and not
                out = b.op("Activation", {b.last()}, {{"act_type", b.roll(2) == 0 ? "softrelu" : "relu"}});
                break;
            case 7:  // neutral
                out = b.op("Pooling", {b.last()}, {{"kernel", "(2,2)"}, {"pool_type", "max"}});
                break;
            case 8:
                out = b.op("relu", {b.last()});
                break;
            default:  // in no list
                out = b.op("Flatten", {b.last()});
                break;
        }
        b.keep(out);
    }
    const NodeEntry logits = b.last();
    const NodeEntry label = b.variable("softmax_label");
    b.keep(b.op("SoftmaxOutput", {logits, label}));
    return b.finish();
}

Graph gatheringGraph(std::size_t opNodes, uint64_t seed) {
    Builder b(seed);
    std::vector<NodeEntry> recent{b.variable("data")};  // every output so far, in order
    std::vector<uint8_t> read{0};
    std::mt19937_64& rng = b.rng();
    auto pickNearby = [&] {
        const std::size_t window = std::min<std::size_t>(64, recent.size());
        const std::size_t i = recent.size() - 1 - std::uniform_int_distribution<std::size_t>(0, window - 1)(rng);
        read[i] = 1;
        return recent[i];
    };
    for (std::size_t op = 0; op + 1 < opNodes; ++op) {
        const std::string id = std::to_string(b.size());
        NodeEntry out;
        switch (b.roll(10)) {
            case 0:
            case 1:
                out = b.op("FullyConnected", {pickNearby(), b.variable("fc" + id + "_weight"), b.variable("fc" + id + "_bias")},
                           {{"num_hidden", "64"}});
                break;
            case 2:
                out = b.op("BatchNorm", {pickNearby(), b.variable("bn" + id + "_gamma"), b.variable("bn" + id + "_beta"),
                                         b.variable("bn" + id + "_moving_mean"), b.variable("bn" + id + "_moving_var")});
                break;
            case 3:
                out = b.op("elemwise_add", {pickNearby(), pickNearby()});
                break;
            case 4:
                out = b.op("Concat", {pickNearby(), pickNearby(), pickNearby()}, {{"dim", "1"}, {"num_args", "3"}});
                break;
            case 5:
                out = b.op("exp", {pickNearby()});
                break;
            case 6:
                out = b.op("Activation", {pickNearby()}, {{"act_type", b.roll(2) == 0 ? "softrelu" : "relu"}});
                break;
            case 7:
                out = b.op("Pooling", {pickNearby()}, {{"kernel", "(2,2)"}, {"pool_type", "max"}});
                break;
            case 8:
                out = b.op("relu", {pickNearby()});
                break;
            default:
                out = b.op("Flatten", {pickNearby()});
                break;
        }
        recent.push_back(out);
        read.push_back(0);
    }
    std::vector<NodeEntry> unread;
    for (std::size_t i = 0; i < recent.size(); ++i) {
        if (!read[i]) {
            unread.push_back(recent[i]);
        }
    }
    const std::string count = std::to_string(unread.size());
    b.keep(b.op("add_n", std::move(unread), {{"num_args", count}}));
    return b.finish();
}

Graph scopedGatheringGraph(std::size_t opNodes, uint64_t seed) {
    Graph graph = gatheringGraph(opNodes, seed);
    std::size_t op = 0;
    for (std::size_t n = 0; n + 1 < graph.nodes.size(); ++n) {  // the gathering add_n stays outside
        Node& node = graph.nodes[n];
        if (node.isVariable()) {
            continue;
        }
        const std::string prefix =
            "block" + std::to_string(op / 1000) + "_unit" + std::to_string(op / 50 % 20) + "_";
        node.name = prefix + node.name;
        for (const NodeEntry& input : node.inputs) {
            Node& in = graph.nodes[input.node];
            if (in.isVariable() && in.name != "data" && in.name.find("block") != 0) {
                in.name = prefix + in.name;
            }
        }
        ++op;
    }
    return graph;
}

}  // namespace ampstudio::bench
