#include "train/calibration_inputs.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "formats/load_error.h"
#include "ops/variable_roles.h"
#include "tensor/seeded_random.h"
#include "train/fashion_mnist.h"
#include "train/idx_file.h"

namespace ampstudio {
namespace {

// "64,784", "(64, 784)", "[64,784]"
Shape parseShape(const std::string& text, const std::string& what) {
    std::string s;
    for (char c : text) {
        if (c != '(' && c != ')' && c != '[' && c != ']' && c != ' ') s += c;
    }
    Shape shape;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || v <= 0 || v > (int64_t{1} << 40)) {
            throw CalibrationError(what + ": '" + text + "' is not a shape of positive dimensions");
        }
        shape.push_back(v);
    }
    if (shape.empty() || shapeSize(shape) <= 0 || shapeSize(shape) > (int64_t{1} << 31)) {
        throw CalibrationError(what + ": '" + text + "' is not a usable shape");
    }
    return shape;
}

// The first `samples` images of a dataset as floats 0..1, one row per sample.
HostArray images(const std::string& source, int64_t samples) {
    Dataset d;
    if (source == "fashion-mnist") {
        d = loadFashionMnist().test;
    } else {
        const IdxArray idx = readIdxFile(source);
        if (idx.dims.empty()) throw LoadError(source, "", "an IDX file of images needs at least one dimension");
        d.sampleShape.assign(idx.dims.begin() + 1, idx.dims.end());
        if (d.sampleShape.size() == 2) d.sampleShape.insert(d.sampleShape.begin(), 1);
        d.features = idx.toFloats();
    }
    const int64_t n = std::min<int64_t>(samples, d.size());
    HostArray a;
    a.shape = {n};
    a.shape.insert(a.shape.end(), d.sampleShape.begin(), d.sampleShape.end());
    a.values.assign(d.features.begin(), d.features.begin() + n * d.sampleSize());
    for (float& v : a.values) v /= 255.0f;
    return a;
}

}  // namespace

std::string dataInputName(const Graph& graph) {
    const auto roles = classifyVariables(graph);
    std::string first;
    for (NodeId n = 0; n < graph.size(); ++n) {
        const Node& node = graph.nodes[n];
        if (!node.isVariable() || roles[n] != VariableRole::Input) continue;
        if (node.name == "data") return node.name;
        if (first.empty() && !node.name.ends_with("label")) first = node.name;
    }
    return first;
}

std::string suggestedRandomInput(const Graph& graph, const NDArrayList* params, int64_t batch) {
    const std::string name = dataInputName(graph);
    if (name.empty()) return {};
    NodeId data = 0;
    while (graph.nodes[data].name != name) ++data;
    // The shape of the consumer's input `i` where it is a parameter with a stored value.
    auto paramShape = [&](const Node& consumer, std::size_t i) -> std::optional<std::vector<int64_t>> {
        if (!params || consumer.inputs.size() <= i) return std::nullopt;
        const int at = params->find(graph.node(consumer.inputs[i]).name);
        if (at < 0) return std::nullopt;
        return params->arrays[std::size_t(at)].shape;
    };
    for (const Node& node : graph.nodes) {
        if (node.inputs.empty() || node.inputs[0].node != data) continue;
        std::ostringstream text;
        text << name << '=' << batch;
        if (node.op == "FullyConnected") {
            const auto w = paramShape(node, 1);
            if (!w || w->size() != 2) return {};
            text << ',' << (*w)[1];
            return text.str();
        }
        if (node.op == "Convolution") {
            const auto w = paramShape(node, 1);
            int64_t groups = 1;
            if (const std::string* g = node.attr("num_group")) groups = std::max<int64_t>(1, std::atoll(g->c_str()));
            const int64_t channels = w && w->size() == 4 ? (*w)[1] * groups : 3;
            const int side = channels == 1 ? 28 : 224;
            text << ',' << channels << ',' << side << ',' << side;
            return text.str();
        }
        return {};
    }
    return {};
}

std::map<std::string, HostArray> calibrationInputs(const Graph& graph, const CalibrationSpec& spec) {
    const std::string& label = spec.randomInputLabel;
    const std::vector<std::string>& specs = spec.randomInputs;
    const std::optional<std::string>& data = spec.dataset;
    const int64_t samples = spec.samples;
    const uint64_t seed = spec.seed;
    if (samples < 1) throw CalibrationError("the sample count must be at least 1");
    std::map<std::string, HostArray> inputs;
    SeededRandom random(seed);
    for (const std::string& item : specs) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) throw CalibrationError(label + ": '" + item + "' is not NAME=SHAPE");
        HostArray a;
        a.shape = parseShape(item.substr(eq + 1), label + " " + item.substr(0, eq));
        a.values.resize(static_cast<std::size_t>(shapeSize(a.shape)));
        for (float& v : a.values) v = static_cast<float>(random.uniform(0.0, 1.0));
        inputs[item.substr(0, eq)] = std::move(a);
    }
    if (data) {
        const std::string name = dataInputName(graph);
        if (name.empty()) throw CalibrationError("the model has no data input for the dataset");
        HostArray a = images(*data, samples);
        if (const auto it = inputs.find(name); it != inputs.end()) {
            // --input gives the layout: keep its per-sample shape, take the batch from --samples.
            Shape s = it->second.shape;
            s[0] = a.shape[0];
            if (shapeSize(s) != static_cast<int64_t>(a.values.size())) {
                throw CalibrationError(label + " " + name + " does not hold " + shapeString(a.shape) + " images");
            }
            a.shape = s;
        }
        inputs[name] = std::move(a);
    }
    if (inputs.empty()) {
        throw CalibrationError("no inputs: give a dataset or random inputs by shape");
    }
    return inputs;
}

}  // namespace ampstudio
