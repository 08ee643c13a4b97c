// LayerNorm's device code, the CPU's LayerNormKernel (cpu_layer_norm_kernels.cpp) with one block per
// slice: the slice's sums in double through a fixed tree, the statistics rounded to f32 as the CPU
// keeps them, and gamma's and beta's gradients as one deterministic reduction each over slices.
#include <cmath>

#include "backend/cuda/ops/cuda_layer_norm_launchers.h"
#include "backend/cuda/ops/cuda_walk.cuh"

namespace ampstudio::cuda {
namespace {

__device__ __forceinline__ int64_t sliceBase(const LayerNormShape& shape, int64_t s) {
    const int64_t o = s / shape.inner;
    return o * shape.channels * shape.inner + (s - o * shape.inner);
}

template <typename T>
__global__ void layerNormForwardKernel(LayerNormShape shape, float eps, const T* x, const T* gamma,
                                       const T* beta, T* y, float* mean, float* stdev, T* meanOut,
                                       T* stdOut) {
    __shared__ double shared[kThreads];
    const int64_t slices = shape.outer * shape.inner;
    const auto channels = static_cast<double>(shape.channels);
    for (int64_t s = blockIdx.x; s < slices; s += gridDim.x) {
        const int64_t base = sliceBase(shape, s);
        double sum = 0.0;
        for (int64_t c = threadIdx.x; c < shape.channels; c += blockDim.x) {
            sum += toFloat(x[base + c * shape.inner]);
        }
        const double mu = blockSum(sum, shared) / channels;
        double sq = 0.0;
        for (int64_t c = threadIdx.x; c < shape.channels; c += blockDim.x) {
            const double d = toFloat(x[base + c * shape.inner]) - mu;
            sq += d * d;
        }
        const double sd = sqrt(blockSum(sq, shared) / channels + eps);
        const auto inv = static_cast<float>(1.0 / sd);
        const auto m = static_cast<float>(mu);
        for (int64_t c = threadIdx.x; c < shape.channels; c += blockDim.x) {
            const int64_t k = base + c * shape.inner;
            y[k] = fromFloat<T>((toFloat(x[k]) - m) * inv * toFloat(gamma[c]) + toFloat(beta[c]));
        }
        if (threadIdx.x == 0) {
            mean[s] = m;
            stdev[s] = static_cast<float>(sd);
            if (meanOut != nullptr)
                meanOut[s] = fromFloat<T>(m);
            if (stdOut != nullptr)
                stdOut[s] = fromFloat<T>(static_cast<float>(sd));
        }
    }
}

// dx = (g - mean(g) - xhat * mean(g * xhat)) / std along the slice, g = dy * gamma.
template <typename T>
__global__ void layerNormBackwardDataKernel(LayerNormShape shape, const T* x, const T* gamma, const T* dy,
                                            const float* mean, const float* stdev, T* dx) {
    __shared__ double shared[kThreads];
    const int64_t slices = shape.outer * shape.inner;
    const auto channels = static_cast<double>(shape.channels);
    for (int64_t s = blockIdx.x; s < slices; s += gridDim.x) {
        const int64_t base = sliceBase(shape, s);
        const float m = mean[s];
        const float inv = 1.0f / stdev[s];
        double sumG = 0.0, sumGx = 0.0;
        for (int64_t c = threadIdx.x; c < shape.channels; c += blockDim.x) {
            const int64_t k = base + c * shape.inner;
            const float xhat = (toFloat(x[k]) - m) * inv;
            const float g = toFloat(dy[k]) * toFloat(gamma[c]);
            sumG += g;
            sumGx += static_cast<double>(g) * xhat;
        }
        const auto meanG = static_cast<float>(blockSum(sumG, shared) / channels);
        const auto meanGx = static_cast<float>(blockSum(sumGx, shared) / channels);
        for (int64_t c = threadIdx.x; c < shape.channels; c += blockDim.x) {
            const int64_t k = base + c * shape.inner;
            const float xhat = (toFloat(x[k]) - m) * inv;
            dx[k] = fromFloat<T>((toFloat(dy[k]) * toFloat(gamma[c]) - meanG - xhat * meanGx) * inv);
        }
    }
}

// Terms of dgamma (dy * xhat) and dbeta (dy); offsets: the element (0) and its slice (1).
template <typename T>
struct GammaGradTerm {
    const T* x;
    const T* dy;
    const float* mean;
    const float* stdev;
    __device__ float operator()(const int64_t (&off)[2]) const {
        const float inv = 1.0f / stdev[off[1]];
        const float xhat = (toFloat(x[off[0]]) - mean[off[1]]) * inv;
        return toFloat(dy[off[0]]) * xhat;
    }
};

template <typename T>
struct BetaGradTerm {
    const T* dy;
    __device__ float operator()(const int64_t (&off)[2]) const { return toFloat(dy[off[0]]); }
};

template <typename T>
struct StoreRounded {
    T* y;
    __device__ void operator()(int64_t r, float v) const { y[r] = fromFloat<T>(v); }
};

int sliceBlocks(const LayerNormShape& shape) {
    return static_cast<int>(std::clamp<int64_t>(shape.outer * shape.inner, 1, 65535));
}

}  // namespace

void layerNormForward(const LayerNormShape& shape, float eps, const void* x, const void* gamma,
                      const void* beta, void* y, float* mean, float* stdev, void* meanOut, void* stdOut,
                      DType type, cudaStream_t stream) {
    if (shape.outer * shape.inner * shape.channels == 0)
        return;
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        layerNormForwardKernel<T><<<sliceBlocks(shape), kThreads, 0, stream>>>(
            shape, eps, static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
            static_cast<T*>(y), mean, stdev, static_cast<T*>(meanOut), static_cast<T*>(stdOut));
    });
    checkLaunch("LayerNorm forward");
}

