#pragma once
// MXNet's InferType over a whole graph (src/executor/infer_graph_attr_pass.cc, 1.9.1): forward and
// backward sweeps over the nodes, each calling the op's FInferType (MxnetOpFacts::typeInference) with
// what is known of its inputs and outputs, until a sweep learns nothing new. A contradiction stops
// it: that is where MXNet throws "... requires uniform type" and refuses to bind the graph. What
// stays unknown is not an error (a variable nothing constrains).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tensor/dtype.h"

namespace ampstudio {

// "float32, float16, unknown".
std::string dtypeList(const std::vector<DType>& types);

// The node whose dtype rule the known dtypes contradict, with what was known when it was checked.
struct DtypeConflict {
    NodeId node = 0;
    std::vector<DType> inputs;
    std::vector<DType> outputs;

    // "Convolution 'conv1' cannot take inputs (float32, float16, float16)".
    std::string describe(const Graph& graph) const;
};

struct GraphDtypes {
    std::vector<uint32_t> rowPtr;  // Graph::nodeRowPtr(): entry (node, i) is dtypes[rowPtr[node] + i]
    std::vector<DType> dtypes;     // per entry; Unknown where nothing decides it
    std::optional<DtypeConflict> conflict;

    DType dtype(const NodeEntry& e) const { return dtypes[rowPtr[e.node] + e.index]; }
};

// Sweeps until nothing changes. `dtypes` (per entry, indexed by `rowPtr`) holds what is known on
// entry and everything inferred on return; returns the first contradiction found, if any.
// `untypedInputThrows`: see MxnetOpFacts::typeInference (true: as MXNet's InferType).
std::optional<DtypeConflict> propagateDtypes(const Graph& graph, const std::vector<uint32_t>& rowPtr,
                                             std::vector<DType>& dtypes, bool untypedInputThrows = true);

// The whole inference from the dtypes of some variables, by name (names not in the graph are ignored).
GraphDtypes inferGraphDtypes(const Graph& graph, const std::map<std::string, DType>& variables);
// The same from per-node seeds (a variable's dtype at its node id; Unknown leaves it free), with
// the graph's nodeRowPtr() given.
GraphDtypes inferGraphDtypes(const Graph& graph, std::vector<uint32_t> rowPtr, const std::vector<DType>& seeds);

}  // namespace ampstudio
