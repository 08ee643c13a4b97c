#pragma once
// Host-side launchers of LayerNorm's device code (cuda_layer_norm_kernels.cu): the formulas of the
// CPU's LayerNormKernel (cpu_layer_norm_kernels.cpp), on f32, f16 and bf16 storage read into f32
// registers and rounded once on store. Every launcher enqueues on `stream` and returns at once; the
// reductions run in a fixed order, so a result has the same bits every run. C++17, because nvcc
// compiles it in the .cu: plain parameters and no engine header beyond dtype.h.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// The data is (outer, channels, inner), normalised along channels: slice s = o * inner + i holds the
// elements o * channels * inner + c * inner + i. gamma and beta are (channels). mean and stdev
// (f32, `outer * inner` each) keep the statistics for backward; meanOut and stdOut (of `type`) are
// the op's optional outputs 1 and 2, null when absent.
struct LayerNormShape {
    int64_t outer = 1;
    int64_t channels = 1;
    int64_t inner = 1;
};

void layerNormForward(const LayerNormShape& shape, float eps, const void* x, const void* gamma,
                      const void* beta, void* y, float* mean, float* stdev, void* meanOut, void* stdOut,
                      DType type, cudaStream_t stream);
// dx, dgamma, dbeta: each may be null (not wanted).
void layerNormBackward(const LayerNormShape& shape, const void* x, const void* gamma, const void* dy,
                       const float* mean, const float* stdev, void* dx, void* dgamma, void* dbeta, DType type,
                       cudaStream_t stream);

}  // namespace ampstudio::cuda
