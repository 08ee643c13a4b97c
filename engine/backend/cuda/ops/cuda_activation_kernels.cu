// Device code of the activation family (cuda_activation_launchers.h): softrelu and softsign as
// mshadow_op defines them, which is what the CPU reference computes, and a converting scale.
#include <cmath>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_activation_launchers.h"

namespace ampstudio::cuda {
namespace {

__device__ __forceinline__ float softActivation(SoftActivation f, float x) {
    if (f == SoftActivation::SoftRelu) {
        return x > 20.0f ? x : log1pf(expf(x));
    }
    return x / (1.0f + fabsf(x));
}

__device__ __forceinline__ float softActivationGrad(SoftActivation f, float x) {
    if (f == SoftActivation::SoftRelu) {
        return 1.0f / (1.0f + expf(-x));
    }
    const float d = 1.0f + fabsf(x);
    return 1.0f / (d * d);
}

template <typename T>
__global__ void softForwardKernel(SoftActivation f, const T* x, T* y, int64_t n) {
    AMS_GRID_STRIDE(i, n) { y[i] = fromFloat<T>(softActivation(f, toFloat<T>(x[i]))); }
}

template <typename T>
__global__ void softBackwardKernel(SoftActivation f, const T* x, const T* dy, T* dx, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dx[i] = fromFloat<T>(toFloat<T>(dy[i]) * softActivationGrad(f, toFloat<T>(x[i]))); }
}

template <typename In, typename Out>
__global__ void scaleIntoKernel(const In* src, Out* dst, float factor, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dst[i] = fromFloat<Out>(toFloat<In>(src[i]) * factor); }
}

}  // namespace

void softActivationForward(SoftActivation f, const void* x, void* y, DType type, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatchFloat(type, [&](auto v) {
        using T = decltype(v);
        softForwardKernel<<<gridFor(n), kThreads, 0, stream>>>(f, static_cast<const T*>(x), static_cast<T*>(y), n);
    });
    checkLaunch("softActivationForward");
}

void softActivationBackward(SoftActivation f, const void* x, const void* dy, void* dx, DType type, int64_t n,
                            cudaStream_t stream) {
    if (n == 0) return;
    dispatchFloat(type, [&](auto v) {
        using T = decltype(v);
        softBackwardKernel<<<gridFor(n), kThreads, 0, stream>>>(f, static_cast<const T*>(x), static_cast<const T*>(dy),
                                                                static_cast<T*>(dx), n);
    });
    checkLaunch("softActivationBackward");
}

void scaleInto(const void* src, DType srcType, void* dst, DType dstType, float factor, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatchFloat(srcType, [&](auto in) {
        dispatchFloat(dstType, [&](auto out) {
            using In = decltype(in);
            using Out = decltype(out);
            scaleIntoKernel<<<gridFor(n), kThreads, 0, stream>>>(static_cast<const In*>(src), static_cast<Out*>(dst),
                                                                 factor, n);
        });
    });
    checkLaunch("scaleInto");
}

}  // namespace ampstudio::cuda
