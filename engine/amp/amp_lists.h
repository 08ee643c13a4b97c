#pragma once
// The operator lists that decide, per op, which precision a node runs in during AMP conversion.
// They are data with the schema of MXNet 1.9.1's reference lists (resources/lists/*.json):
// target_dtype_ops, fp32_ops, neutral_ops, widest_dtype_ops, conditional_fp32_ops, loss_output_ops.
// Per-node exclusions are not part of a list file; they belong to the conversion options.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/dtype.h"

namespace ampstudio {

// A node of `op` runs in float32 when its attribute `param` is set explicitly to one of `values`
// (MXNet's CONDITIONAL_FP32_FUNCS, e.g. Activation with act_type=softrelu).
struct ConditionalFp32Op {
    std::string op;
    std::string param;
    std::vector<std::string> values;
    friend bool operator==(const ConditionalFp32Op&, const ConditionalFp32Op&) = default;
};

// A list entry that can never match a node: symbol files store canonical op names and the pass
// compares names unchanged (as MXNet does), so an alias (`_Plus`) or an unknown name is inert.
struct UnmatchableListEntry {
    std::string list;       // "fp32_ops", "conditional_fp32_ops", ...
    std::string entry;      // as written in the list
    std::string canonical;  // the op the alias stands for; empty when the name is not an op at all
    friend bool operator==(const UnmatchableListEntry&, const UnmatchableListEntry&) = default;
};

// Overlapping target / fp32 / conditional lists (AmpLists::validate).
class AmpListsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Whose op names the lists hold: MXNet operators or ONNX op types ("Conv", "com.microsoft.Gelu").
// A list file says "op_set": "onnx"; without the key it is for MXNet.
enum class OpSet : uint8_t { Mxnet, Onnx };

struct AmpLists {
    DType targetDtype = DType::F16;  // F16 or BF16
    std::vector<std::string> targetDtypeOps;
    std::vector<std::string> fp32Ops;
    std::vector<std::string> neutralOps;
    std::vector<std::string> widestDtypeOps;
    std::vector<ConditionalFp32Op> conditionalFp32Ops;
    std::vector<std::string> lossOutputOps;  // not used by the pass; kept so that saving loses nothing
    // Top-level keys the schema does not interpret ("source", "license", "bf16_use_fp32_params", ...),
    // as compact JSON text, so that a file round-trips.
    std::vector<std::pair<std::string, std::string>> otherKeys;
    // Top-level key order of the file read; toJson() writes keys in this order, then any key missing
    // from it in schema order.
    std::vector<std::string> keyOrder;

    // The default lists for `target` (F16 or BF16; anything else throws std::invalid_argument):
    // MXNet 1.9.1's, or for ONNX PyTorch's CUDA autocast lists mapped to ONNX ops
    // (resources/lists/amp-lists-onnx-*.json, whose "origins" say where each entry came from).
    static AmpLists defaults(DType target, OpSet opSet = OpSet::Mxnet);
    // Onnx when the file's "op_set" is "onnx", else Mxnet.
    OpSet opSet() const;
    // Throws LoadError naming `source` and the place on malformed JSON or a schema violation.
    static AmpLists fromJson(std::string_view text, const std::string& source);
    // Reads and parses a list file; throws LoadError (also when the file cannot be read).
    static AmpLists fromJsonFile(const std::filesystem::path& path);
    // The same schema, pretty-printed with two-space indentation.
    std::string toJson() const;

    // One message per op found in two of target_dtype_ops, fp32_ops and conditional_fp32_ops, e.g.
    // `"FullyConnected" is in both target_dtype_ops and fp32_ops`. Empty when the lists are usable.
    std::vector<std::string> overlapErrors() const;
    // Throws AmpListsError with every overlap message (one per line) when overlapErrors() is not empty.
    void validate() const;
    // Entries of every list that the operator registry does not know as canonical op names (MXNet
    // lists; ONNX lists are checked against libonnx's schemas by unmatchableOnnxEntries()).
    std::vector<UnmatchableListEntry> unmatchableEntries() const;

    // Same content; keyOrder is formatting and does not count.
    friend bool operator==(const AmpLists& a, const AmpLists& b) {
        return a.targetDtype == b.targetDtype && a.targetDtypeOps == b.targetDtypeOps &&
               a.fp32Ops == b.fp32Ops && a.neutralOps == b.neutralOps &&
               a.widestDtypeOps == b.widestDtypeOps && a.conditionalFp32Ops == b.conditionalFp32Ops &&
               a.lossOutputOps == b.lossOutputOps && a.otherKeys == b.otherKeys;
    }
};

}  // namespace ampstudio
