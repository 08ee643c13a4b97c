#include "ops/variable_roles.h"

#include <algorithm>
#include <array>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {
namespace {

// Input slot names that hold learned parameters in MXNet's operators.
bool isParameterSlot(std::string_view slot) {
    static constexpr std::array<std::string_view, 7> kSlots = {"weight", "bias",       "gamma", "beta",
                                                                "parameters", "moving_mean", "moving_var"};
    return std::find(kSlots.begin(), kSlots.end(), slot) != kSlots.end();
}

bool isCast(std::string_view op) { return op == "amp_cast" || op == "amp_multicast" || op == "Cast"; }

// The node an input really reads: through any amp_cast / amp_multicast / Cast chain (output i of a
// multicast is input i cast), so that a converted graph's weights, which reach their op through a
// cast, keep the role they have in the original graph.
NodeId castSource(const Graph& graph, NodeEntry entry) {
    for (std::size_t guard = 0; guard < graph.size(); ++guard) {
        const Node& node = graph.nodes[entry.node];
        if (node.isVariable() || !isCast(node.op)) {
            break;
        }
        const uint32_t slot = node.op == "amp_multicast" ? entry.index : 0;
        if (slot >= node.inputs.size()) {
            break;
        }
        entry = node.inputs[slot];
    }
    return entry.node;
}

}  // namespace

std::string_view variableRoleName(VariableRole role) {
    switch (role) {
        case VariableRole::Parameter:
            return "parameter";
        case VariableRole::AuxiliaryState:
            return "auxiliary state";
        case VariableRole::Input:
            break;
    }
    return "input";
}

std::vector<VariableRole> classifyVariables(const Graph& graph) {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    std::vector<VariableRole> roles(graph.size(), VariableRole::Input);
    for (const Node& node : graph.nodes) {
        if (node.isVariable() || isCast(node.op)) {
            continue;
        }
        const auto names = registry.inputNames(node);
        const auto mutableInputs = registry.mutableInputs(node);
        for (uint32_t i = 0; i < node.inputs.size(); ++i) {
            const NodeId source = castSource(graph, node.inputs[i]);
            if (!graph.nodes[source].isVariable()) {
                continue;
            }
            if (std::find(mutableInputs.begin(), mutableInputs.end(), i) != mutableInputs.end()) {
                roles[source] = VariableRole::AuxiliaryState;
            } else if (names && i < names->size() && isParameterSlot((*names)[i]) &&
                       roles[source] == VariableRole::Input) {
                roles[source] = VariableRole::Parameter;
            }
        }
    }
    return roles;
}

std::string outputEntryName(const Node& node, uint32_t index) {
    if (node.isVariable()) {
        return node.name;
    }
    if (auto name = MxnetOpFacts::instance().outputName(node, index)) {
        return node.name + "_" + *name;
    }
    return node.numOutputs == 1 ? node.name + "_output" : node.name + "_output" + std::to_string(index);
}

}  // namespace ampstudio
