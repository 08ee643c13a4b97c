#include "exec/model_run.h"

#include <cstring>
#include <stdexcept>

#include "exec/param_init.h"
#include "tensor/float_convert.h"

namespace ampstudio {

void uploadFloats(Backend& backend, const std::vector<float>& values, const Tensor& dst) {
    Tensor f32 = backend.allocate(dst.shape(), DType::F32);
    backend.copyFromHost(values.data(), values.size() * sizeof(float), f32);
    backend.convert(f32, dst);
}

std::vector<float> recordValues(const NDArrayRecord& record) {
    const auto n = static_cast<std::size_t>(record.elementCount());
    std::vector<float> out(n);
    if (record.dtype == DType::F32) {
        std::memcpy(out.data(), record.data.data(), n * sizeof(float));
    } else if (record.dtype == DType::F16 || record.dtype == DType::BF16) {
        std::vector<uint16_t> bits(n);
        std::memcpy(bits.data(), record.data.data(), n * sizeof(uint16_t));
        record.dtype == DType::F16 ? halfToFloats(bits, out) : bfloat16ToFloats(bits, out);
    } else {
        throw std::invalid_argument("parameter '" + std::string(record.bareName()) + "' is stored as " +
                                    std::string(dtypeName(record.dtype)) + "; compare reads float32, float16, bfloat16");
    }
    return out;
}

std::unique_ptr<Executor> bindForInference(const Graph& graph, const std::map<std::string, HostArray>& inputs, Backend& backend) {
    BindOptions options;
    options.forTraining = false;
    for (const auto& [name, array] : inputs) {
        options.shapes[name] = array.shape;
    }
    return std::make_unique<Executor>(graph, backend, options);
}

void loadValues(Executor& executor, const NDArrayList* params, const std::map<std::string, HostArray>& inputs,
          Backend& backend, uint64_t seed, const std::function<bool(const std::string&)>& skip) {
    const Graph& graph = executor.graph();
    for (const Node& node : graph.nodes) {
        if (!node.isVariable() || (skip && skip(node.name))) {
            continue;
        }
        const Tensor& value = executor.value(node.name);
        if (const auto it = inputs.find(node.name); it != inputs.end()) {
            uploadFloats(backend, it->second.values, value);
            continue;
        }
        const int index = params != nullptr ? params->find(node.name) : -1;
        if (index >= 0) {
            const NDArrayRecord& record = params->arrays[static_cast<std::size_t>(index)];
            if (record.shape != value.shape()) {
                throw std::invalid_argument("parameter '" + node.name + "' has shape " + shapeString(record.shape) +
                                            " in the file but the model needs " + shapeString(value.shape()));
            }
            uploadFloats(backend, recordValues(record), value);
        } else {
            // Labels and unnamed inputs of the forward pass read zeros; parameters their initial values.
            uploadFloats(backend, initialParameterValues(node.name, value.shape(), seed, node.attr("__init__")), value);
        }
    }
}

}  // namespace ampstudio
