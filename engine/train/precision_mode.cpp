#include "train/precision_mode.h"

#include <stdexcept>

#include "amp/conversion.h"
#include "amp/conversion_index.h"
#include "ops/mxnet_op_facts.h"
#include "ops/op_spec.h"

namespace ampstudio {

namespace {

struct ModeInfo {
    PrecisionMode mode;
    std::string_view name;
};

constexpr ModeInfo kModes[] = {{PrecisionMode::Fp32, "fp32"},
                               {PrecisionMode::Amp, "amp"},
                               {PrecisionMode::Fp16Master, "fp16-master"},
                               {PrecisionMode::Bf16, "bf16"},
                               {PrecisionMode::Bf16Master, "bf16-master"}};

bool staysFloat32(std::string_view op) {
    const OpSpec* spec = opSpecs().find(op);
    if (spec != nullptr && spec->kind == OpKind::Loss) {
        return true;
    }
    return op == "BatchNorm" || op == "BatchNorm_v1" || op == "_contrib_SyncBatchNorm";
}

// The conversion's casts, and the user's own Cast: none of them is worth keeping narrow.
bool isCastOp(std::string_view op) { return isAmpCastOp(op) || op == "Cast"; }

}  // namespace

std::string_view precisionModeName(PrecisionMode mode) {
    for (const ModeInfo& info : kModes) {
        if (info.mode == mode) {
            return info.name;
        }
    }
    return "fp32";
}

const std::vector<std::string>& precisionModeNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const ModeInfo& info : kModes) {
            v.emplace_back(info.name);
        }
        return v;
    }();
    return names;
}

const std::vector<PrecisionMode>& allPrecisionModes() {
    static const std::vector<PrecisionMode> modes = [] {
        std::vector<PrecisionMode> v;
        for (const ModeInfo& info : kModes) {
            v.push_back(info.mode);
        }
        return v;
    }();
    return modes;
}

PrecisionMode parsePrecisionMode(std::string_view text) {
    for (const ModeInfo& info : kModes) {
        if (info.name == text) {
            return info.mode;
        }
    }
    throw std::invalid_argument("unknown precision mode '" + std::string(text) +
                                "' (accepted: fp32, amp, fp16-master, bf16, bf16-master)");
}

DType precisionComputeDtype(PrecisionMode mode) {
    switch (mode) {
        case PrecisionMode::Fp32: return DType::F32;
        case PrecisionMode::Amp:
        case PrecisionMode::Fp16Master: return DType::F16;
        case PrecisionMode::Bf16:
        case PrecisionMode::Bf16Master: return DType::BF16;
    }
    return DType::F32;
}

bool precisionUsesMasterWeights(PrecisionMode mode) {
    return mode == PrecisionMode::Fp16Master || mode == PrecisionMode::Bf16Master;
}

std::string_view defaultScalerPreset(PrecisionMode mode) {
    return precisionComputeDtype(mode) == DType::F16 ? "pytorch" : "off";
}

AmpLists masterWeightLists(const Graph& graph, DType target) {
    AmpLists lists;
    lists.targetDtype = target;
    std::set<std::string> targetOps, fp32Ops;
    for (const Node& node : graph.nodes) {
        if (node.isVariable() || isCastOp(node.op)) {
            continue;
        }
        const std::string op(MxnetOpFacts::instance().canonicalName(node.op));
        (staysFloat32(op) ? fp32Ops : targetOps).insert(op);
    }
    lists.targetDtypeOps.assign(targetOps.begin(), targetOps.end());
    lists.fp32Ops.assign(fp32Ops.begin(), fp32Ops.end());
    return lists;
}

PreparedModel prepareModel(const Graph& fp32Graph, PrecisionMode mode, const std::optional<AmpLists>& lists,
                           const std::set<std::string>& inputs, const std::set<std::string>& excluded) {
    PreparedModel prepared;
    const DType target = precisionComputeDtype(mode);
    if (mode == PrecisionMode::Fp32) {
        prepared.graph = fp32Graph;
        return prepared;
    }
    ConversionOptions options;
    options.mode = ConversionMode::Typed;
    options.excludedSymNames = excluded;
    if (precisionUsesMasterWeights(mode)) {
        options.lists = masterWeightLists(fp32Graph, target);
        options.castOptionalParams = true;
        options.dataNames = inputs;
    } else if (lists) {
        if (lists->targetDtype != target) {
            throw std::invalid_argument("the operator lists target " + std::string(dtypeName(lists->targetDtype)) +
                                        " but precision mode " + std::string(precisionModeName(mode)) + " needs " +
                                        std::string(dtypeName(target)));
        }
        options.lists = *lists;
    } else {
        options.lists = AmpLists::defaults(target);
    }
    ConversionResult result = convertGraph(fp32Graph, options);
    for (const std::string& name : result.storedInTargetDtype) {
        prepared.parameterDtypes[name] = target;
    }
    prepared.castsInserted = static_cast<int64_t>(result.graph.size()) - static_cast<int64_t>(fp32Graph.size());
    prepared.graph = std::move(result.graph);
    return prepared;
}

}  // namespace ampstudio
