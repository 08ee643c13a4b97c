#pragma once
// What each variable of a graph is, told from where it is consumed (as MXNet's list_arguments /
// list_auxiliary_states would): an auxiliary state when an op mutates it (BatchNorm's moving
// statistics), a parameter when it feeds a named parameter slot (weight, bias, gamma, beta,
// parameters ...), otherwise a data input (data, label, states fed by the user).

#include <string>
#include <vector>

#include "graph/graph.h"

namespace ampstudio {

enum class VariableRole : uint8_t { Input, Parameter, AuxiliaryState };

std::string_view variableRoleName(VariableRole role);  // "input", "parameter", "auxiliary state"

// One role per node (meaningless for non-variables, which get Input). A variable read through
// amp_cast / amp_multicast / Cast takes its role from the op behind the casts.
std::vector<VariableRole> classifyVariables(const Graph& graph);

// The name MXNet's Symbol::list_outputs gives an output: the variable's own name, or
// `<node>_<output name>` (FListOutputNames), or `<node>_output` for a single unnamed output, or
// `<node>_output<i>`.
std::string outputEntryName(const Node& node, uint32_t index);

}  // namespace ampstudio
