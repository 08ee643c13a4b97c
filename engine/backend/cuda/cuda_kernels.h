#pragma once
// Host-side launchers of the CUDA backend's own kernels (cuda_kernels.cu): conversions, fills and the
// training step's passes over flat f32 buffers. Every launcher enqueues on `stream` and returns at
// once; none synchronises. C++17, because nvcc compiles it in the .cu: plain parameters and no engine
// header beyond dtype.h.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// Element-wise dtype conversion (f32, f16, bf16 round to nearest even; f64 and ints too), n elements.
// Throws std::invalid_argument for a dtype the backend does not compute on.
void convert(const void* src, DType srcType, void* dst, DType dstType, int64_t n, cudaStream_t stream);
void fill(void* dst, DType type, float value, int64_t n, cudaStream_t stream);
// dst += src, element-wise, both of `type` (f32, f16, bf16): added in f32 and rounded once.
void addInto(void* dst, const void* src, DType type, int64_t n, cudaStream_t stream);

// How many partial sums unscaleAndSumSquares writes for n elements (its grid size).
int unscaleBlocks(int64_t n);
// g *= invScale in place; partials[0 .. unscaleBlocks(n)) = per-block sums of the squares, in double.
void unscaleAndSumSquares(float* g, int64_t n, float invScale, double* partials, cudaStream_t stream);
// *result = the sum of `count` partials, in a fixed order: the same bits every run.
void sumPartials(const double* partials, int count, double* result, cudaStream_t stream);

void scale(float* p, int64_t n, float factor, cudaStream_t stream);
// The CPU backend's formulas (PyTorch's), element for element (backend.h's SgdStepParams and
// AdamStepParams). momentum is null for plain SGD.
void sgdStep(float* w, const float* g, float* momentum, int64_t n, float learningRate, float mu, float weightDecay,
             bool nesterov, cudaStream_t stream);
void adamStep(float* w, const float* g, float* m, float* v, int64_t n, float learningRate, float beta1, float beta2,
              float epsilon, float weightDecay, bool decoupledWeightDecay, int64_t step, cudaStream_t stream);

}  // namespace ampstudio::cuda
