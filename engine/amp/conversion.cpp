#include "amp/conversion.h"

#include <map>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "amp/conversion_pass.h"
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
    try {
        source.validate();
    } catch (const GraphError& e) {
        throw ConversionError(std::string("invalid source graph: ") + e.what());
    }
    if (source.heads.empty()) {
        throw ConversionError("the source graph has no outputs (heads), so there is nothing to convert");
    }
}

// One conversion (the pass, rerun for cast_optional_params conflicts), without the dtype check.
ConversionResult convertOnce(const amp_detail::PassInput& input) {
    const ConversionOptions& options = input.options;

    // cast_optional_params refinement of MXNet 1.9.1: a parameter that a target op would read as it
    // is (stored in the target dtype) but that another node also reads as float32 cannot be stored
    // in the target dtype without breaking that reader (MXNet's result fails dtype inference). Such
    // parameters are treated as data and the graph is converted again, so that they get casts.
    // Treating more variables as data never creates a new conflict, so one rerun settles it; the
    // loop guards the argument.
    std::set<std::string> paramsAsData;
    std::vector<std::string> notes;
    std::optional<amp_detail::ConversionPass> pass;
    for (;;) {
        pass.emplace(input, paramsAsData);
        pass->run();
        const auto conflicts = pass->conflictingParams();
        if (conflicts.empty()) {
            break;
        }
        for (const auto& [param, reader] : conflicts) {
            paramsAsData.insert(param);
            notes.push_back("cast_optional_params: '" + param + "' is also read as float32 by " + reader +
                            ", so it stays float32 and target-dtype readers cast it");
        }
    }

    ConversionResult result;
    result.storedInTargetDtype = pass->storedInTargetDtype();
    // NNVM's order: what MXNet's SaveJSON writes, so saved files diff cleanly against MXNet's.
    result.graph = pass->materialize();
    result.report = std::move(pass->report());
    pass.reset();

    ConversionReport& report = result.report;
    report.warnings.insert(report.warnings.begin(), notes.begin(), notes.end());
    if (options.castOptionalParams && options.mode == ConversionMode::Classic) {
        report.warnings.push_back("cast_optional_params applies to typed mode only; ignored in classic mode");
    }
    report.storedInTargetDtype.assign(result.storedInTargetDtype.begin(), result.storedInTargetDtype.end());
    if (!result.storedInTargetDtype.empty()) {
        // By name: variables of the same name share their entry in the .params file.
        const std::unordered_set<std::string_view> stored(result.storedInTargetDtype.begin(),
                                                          result.storedInTargetDtype.end());
        for (NodeDecision& d : report.nodes) {
            if (d.op.empty() && stored.count(d.name) != 0) {
                d.dtype = options.lists.targetDtype;
            }
        }
    }
    report.unmatchableListEntries = options.lists.unmatchableEntries();

#ifndef NDEBUG
    // Construction guarantees this; checked in debug builds (the tests check every result too).
    result.graph.validate();
#endif
    return result;
}

}  // namespace

DtypeCheck checkConvertedDtypes(const Graph& converted, const std::set<std::string>& dataNames,
                                const std::set<std::string>& storedInTargetDtype, DType target) {
    std::map<std::string, DType> known;
    for (const std::string& name : dataNames) {
        known.emplace(name, DType::F32);
    }
    for (const std::string& name : storedInTargetDtype) {
        known.emplace(name, target);
    }
    // As MXNet binds a graph (simple_bind): InferType from what is known, then every variable
    // still unknown is float32 (the .params hold float32) and InferType again.
    GraphDtypes dtypes = inferGraphDtypes(converted, known);
    if (!dtypes.conflict) {
        bool defaulted = false;
        for (NodeId id = 0; id < converted.size(); ++id) {
            DType& t = dtypes.dtypes[dtypes.rowPtr[id]];
            if (converted.nodes[id].isVariable() && t == DType::Unknown) {
                t = DType::F32;
                defaulted = true;
            }
        }
        if (defaulted) {
            dtypes.conflict = propagateDtypes(converted, dtypes.rowPtr, dtypes.dtypes);
        }
    }
    DtypeCheck check;
    if (dtypes.conflict) {
        const Node& n = converted.nodes[dtypes.conflict->node];
        check.passed = false;
        check.node = n.name;
        check.op = n.op;
        check.inputs = dtypes.conflict->inputs;
        check.message = dtypes.conflict->describe(converted);
    }
    return check;
}

ConversionResult convertGraph(const Graph& source, const ConversionOptions& options) {
    checkInputs(source, options);
    const std::vector<uint32_t> rowPtr = source.nodeRowPtr();
    const std::vector<char> reachable = reachableFromHeads(source);
    const amp_detail::OpListIndex lists(options.lists, options.excludedSymNames);
    amp_detail::PassInput input{source, options, lists, rowPtr, reachable, options.lists.targetDtype};
    const DType target = options.lists.targetDtype;

    ConversionResult result = convertOnce(input);
    result.report.dtypeCheck = checkConvertedDtypes(result.graph, options.dataNames, result.storedInTargetDtype, target);
    if (result.report.dtypeCheck.passed || options.mode != ConversionMode::Typed) {
        return result;
    }
    // MXNet 1.9.1's own result is invalid (MXNet raises after its pass): do better than MXNet.
    input.repair = true;
    input.storedInTarget = &result.storedInTargetDtype;
    ConversionResult repaired = convertOnce(input);
    repaired.report.dtypeCheck =
        checkConvertedDtypes(repaired.graph, options.dataNames, repaired.storedInTargetDtype, target);
    repaired.report.mxnetFailure = std::move(result.report.dtypeCheck.message);
    return repaired;
}

}  // namespace ampstudio
