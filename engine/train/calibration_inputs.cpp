#include "train/calibration_inputs.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "formats/load_error.h"
#include "exec/onnx/onnx_compare.h"
#include "formats/npz_file.h"
#include "ops/variable_roles.h"
#include "tensor/seeded_random.h"
#include "train/dataset_source.h"
#include "train/fashion_mnist.h"
#include "train/idx_file.h"

namespace ampstudio {
namespace {

}  // namespace

Shape parseInputShape(const std::string& text, const std::string& what) {
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

namespace {

// The first `samples` images of a dataset as floats 0..1, one row per sample; or the first samples
// of a training-data spec's validation part (already scaled as training reads it).
HostArray images(const std::string& source, int64_t samples) {
    Dataset d;
    float scale = 255.0f;
    if (source.starts_with("synthetic:") || source.starts_with("csv:") || source.starts_with("idx:")) {
        TrainingData t;
        try {
            t = loadTrainingData(source);
        } catch (const std::invalid_argument& e) {
            throw CalibrationError(e.what());
        }
        d = t.validation.size() > 0 ? std::move(t.validation) : std::move(t.train);
        scale = 1.0f;
    } else if (source == "fashion-mnist") {
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
    for (float& v : a.values) v /= scale;
    return a;
}

// The arrays of the NumPy files by the model input each fills, concatenated along the first axis.
std::map<std::string, HostArray> numpyInputs(const Graph& graph, const std::vector<std::string>& files) {
    const auto roles = classifyVariables(graph);
    std::set<std::string> inputNames;
    for (NodeId n = 0; n < graph.size(); ++n) {
        if (graph.nodes[n].isVariable() && roles[n] == VariableRole::Input) inputNames.insert(graph.nodes[n].name);
    }
    std::map<std::string, HostArray> inputs;
    for (const std::string& file : files) {
        std::map<std::string, NpyArray> arrays = readNumpyFile(file);
        for (auto& [key, array] : arrays) {
            std::string name = key;
            if (!inputNames.contains(name)) {
                if (arrays.size() != 1 || dataInputName(graph).empty()) {
                    std::string known;
                    for (const std::string& n : inputNames) known += (known.empty() ? "" : ", ") + n;
                    throw CalibrationError(file + ": array '" + key + "' names no input of the model (its inputs: " +
                                           known + ")");
                }
                name = dataInputName(graph);
            }
            if (array.shape.empty()) throw CalibrationError(file + ": array '" + key + "' is a scalar; inputs need a batch axis");
            const auto it = inputs.find(name);
            if (it == inputs.end()) {
                inputs[name] = HostArray{array.shape, std::move(array.values)};
                continue;
            }
            HostArray& a = it->second;
            if (!std::equal(a.shape.begin() + 1, a.shape.end(), array.shape.begin() + 1, array.shape.end())) {
                throw CalibrationError(file + ": array '" + key + "' of shape " + shapeString(array.shape) +
                                       " does not continue " + name + " of shape " + shapeString(a.shape));
            }
            a.shape[0] += array.shape[0];
            a.values.insert(a.values.end(), array.values.begin(), array.values.end());
        }
    }
    return inputs;
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
        a.shape = parseInputShape(item.substr(eq + 1), label + " " + item.substr(0, eq));
        a.values.resize(static_cast<std::size_t>(shapeSize(a.shape)));
        for (float& v : a.values) v = static_cast<float>(random.uniform(0.0, 1.0));
        inputs[item.substr(0, eq)] = std::move(a);
    }
    for (auto& [name, array] : numpyInputs(graph, spec.numpyFiles)) inputs[name] = std::move(array);
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
        throw CalibrationError("no inputs: give NumPy files, a dataset or random inputs by shape");
    }
    return inputs;
}

std::map<std::string, HostTensor> onnxCalibrationInputs(const OnnxProgram& program, const CalibrationSpec& spec) {
    const std::string& label = spec.randomInputLabel;
    const auto declaredDtype = [&](const std::string& name) -> std::optional<DType> {
        for (const OnnxValueInfo& info : program.graph.inputs) {
            if (info.name == name) return info.dtype.value_or(DType::F32);
        }
        return std::nullopt;
    };
    std::map<std::string, HostTensor> given;
    std::map<std::string, Dims> shapes;
    for (const std::string& item : spec.randomInputs) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) throw CalibrationError(label + ": '" + item + "' is not NAME=SHAPE");
        shapes[item.substr(0, eq)] = parseInputShape(item.substr(eq + 1), label + " " + item.substr(0, eq));
    }
    const auto required = program.requiredInputs();
    for (const std::string& file : spec.numpyFiles) {
        const std::map<std::string, NpyArray> arrays = readNumpyFile(file);
        for (const auto& [name, array] : arrays) {
            // A file's only array fills the first input whatever its name (as for MXNet models).
            const std::string input = declaredDtype(name) || arrays.size() > 1 || required.empty() ? name : required.front()->name;
            const std::optional<DType> dtype = declaredDtype(input);
            if (!dtype) throw CalibrationError(file + ": the model has no input '" + name + "'");
            given[input] = npyTensor(array, *dtype);
        }
    }
    if (spec.dataset) {
        if (required.empty()) throw CalibrationError("the model has no input for the dataset");
        const OnnxValueInfo& info = *required.front();
        if (spec.samples < 1) throw CalibrationError("the sample count must be at least 1");
        HostArray a = images(*spec.dataset, spec.samples);
        Shape dims = a.shape;
        if (const auto it = shapes.find(info.name); it != shapes.end()) {
            dims = it->second;
            dims[0] = a.shape[0];
            if (shapeSize(dims) != static_cast<int64_t>(a.values.size())) {
                throw CalibrationError(label + " " + info.name + " does not hold " + shapeString(a.shape) + " images");
            }
            shapes.erase(it);
        }
        given[info.name] = HostTensor::fromFloats(a.values, dims, isFloat(info.dtype.value_or(DType::F32)) ? info.dtype.value_or(DType::F32) : DType::F32);
    }
    for (const auto& [name, t] : given) shapes.erase(name);
    try {
        return onnxRunInputs(program, given, shapes, spec.seed);
    } catch (const std::invalid_argument& e) {
        throw CalibrationError(e.what());
    }
}

std::string suggestedOnnxRandomInputs(const OnnxProgram& program, int64_t batch) {
    std::string text;
    for (const OnnxValueInfo* info : program.requiredInputs()) {
        if (!info->dims) return {};
        if (info->dims->empty()) continue;  // a scalar: filled without being named
        std::string dims;
        for (std::size_t d = 0; d < info->dims->size(); ++d) {
            const int64_t size = (*info->dims)[d].value_or(d == 0 ? batch : 32);
            dims += (d ? "," : "") + std::to_string(size);
        }
        text += (text.empty() ? "" : "; ") + info->name + "=" + dims;
    }
    return text;
}

}  // namespace ampstudio
