// Device code of the loss heads, formula for formula the CPU reference's (cpu_loss_kernels.cpp): f32
// arithmetic on values read from the storage dtype, rounded once on store. The softmax of a row of
// contiguous classes is one warp's (a row per warp, shuffles for its max and sum); with classes
// strided by a spatial size (multi_output) each thread takes one row and sums as the CPU does.
// Counts for the "valid" normalisations are integers added atomically, so they are exact and the
// same every run.
#include <cmath>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_loss_launchers.h"

namespace ampstudio::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kThreads / kWarp;

__device__ __forceinline__ float warpMax(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
}

__device__ __forceinline__ float warpSum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}

template <typename T>
__global__ void softmaxContiguousKernel(const T* x, T* y, int64_t rows, int64_t classes) {
    const int lane = threadIdx.x % kWarp;
    const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
    for (int64_t r = blockIdx.x * int64_t(kWarpsPerBlock) + threadIdx.x / kWarp; r < rows; r += warps) {
        const T* xr = x + r * classes;
        T* yr = y + r * classes;
        float maxValue = -INFINITY;
        for (int64_t c = lane; c < classes; c += kWarp) {
            maxValue = fmaxf(maxValue, toFloat<T>(xr[c]));
        }
        maxValue = warpMax(maxValue);
        float sum = 0.0f;
        for (int64_t c = lane; c < classes; c += kWarp) {
            sum += expf(toFloat<T>(xr[c]) - maxValue);
        }
        sum = warpSum(sum);
        for (int64_t c = lane; c < classes; c += kWarp) {
            yr[c] = fromFloat<T>(expf(toFloat<T>(xr[c]) - maxValue) / sum);
        }
    }
}

template <typename T>
__global__ void softmaxStridedKernel(const T* x, T* y, SoftmaxRows rows) {
    AMS_GRID_STRIDE(i, rows.outer * rows.inner) {
        const int64_t o = i / rows.inner;
        const int64_t s = i - o * rows.inner;
        const T* xr = x + o * rows.classes * rows.inner + s;
        T* yr = y + o * rows.classes * rows.inner + s;
        float maxValue = -INFINITY;
        for (int64_t c = 0; c < rows.classes; ++c) {
            maxValue = fmaxf(maxValue, toFloat<T>(xr[c * rows.inner]));
        }
        float sum = 0.0f;
        for (int64_t c = 0; c < rows.classes; ++c) {
            sum += expf(toFloat<T>(xr[c * rows.inner]) - maxValue);
        }
        for (int64_t c = 0; c < rows.classes; ++c) {
            yr[c * rows.inner] = fromFloat<T>(expf(toFloat<T>(xr[c * rows.inner]) - maxValue) / sum);
        }
    }
}

// Adds the block's per-thread counts to *count, one atomic per block.
__device__ void addBlockCount(unsigned long long local, unsigned long long* count) {
    __shared__ unsigned long long warpCounts[kWarpsPerBlock];
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        local += __shfl_down_sync(0xffffffffu, local, offset);
    }
    if (threadIdx.x % kWarp == 0) {
        warpCounts[threadIdx.x / kWarp] = local;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (int w = 0; w < kWarpsPerBlock; ++w) {
            total += warpCounts[w];
        }
        atomicAdd(count, total);
    }
}

template <typename L>
__global__ void countUnignoredKernel(const L* label, int64_t n, float ignoreLabel,
                                     unsigned long long* count) {
    unsigned long long local = 0;
    AMS_GRID_STRIDE(i, n) {
        local += toFloat<L>(label[i]) != ignoreLabel ? 1 : 0;
    }
    addBlockCount(local, count);
}

template <typename T>
__global__ void countAboveKernel(const T* x, int64_t n, float threshold, unsigned long long* count) {
    unsigned long long local = 0;
    AMS_GRID_STRIDE(i, n) {
        local += toFloat<T>(x[i]) > threshold ? 1 : 0;
    }
    addBlockCount(local, count);
}

// gradScale / norm * lossScale, in the CPU's order of operations.
__device__ __forceinline__ float lossFactor(float gradScale, float lossScale, const float* deviceLossScale,
                                            float norm, const unsigned long long* validCount) {
    if (validCount != nullptr) {
        const unsigned long long valid = *validCount;
        norm = static_cast<float>(valid > 1ull ? valid : 1ull);
    }
    return gradScale / norm * (deviceLossScale != nullptr ? *deviceLossScale : lossScale);
}

template <typename T, typename L>
__global__ void softmaxOutputBackwardKernel(const T* p, const L* label, T* g, SoftmaxOutputGrad params) {
    const SoftmaxRows& rows = params.rows;
    const float factor = lossFactor(params.gradScale, params.lossScale, params.deviceLossScale, params.norm,
                                    params.validCount);
    AMS_GRID_STRIDE(i, rows.outer * rows.classes * rows.inner) {
        float d;
        if (params.labelIsDistribution) {
            d = toFloat<T>(p[i]) - toFloat<L>(label[i]);
        } else {
            const int64_t s = i % rows.inner;
            const int64_t oc = i / rows.inner;
            const int64_t c = oc % rows.classes;
            const int64_t o = oc / rows.classes;
            const float l = toFloat<L>(label[o * rows.inner + s]);
            if (params.useIgnore && l == params.ignoreLabel) {
                d = 0.0f;
            } else {
                const float target = c == static_cast<int64_t>(l) ? params.onTarget : params.offTarget;
                d = toFloat<T>(p[i]) - target;
            }
        }
        g[i] = fromFloat<T>(d * factor);
    }
}

