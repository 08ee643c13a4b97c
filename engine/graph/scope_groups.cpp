#include "graph/scope_groups.h"

#include <algorithm>
#include <unordered_map>

#include "graph/name_scopes.h"

namespace ampstudio {
namespace {

constexpr std::size_t kMaxScopeSpread = 4;  // a scope's span in node order, at most this times its size

}  // namespace

std::size_t ScopeGroups::find(const std::string& name) const {
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].name == name) return i;
    }
    return static_cast<std::size_t>(-1);
}

ScopeGroups groupByScope(const Graph& graph, const std::set<std::string>& open) {
    std::vector<std::vector<std::string>> scopesOf(graph.size());
    std::unordered_map<std::string, std::size_t> membersOf;
    for (std::size_t n = 0; n < graph.size(); ++n) {
        scopesOf[n] = nameScopes(graph.nodes[n].name);
        for (const std::string& scope : scopesOf[n]) membersOf.emplace(scope, 0);
    }
    // A node named like a scope is that scope's op (MXNet's "conv1" beside "conv1_weight"): inside it.
    for (std::size_t n = 0; n < graph.size(); ++n) {
        if (membersOf.count(graph.nodes[n].name)) scopesOf[n].push_back(graph.nodes[n].name);
    }
    // An amp_multicast casts the inputs of the one node it feeds, but MXNet names it after that
    // node's first input: it goes where its consumer is (else a loss sum's multicast, named after
    // the first layer, would put the whole graph's outputs into the first layer's scope).
    std::vector<uint8_t> placed(graph.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const NodeEntry& input : graph.nodes[n].inputs) {
            if (graph.nodes[input.node].op == "amp_multicast" && !placed[input.node]) {
                placed[input.node] = 1;
                scopesOf[input.node] = scopesOf[n];
            }
        }
    }
    // A scope whose nodes lie scattered over the graph is a naming habit, not a module (MXNet's
    // automatic "elemwise_add12", "elemwise_add57" share "elemwise"): it groups nothing. Exporters
    // write a module's nodes together, so a real scope's span in node order is near its size.
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> spanOf;  // first, last node
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const std::string& scope : scopesOf[n]) {
            auto [it, inserted] = spanOf.emplace(scope, std::make_pair(n, n));
            if (!inserted) it->second.second = n;
            ++membersOf[scope];
        }
    }
    for (std::size_t n = 0; n < graph.size(); ++n) {
        std::erase_if(scopesOf[n], [&](const std::string& scope) {
            const auto [first, last] = spanOf[scope];
            return last - first + 1 > kMaxScopeSpread * membersOf[scope];
        });
    }
    for (auto& [scope, count] : membersOf) count = 0;
    // Each node's visible scope: the outermost of its scopes that is not open (empty: the node itself).
    std::vector<std::string> visible(graph.size());
    std::vector<std::size_t> depth(graph.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        const std::vector<std::string>& scopes = scopesOf[n];
        for (std::size_t d = 0; d < scopes.size(); ++d) {
            if (!open.count(scopes[d])) {
                visible[n] = scopes[d];
                depth[n] = d + 1;
                break;
            }
            depth[n] = d + 1;
        }
        if (!visible[n].empty()) ++membersOf[visible[n]];
    }
    ScopeGroups groups;
    groups.itemOf.assign(graph.size(), 0);
    std::unordered_map<std::string, uint32_t> itemOfScope;
    for (std::size_t n = 0; n < graph.size(); ++n) {
        const bool grouped = !visible[n].empty() && membersOf[visible[n]] >= 2;
        if (grouped) {
            const auto [it, inserted] = itemOfScope.emplace(visible[n], static_cast<uint32_t>(groups.items.size()));
            if (inserted) {
                groups.items.push_back({visible[n], true, {}, depth[n]});
            }
            groups.items[it->second].members.push_back(static_cast<NodeId>(n));
            groups.itemOf[n] = it->second;
        } else {
            groups.itemOf[n] = static_cast<uint32_t>(groups.items.size());
            groups.items.push_back({graph.nodes[n].name, false, {static_cast<NodeId>(n)}, depth[n]});
        }
    }
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const NodeEntry& input : graph.nodes[n].inputs) {
            const uint32_t from = groups.itemOf[input.node];
            const uint32_t to = groups.itemOf[n];
            if (from != to) groups.edges.emplace_back(from, to);
        }
    }
    std::sort(groups.edges.begin(), groups.edges.end());
    groups.edges.erase(std::unique(groups.edges.begin(), groups.edges.end()), groups.edges.end());
    return groups;
}

std::set<std::string> initiallyOpenScopes(const Graph& graph, ScopeGroups* groupsOut) {
    std::set<std::string> open;
    for (;;) {
        ScopeGroups groups = groupByScope(graph, open);
        std::size_t shownGroups = 0, lastGroup = 0;
        for (std::size_t i = 0; i < groups.items.size(); ++i) {
            if (groups.items[i].group) {
                ++shownGroups;
                lastGroup = i;
            }
        }
        // One group with at most a few loose nodes beside it (the data input, the label) is one box.
        if (shownGroups != 1 || groups.items.size() > 8) {
            if (groupsOut) *groupsOut = std::move(groups);
            return open;
        }
        open.insert(groups.items[lastGroup].name);
    }
}

}  // namespace ampstudio
