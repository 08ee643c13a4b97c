#pragma once
// A graph seen with its name scopes (name_scopes.h) collapsed into groups, as Model Explorer shows
// a large model: one item per collapsed scope or per node outside any, and one edge between two
// items wherever a node of one reads a node of the other. Opening a scope replaces its item by the
// items one level down. What the views lay out and draw when grouping is on; Qt-free.

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace ampstudio {

struct ScopeGroups {
    struct Item {
        std::string name;              // the scope path ("/encoder/layer.3"), or the node's name
        bool group = false;            // a collapsed scope with at least two nodes
        std::vector<NodeId> members;   // the nodes it stands for, ascending (one for a node)
        std::size_t depth = 0;         // scopes above it (a group: including its own)
    };
    std::vector<Item> items;                           // groups and nodes, by their first member
    std::vector<uint32_t> itemOf;                      // per node of the graph: its item
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // item -> item, unique, none inside an item

    // The item of a group or node by name; npos when none.
    std::size_t find(const std::string& name) const;
};

// `open`: scope paths shown opened (their contents visible one level down); every other scope is
// collapsed at its outermost level. A scope holding a single node is never a group: the node shows.
// A node whose whole name is another node's scope (MXNet's op "conv1" beside "conv1_weight") is
// inside that scope; an amp_multicast is in its consumer's scopes. A scope whose nodes are scattered
// (their span in node order over four times their number) is no group: automatic names such as
// "elemwise_add12" share a prefix without being a module.
ScopeGroups groupByScope(const Graph& graph, const std::set<std::string>& open);

// The scopes to open so that the first view is not one box: from the top, while the visible items
// are a single group, that group is opened (a model whose every name starts "resnetv10_" shows its
// stages, not one "resnetv10" box).
// `groups`, when given, receives groupByScope(graph, result), which this computes on the way.
std::set<std::string> initiallyOpenScopes(const Graph& graph, ScopeGroups* groups = nullptr);

}  // namespace ampstudio
