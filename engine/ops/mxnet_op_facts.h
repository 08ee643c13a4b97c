#pragma once
// What the engine knows about an operator without running it, as MXNet 1.9.1 registers it:
// how many outputs a node has (what node_row_ptr counts), their names (FListOutputNames, used in
// AMP cast names), which inputs are mutable (FMutateInputs), the input names (FListInputNames, used
// by the legacy JSON upgrade) and dtype inference (FInferType, used by the typed AMP pass).
// The output facts come from resources/mxnet/mxnet-1.9.1-op-outputs.json, compiled in.
// These are MXNet's facts about its operators, for reading files and for the AMP pass; what the
// executor needs to run an op (shapes, gradients, kernels) is ops/op_spec.h's OpSpecTable.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "tensor/dtype.h"

namespace ampstudio {

// What one FInferType call concluded. MXNet's functions return true when every slot is known and
// throw on a contradiction; the two are told apart here because the AMP pass (which asks "did
// inference succeed?") and a graph's type check (which asks "is anything contradictory?") need
// different answers.
enum class TypeInference : uint8_t {  // declared in ops/dtype_rules.h too
    Complete,    // every slot known and consistent
    Incomplete,  // nothing contradicts, but some slot stays unknown (or the op has no FInferType)
    Conflict,    // the known slots contradict the op's rule: MXNet's InferType would throw
};

class MxnetOpFacts {
public:
    // The registry of MXNet 1.9.1 (MKLDNN build, as the release builds).
    static const MxnetOpFacts& instance();

    // True for canonical op names and their aliases.
    bool isKnown(std::string_view op) const;
    // The canonical name of an alias ("_add" -> "elemwise_add"); any other name unchanged.
    std::string_view canonicalName(std::string_view op) const;
    // Canonical op names, sorted (for completion in editors).
    const std::vector<std::string>& opNames() const;

    // Outputs of the node from its op and attributes (Pooling, RNN, SliceChannel, amp_multicast ...).
    // 1 for a variable and for an op the registry does not know.
    uint32_t numOutputs(const Node& node) const;
    // FListOutputNames: the name of output `index`, or nullopt when the op registers no names
    // (AMP cast names then use the index) or for a variable.
    std::optional<std::string> outputName(const Node& node, uint32_t index) const;
    // FMutateInputs: the input positions the op writes (BatchNorm: 3, 4). Empty for unknown ops.
    std::vector<uint32_t> mutableInputs(const Node& node) const;
    // FListInputNames: arguments, then auxiliary states (BatchNorm: data, gamma, beta, moving_mean,
    // moving_var), depending on attributes (no_bias, num_args, mode ...). nullopt when not known.
    std::optional<std::vector<std::string>> inputNames(const Node& node) const;

    // FInferType as MXNet's graph InferType applies it: `in` has one slot per input, `out` one per
    // output (numOutputs); DType::Unknown marks what is not known. Known slots are constraints; the
    // function fills what follows from them. The rules are MXNet 1.9.1's, probed from it
    // (ops/dtype_rules.h): most ops make inputs and outputs one type; BatchNorm keeps
    // gamma/beta/statistics in float32, Cast/amp_cast output their `dtype`, index, shape and
    // condition inputs are free, and an op without FInferType gets MXNet's default (SameType). Ops
    // MXNet does not know are ElemwiseType. A variable is Incomplete. `untypedInputThrows`: where
    // MXNet's FInferType throws because input 0 is untyped (DtypeRule::throwsWhileInput0Unknown),
    // answer Conflict, as MXNet's InferType fails then (the dtype check models MXNet); false waits
    // instead (our own executor, which types every variable in the end).
    TypeInference typeInference(const Node& node, std::vector<DType>& in, std::vector<DType>& out,
                                bool untypedInputThrows = true) const;
    // FInferType as the AMP pass calls it (in[0] known, the rest usually not): true when the op has
    // one, it types every output from what is given and nothing contradicts. False where MXNet's
    // returns false or throws (slice_like and take with only input 0 known), and for an op without
    // FInferType (_contrib_AdaptiveAvgPooling2D), whose outputs the pass cannot type.
    bool inferType(const Node& node, std::vector<DType>& in, std::vector<DType>& out) const;
    // MXNet 1.9.1 registers an FInferType for the op (true for ops it does not know).
    bool hasTypeInference(const Node& node) const;

private:
    MxnetOpFacts();
    struct Data;
    const Data* m_data;
};

}  // namespace ampstudio