template <typename T>
__global__ void regressionForwardKernel(const T* x, T* y, int64_t n, RegressionKind kind) {
    AMS_GRID_STRIDE(i, n) {
        const float v = toFloat<T>(x[i]);
        y[i] = fromFloat<T>(kind == RegressionKind::Logistic ? 1.0f / (1.0f + expf(-v)) : v);
    }
}

template <typename T, typename L>
__global__ void regressionBackwardKernel(const T* y, const L* label, T* g, int64_t n, RegressionKind kind,
                                         float baseFactor, const float* deviceLossScale) {
    const float factor = deviceLossScale != nullptr ? baseFactor * *deviceLossScale : baseFactor;
    AMS_GRID_STRIDE(i, n) {
        const float d = toFloat<T>(y[i]) - toFloat<L>(label[i]);
        const float e = kind == RegressionKind::Mae ? static_cast<float>((d > 0.0f) - (d < 0.0f)) : d;
        g[i] = fromFloat<T>(factor * e);
    }
}

template <typename T>
__global__ void fillLossGradientKernel(T* g, int64_t n, float gradScale, float lossScale,
                                       const float* deviceLossScale, float norm,
                                       const unsigned long long* validCount) {
    const T value = fromFloat<T>(lossFactor(gradScale, lossScale, deviceLossScale, norm, validCount));
    AMS_GRID_STRIDE(i, n) {
        g[i] = value;
    }
}

void zeroCount(unsigned long long* count, cudaStream_t stream) {
    cudaCheck(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream), "zero the valid count");
}

}  // namespace

void softmaxOutputForward(const void* x, void* y, DType type, const SoftmaxRows& rows, cudaStream_t stream) {
    if (rows.outer * rows.classes * rows.inner == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        if (rows.inner == 1) {
            const int64_t blocks = (rows.outer + kWarpsPerBlock - 1) / kWarpsPerBlock;
            const int grid = static_cast<int>(std::clamp<int64_t>(blocks, 1, 65535));
            softmaxContiguousKernel<T><<<grid, kThreads, 0, stream>>>(
                static_cast<const T*>(x), static_cast<T*>(y), rows.outer, rows.classes);
        } else {
            softmaxStridedKernel<T><<<gridFor(rows.outer * rows.inner), kThreads, 0, stream>>>(
                static_cast<const T*>(x), static_cast<T*>(y), rows);
        }
    });
    checkLaunch("SoftmaxOutput forward");
}

void countUnignoredLabels(const void* label, DType labelType, int64_t n, float ignoreLabel,
                          unsigned long long* count, cudaStream_t stream) {
    zeroCount(count, stream);
    if (n == 0) {
        return;
    }
    dispatch(labelType, [&](auto value) {
        using L = decltype(value);
        countUnignoredKernel<L>
            <<<gridFor(n), kThreads, 0, stream>>>(static_cast<const L*>(label), n, ignoreLabel, count);
    });
    checkLaunch("count valid labels");
}

void countAbove(const void* x, DType type, int64_t n, float threshold, unsigned long long* count,
                cudaStream_t stream) {
    zeroCount(count, stream);
    if (n == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        countAboveKernel<T>
            <<<gridFor(n), kThreads, 0, stream>>>(static_cast<const T*>(x), n, threshold, count);
    });
    checkLaunch("count valid values");
}

void softmaxOutputBackward(const void* p, const void* label, DType labelType, void* grad, DType type,
                           const SoftmaxOutputGrad& params, cudaStream_t stream) {
    const int64_t n = params.rows.outer * params.rows.classes * params.rows.inner;
    if (n == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        dispatch(labelType, [&](auto labelValue) {
            using L = decltype(labelValue);
            softmaxOutputBackwardKernel<T, L><<<gridFor(n), kThreads, 0, stream>>>(
                static_cast<const T*>(p), static_cast<const L*>(label), static_cast<T*>(grad), params);
        });
    });
    checkLaunch("SoftmaxOutput backward");
}

void regressionForward(const void* x, void* y, DType type, int64_t n, RegressionKind kind,
                       cudaStream_t stream) {
    if (n == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        regressionForwardKernel<T>
            <<<gridFor(n), kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), n, kind);
    });
    checkLaunch("regression output forward");
}

void regressionBackward(const void* y, const void* label, DType labelType, void* grad, DType type, int64_t n,
                        RegressionKind kind, float factor, const float* deviceLossScale, cudaStream_t stream) {
    if (n == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        dispatch(labelType, [&](auto labelValue) {
            using L = decltype(labelValue);
            regressionBackwardKernel<T, L>
                <<<gridFor(n), kThreads, 0, stream>>>(static_cast<const T*>(y), static_cast<const L*>(label),
                                                      static_cast<T*>(grad), n, kind, factor,
                                                      deviceLossScale);
        });
    });
    checkLaunch("regression output backward");
}

void fillLossGradient(void* grad, DType type, int64_t n, float gradScale, float lossScale,
                      const float* deviceLossScale, float norm, const unsigned long long* validCount,
                      cudaStream_t stream) {
    if (n == 0) {
        return;
    }
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        fillLossGradientKernel<T><<<gridFor(n), kThreads, 0, stream>>>(
            static_cast<T*>(grad), n, gradScale, lossScale, deviceLossScale, norm, validCount);
    });
    checkLaunch("MakeLoss backward");
}

}  // namespace ampstudio::cuda