void layerNormBackward(const LayerNormShape& shape, const void* x, const void* gamma, const void* dy,
                       const float* mean, const float* stdev, void* dx, void* dgamma, void* dbeta, DType type,
                       cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        const auto* px = static_cast<const T*>(x);
        const auto* pdy = static_cast<const T*>(dy);
        if (dx != nullptr && shape.outer * shape.inner * shape.channels > 0) {
            layerNormBackwardDataKernel<T><<<sliceBlocks(shape), kThreads, 0, stream>>>(
                shape, px, static_cast<const T*>(gamma), pdy, mean, stdev, static_cast<T*>(dx));
            checkLaunch("LayerNorm backward");
        }
        // For channel c, the sum over slices (o, i): kept walks c, reduced walks (o, i), with the
        // element's offset as operand 0 and the slice's index as operand 1.
        Walk kept;
        kept.rank = 1;
        kept.dims[0] = shape.channels;
        kept.strides[0][0] = shape.inner;
        Walk reduced;
        reduced.rank = 2;
        reduced.dims[0] = shape.outer;
        reduced.dims[1] = shape.inner;
        reduced.strides[0][0] = shape.channels * shape.inner;
        reduced.strides[0][1] = 1;
        reduced.strides[1][0] = shape.inner;
        reduced.strides[1][1] = 1;
        if (dgamma != nullptr) {
            reduceWalk<float, 2>(kept, reduced, GammaGradTerm<T>{px, pdy, mean, stdev},
                                 StoreRounded<T>{static_cast<T*>(dgamma)}, stream,
                                 "LayerNorm gamma gradient");
        }
        if (dbeta != nullptr) {
            reduceWalk<float, 2>(kept, reduced, BetaGradTerm<T>{pdy}, StoreRounded<T>{static_cast<T*>(dbeta)},
                                 stream, "LayerNorm beta gradient");
        }
    });
}

}  // namespace ampstudio::cuda
