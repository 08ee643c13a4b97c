#pragma once
// MXNet's symbol JSON (`*-symbol.json`): load every variant MXNet 1.9.1 loads, upgrade legacy files as
// its LoadLegacyJSON does, and save the current format in dmlc::JSONWriter's exact layout.
//
// Loading follows NNVM's LoadJSON: the graph is what the heads reach, in post-order DFS; `arg_nodes` is
// only checked (saving recomputes it). Output counts come from `node_row_ptr` when the file has one
// (it is the truth for that file: a max Pooling spans 2 in MKLDNN builds and 1 otherwise), else from
// the operator registry. Op names are stored canonical (aliases resolved), as MXNet saves them.
// graph.attrs["mxnet_version"] holds the version the file declared, `["int",800]` when it declared
// none (what MXNet assumes); other graph attributes are kept as compact JSON text.
//
// Every problem with the input is a LoadError naming the place, e.g. `node 17 ('fc1') input 2`.

#include <filesystem>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace ampstudio {

// MXNet 1.9.1: the version written into saved files, and the version legacy upgrades bring files to.
inline constexpr int kMxnetVersionWritten = 10901;
// The version MXNet assumes when a file declares none (0.8.0).
inline constexpr int kMxnetVersionAssumed = 800;
// Nesting deeper than this is rejected before anything is built; a symbol JSON needs 5 levels plus 4
// per level of nested subgraph.
inline constexpr int kSymbolJsonMaxDepth = 100;
// No operator has more outputs; a larger node_row_ptr span is hostile, not a model.
inline constexpr uint32_t kMaxOutputsPerNode = 65536;

// Throws LoadError; `source` names the input in messages (a path or a display name).
Graph parseSymbolJson(std::string_view text, const std::string& source);
Graph readSymbolJsonFile(const std::filesystem::path& path);

// The current format, byte for byte as MXNet 1.9.1 writes it, with {"mxnet_version": ["int", 10901]}
// plus the other graph attributes. Throws GraphError when the graph is not valid().
std::string serializeSymbolJson(const Graph& graph);
// Atomic (see writeFileAtomically); throws SaveError or GraphError.
void writeSymbolJsonFile(const std::filesystem::path& path, const Graph& graph);

// The nested symbols of control-flow ops (Node::subgraphs) are kept as compact JSON text in this
// canonical form: what NNVM keeps of a subgraph (no graph attributes, no legacy upgrade). Saving in
// MXNet's layout re-reads each one (std::invalid_argument if it is not a symbol JSON);
// serializeSubgraphJson copies nested subgraphs verbatim, so they must already be canonical.
Graph parseSubgraphJson(std::string_view text, const std::string& source);
std::string serializeSubgraphJson(const Graph& graph);

}  // namespace ampstudio
