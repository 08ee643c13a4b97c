#pragma once
// MXNet's LoadLegacyJSON upgrades (src/nnvm/legacy_json_util.cc, 1.9.1 semantics), on the graph IR.
// Each step runs when the file's version is older than the step's:
//   < 1.9.1  hidden keys: `lr_mult` -> `__lr_mult__`, and an op's `weight_lr_mult` moves to its
//            `weight` variable as `__lr_mult__` (likewise ctx_group, wd_mult, force_mirroring,
//            mirror_stage);
//   < 0.9.0  auxiliary states were not saved: add the missing inputs (BatchNorm's moving_mean and
//            moving_var) as variables named `<node>_<input>`;
//   < 0.9.4  BatchNorm-family ops initialise moving_mean to zero and moving_var to one (`__init__`);
//   < 0.9.5  argmax/argmin `axis = -1` meant "over all elements", now spelled as no axis at all.

#include <cstddef>
#include <string>

#include "graph/graph.h"

namespace ampstudio {

// `graph` must be valid and pruned to what its heads reach (reachableInDfsOrder); it stays so.
// Throws LoadError (naming `source`) where a hostile file would make the upgrade blow up: an op said
// to lack more than kMaxMissingInputs inputs, or input name lists far longer than the graph (an op
// with num_args = 65536 on every node). Returns false, without looking at the graph, when the
// version needs no upgrade (MXNet 1.9.1's own files): the caller need not check the graph again.
bool upgradeLegacySymbol(Graph& graph, int version, const std::string& source);

// BatchNorm lacks 2 (its auxiliary states); no operator lacks more than a few.
inline constexpr std::size_t kMaxMissingInputs = 16;

}  // namespace ampstudio
