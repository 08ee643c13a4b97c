#pragma once
// What the engine knows about an operator without running it, as MXNet 1.9.1 registers it:
// how many outputs a node has (what node_row_ptr counts), their names (FListOutputNames, used in
// AMP cast names), which inputs are mutable (FMutateInputs), the input names (FListInputNames, used
// by the legacy JSON upgrade) and dtype inference (FInferType, used by the typed AMP pass).
// The output facts come from resources/mxnet/mxnet-1.9.1-op-outputs.json, compiled in.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "tensor/dtype.h"

namespace ampstudio {

class OpRegistry {
public:
    // The registry of MXNet 1.9.1 (MKLDNN build, as the release builds).
    static const OpRegistry& instance();

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

    // FInferType as the AMP pass uses it: `in` has one slot per input, `out` one per output
    // (numOutputs); DType::Unknown marks what is not known. Known slots are constraints; the
    // function fills what follows from them and returns false on a contradiction or when the
    // op is a variable. Most ops make all inputs and outputs one type; the exceptions follow MXNet
    // (BatchNorm keeps gamma/beta/statistics in float32, Cast/amp_cast output their `dtype`,
    // Embedding outputs its `dtype`, comparison-free index inputs stay free, and so on).
    bool inferType(const Node& node, std::vector<DType>& in, std::vector<DType>& out) const;

private:
    OpRegistry();
    struct Data;
    const Data* m_data;
};

}  // namespace ampstudio
