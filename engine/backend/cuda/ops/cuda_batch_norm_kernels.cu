// Device code of the BatchNorm kernel (cuda_batch_norm_launchers.h), with the CPU reference's
// formulas (cpu_batch_norm_kernels.cpp).
#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_batch_norm_launchers.h"

namespace ampstudio::cuda {
namespace {

__global__ void updateMovingKernel(float* movingMean, float* movingVar, const float* batchMean,
                                   const float* unbiasedVar, int64_t channels, float unbias, float momentum) {
    AMS_GRID_STRIDE(c, channels) {
        // One value has no spread; cuDNN's unbiased estimate of it is 0/0.
        const float var = unbias == 0.0f ? 0.0f : unbiasedVar[c] * unbias;
        movingMean[c] = movingMean[c] * momentum + batchMean[c] * (1.0f - momentum);
        movingVar[c] = movingVar[c] * momentum + var * (1.0f - momentum);
    }
}

__global__ void inverseStdKernel(const float* var, float eps, float* invStd, int64_t channels) {
    AMS_GRID_STRIDE(c, channels) { invStd[c] = 1.0f / sqrtf(var[c] + eps); }
}

// One block per channel (grid-strided over channels): the element-wise gradient and the two sums.
template <typename T>
__global__ void frozenBackwardKernel(const T* x, const T* dy, T* dx, const float* gamma, const float* mean,
                                     const float* invStd, float* dGamma, float* dBeta, int64_t outer,
                                     int64_t channels, int64_t inner) {
    __shared__ double sumDy[kThreads];
    __shared__ double sumDyXhat[kThreads];
    const int64_t perChannel = outer * inner;
    for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
        const float m = mean[c], s = invStd[c], scale = gamma[c] * invStd[c];
        double a = 0.0, b = 0.0;
        for (int64_t j = threadIdx.x; j < perChannel; j += blockDim.x) {
            const int64_t i = ((j / inner) * channels + c) * inner + j % inner;
            const float g = toFloat<T>(dy[i]);
            if (dx != nullptr) {
                dx[i] = fromFloat<T>(g * scale);
            }
            a += g;
            b += static_cast<double>(g) * ((toFloat<T>(x[i]) - m) * s);
        }
        sumDy[threadIdx.x] = a;
        sumDyXhat[threadIdx.x] = b;
        __syncthreads();
        for (int stride = kThreads / 2; stride > 0; stride /= 2) {
            if (threadIdx.x < stride) {
                sumDy[threadIdx.x] += sumDy[threadIdx.x + stride];
                sumDyXhat[threadIdx.x] += sumDyXhat[threadIdx.x + stride];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            if (dBeta != nullptr) dBeta[c] = static_cast<float>(sumDy[0]);
            if (dGamma != nullptr) dGamma[c] = static_cast<float>(sumDyXhat[0]);
        }
        __syncthreads();  // the shared sums are reused by the next channel
    }
}

}  // namespace

void updateMovingStatistics(float* movingMean, float* movingVar, const float* batchMean, const float* unbiasedVar,
                            int64_t channels, int64_t count, float momentum, cudaStream_t stream) {
    if (channels == 0) return;
    const float unbias = count > 1 ? static_cast<float>(count - 1) / static_cast<float>(count) : 0.0f;
    updateMovingKernel<<<gridFor(channels), kThreads, 0, stream>>>(movingMean, movingVar, batchMean, unbiasedVar,
                                                                  channels, unbias, momentum);
    checkLaunch("updateMovingStatistics");
}

void inverseStd(const float* var, float eps, float* invStd, int64_t channels, cudaStream_t stream) {
    if (channels == 0) return;
    inverseStdKernel<<<gridFor(channels), kThreads, 0, stream>>>(var, eps, invStd, channels);
    checkLaunch("inverseStd");
}

void batchNormFrozenBackward(const void* x, const void* dy, void* dx, DType type, const float* gamma,
                             const float* mean, const float* invStd, float* dGamma, float* dBeta, int64_t outer,
                             int64_t channels, int64_t inner, cudaStream_t stream) {
    if (channels == 0) return;
    const int blocks = static_cast<int>(channels < 65535 ? channels : 65535);
    dispatchFloat(type, [&](auto v) {
        using T = decltype(v);
        frozenBackwardKernel<<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<const T*>(dy),
                                                              static_cast<T*>(dx), gamma, mean, invStd, dGamma, dBeta,
                                                              outer, channels, inner);
    });
    checkLaunch("batchNormFrozenBackward");
}

}  // namespace ampstudio::cuda
