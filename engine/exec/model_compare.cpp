#include "exec/model_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <stdexcept>

#include "exec/executor.h"
#include "exec/model_run.h"

namespace ampstudio {

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
    auto ref = bindForInference(reference, inputs, backend);
    auto conv = bindForInference(converted, inputs, backend);
    loadValues(*ref, params, inputs, backend, seed);
    loadValues(*conv, params, inputs, backend, seed);
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
