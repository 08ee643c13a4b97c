#include "amp/conversion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "amp/conversion_pass.h"
#include "amp/onnx_conversion.h"
#include "ops/graph_dtypes.h"

namespace ampstudio {

namespace {

// MXNet converts only what the outputs reach (its DFSVisit starts at the heads): one reverse sweep
// over the topological order, following inputs and control dependencies.
std::vector<char> reachableFromHeads(const Graph& graph) {
    std::vector<char> reachable(graph.size(), 0);
    for (const NodeEntry& h : graph.heads) {
        reachable[h.node] = 1;
    }
    for (std::size_t id = graph.size(); id-- > 0;) {
        if (!reachable[id]) {
            continue;
        }
        const Node& n = graph.nodes[id];
        for (const NodeEntry& e : n.inputs) {
            reachable[e.node] = 1;
        }
        for (NodeId dep : n.controlDeps) {
            reachable[dep] = 1;
        }
    }
    return reachable;
}

void checkInputs(const Graph& source, const ConversionOptions& options) {
    amp_detail::checkListsAndTarget(options);
    try {
        source.validate();
    } catch (const GraphError& e) {
        throw ConversionError(std::string("invalid source graph: ") + e.what());
    }
    if (source.heads.empty()) {
        throw ConversionError("the source graph has no outputs (heads), so there is nothing to convert");
    }
}

// One conversion, without the dtype check. `pinnedFloat32` receives the parameters the pass treats
// as data (stored in float32 whatever MXNet's inference of unknown parameters would make of them),
// `bookkept` those it recorded as stored in the target dtype (the repair run's belief of them) and
// `sharedParams` the cast_optional_params parameters that a target op reads as they are and
// another node too (param, reader).
ConversionResult convertOnce(const amp_detail::PassInput& input, std::set<std::string>& pinnedFloat32,
                             std::set<std::string>& bookkept,
                             std::vector<std::pair<std::string, std::string>>& sharedParams) {
    // cast_optional_params, repair run only (refinement of MXNet 1.9.1): a parameter that a target
    // op would read as it is (stored in the target dtype) but that another node also reads as it
    // is cannot be stored in the target dtype without giving that reader the target dtype too
    // (MXNet 1.9.1 does so; where its result is valid, the first run keeps that). Such parameters
    // are treated as data and the graph is converted again, so that they get casts. Treating more
    // variables as data never creates a new conflict, so one rerun settles it; the loop guards the
    // argument.
    std::set<std::string> paramsAsData;
    std::vector<std::string> notes;
    std::optional<amp_detail::ConversionPass> pass;
    for (;;) {
        pass.emplace(input, paramsAsData);
        pass->run();
        sharedParams = pass->conflictingParams();
        if (sharedParams.empty() || !input.repair) {
            break;
        }
        for (const auto& [param, reader] : sharedParams) {
            paramsAsData.insert(param);
            notes.push_back("cast_optional_params: '" + param + "' is also read as it is by " + reader +
                            ", so it stays float32 and target-dtype readers cast it");
        }
    }

    ConversionResult result;
    bookkept = pass->storedInTargetDtype();
    pinnedFloat32 = std::move(paramsAsData);
    // NNVM's order: what MXNet's SaveJSON writes, so saved files diff cleanly against MXNet's.
    result.graph = pass->materialize();
    result.report = std::move(pass->report());
    pass.reset();

    ConversionReport& report = result.report;
    report.warnings.insert(report.warnings.begin(), notes.begin(), notes.end());
    report.unmatchableListEntries = input.options.lists.unmatchableEntries();

#ifndef NDEBUG
    // Construction guarantees this; checked in debug builds (the tests check every result too).
    result.graph.validate();
#endif
    return result;
}

}  // namespace

namespace {

DtypeCheck failedCheck(const Graph& graph, const DtypeConflict& conflict, std::string_view stage) {
    const Node& n = graph.nodes[conflict.node];
    DtypeCheck check;
    check.passed = false;
    check.node = n.name;
    check.op = n.op;
    check.inputs = conflict.inputs;
    check.message = conflict.describe(graph);
    check.stage = std::string(stage);
    return check;
}

// MXNet's AMPInferUnknown (src/nnvm/amp_infer_unknown.cc, 1.6.0 and 1.9.1), run with
// cast_optional_params: a parameter whose dtype nothing inferred is stored in the dtype the
// amp_casts that read it cast to (if they agree), or in the target dtype where it feeds an
// amp_multicast whose inputs are all variables. `inferred` is the inference after the pass;
// `result` starts as a copy of it and receives the assignments.
void ampInferUnknown(const Graph& graph, const std::vector<uint32_t>& rowPtr, const std::vector<DType>& inferred,
                     DType target, std::vector<DType>& result) {
    std::map<std::string_view, DType> visited;
    auto update = [&](const NodeEntry& e, DType dtype) {
        const uint32_t entry = rowPtr[e.node] + e.index;
        const std::string_view name = graph.nodes[e.node].name;
        const auto it = visited.find(name);
        if (it == visited.end()) {
            if (result[entry] == DType::Unknown) {
                visited.emplace(name, dtype);
                result[entry] = dtype;
            }
        } else if (it->second != dtype) {
            result[entry] = inferred[entry];
        }
    };
    for (const Node& n : graph.nodes) {  // the graph is in NNVM's DFS order, as MXNet visits it
        if (n.op == "amp_cast") {
            const std::string* attr = n.attr("dtype");
            const std::optional<DType> dtype = attr != nullptr ? dtypeFromName(*attr) : std::nullopt;
            for (const NodeEntry& e : n.inputs) {
                if (graph.nodes[e.node].isVariable() && dtype) {
                    update(e, *dtype);
                }
            }
        } else if (n.op == "amp_multicast") {
            const bool allVariables = std::all_of(n.inputs.begin(), n.inputs.end(),
                                                  [&](const NodeEntry& e) { return graph.nodes[e.node].isVariable(); });
            for (const NodeEntry& e : n.inputs) {
                if (allVariables) {
                    update(e, target);
                }
            }
        }
    }
}

}  // namespace

std::map<std::string, DType> ConvertedDtypes::byName(const Graph& converted) const {
    std::map<std::string, DType> names;
    for (NodeId id = 0; id < params.size() && id < converted.size(); ++id) {
        if (params[id] != DType::Unknown) {
            names.emplace(converted.nodes[id].name, params[id]);
        }
    }
    return names;
}

ConvertedDtypes checkConvertedDtypes(const Graph& converted, const ConvertedDtypeInputs& in) {
    ConvertedDtypes out;
    // Seeds per node (by name once, then by id: a large model has tens of thousands of parameters).
    const std::unordered_set<std::string_view> data(in.dataNames.begin(), in.dataNames.end());
    const std::unordered_set<std::string_view> pinned(in.pinnedFloat32.begin(), in.pinnedFloat32.end());
    const std::unordered_set<std::string_view> stored(in.storedInTarget.begin(), in.storedInTarget.end());
    std::vector<DType> seeds(converted.size(), DType::Unknown);
    std::vector<char> isParam(converted.size(), 0);
    for (NodeId id = 0; id < converted.size(); ++id) {
        const Node& n = converted.nodes[id];
        if (!n.isVariable()) {
            continue;
        }
        if (data.count(n.name) != 0) {
            seeds[id] = DType::F32;
            continue;
        }
        isParam[id] = 1;
        seeds[id] = pinned.count(n.name) != 0 ? DType::F32 : stored.count(n.name) != 0 ? in.target : DType::Unknown;
    }
    // 1. What MXNet's convert_symbol runs after its pass: InferType with the data float32 and
    //    everything else free (MXNet raises when this fails).
    std::vector<uint32_t> rowPtr = converted.nodeRowPtr();
    GraphDtypes after = inferGraphDtypes(converted, rowPtr, seeds);
    if (after.conflict) {
        out.check = failedCheck(converted, *after.conflict, "after the pass");
        return out;
    }
    // 2. The parameters' __dtype__: what that inference found, float32 where it found nothing
    //    (after AMPInferUnknown with cast_optional_params).
    std::vector<DType> result = after.dtypes;
    if (in.castOptionalParams) {
        ampInferUnknown(converted, after.rowPtr, after.dtypes, in.target, result);
    }
    out.params.assign(converted.size(), DType::Unknown);
    for (NodeId id = 0; id < converted.size(); ++id) {
        if (isParam[id]) {
            const DType t = result[after.rowPtr[id]];
            out.params[id] = t == DType::Unknown ? DType::F32 : t;
            seeds[id] = out.params[id];
        }
    }
    // 3. Binding: InferType afresh with the data float32 and every parameter its __dtype__ from
    //    the start (a fresh inference, not a continuation: amp_multicast's choice depends on what
    //    it knows when it first runs).
    const GraphDtypes bound = inferGraphDtypes(converted, std::move(rowPtr), seeds);
    if (bound.conflict) {
        out.check = failedCheck(converted, *bound.conflict, "binding");
    }
    return out;
}

namespace {

// Applies the check's findings to a result: its report, the parameters stored in the target dtype,
// and the __dtype__ marks MXNet's convert_symbol writes on the model parameters.
void finishResult(ConversionResult& result, ConvertedDtypes dtypes, DType target) {
    ConversionReport& report = result.report;
    report.dtypeCheck = std::move(dtypes.check);
    result.storedInTargetDtype.clear();
    for (NodeId id = 0; id < dtypes.params.size(); ++id) {
        Node& n = result.graph.nodes[id];
        if (dtypes.params[id] == DType::Unknown) {
            continue;
        }
        if (dtypes.params[id] == target) {
            result.storedInTargetDtype.insert(n.name);
        }
        if (report.dtypeCheck.passed) {
            n.attrs["__dtype__"] = std::to_string(static_cast<int>(dtypes.params[id]));
        }
    }
    report.storedInTargetDtype.assign(result.storedInTargetDtype.begin(), result.storedInTargetDtype.end());
    if (!result.storedInTargetDtype.empty()) {
        // By name: variables of the same name share their entry in the .params file.
        const std::unordered_set<std::string_view> storedNames(result.storedInTargetDtype.begin(),
                                                               result.storedInTargetDtype.end());
        for (NodeDecision& d : report.nodes) {
            if (d.op.empty() && storedNames.count(d.name) != 0) {
                d.dtype = target;
            }
        }
    }
}

ConvertedDtypeInputs checkInputsFor(const ConversionOptions& options, std::set<std::string> pinned,
                                    std::set<std::string> stored) {
    return {options.dataNames, std::move(pinned), std::move(stored), options.lists.targetDtype,
            options.castOptionalParams};
}

}  // namespace

namespace amp_detail {

void checkListsAndTarget(const ConversionOptions& options) {
    const std::vector<std::string> overlaps = options.lists.overlapErrors();
    if (!overlaps.empty()) {
        std::string message = "invalid AMP lists: " + overlaps.front();
        for (std::size_t i = 1; i < overlaps.size(); ++i) {
            message += "; " + overlaps[i];
        }
        throw ConversionError(message);
    }
    if (!isLowPrecisionFloat(options.lists.targetDtype)) {
        throw ConversionError("the AMP target dtype must be float16 or bfloat16, not " +
                              std::string(dtypeName(options.lists.targetDtype)));
    }
}

}  // namespace amp_detail

ConversionResult convertModel(const Graph& graph, const FormatSource* source, const ConversionOptions& options) {
    if (isOnnxSource(source)) return convertOnnxModel(*source, options);
    return convertGraph(graph, options);
}

ConversionResult convertGraph(const Graph& source, const ConversionOptions& options) {
    checkInputs(source, options);
    const std::vector<uint32_t> rowPtr = source.nodeRowPtr();
    const std::vector<char> reachable = reachableFromHeads(source);
    const amp_detail::OpListIndex lists(options.lists, options.excludedSymNames);
    amp_detail::PassInput input{source, options, lists, rowPtr, reachable, options.lists.targetDtype};
    const DType target = options.lists.targetDtype;

    std::set<std::string> pinned, bookkept;
    std::vector<std::pair<std::string, std::string>> shared;
    ConversionResult result = convertOnce(input, pinned, bookkept, shared);
    ConvertedDtypes dtypes = checkConvertedDtypes(result.graph, checkInputsFor(options, pinned, {}));
    // MXNet's marks, kept only for a repair to compare against.
    const std::map<std::string, DType> mxnetParams =
        dtypes.check.passed || options.mode != ConversionMode::Typed ? std::map<std::string, DType>{}
                                                                     : dtypes.byName(result.graph);
    finishResult(result, std::move(dtypes), target);
    if (result.report.dtypeCheck.passed || options.mode != ConversionMode::Typed) {
        for (const std::string& name : result.storedInTargetDtype) {
            if (options.excludedSymNames.count(name) != 0) {
                result.report.warnings.push_back("'" + name + "' is excluded but stored in " +
                                                 std::string(dtypeName(target)) +
                                                 ", as MXNet stores a parameter its readers take in that dtype");
            }
        }
        for (const auto& [param, reader] : shared) {
            if (result.storedInTargetDtype.count(param) != 0) {
                result.report.warnings.push_back(
                    "cast_optional_params: '" + param + "' is stored in " + std::string(dtypeName(target)) +
                    " as MXNet 1.9.1 stores it, although " + reader + " also reads it as it is (in " +
                    std::string(dtypeName(target)) + ", then)");
            }
        }
        return result;
    }
    // MXNet 1.9.1's own result is invalid (MXNet raises after its pass, or its result cannot be
    // bound): do better than MXNet. The repair run takes the parameters the first run kept in the
    // target dtype as such, and so does its check: MXNet would infer them from their readers only
    // where those are typed without them, and what is written is this result's own __dtype__ marks.
    input.repair = true;
    input.storedInTarget = &bookkept;
    std::set<std::string> repairPinned, repairBookkept;
    ConversionResult repaired = convertOnce(input, repairPinned, repairBookkept, shared);
    dtypes = checkConvertedDtypes(repaired.graph, checkInputsFor(options, repairPinned, repairBookkept));
    const std::map<std::string, DType> repairedParams = dtypes.byName(repaired.graph);
    for (const auto& [name, t] : mxnetParams) {
        const auto it = repairedParams.find(name);
        if (it != repairedParams.end() && it->second != t) {
            repaired.report.mxnetParamDifferences.push_back(name);
        }
    }
    finishResult(repaired, std::move(dtypes), target);
    repaired.report.mxnetFailure = std::move(result.report.dtypeCheck.message);
    return repaired;
}

}  // namespace ampstudio
