#pragma once
// Small questions tests ask of a graph, shared by the engine suites.

#include <QStringList>

#include "graph/graph.h"

// The names of the nodes running `op`, sorted.
inline QStringList namesOfOp(const ampstudio::Graph& g, const char* op) {
    QStringList names;
    for (const ampstudio::Node& n : g.nodes) {
        if (n.op == op) {
            names << QString::fromStdString(n.name);
        }
    }
    names.sort();
    return names;
}
