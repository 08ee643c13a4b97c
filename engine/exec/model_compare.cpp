#include "exec/model_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <stdexcept>

#include "exec/executor.h"
#include "exec/param_init.h"
#include "ops/variable_roles.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

void upload(Backend& backend, const std::vector<float>& values, const Tensor& dst) {
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

std::unique_ptr<Executor> bind(const Graph& graph, const std::map<std::string, HostArray>& inputs, Backend& backend) {
    BindOptions options;
    options.forTraining = false;
    for (const auto& [name, array] : inputs) {
        options.shapes[name] = array.shape;
    }
    return std::make_unique<Executor>(graph, backend, options);
}

void load(Executor& executor, const NDArrayList* params, const std::map<std::string, HostArray>& inputs,
          Backend& backend, uint64_t seed) {
    const Graph& graph = executor.graph();
    for (const Node& node : graph.nodes) {
        if (!node.isVariable()) {
            continue;
        }
        const Tensor& value = executor.value(node.name);
        if (const auto it = inputs.find(node.name); it != inputs.end()) {
            upload(backend, it->second.values, value);
            continue;
        }
        const int index = params != nullptr ? params->find(node.name) : -1;
        if (index >= 0) {
            const NDArrayRecord& record = params->arrays[static_cast<std::size_t>(index)];
            if (record.shape != value.shape()) {
                throw std::invalid_argument("parameter '" + node.name + "' has shape " + shapeString(record.shape) +
                                            " in the file but the model needs " + shapeString(value.shape()));
            }
            upload(backend, recordValues(record), value);
        } else {
            // Labels and unnamed inputs of the forward pass read zeros; parameters their initial values.
            upload(backend, initialParameterValues(node.name, value.shape(), seed, node.attr("__init__")), value);
        }
    }
}

}  // namespace

TensorDifference compareArrays(const std::vector<float>& reference, const std::vector<float>& converted) {
    TensorDifference d;
    double maxRef = 0.0, dot = 0.0, nr = 0.0, nc = 0.0;
    for (std::size_t i = 0; i < reference.size() && i < converted.size(); ++i) {
        const double r = reference[i], c = converted[i];
        if (!std::isfinite(r)) {
            ++d.referenceNonFinite;
        }
        if (!std::isfinite(c)) {
            ++d.nonFinite;
        }
        ++d.elements;
        if (!std::isfinite(r) || !std::isfinite(c)) {
            continue;
        }
        ++d.finitePairs;
        d.maxAbsError = std::max(d.maxAbsError, std::abs(c - r));
        maxRef = std::max(maxRef, std::abs(r));
        dot += r * c;
        nr += r * r;
        nc += c * c;
    }
    d.referenceMaxAbs = maxRef;
    d.maxRelError = maxRef > 0.0 ? d.maxAbsError / maxRef : (d.maxAbsError > 0.0 ? INFINITY : 0.0);
    if (d.finitePairs == 0) {
        // Nothing to compare (e.g. the reference is all inf): no figure may look like agreement.
        d.cosine = std::numeric_limits<double>::quiet_NaN();
        d.maxRelError = std::numeric_limits<double>::quiet_NaN();
        d.maxAbsError = std::numeric_limits<double>::quiet_NaN();
        return d;
    }
    d.cosine = nr > 0.0 && nc > 0.0 ? dot / std::sqrt(nr * nc) : (nr == 0.0 && nc == 0.0 ? 1.0 : 0.0);
    return d;
}

ModelComparison compareModels(const Graph& reference, const Graph& converted, const NDArrayList* params,
                              const std::map<std::string, HostArray>& inputs, Backend& backend, uint64_t seed) {
    if (reference.heads.size() != converted.heads.size()) {
        throw std::invalid_argument("the models have different numbers of outputs (" +
                                    std::to_string(reference.heads.size()) + " and " +
                                    std::to_string(converted.heads.size()) + ")");
    }
    for (const auto& [name, array] : inputs) {
        if (static_cast<int64_t>(array.values.size()) != shapeSize(array.shape)) {
            throw std::invalid_argument("input '" + name + "' has " + std::to_string(array.values.size()) +
                                        " values for shape " + shapeString(array.shape));
        }
    }
    auto ref = bind(reference, inputs, backend);
    auto conv = bind(converted, inputs, backend);
    load(*ref, params, inputs, backend, seed);
    load(*conv, params, inputs, backend, seed);
    ExecContext ctx;
    ctx.training = false;
    ctx.seed = seed;
    ref->forward(ctx);
    conv->forward(ctx);

    ModelComparison result;
    auto compareEntry = [&](const NodeEntry& r, const NodeEntry& c, std::string name) {
        const Tensor& rt = ref->entryValue(r);
        const Tensor& ct = conv->entryValue(c);
        if (rt.shape() != ct.shape()) {
            throw std::invalid_argument("output '" + name + "' has shape " + shapeString(rt.shape()) +
                                        " in the original but " + shapeString(ct.shape()) + " in the converted model");
        }
        TensorDifference d = compareArrays(downloadFloats(backend, rt), downloadFloats(backend, ct));
        d.name = std::move(name);
        d.shape = rt.shape();
        d.convertedDtype = ct.dtype();
        return d;
    };
    for (std::size_t h = 0; h < reference.heads.size(); ++h) {
        const NodeEntry r = reference.heads[h];
        result.outputs.push_back(compareEntry(r, converted.heads[h], outputEntryName(reference.nodes[r.node], r.index)));
    }
    std::map<std::string, NodeId, std::less<>> convertedByName;
    for (NodeId n = 0; n < converted.size(); ++n) {
        if (!converted.nodes[n].isVariable()) {
            convertedByName.emplace(converted.nodes[n].name, n);
        }
    }
    for (NodeId n = 0; n < reference.size(); ++n) {
        const Node& node = reference.nodes[n];
        const auto it = node.isVariable() ? convertedByName.end() : convertedByName.find(node.name);
        if (it == convertedByName.end() || converted.nodes[it->second].op != node.op) {
            continue;
        }
        for (uint32_t i = 0; i < node.numOutputs && i < converted.nodes[it->second].numOutputs; ++i) {
            if (ref->entryValue({n, i, 0}).shape() == conv->entryValue({it->second, i, 0}).shape()) {
                result.nodes.push_back(compareEntry({n, i, 0}, {it->second, i, 0}, outputEntryName(node, i)));
            }
        }
    }
    return result;
}

}  // namespace ampstudio
