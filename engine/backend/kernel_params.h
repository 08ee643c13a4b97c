#pragma once
// What a node's attributes and shapes mean to a kernel, worked out once for every backend: the CPU
// and CUDA kernels of an op must read them identically, so they call these instead of each parsing
// the attributes on its own.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace ampstudio {

// A negative axis counted from the end.
int64_t positiveAxis(int64_t axis, std::size_t ndim);

// dot and batch_dot as batch x (M,K) x (K,N) products, with the transposes applied to the stored
// operands (ops/dense_ops.cpp gives the shapes).
struct ProductDims {
    int64_t batch = 1, m = 1, k = 1, n = 1;
    bool ta = false, tb = false;
};
// dot: lhs as (prod(all but last), last), or with transpose_a (first, prod(rest)) transposed; rhs as
// (first, prod(rest)), or with transpose_b (prod(all but last), last) transposed.
ProductDims dotDims(const KernelSetup& setup);
ProductDims batchDotDims(const KernelSetup& setup);

// The output axis order of transpose (`axes`, reversed when empty) and SwapAxis (dim1, dim2).
std::vector<int64_t> transposePerm(const KernelSetup& setup);
std::vector<int64_t> swapAxisPerm(const KernelSetup& setup);

// SoftmaxOutput's attributes and how it sees its data: `outer` rows of `classes` values, `inner`
// apart (the spatial size with multi_output, else 1).
struct SoftmaxOutputParams {
    float gradScale = 1.0f;
    float ignoreLabel = -1.0f;
    bool useIgnore = false;
    float smoothAlpha = 0.0f;
    std::string normalization = "null";  // null, batch, valid
    int64_t batch = 1;
    struct Layout {
        int64_t outer = 1, classes = 1, inner = 1;
    } layout;
    bool labelIsDistribution = false;  // the label has the data's shape: class probabilities
};
SoftmaxOutputParams softmaxOutputParams(const KernelSetup& setup);

}  // namespace ampstudio
