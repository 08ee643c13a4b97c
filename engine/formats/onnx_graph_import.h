#pragma once
// An ONNX GraphProto as the Graph IR, so that everything downstream (inspect, the views, the
// inspector) works on it without knowing it came from ONNX:
// - variables first: the graph inputs in order, then the initializers that are no input;
// - then the nodes in topological order: the file's order where it is one (ONNX requires it, but
//   files in the wild break it), else the file order's stable topological sort (Kahn's algorithm
//   taking the earliest node in the file first);
// - op = op_type, "domain.op_type" outside the default domain ("" or "ai.onnx"): a dot, because
//   the CLI's list syntax already gives ':' a meaning;
// - name = the node's name; an unnamed node is "<op_type>_<its index in the file>", and a name
//   already taken (by a value or an earlier node) gets "_1", "_2" ... : stable for the same file;
// - inputs: the producers of the named inputs (an omitted optional input, "", is left out); the
//   values an If / Loop / Scan body reads from outside are the node's control dependencies, so the
//   order also respects them;
// - attributes as text ("3", "[1, 1]", "'NOTSET'" ...; a graph attribute as its size);
//   a variable's attribute "type" is its tensor type, "float32 [N, 3, 224, 224]".
// Values are not part of the IR: the graph's nodes are the proto's, which onnx_model.h keeps.

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "graph/graph.h"

namespace ampstudio {

struct OnnxGraphImport {
    Graph graph;
    std::vector<int> protoNodeOf;  // graph node id -> index in the GraphProto's nodes; -1 for a variable
};

// Kahn's algorithm taking the earliest node first (the file's order where it is topological):
// consumers[p] are the nodes that read node p, pending[p] how many distinct producers p waits for.
// Nodes on a cycle, and those after them, are left out of the order.
std::vector<int> earliestFirstOrder(const std::vector<std::vector<int>>& consumers, std::vector<int> pending);

// Throws LoadError naming `file` for a value defined twice, a node reading a value nothing defines,
// a cycle, a node without outputs, or a graph output that nothing defines.
// With useSecondCore, a large graph's import runs on two threads (half its work, the names and texts,
// on a thread of its own).
OnnxGraphImport importOnnxGraph(const onnx::GraphProto& graph, const std::string& file, bool useSecondCore = false);

}  // namespace ampstudio
