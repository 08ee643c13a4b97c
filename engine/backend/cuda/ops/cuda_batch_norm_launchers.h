#pragma once
// Launchers for the BatchNorm kernel's own device code (cuda_batch_norm_kernels.cu): what cuDNN's
// batch normalization does differently from MXNet (the moving variance, which cuDNN keeps
// unbiased) or not at all (the gradient with frozen statistics). Statistics and parameters are
// f32, the data f32, f16 or bf16. C++17: plain parameters, no engine header beyond dtype.h. Every
// launcher enqueues on `stream` and returns at once.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// moving = moving * momentum + batch * (1 - momentum), per channel, with the batch variance made
// biased again (sum / count, as MXNet) from cuDNN's unbiased sum / (count - 1).
void updateMovingStatistics(float* movingMean, float* movingVar, const float* batchMean, const float* unbiasedVar,
                            int64_t channels, int64_t count, float momentum, cudaStream_t stream);

// invStd = 1 / sqrt(var + eps), per channel.
void inverseStd(const float* var, float eps, float* invStd, int64_t channels, cudaStream_t stream);

// The gradient of y = (x - mean) * invStd * gamma + beta with mean and invStd constants, the data
// (outer, channels, inner): dx = dy * gamma * invStd, dGamma = sum dy * (x - mean) * invStd,
// dBeta = sum dy (sums in double). dx, dGamma and dBeta may each be null (not wanted).
void batchNormFrozenBackward(const void* x, const void* dy, void* dx, DType type, const float* gamma,
                             const float* mean, const float* invStd, float* dGamma, float* dBeta, int64_t outer,
                             int64_t channels, int64_t inner, cudaStream_t stream);

}  // namespace ampstudio::cuda
