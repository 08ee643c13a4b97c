#pragma once
// The precision modes of training (DESIGN.md §5). Each is a graph plus a parameter policy, so one
// training loop serves all of them:
//   fp32          the original graph, f32 parameters
//   amp           the typed AMP conversion with the float16 lists (PyTorch autocast, MXNet AMP), f32
//                 parameters cast per use by amp_cast; gradients arrive in f32
//   fp16-master   every op but BatchNorm and the loss heads in float16, parameters stored in float16,
//                 the optimizer updating an f32 master copy (Apex O2, fastai's MixedPrecision)
//   bf16          as amp with the bfloat16 lists
//   bf16-master   as fp16-master in bfloat16
// Loss scaling defaults: PyTorch's dynamic scaler for the float16 modes, off for fp32 and the
// bfloat16 ones (bfloat16 has float32's exponent range).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "amp/amp_lists.h"
#include "graph/graph.h"

namespace ampstudio {

enum class PrecisionMode { Fp32, Amp, Fp16Master, Bf16, Bf16Master };

// "fp32", "amp", "fp16-master", "bf16", "bf16-master"; parse throws std::invalid_argument listing them.
std::string_view precisionModeName(PrecisionMode mode);
PrecisionMode parsePrecisionMode(std::string_view text);
const std::vector<std::string>& precisionModeNames();
// Every mode, in the order above: the order a user is offered them in (the GUI's list, the CLI's help).
const std::vector<PrecisionMode>& allPrecisionModes();

DType precisionComputeDtype(PrecisionMode mode);  // F32, F16 or BF16
bool precisionUsesMasterWeights(PrecisionMode mode);
std::string_view defaultScalerPreset(PrecisionMode mode);  // "pytorch" or "off"

struct PreparedModel {
    Graph graph;
    // Parameters stored in the compute dtype (master-weight modes); the rest are f32.
    std::map<std::string, DType> parameterDtypes;
    int64_t castsInserted = 0;
};

// Builds the graph a mode trains. `lists` replaces the default lists of the amp and bf16 modes (its
// target dtype must match the mode's); `inputs` are the graph's data and label variables, never
// stored in low precision; `excluded` nodes run in float32 (excluded_sym_names). Throws
// ConversionError / AmpListsError / std::invalid_argument.
PreparedModel prepareModel(const Graph& fp32Graph, PrecisionMode mode, const std::optional<AmpLists>& lists,
                           const std::set<std::string>& inputs, const std::set<std::string>& excluded = {});

// The lists of the master-weight modes for one graph: every op in it in the target dtype except the
// BatchNorm family and the loss heads, which run in f32.
AmpLists masterWeightLists(const Graph& graph, DType target);

}  // namespace ampstudio
