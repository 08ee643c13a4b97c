#include "amp/conversion_report.h"

#include <nlohmann/json.hpp>

namespace ampstudio {

std::string_view decisionRuleName(DecisionRule rule) {
    switch (rule) {
        case DecisionRule::Variable:
            return "variable";
        case DecisionRule::TargetList:
            return "target_dtype_ops";
        case DecisionRule::Fp32List:
            return "fp32_ops";
        case DecisionRule::WidestList:
            return "widest_dtype_ops";
        case DecisionRule::ConditionalFp32:
            return "conditional_fp32_ops";
        case DecisionRule::Excluded:
            return "excluded";
        case DecisionRule::NeutralList:
            return "neutral_ops";
        case DecisionRule::NoList:
            return "none";
        case DecisionRule::Unreachable:
            return "unreachable";
    }
    return "none";
}

std::string NodeDecision::reason() const {
    // Facts the ONNX pass adds (a schema without the target dtype, bodies converted, a constant
    // stored in the target dtype) follow the rule's own words.
    const auto withDetail = [&](std::string text) {
        return detail.empty() ? text : text.append("; ").append(detail);
    };
    switch (rule) {
        case DecisionRule::Variable:
            if (!detail.empty()) return "variable; " + std::string(detail);
            if (isLowPrecisionFloat(dtype)) {
                return "variable; parameter stored in " + std::string(dtypeName(dtype)) +
                       " (cast_optional_params)";
            }
            return "variable";
        case DecisionRule::TargetList:
            return withDetail(std::string(op) + " is in target_dtype_ops");
        case DecisionRule::Fp32List:
            return withDetail(std::string(op) + " is in fp32_ops");
        case DecisionRule::WidestList:
            return std::string("widest-type op; ").append(detail);
        case DecisionRule::ConditionalFp32:
            return std::string("conditional FP32: ").append(detail);
        case DecisionRule::Excluded:
            if (precision == NodePrecision::Variable) {
                return "excluded by name; its readers take it as float32 (with cast_optional_params MXNet may still store it narrower)";
            }
            return precision == NodePrecision::Float32 ? "excluded by name; runs in float32"
                                                       : "excluded by name; inputs pass through";
        case DecisionRule::NeutralList:
            return withDetail(std::string(op) + " is in neutral_ops; runs in the dtype of its inputs");
        case DecisionRule::NoList:
            return withDetail("not in any list; inputs pass through");
        case DecisionRule::Unreachable:
            return "not reachable from the graph outputs; dropped";
    }
    return {};
}

std::string NodeDecision::precisionName() const {
    switch (precision) {
        case NodePrecision::Variable:
            return "variable";
        case NodePrecision::Target:
        case NodePrecision::Float32:
            return std::string(dtypeName(dtype));
        case NodePrecision::Widest:
            return dtype == DType::Unknown ? "widest" : std::string(dtypeName(dtype));
        case NodePrecision::Unchanged:
            return "unchanged";
    }
    return {};
}

double ConversionReport::targetShare() const {
    return computeNodes == 0 ? 0.0
                             : static_cast<double>(computeNodesInTarget) / static_cast<double>(computeNodes);
}

std::string ConversionReport::toJson() const {
    using Json = nlohmann::ordered_json;
    Json doc;
    doc["mode"] = std::string(conversionModeName(mode));
    doc["target_dtype"] = std::string(dtypeName(targetDtype));
    doc["nodes_before"] = nodesBefore;
    doc["nodes_after"] = nodesAfter;
    doc["amp_cast"] = ampCastCount;
    doc["amp_multicast"] = ampMulticastCount;
    doc["compute_nodes"] = computeNodes;
    doc["compute_nodes_in_target"] = computeNodesInTarget;
    doc["target_share"] = targetShare();
    doc["params_known"] = paramsKnown;
    doc["param_bytes_before"] = paramBytesBefore;
    doc["param_bytes_after"] = paramBytesAfter;
    doc["stored_in_target_dtype"] = storedInTargetDtype;
    doc["warnings"] = warnings;
    Json unmatchable = Json::array();
    for (const UnmatchableListEntry& u : unmatchableListEntries) {
        Json item{{"list", u.list}, {"entry", u.entry}};
        item["alias_of"] = u.canonical.empty() ? Json(nullptr) : Json(u.canonical);
        unmatchable.push_back(std::move(item));
    }
    doc["unmatchable_list_entries"] = std::move(unmatchable);
    auto dtypeOrNull = [](DType t) { return t == DType::Unknown ? Json(nullptr) : Json(std::string(dtypeName(t))); };
    {
        Json check{{"passed", dtypeCheck.passed}};
        if (!dtypeCheck.passed) {
            check["node"] = dtypeCheck.node;
            check["op"] = dtypeCheck.op;
            Json inputs = Json::array();
            for (DType t : dtypeCheck.inputs) {
                inputs.push_back(dtypeOrNull(t));
            }
            check["inputs"] = std::move(inputs);
            check["message"] = dtypeCheck.message;
            check["stage"] = dtypeCheck.stage;
        }
        doc["dtype_check"] = std::move(check);
    }
    if (mode == ConversionMode::Typed) {
        Json mxnet{{"result_valid", mxnetFailure.empty()}};
        mxnet["failure"] = mxnetFailure.empty() ? Json(nullptr) : Json(mxnetFailure);
        Json differences = Json::array();
        for (const MxnetDifference& d : mxnetDifferences) {
            differences.push_back(Json{{"node", d.node},
                                       {"input", d.input},
                                       {"source", d.source},
                                       {"source_dtype", dtypeOrNull(d.sourceDtype)},
                                       {"needed_dtype", dtypeOrNull(d.neededDtype)},
                                       {"cast", d.cast}});
        }
        mxnet["differences"] = std::move(differences);
        mxnet["params_stored_differently"] = mxnetParamDifferences;
        doc["mxnet_1_9_1"] = std::move(mxnet);
    }

    const auto decisions = [](const std::vector<NodeDecision>& list) {
        Json array = Json::array();
        for (const NodeDecision& n : list) {
            Json item;
            item["name"] = std::string(n.name);
            // A variable's op as the symbol JSON spells it.
            item["op"] = n.op.empty() ? std::string("null") : std::string(n.op);
            item["precision"] = n.precisionName();
            item["dtype"] = n.dtype == DType::Unknown ? Json(nullptr) : Json(std::string(dtypeName(n.dtype)));
            item["rule"] = std::string(decisionRuleName(n.rule));
            item["reason"] = n.reason();
            array.push_back(std::move(item));
        }
        return array;
    };
    doc["nodes"] = decisions(nodes);
    if (!bodyNodes.empty()) doc["body_nodes"] = decisions(bodyNodes);

    Json castArray = Json::array();
    for (const CastRecord& c : casts) {
        Json item;
        item["name"] = std::string(c.name);
        item["op"] = std::string(c.op);
        item["dtype"] = std::string(c.dtype);
        item["source"] = std::string(c.source.node);
        item["source_output"] = c.source.output;
        Json sources = Json::array();
        if (c.multicastSources.empty()) {
            sources.push_back(Json{{"node", std::string(c.source.node)}, {"output", c.source.output}});
        }
        for (const SourceOutput& s : c.multicastSources) {
            sources.push_back(Json{{"node", std::string(s.node)}, {"output", s.output}});
        }
        item["sources"] = std::move(sources);
        Json consumers = Json::array();
        for (const std::string_view consumer : c.consumers) {
            consumers.push_back(std::string(consumer));
        }
        item["consumers"] = std::move(consumers);
        item["graph_output"] = c.feedsGraphOutput;
        castArray.push_back(std::move(item));
    }
    doc["casts"] = std::move(castArray);
    return doc.dump(2);
}

}  // namespace ampstudio
