#include "formats/legacy_upgrade.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/load_error.h"
#include "formats/node_place.h"
#include "formats/symbol_json.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio {

namespace {

// MXNet's kHiddenKeys: attributes the old Python API accepted as plain keyword arguments and that
// MXNet now keeps as `__key__` (c_api_symbolic.cc).
constexpr std::array<std::string_view, 5> kHiddenKeys = {"ctx_group", "lr_mult", "wd_mult", "force_mirroring",
                                                         "mirror_stage"};

// MXNet's test: the last occurrence of a hidden key is at the start or at the end of the name.
// (So "lr_mult_lr_multx" is not hidden-like: the key's last occurrence is neither.)
bool isHiddenLike(std::string_view key) {
    return std::any_of(kHiddenKeys.begin(), kHiddenKeys.end(), [&](std::string_view hidden) {
        const auto pos = key.rfind(hidden);
        return pos == 0 || (pos != std::string_view::npos && pos == key.size() - hidden.size());
    });
}

std::string hiddenName(std::string_view hidden) {
    return "__" + std::string(hidden) + "__";
}

// MxnetOpFacts::inputNames builds a list whose length an attribute decides (Concat's num_args, up to
// 65536). Over a whole graph the lists may only add up to a few times the graph's size: a hostile
// file with num_args = 65536 on every node would otherwise take minutes.
class InputNames {
public:
    InputNames(const Graph& graph, const std::string& source) : m_source(source) {
        // Each node is asked at most twice (two steps); a real op lists at most its inputs plus a few.
        m_budget = 65536;
        for (const Node& n : graph.nodes) {
            m_budget += 2 * (n.inputs.size() + kMaxMissingInputs);
        }
    }
    std::optional<std::vector<std::string>> of(const Node& node, NodeId id) {
        auto names = MxnetOpFacts::instance().inputNames(node);
        if (names) {
            if (names->size() > m_budget) {
                throw LoadError(m_source, nodePlace(id, node.name),
                                "its op lists " + std::to_string(names->size()) +
                                    " inputs; the graph cannot hold that many");
            }
            m_budget -= names->size();
        }
        return names;
    }

private:
    const std::string& m_source;
    std::size_t m_budget;
};

// UpgradeJSON_FixParsing. Visits nodes in order (post-order DFS, as MXNet), so a variable has been
// visited before the op that writes `__key__` onto it.
void moveHiddenKeys(Graph& graph, InputNames& inputNamesOf) {
    for (NodeId id = 0; id < graph.nodes.size(); ++id) {
        Node& node = graph.nodes[id];
        std::vector<std::pair<std::string, std::string>> hidden;
        for (auto it = node.attrs.begin(); it != node.attrs.end();) {
            if (isHiddenLike(it->first)) {
                hidden.emplace_back(it->first, std::move(it->second));
                it = node.attrs.erase(it);
            } else {
                ++it;
            }
        }
        if (hidden.empty()) {
            continue;
        }
        // Input names depend on attributes such as no_bias, never on hidden keys.
        const auto inputNames = node.isVariable() ? std::nullopt : inputNamesOf.of(node, id);
        for (auto& [key, value] : hidden) {
            bool placed = false;
            for (const std::string_view h : kHiddenKeys) {
                const auto pos = std::string_view(key).rfind(h);
                if (pos == 0 && key.size() == h.size()) {
                    node.attrs[hiddenName(h)] = value;
                    placed = true;
                    break;
                }
                if (pos != std::string::npos && pos > 1 && pos + h.size() == key.size()) {
                    // "<input>_<key>" on an op: the attribute of that input's variable.
                    if (inputNames) {
                        const auto arg = std::string_view(key).substr(0, pos - 1);
                        const auto found = std::find(inputNames->begin(), inputNames->end(), arg);
                        const auto index = static_cast<std::size_t>(found - inputNames->begin());
                        // MXNet indexes inputs unchecked; an 0.8 file may lack trailing (aux) inputs.
                        if (found != inputNames->end() && index < node.inputs.size()) {
                            Node& input = graph.nodes[node.inputs[index].node];
                            if (input.isVariable()) {
                                input.attrs[hiddenName(h)] = value;
                                placed = true;
                            }
                        }
                    }
                    break;
                }
            }
            if (!placed) {
                node.attrs.insert_or_assign(std::move(key), std::move(value));
            }
        }
    }
}

// UpgradeJSON_000800_000900: files before 0.9 did not list auxiliary states as inputs. The new
// variables copy the op's attributes, as NNVM's Compose does for variables it creates.
void addMissingInputs(Graph& graph, InputNames& inputNamesOf, const std::string& source) {
    const std::size_t original = graph.nodes.size();
    for (NodeId id = 0; id < original; ++id) {
        if (graph.nodes[id].isVariable()) {
            continue;
        }
        const auto names = inputNamesOf.of(graph.nodes[id], id);
        if (!names || graph.nodes[id].inputs.size() >= names->size()) {
            continue;
        }
        if (names->size() - graph.nodes[id].inputs.size() > kMaxMissingInputs) {
            throw LoadError(source, nodePlace(id, graph.nodes[id].name),
                            "has " + std::to_string(graph.nodes[id].inputs.size()) +
                                " inputs where its op takes " + std::to_string(names->size()) +
                                "; too many to add as missing auxiliary states");
        }
        for (std::size_t i = graph.nodes[id].inputs.size(); i < names->size(); ++i) {
            Node variable;
            const std::string& opName = graph.nodes[id].name;
            variable.name = opName.empty() ? (*names)[i] : opName + "_" + (*names)[i];
            variable.attrs = graph.nodes[id].attrs;
            graph.nodes.push_back(std::move(variable));
            graph.nodes[id].inputs.push_back({static_cast<NodeId>(graph.nodes.size() - 1), 0, 0});
        }
    }
    if (graph.nodes.size() != original) {
        // The new variables sit after their consumers; the DFS puts each right before its first use,
        // where MXNet's own save puts it.
        graph = reachableInDfsOrder(graph);
    }
}

// UpgradeJSON_000903_000904: FSetInputVarAttrOnCompose of the BatchNorm family.
void setBatchNormInitializers(Graph& graph) {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    for (Node& node : graph.nodes) {
        const std::string_view op = registry.canonicalName(node.op);
        if (op != "BatchNorm" && op != "_contrib_SyncBatchNorm" && op != "_contrib_BatchNormWithReLU") {
            continue;
        }
        for (std::size_t i = 3; i < node.inputs.size() && i <= 4; ++i) {
            Node& input = graph.nodes[node.inputs[i].node];
            if (input.isVariable() && input.attr("__init__") == nullptr) {
                input.attrs["__init__"] = i == 3 ? R"(["zero", {}])" : R"(["one", {}])";
            }
        }
    }
}

// UpgradeJSON_000904_000905: argmax/argmin's axis became optional; -1 used to mean "no axis".
void dropFlatReduceAxis(Graph& graph) {
    for (Node& node : graph.nodes) {
        if (node.op != "argmax" && node.op != "argmin") {
            continue;
        }
        if (const std::string* axis = node.attr("axis"); axis != nullptr && *axis == "-1") {
            node.attrs.erase("axis");
        }
    }
}

}  // namespace

bool upgradeLegacySymbol(Graph& graph, int version, const std::string& source) {
    // Every step below is for versions older than this one.
    if (version >= kMxnetVersionWritten) {
        return false;
    }
    InputNames inputNames(graph, source);
    moveHiddenKeys(graph, inputNames);
    if (version < 900) {
        addMissingInputs(graph, inputNames, source);
    }
    if (version < 904) {
        setBatchNormInitializers(graph);
    }
    if (version < 905) {
        dropFlatReduceAxis(graph);
    }
    return true;
}

}  // namespace ampstudio
