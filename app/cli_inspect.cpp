// `ampstudio-cli inspect`: what is in a model, for a person or (--json) a script.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "cli_errors.h"
#include "cli_inspect_node.h"
#include "formats/model_file.h"
#include "ops/variable_roles.h"

namespace ampstudio::cli {
namespace {

// ONNX: "IR 8, opset 17, com.microsoft 1" (the default domain unnamed).
std::string onnxVersionText(const Graph& graph) {
    const auto ir = graph.attrs.find("onnx_ir_version");
    std::string text = "IR " + ir->second;
    const auto opsets = graph.attrs.find("onnx_opset_import");
    const auto value = opsets == graph.attrs.end() ? nlohmann::json() : nlohmann::json::parse(opsets->second, nullptr, false);
    if (value.is_object()) {
        for (const auto& [domain, version] : value.items()) {
            text += ", " + (domain.empty() || domain == "ai.onnx" ? std::string("opset") : domain) + " " + version.dump();
        }
    }
    return text;
}

std::string versionText(const Graph& graph) {
    const auto it = graph.attrs.find("mxnet_version");
    if (it == graph.attrs.end()) {
        return graph.attrs.contains("onnx_ir_version") ? onnxVersionText(graph) : "unknown";
    }
    const auto value = nlohmann::json::parse(it->second, nullptr, false);
    if (!value.is_array() || value.size() != 2 || !value[1].is_number_integer()) {
        return it->second;
    }
    const int v = value[1].get<int>();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) + " (" +
           std::to_string(v) + ")";
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ", ") + item;
    }
    return text.empty() ? "-" : text;
}

}  // namespace

int runInspect(const InspectArgs& args) {
    try {
        const ModelDocument model = openModelFile(args.symbol, {.findCompanions = false, .params = args.params});
        const Graph& graph = *model.graph;
        const NDArrayList* params = model.params.get();
        if (args.node) {
            return printNode(model, args);
        }

        std::map<std::string, int> opCounts;
        std::vector<std::string> inputs, parameters, auxStates, outputs;
        const auto roles = classifyVariables(graph);
        for (NodeId id = 0; id < graph.size(); ++id) {
            const Node& n = graph.nodes[id];
            if (!n.isVariable()) {
                ++opCounts[n.op];
                continue;
            }
            // A variable whose value the .params file holds is a parameter whatever its slot.
            const bool stored = params && params->find(n.name) >= 0;
            switch (stored && roles[id] == VariableRole::Input ? VariableRole::Parameter : roles[id]) {
                case VariableRole::Input: inputs.push_back(n.name); break;
                case VariableRole::Parameter: parameters.push_back(n.name); break;
                case VariableRole::AuxiliaryState: auxStates.push_back(n.name); break;
            }
        }
        for (const NodeEntry& head : graph.heads) {
            outputs.push_back(outputEntryName(graph.node(head), head.index));
        }
        std::vector<std::pair<std::string, int>> byCount(opCounts.begin(), opCounts.end());
        std::stable_sort(byCount.begin(), byCount.end(), [](auto& a, auto& b) { return a.second > b.second; });

        std::map<std::string, std::pair<uint64_t, uint64_t>> paramTotals;  // dtype -> (elements, bytes)
        if (params) {
            for (const auto& a : params->arrays) {
                auto& t = paramTotals[std::string(dtypeName(a.dtype))];
                t.first += static_cast<uint64_t>(a.elementCount());
                t.second += a.data.size();
            }
        }

        if (args.json) {
            nlohmann::ordered_json j;
            j["file"] = args.symbol.string();
            j["format"] = std::string(modelFormatName(model.origin.format));
            j[model.origin.format == ModelFormat::MxnetCheckpoint ? "mxnet_version" : "version"] = versionText(graph);
            j["nodes"] = graph.size();
            j["operators"] = graph.size() - graph.argNodes().size();
            j["variables"] = graph.argNodes().size();
            j["op_counts"] = nlohmann::ordered_json::object();
            for (const auto& [op, count] : byCount) j["op_counts"][op] = count;
            j["inputs"] = inputs;
            j["parameters"] = parameters;
            j["auxiliary_states"] = auxStates;
            j["outputs"] = outputs;
            if (params) {
                // ONNX keeps its parameters (initializers) in the model file itself.
                j["params_file"] = (model.origin.params ? *model.origin.params : model.origin.model).string();
                j["param_arrays"] = params->arrays.size();
                j["param_bytes"] = params->payloadBytes();
                for (const auto& [dtype, t] : paramTotals) {
                    j["param_totals"][dtype] = {{"elements", t.first}, {"bytes", t.second}};
                }
            }
            std::cout << j.dump(2) << '\n';
            return kSuccess;
        }

        std::cout << args.symbol.string() << ": " << modelFormatName(model.origin.format) << ", version " << versionText(graph) << '\n'
                  << "nodes: " << graph.size() << " (" << graph.size() - graph.argNodes().size() << " operators, "
                  << graph.argNodes().size() << " variables)\n"
                  << "operators:";
        for (const auto& [op, count] : byCount) std::cout << ' ' << op << " " << count << (&op == &byCount.back().first ? "" : ",");
        std::cout << "\ninputs: " << joined(inputs) << "\nparameters (" << parameters.size() << "): " << joined(parameters)
                  << "\nauxiliary states (" << auxStates.size() << "): " << joined(auxStates)
                  << "\noutputs: " << joined(outputs) << '\n';
        if (params) {
            std::cout << "params: " << params->arrays.size() << " arrays, " << params->payloadBytes() << " bytes";
            for (const auto& [dtype, t] : paramTotals) std::cout << "; " << dtype << ": " << t.first << " values";
            std::cout << '\n';
        }
        return kSuccess;
    } catch (...) {
        return reportCurrentException(args.symbol);
    }
}

}  // namespace ampstudio::cli
