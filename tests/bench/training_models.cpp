#include "training_models.h"

#include "ops/mxnet_op_facts.h"
#include "tensor/seeded_random.h"

namespace ampstudio::bench {

namespace {

class Builder {
public:
    NodeEntry var(const std::string& name) {
        Node n;
        n.name = name;
        return add(std::move(n));
    }
    NodeEntry op(const std::string& op, const std::string& name, std::vector<NodeEntry> in, Attributes attrs) {
        Node n;
        n.op = op;
        n.name = name;
        n.inputs = std::move(in);
        n.attrs = std::move(attrs);
        n.numOutputs = MxnetOpFacts::instance().numOutputs(n);
        return add(std::move(n));
    }
    NodeEntry fc(const std::string& name, NodeEntry x, int hidden) {
        return op("FullyConnected", name, {x, var(name + "_weight"), var(name + "_bias")},
                  {{"num_hidden", std::to_string(hidden)}});
    }
    NodeEntry relu(const std::string& name, NodeEntry x) { return op("Activation", name, {x}, {{"act_type", "relu"}}); }
    Graph finish(NodeEntry head) {
        g.heads = {head};
        g.validate();
        return g;
    }

private:
    NodeEntry add(Node n) {
        g.nodes.push_back(std::move(n));
        return {static_cast<NodeId>(g.nodes.size() - 1), 0, 0};
    }
    Graph g;
};

}  // namespace

Graph mlpModel(int hidden) {
    Builder b;
    NodeEntry x = b.var("data");
    x = b.relu("relu1", b.fc("fc1", x, hidden));
    x = b.relu("relu2", b.fc("fc2", x, hidden));
    x = b.fc("fc3", x, 10);
    return b.finish(b.op("SoftmaxOutput", "softmax", {x, b.var("softmax_label")}, {}));
}

Graph cnnModel() {
    Builder b;
    NodeEntry x = b.var("data");
    int block = 1;
    for (int channels : {32, 64}) {
        const std::string n = std::to_string(block++);
        x = b.op("Convolution", "conv" + n, {x, b.var("conv" + n + "_weight"), b.var("conv" + n + "_bias")},
                 {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", std::to_string(channels)}});
        x = b.op("BatchNorm", "bn" + n,
                 {x, b.var("bn" + n + "_gamma"), b.var("bn" + n + "_beta"), b.var("bn" + n + "_moving_mean"),
                  b.var("bn" + n + "_moving_var")},
                 {{"fix_gamma", "False"}});
        x = b.relu("relu" + n, x);
        x = b.op("Pooling", "pool" + n, {x}, {{"pool_type", "max"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}});
    }
    x = b.op("Flatten", "flatten", {x}, {});
    x = b.fc("fc", x, 10);
    return b.finish(b.op("SoftmaxOutput", "softmax", {x, b.var("softmax_label")}, {}));
}

Dataset randomImages(int64_t samples, uint64_t seed) {
    Dataset d;
    d.name = "random 28x28";
    d.sampleShape = {1, 28, 28};
    d.classCount = 10;
    SeededRandom random(seed);
    d.features.resize(static_cast<std::size_t>(samples * 784));
    for (float& v : d.features) v = static_cast<float>(random.uniform(0.0, 1.0));
    for (int64_t i = 0; i < samples; ++i) d.labels.push_back(static_cast<int32_t>(i % 10));
    return d;
}

std::vector<std::string> splitNames(const char* text) {
    std::vector<std::string> out;
    std::string item;
    for (const char* p = text;; ++p) {
        if (*p == ',' || *p == 0) {
            if (!item.empty()) out.push_back(item);
            item.clear();
            if (*p == 0) break;
        } else {
            item += *p;
        }
    }
    return out;
}

}  // namespace ampstudio::bench
