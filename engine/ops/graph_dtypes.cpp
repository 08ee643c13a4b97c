#include "ops/graph_dtypes.h"

#include <algorithm>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {

std::string dtypeList(const std::vector<DType>& types) {
    std::string text;
    for (DType t : types) {
        text += (text.empty() ? "" : ", ") + std::string(dtypeName(t));
    }
    return text;
}

std::string DtypeConflict::describe(const Graph& graph) const {
    const Node& n = graph.nodes[node];
    std::string text = n.op + " '" + n.name + "' cannot take inputs (" + dtypeList(inputs) + ")";
    bool anyOutputKnown = false;
    for (DType t : outputs) {
        anyOutputKnown = anyOutputKnown || t != DType::Unknown;
    }
    if (anyOutputKnown) {
        text += " with outputs (" + dtypeList(outputs) + ")";
    }
    return text;
}

std::optional<DtypeConflict> propagateDtypes(const Graph& graph, const std::vector<uint32_t>& rowPtr,
                                             std::vector<DType>& dtypes, bool untypedInputThrows) {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    std::vector<DType> in, out;
    std::optional<DtypeConflict> conflict;
    // MXNet's inference_finished: a node whose inputs and outputs were all known after its call is
    // never called again (nothing it could say would be new). Half the sweeps' work on a typed graph.
    std::vector<char> finished(graph.size(), 0);
    auto allKnown = [](const std::vector<DType>& v) {
        return std::none_of(v.begin(), v.end(), [](DType t) { return t == DType::Unknown; });
    };
    // One node: its function sees the current slots and what it fills is written back, also when
    // it cannot complete (MXNet saves partial results too).
    auto step = [&](NodeId id) -> bool {
        const Node& node = graph.nodes[id];
        if (node.isVariable() || finished[id]) {
            return false;
        }
        in.clear();
        for (const NodeEntry& e : node.inputs) {
            in.push_back(dtypes[rowPtr[e.node] + e.index]);
        }
        out.assign(dtypes.begin() + rowPtr[id], dtypes.begin() + rowPtr[id] + node.numOutputs);
        const std::vector<DType> inBefore = in;
        const std::vector<DType> outBefore = out;
        if (registry.typeInference(node, in, out, untypedInputThrows) == TypeInference::Conflict) {
            conflict = DtypeConflict{id, inBefore, outBefore};
            return false;
        }
        finished[id] = allKnown(in) && allKnown(out);
        bool changed = false;
        for (std::size_t i = 0; i < in.size(); ++i) {
            DType& slot = dtypes[rowPtr[node.inputs[i].node] + node.inputs[i].index];
            if (slot != in[i] && in[i] != DType::Unknown) {
                slot = in[i];
                changed = true;
            }
        }
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            DType& slot = dtypes[rowPtr[id] + i];
            if (slot != out[i] && out[i] != DType::Unknown) {
                slot = out[i];
                changed = true;
            }
        }
        return changed;
    };
    // Forward, then backward, alternating, while a sweep changes something (MXNet's InferAttr
    // stops when the count of unknown entries stops falling; a sweep that fills nothing changes
    // nothing, so the two agree).
    for (bool forward = true;; forward = !forward) {
        bool changed = false;
        if (forward) {
            for (NodeId id = 0; id < graph.size() && !conflict; ++id) {
                changed = step(id) || changed;
            }
        } else {
            for (NodeId id = static_cast<NodeId>(graph.size()); id-- > 0 && !conflict;) {
                changed = step(id) || changed;
            }
        }
        if (conflict) {
            return conflict;
        }
        if (!changed && !forward) {
            return std::nullopt;
        }
    }
}

GraphDtypes inferGraphDtypes(const Graph& graph, std::vector<uint32_t> rowPtr, const std::vector<DType>& seeds) {
    GraphDtypes result;
    result.rowPtr = std::move(rowPtr);
    result.dtypes.assign(result.rowPtr.empty() ? 0 : result.rowPtr.back(), DType::Unknown);
    for (NodeId id = 0; id < graph.size() && id < seeds.size(); ++id) {
        if (graph.nodes[id].isVariable()) {
            result.dtypes[result.rowPtr[id]] = seeds[id];
        }
    }
    result.conflict = propagateDtypes(graph, result.rowPtr, result.dtypes);
    return result;
}

GraphDtypes inferGraphDtypes(const Graph& graph, const std::map<std::string, DType>& variables) {
    GraphDtypes result;
    result.rowPtr = graph.nodeRowPtr();
    result.dtypes.assign(result.rowPtr.empty() ? 0 : result.rowPtr.back(), DType::Unknown);
    if (!variables.empty()) {
        for (NodeId id = 0; id < graph.size(); ++id) {
            const Node& n = graph.nodes[id];
            if (n.isVariable()) {
                if (auto it = variables.find(n.name); it != variables.end()) {
                    result.dtypes[result.rowPtr[id]] = it->second;
                }
            }
        }
    }
    result.conflict = propagateDtypes(graph, result.rowPtr, result.dtypes);
    return result;
}

}  // namespace ampstudio
