#pragma once
// What the executor works out before it allocates anything (MXNet's simple_bind): the shape and
// dtype of every entry of a graph from the shapes of its inputs, parameter shapes included, and
// the ops it cannot run. Every failure is an OpError naming the node, before any kernel runs.

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace ampstudio {

class Backend;

// Per entry of the graph, indexed by the flat entry id Graph::nodeRowPtr()[node] + index.
struct EntryTable {
    std::vector<uint32_t> rowPtr;  // Graph::nodeRowPtr()
    std::vector<Shape> shapes;
    std::vector<DType> dtypes;

    std::size_t id(const NodeEntry& e) const { return rowPtr[e.node] + e.index; }
    const Shape& shape(const NodeEntry& e) const { return shapes[id(e)]; }
    DType dtype(const NodeEntry& e) const { return dtypes[id(e)]; }
};

// Throws OpError listing every op of the graph that has no op spec or, with a backend, no kernel
// there: "unsupported ops: RNN (node 'lstm'), _zeros (nodes 'begin_state_0', 'begin_state_1')".
void checkSupported(const Graph& graph, const Backend* backend);

// Shapes: `known` gives variables' shapes by name (the data and labels, at least); the rest follow
// from op shape inference run to a fixed point, backwards to parameters too. Throws OpError for a
// contradiction or for an entry whose shape stays unknown (naming the variable to give a shape for).
// dtypes: `knownTypes` fixes variables' dtypes; the rest follow MxnetOpFacts::inferType, and a
// variable nothing constrains is float32.
EntryTable inferEntries(const Graph& graph, const std::map<std::string, Shape>& knownShapes,
                        const std::map<std::string, DType>& knownTypes);

}  // namespace ampstudio
