#pragma once
// Host-side launchers of the element-wise family's device code (cuda_elemwise_kernels.cu): the
// formulas of backend/cpu/cpu_elemwise_kernels.cpp, on f32, f16 and bf16 storage read into f32
// registers and rounded once on store. Every launcher enqueues on `stream` and returns at once; none
// synchronises. Reductions run in a fixed order that depends only on the shapes, so a result has the
// same bits every run. C++17, because nvcc compiles it in the .cu files: plain parameters and no
// engine header beyond dtype.h.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// ---- element by element ---------------------------------------------------------------------------

// clang-format off
enum class UnaryOp : uint8_t {
    Relu, Sigmoid, Tanh, SoftRelu, SoftSign, Exp, Log, Sqrt, Square, Sin, Cos, Abs, Negative, Reciprocal, Rsqrt,
    PlusScalar, MinusScalar, RMinusScalar, MulScalar, DivScalar, RDivScalar, PowerScalar, RPowerScalar,
    MaximumScalar, MinimumScalar,
    Clip,   // param0 = a_min, param1 = a_max
    Leaky,  // param0 = slope
    Elu,    // param0 = slope (alpha)
    Selu, Gelu,
};
// clang-format on

// An op with its attributes: the scalar of the *_scalar ops, LeakyReLU's slope, clip's bounds.
struct UnaryFn {
    UnaryOp op = UnaryOp::Relu;
    float param0 = 0.0f;
    float param1 = 0.0f;
};

// y = f(x) over n elements of `type` (f32, f16, bf16).
void unaryForward(UnaryFn fn, const void* x, void* y, DType type, int64_t n, cudaStream_t stream);
// dx = dy * f'(x, y), y the stored forward output (some derivatives are written in terms of it).
void unaryBackward(UnaryFn fn, const void* x, const void* y, const void* dy, void* dx, DType type, int64_t n,
                   cudaStream_t stream);

// PRelu: f(x, gamma) = x > 0 ? x : gamma * x (LeakyReLU act_type=prelu, gamma broadcast).
enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, PRelu };

// y = f(a, b), both of y's shape (elemwise_*).
void binaryForward(BinaryOp op, const void* a, const void* b, void* y, DType type, int64_t n,
                   cudaStream_t stream);
// ga = dy * df/da, gb = dy * df/db; either may be null (not wanted).
void binaryBackward(BinaryOp op, const void* a, const void* b, const void* dy, void* ga, void* gb, DType type,
                    int64_t n, cudaStream_t stream);

// ---- strided walks: broadcasting and reductions ---------------------------------------------------

constexpr int kMaxWalkDims = 8;
constexpr int kMaxWalkOperands = 3;

// A row-major walk over `rank` dims, with each operand's element stride along each dim (0 along a dim
// it is broadcast over). The k-th element visited has, for operand j, the offset
// sum over d of index_d(k) * strides[j][d]. Rank 0 visits one element at offset 0.
struct Walk {
    int rank = 0;
    int64_t dims[kMaxWalkDims] = {};
    int64_t strides[kMaxWalkOperands][kMaxWalkDims] = {};
};

inline int64_t walkCount(const Walk& walk) {
    int64_t n = 1;
    for (int d = 0; d < walk.rank; ++d) {
        n *= walk.dims[d];
    }
    return n;
}

// broadcast_*: y[i] = f(a[offset 0], b[offset 1]) for the i-th element of `out` (y is contiguous).
void broadcastForward(BinaryOp op, const Walk& out, const void* a, const void* b, void* y, DType type,
                      cudaStream_t stream);
// The gradient of operand `operand` (0 = a, 1 = b): g[r] = sum over the walk `reduced` of
// dy * df/d(operand), at the offsets of `kept` at r plus those of `reduced`. Both walks' operands
// are dy (0), a (1), b (2); g has walkCount(kept) elements, summed in f32.
void broadcastBackward(BinaryOp op, int operand, const Walk& kept, const Walk& reduced, const void* a,
                       const void* b, const void* dy, void* g, DType type, cudaStream_t stream);

// sum, mean: y[r] = float(sum over `reduced` of x * scale), summed in double; operand 0 is x.
void reduceSum(const Walk& kept, const Walk& reduced, const void* x, void* y, double scale, DType type,
               cudaStream_t stream);
// Their backward: y[i] = x[offset 0] * scale for the i-th element of `out` (y is contiguous).
void broadcastScaled(const Walk& out, const void* x, void* y, float scale, DType type, cudaStream_t stream);

// ---- add_n, Dropout ------------------------------------------------------------------------------

// Inputs one kernel reads; add_n with more needs `scratch`.
constexpr int kAddNChunk = 16;

// y = ((in[0] + in[1]) + in[2]) + ..., summed in f32 in the CPU's order and rounded once. `scratch`
// holds n floats between chunks of kAddNChunk inputs; it may be null when count <= kAddNChunk.
// `inputs` is read before the call returns.
void addN(const void* const* inputs, int count, void* y, DType type, int64_t n, float* scratch,
          cudaStream_t stream);

// mask[i] = u_i >= p ? 1 / (1 - p) : 0 (0 everywhere for p = 1), u_i the top 24 bits of
// splitmix64(key + i) as a float in [0, 1); y = x * mask.
void dropoutForward(const void* x, void* y, void* mask, DType type, int64_t n, uint64_t key, float p,
                    cudaStream_t stream);

}  // namespace ampstudio::cuda
