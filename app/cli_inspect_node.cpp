// `ampstudio-cli inspect --node NAME`: one node as the GUI's inspector shows it, answered by the same
// engine index (amp/conversion_index.h): the precision the conversion decided and why, the
// attributes, and the inputs and outputs with the dtypes they carry. The node is looked up in the
// original graph first, then among the casts of the converted one.
#include <iostream>
#include <nlohmann/json.hpp>

#include "amp/conversion.h"
#include "amp/conversion_index.h"
#include "cli_commands.h"
#include "cli_inputs.h"
#include "cli_inspect_node.h"

namespace ampstudio::cli {
namespace {

std::string roleName(VariableRole role) {
    switch (role) {
        case VariableRole::Parameter: return "parameter";
        case VariableRole::AuxiliaryState: return "auxiliary state";
        case VariableRole::Input: break;
    }
    return "data input";
}

std::string dtypeText(const EdgeDtype& e) {
    if (!e.known()) return "-";
    return e.viaCast.empty() ? e.dtype : e.dtype + " (cast by " + e.viaCast + ")";
}

// Unknown (empty) is null in JSON, not "".
nlohmann::ordered_json orNull(const std::string& text) { return text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(text); }

struct NodeView {
    std::string graph;  // "original" or "converted"
    std::string op;     // the operator, or "variable (parameter)"
    std::string precision, rule, reason;
};

NodeView describe(const ConversionIndex& index, NodeId id) {
    const Node& node = index.graph()->nodes[id];
    NodeView view;
    view.graph = index.graphIsConverted() ? "converted" : "original";
    view.op = node.isVariable() ? "variable (" + roleName(index.role(id)) + ")" : node.op;
    if (const CastRecord* cast = index.castRecord(id)) {
        view.precision = cast->op == "amp_multicast" ? "widest of its inputs, at run time" : std::string(cast->dtype);
        view.rule = "inserted by the conversion";
        view.reason = describeCast(*cast);
    } else if (const NodeDecision* d = index.decision(node.name)) {
        view.precision = d->precisionName();
        view.rule = d->rule == DecisionRule::NoList ? "no list" : std::string(decisionRuleName(d->rule));
        view.reason = d->reason();
    } else {
        view.precision = "not converted";
        view.rule = "-";
        view.reason = "the conversion report does not mention this node";
    }
    return view;
}

}  // namespace

int printNode(const ModelDocument& model, const InspectArgs& args) {
    const std::string& name = *args.node;
    const auto result = std::make_shared<const ConversionResult>(convertModel(
        *model.graph, model.source.get(),
        conversionOptions(args.conversion, model.origin.format == ModelFormat::Onnx ? OpSet::Onnx : OpSet::Mxnet)));
    const std::shared_ptr<const ConversionReport> report(result, &result->report);
    ConversionIndex index(model.graph, report);
    std::optional<NodeId> id = index.find(name);
    if (!id) {
        index = ConversionIndex(std::shared_ptr<const Graph>(result, &result->graph), report);
        id = index.find(name);
    }
    if (!id) {
        throw UsageError("--node: no node '" + name + "' in " + args.symbol.string() + " nor in its conversion");
    }
    const Graph& graph = *index.graph();
    const Node& node = graph.nodes[*id];
    const NodeView view = describe(index, *id);
    const std::vector<InputRow> inputs = index.inputs(*id);
    const std::vector<OutputRow> outputs = index.outputs(*id);

    if (args.json) {
        nlohmann::ordered_json j;
        j["name"] = node.name;
        j["graph"] = view.graph;
        j["operator"] = view.op;
        j["precision"] = view.precision;
        j["rule"] = view.rule;
        j["reason"] = view.reason;
        j["attributes"] = nlohmann::ordered_json::object();
        for (const auto& [key, value] : node.attrs) j["attributes"][key] = value;
        j["inputs"] = nlohmann::ordered_json::array();
        for (const InputRow& row : inputs) {
            j["inputs"].push_back({{"input", row.slotName},
                                   {"from", graph.nodes[row.source].name},
                                   {"output", row.output},
                                   {"dtype", orNull(row.dtype.dtype)},
                                   {"via_cast", orNull(row.dtype.viaCast)}});
        }
        j["outputs"] = nlohmann::ordered_json::array();
        for (const OutputRow& row : outputs) {
            j["outputs"].push_back({{"output", row.output},
                                    {"read_by", orNull(row.consumer ? graph.nodes[*row.consumer].name : std::string())},
                                    {"graph_output", !row.consumer},
                                    {"dtype", orNull(row.dtype.dtype)},
                                    {"via_cast", orNull(row.dtype.viaCast)}});
        }
        std::cout << j.dump(2) << '\n';
        return kSuccess;
    }
    std::cout << node.name << " (" << view.graph << " graph)\n"
              << "  operator:  " << view.op << '\n'
              << "  precision: " << view.precision << '\n'
              << "  rule:      " << view.rule << '\n'
              << "  reason:    " << view.reason << '\n'
              << "attributes (" << node.attrs.size() << ")\n";
    for (const auto& [key, value] : node.attrs) std::cout << "  " << key << " = " << value << '\n';
    std::cout << "inputs (" << inputs.size() << ")\n";
    for (const InputRow& row : inputs) {
        std::cout << "  " << row.slotName << " <- " << graph.nodes[row.source].name
                  << (row.outputName.empty() || graph.nodes[row.source].numOutputs <= 1 ? "" : "[" + row.outputName + "]")
                  << "  " << dtypeText(row.dtype) << '\n';
    }
    std::cout << "outputs (" << outputs.size() << ")\n";
    for (const OutputRow& row : outputs) {
        std::cout << "  " << (node.numOutputs > 1 ? row.outputName + " " : std::string()) << "-> "
                  << (row.consumer ? graph.nodes[*row.consumer].name : std::string("graph output")) << "  "
                  << dtypeText(row.dtype) << '\n';
    }
    return kSuccess;
}

}  // namespace ampstudio::cli
