#pragma once
// How far a converted model's numbers are from the original's (DESIGN.md §5): both graphs run
// forward on the same inputs and parameters, and every output, and every node whose name appears in
// both graphs, is compared element by element:
//   max_abs_error   max |c - r|
//   max_rel_error   max |c - r| / max |r|   (relative to the tensor's scale, so values near zero,
//                                            where f16 has no relative precision, do not dominate)
//   cosine          <c, r> / (|c| |r|), 1 when both are zero; NaN (undefined) without a finite pair
//   non_finite      inf/NaN elements of the converted tensor (and of the reference, separately)
// The errors and the cosine are over the pairs where both values are finite. A reference with
// inf/NaN (a float32 model that overflows) is not a reference: referenceFinite() is false, and every
// consumer says so first, whatever the figures over the remaining pairs are.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "exec/model_run.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"

namespace ampstudio {

struct TensorDifference {
    std::string name;  // the output's name (outputEntryName)
    Shape shape;
    DType convertedDtype = DType::F32;
    double maxAbsError = 0.0;
    double maxRelError = 0.0;
    double cosine = 1.0;
    int64_t nonFinite = 0;
    int64_t referenceNonFinite = 0;
    int64_t finitePairs = 0;  // elements where both values are finite: what the figures cover
    int64_t elements = 0;
    double referenceMaxAbs = 0.0;  // max |r| over the finite pairs: the reference's scale

    // The reference's values are all below float16's smallest normal (6.1e-5) though not all zero:
    // float16 keeps few or no digits of them, whatever the conversion does (seeded parameters make
    // activations vanish with depth in some networks; real parameters do not).
    bool referenceBelowFloat16() const { return referenceMaxAbs > 0.0 && referenceMaxAbs < 6.103515625e-05; }

    bool referenceFinite() const { return referenceNonFinite == 0; }
    // "reference not finite", "converted not finite" or "ok".
    std::string_view status() const {
        return referenceNonFinite > 0 ? "reference not finite" : nonFinite > 0 ? "converted not finite" : "ok";
    }
};

struct ModelComparison {
    std::vector<TensorDifference> outputs;  // the heads, in order
    std::vector<TensorDifference> nodes;    // op nodes present in both graphs, in reference order
};

// Compares two equally long float arrays.
TensorDifference compareArrays(const std::vector<float>& reference, const std::vector<float>& converted);

// `inputs` must give every data input (by name); parameters come from `params` when given, else
// MXNet-convention initialisation from `seed` (the same values for both graphs). Throws OpError or
// std::invalid_argument naming what is wrong (a missing input, mismatched outputs).
ModelComparison compareModels(const Graph& reference, const Graph& converted, const NDArrayList* params,
                              const std::map<std::string, HostArray>& inputs, Backend& backend, uint64_t seed);

}  // namespace ampstudio
