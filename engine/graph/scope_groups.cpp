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
    // Scopes interned once: every later question is about an id, not a string.
    std::vector<std::string> scopeNames;
    std::unordered_map<std::string, uint32_t> idOf;
    std::vector<std::vector<uint32_t>> scopesOf(graph.size());
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (std::string& scope : nameScopes(graph.nodes[n].name)) {
            const auto [it, inserted] = idOf.try_emplace(std::move(scope), static_cast<uint32_t>(scopeNames.size()));
            if (inserted) scopeNames.push_back(it->first);
            scopesOf[n].push_back(it->second);
        }
    }
    // A node named like a scope is that scope's op (MXNet's "conv1" beside "conv1_weight"): inside it.
    for (std::size_t n = 0; n < graph.size(); ++n) {
        if (const auto it = idOf.find(graph.nodes[n].name); it != idOf.end()) scopesOf[n].push_back(it->second);
    }
    // An amp_multicast casts the inputs of the one node it feeds, but MXNet names it after that
    // node's first input: it goes where its consumer is (else a loss sum's multicast, named after
    // the first layer, would put the whole graph's outputs into the first layer's scope).
    std::vector<uint8_t> placed(graph.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const NodeEntry& input : graph.nodes[n].inputs) {
            if (!placed[input.node] && graph.nodes[input.node].op == "amp_multicast") {
                placed[input.node] = 1;
                scopesOf[input.node] = scopesOf[n];
            }
        }
    }
    // A scope whose nodes lie scattered over the graph is a naming habit, not a module (MXNet's
    // automatic "elemwise_add12", "elemwise_add57" share "elemwise"): it groups nothing. Exporters
    // write a module's nodes together, so a real scope's span in node order is near its size.
    constexpr std::size_t kNever = static_cast<std::size_t>(-1);
    std::vector<std::size_t> first(scopeNames.size(), kNever), last(scopeNames.size(), 0), count(scopeNames.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const uint32_t scope : scopesOf[n]) {
            if (first[scope] == kNever) first[scope] = n;
            last[scope] = n;
            ++count[scope];
        }
    }
    std::vector<uint8_t> isOpen(scopeNames.size(), 0), scattered(scopeNames.size(), 0);
    for (uint32_t id = 0; id < scopeNames.size(); ++id) {
        isOpen[id] = open.count(scopeNames[id]) != 0;
        scattered[id] = first[id] != kNever && last[id] - first[id] + 1 > kMaxScopeSpread * count[id];
    }
    // Each node's visible scope: the outermost of its scopes that is not open (none: the node itself).
    constexpr uint32_t kNoScope = UINT32_MAX;
    std::vector<uint32_t> visible(graph.size(), kNoScope);
    std::vector<std::size_t> depth(graph.size(), 0);
    std::vector<std::size_t> visibleCount(scopeNames.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        for (const uint32_t scope : scopesOf[n]) {
            if (scattered[scope]) continue;
            ++depth[n];
            if (!isOpen[scope]) {
                visible[n] = scope;
                ++visibleCount[scope];
                break;
            }
        }
    }
    ScopeGroups groups;
    groups.itemOf.assign(graph.size(), 0);
    std::vector<uint32_t> itemOfScope(scopeNames.size(), kNoScope);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        const uint32_t scope = visible[n];
        if (scope != kNoScope && visibleCount[scope] >= 2) {
            if (itemOfScope[scope] == kNoScope) {
                itemOfScope[scope] = static_cast<uint32_t>(groups.items.size());
                groups.items.push_back({scopeNames[scope], true, {}, depth[n]});
            }
            groups.items[itemOfScope[scope]].members.push_back(static_cast<NodeId>(n));
            groups.itemOf[n] = itemOfScope[scope];
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
