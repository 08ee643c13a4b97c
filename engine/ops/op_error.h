#pragma once
// What stops a graph from being executed: an op the engine cannot run, a bad attribute, shapes that
// do not fit. The message names the node ("node 'fc1' (FullyConnected): ..."), so the CLI prints one
// line and the GUI one dialog, before anything runs.

#include <stdexcept>
#include <string>

#include "graph/graph.h"

namespace ampstudio {

class OpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    OpError(const Node& node, const std::string& reason)
        : std::runtime_error("node '" + node.name + "' (" + (node.isVariable() ? std::string("variable") : node.op) +
                             "): " + reason) {}
};

}  // namespace ampstudio
