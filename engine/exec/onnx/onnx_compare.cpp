#include "exec/onnx/onnx_compare.h"

#include <stdexcept>
#include <unordered_map>

#include "exec/onnx/onnx_runner.h"
#include "tensor/seeded_random.h"

namespace ampstudio {
namespace {

TensorDifference differenceOf(const HostTensor& r, const HostTensor& c, std::string name) {
    if (r.dims() != c.dims()) {
        throw std::invalid_argument("'" + name + "' has dims " + dimsString(r.dims()) + " in the original but " +
                                    dimsString(c.dims()) + " in the converted model");
    }
    TensorDifference d = compareArrays(r.floats(), c.floats());
    d.name = std::move(name);
    d.shape = r.dims();
    d.convertedDtype = c.dtype();
    return d;
}

bool numeric(const HostTensor& t) { return t.defined() && t.dtype() != DType::Unknown; }

}  // namespace

std::map<std::string, HostTensor> onnxInputsFor(const OnnxProgram& program, const std::map<std::string, HostTensor>& inputs) {
    std::map<std::string, HostTensor> out;
    for (const auto& [name, t] : inputs) {
        HostTensor value = t;
        for (const OnnxValueInfo& info : program.graph.inputs) {
            if (info.name == name && info.dtype && *info.dtype != t.dtype() && isFloat(*info.dtype) && isFloat(t.dtype())) {
                value = HostTensor::fromFloats(t.floats(), t.dims(), *info.dtype);
            }
        }
        out.emplace(name, std::move(value));
    }
    return out;
}

ModelComparison compareOnnxModels(const OnnxProgram& reference, const OnnxProgram& converted,
                                  const std::map<std::string, HostTensor>& inputs) {
    if (reference.graph.outputs.size() != converted.graph.outputs.size()) {
        throw std::invalid_argument("the models have different numbers of outputs (" + std::to_string(reference.graph.outputs.size()) +
                                    " and " + std::to_string(converted.graph.outputs.size()) + ")");
    }
    const OnnxRunResult r = OnnxRunner(std::make_shared<OnnxProgram>(reference)).run(onnxInputsFor(reference, inputs), true);
    const OnnxRunResult c = OnnxRunner(std::make_shared<OnnxProgram>(converted)).run(onnxInputsFor(converted, inputs), true);
    ModelComparison result;
    for (std::size_t o = 0; o < r.outputs.size(); ++o) {
        result.outputs.push_back(differenceOf(r.outputs[o].second, c.outputs[o].second, r.outputs[o].first));
    }
    std::unordered_map<std::string, const OnnxProgramNode*> convertedByName;
    for (const OnnxProgramNode& n : converted.graph.nodes) convertedByName.emplace(n.name, &n);
    for (const OnnxProgramNode& n : reference.graph.nodes) {
        const auto it = convertedByName.find(n.name);
        if (it == convertedByName.end() || it->second->op != n.op || n.outputs.empty() || it->second->outputs.empty()) continue;
        const auto rv = r.values.find(n.outputs[0]);
        const auto cv = c.values.find(it->second->outputs[0]);
        if (rv == r.values.end() || cv == c.values.end() || !numeric(rv->second) || !numeric(cv->second)) continue;
        if (rv->second.dims() != cv->second.dims()) continue;
        result.nodes.push_back(differenceOf(rv->second, cv->second, n.name));
    }
    return result;
}

std::map<std::string, HostTensor> onnxRunInputs(const OnnxProgram& program, const std::map<std::string, HostTensor>& numpy,
                                                const std::map<std::string, Dims>& shapes, uint64_t seed) {
    std::map<std::string, HostTensor> inputs;
    const auto declared = [&](const std::string& name) -> const OnnxValueInfo* {
        for (const OnnxValueInfo& info : program.graph.inputs) {
            if (info.name == name) return &info;
        }
        return nullptr;
    };
    for (const auto& [name, t] : numpy) {
        const OnnxValueInfo* info = declared(name);
        if (!info) throw std::invalid_argument("the model has no input '" + name + "'");
        inputs[name] = t;
    }
    SeededRandom random(seed);
    const auto randomTensor = [&](const OnnxValueInfo& info, const Dims& dims) {
        const DType dtype = info.dtype.value_or(DType::F32);
        if (isFloat(dtype)) {
            std::vector<float> values(static_cast<std::size_t>(dimsSize(dims)));
            for (float& v : values) v = static_cast<float>(random.uniform01());
            return HostTensor::fromFloats(values, dims, dtype);
        }
        HostTensor t(dtype, dims);  // integers and bools: 0 or 1 (in the low byte of zeros)
        for (int64_t i = 0; i < t.size(); ++i) t.mutableRaw()[static_cast<std::size_t>(i) * dtypeSize(dtype)] = std::byte(random.below(2));
        return t;
    };
    for (const auto& [name, dims] : shapes) {
        const OnnxValueInfo* info = declared(name);
        if (!info) throw std::invalid_argument("the model has no input '" + name + "'");
        if (inputs.contains(name)) throw std::invalid_argument("input '" + name + "' is given twice");
        inputs[name] = randomTensor(*info, dims);
    }
    for (const OnnxValueInfo* info : program.requiredInputs()) {
        if (inputs.contains(info->name)) continue;
        Dims dims;
        bool fixed = info->dims.has_value();
        if (fixed) {
            for (const auto& d : *info->dims) {
                if (!d) fixed = false;
                dims.push_back(d.value_or(0));
            }
        }
        if (!fixed) {
            throw std::invalid_argument("input '" + info->name + "' has symbolic dims: give it with --inputs or --input " +
                                        info->name + "=SHAPE");
        }
        inputs[info->name] = randomTensor(*info, dims);
    }
    return inputs;
}

}  // namespace ampstudio
