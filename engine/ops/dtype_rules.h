#pragma once
// MXNet 1.9.1's dtype inference (FInferType) of every op, as data: which inputs share input 0's
// dtype, which are free (indices, shapes, conditions) or fixed (BatchNorm's statistics), what each
// output follows (input 0, an attribute, another input, a fixed dtype), whether the op has an
// FInferType at all, and whether it can type its outputs from input 0 alone, which is all the AMP
// pass gives it (slice_like cannot). Probed from MXNet 1.9.1 itself over its whole op list
// (tests/differential/probe_dtype_inference.py) into resources/mxnet/mxnet-1.9.1-op-dtypes.json,
// compiled in. The registry (MxnetOpFacts::typeInference) applies these rules.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "tensor/dtype.h"

namespace ampstudio {

enum class TypeInference : uint8_t;

// What decides the dtype of one input or output slot.
struct DtypeSlotRule {
    enum class Kind : uint8_t {
        Same,    // input 0's dtype (MXNet's ElemwiseType)
        Fixed,   // always `dtype` (BatchNorm's gamma: float32; topk's indices by default float32)
        Free,    // anything; neither constrains nor is constrained (take's indices, where's condition)
        Attr,    // the dtype named by attribute `attr`; without it, `fallback` (Same, Fixed or Input)
        Input,   // input `input`'s dtype (where's output follows x)
        Widest,  // the widest of the inputs, once all are known
    };
    Kind kind = Kind::Same;
    DType dtype = DType::Unknown;  // Fixed, or Attr's fixed fallback
    Kind fallback = Kind::Same;    // Attr only
    uint32_t input = 0;            // Input, or Attr's fallback Input
    std::string attr;              // Attr only
};

// What the op's FInferType returned when the AMP pass's call was probed: input 0 float16,
// bfloat16 or float32, everything else unknown. `ok` false where MXNet returns false or throws
// (slice_like, broadcast_like, where; take and ROIPooling throw; legacy ops like Crop accept
// float32 only); `in` and `out` are the slots after the call (Unknown where MXNet left -1).
struct FirstInputProbe {
    bool ok = false;
    std::vector<DType> in;
    std::vector<DType> out;
};

struct DtypeRule {
    bool hasFInferType = true;
    // Indexed by firstInputIndex(); absent where the op was not probed so (no inputs, no FInferType).
    std::optional<FirstInputProbe> firstInput[3];
    // Probed slots; a node with more inputs (Concat, add_n) repeats the last input's rule.
    std::vector<DtypeSlotRule> inputs;
    std::vector<DtypeSlotRule> outputs;  // outputs past these (hidden ones) are Same
    // The float dtypes input 0 may have (legacy ops such as InstanceNorm take float32 only); empty
    // when the probe could not tell, and then nothing is refused.
    std::vector<DType> firstInputAccepts;
    // FInferType throws when called while input 0 is untyped (Dropout: "input type to dropout is
    // not specified"; Embedding, LRN, RNN ...), or while nothing at all is typed (BilinearSampler).
    // Graph-level InferType calls it so on a node whose inputs no earlier node typed, and the
    // throw fails the whole inference.
    bool throwsWhileInput0Unknown = false;
    bool throwsWhileNothingKnown = false;
};

// DtypeRule::firstInput's slot for input 0's dtype: 0 float16, 1 bfloat16, 2 float32, -1 otherwise.
int firstInputIndex(DType t);

// The rule for the node (its op's, or the variant its attributes select); nullptr when MXNet 1.9.1
// has no such op or it could not be probed.
const DtypeRule* findDtypeRule(const Node& node, std::string_view canonicalOp);

// Applies a rule as MXNet's InferType applies the op's FInferType (or, without one, its default
// SameType, which overwrites every slot with the first known output's dtype, else input's).
// `untypedInputThrows`: see MxnetOpFacts::typeInference.
TypeInference applyDtypeRule(const DtypeRule& rule, const Node& node, std::vector<DType>& in,
                             std::vector<DType>& out, bool untypedInputThrows = true);

}  // namespace ampstudio
