// The CUDA backend's own kernels: grid-stride loops over flat buffers. Conversions go through f32
// registers with the CUDA math library's round-to-nearest-even intrinsics, so an f16/bf16 value is
// exactly what the CPU reference (tensor/float_convert.h) produces, inf, NaN and subnormals included.
#include <cmath>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/cuda_kernels.h"

namespace ampstudio::cuda {
namespace {

template <typename In, typename Out>
__global__ void convertKernel(const In* src, Out* dst, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dst[i] = fromFloat<Out>(toFloat<In>(src[i])); }
}

template <typename Out>
__global__ void fillKernel(Out* dst, float value, int64_t n) {
    const Out v = fromFloat<Out>(value);
    AMS_GRID_STRIDE(i, n) { dst[i] = v; }
}

template <typename T>
__global__ void addIntoKernel(T* dst, const T* src, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dst[i] = fromFloat<T>(toFloat<T>(dst[i]) + toFloat<T>(src[i])); }
}

__global__ void unscaleKernel(float* g, int64_t n, float invScale, double* partials) {
    __shared__ double sums[kThreads];
    double sum = 0.0;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
        const float v = g[i] * invScale;
        g[i] = v;
        sum += static_cast<double>(v) * v;
    }
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sums[0];
}

__global__ void sumPartialsKernel(const double* partials, int count, double* result) {
    __shared__ double sums[kThreads];
    double sum = 0.0;
    for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = sums[0];
}

__global__ void scaleKernel(float* p, int64_t n, float factor) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
        p[i] *= factor;
    }
}

__global__ void sgdKernel(float* w, const float* g, float* buf, int64_t n, float lr, float mu, float wd, bool nesterov) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
        const float d = g[i] + wd * w[i];
        if (buf == nullptr) {
            w[i] -= lr * d;
        } else {
            const float m = mu * buf[i] + d;
            buf[i] = m;
            w[i] -= lr * (nesterov ? d + mu * m : m);
        }
    }
}

__global__ void adamKernel(float* w, const float* g, float* mm, float* vv, int64_t n, float lr, float beta1, float beta2,
                           float epsilon, float wd, bool decoupled, float c1, float c2) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
        float gi = g[i];
        if (decoupled) {
            w[i] -= lr * wd * w[i];
        } else {
            gi += wd * w[i];
        }
        mm[i] = beta1 * mm[i] + (1.0f - beta1) * gi;
        vv[i] = beta2 * vv[i] + (1.0f - beta2) * gi * gi;
        const float mHat = mm[i] / c1;
        const float vHat = vv[i] / c2;
        w[i] -= lr * mHat / (sqrtf(vHat) + epsilon);
    }
}

}  // namespace

void convert(const void* src, DType srcType, void* dst, DType dstType, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatch(srcType, [&](auto in) {
        dispatch(dstType, [&](auto out) {
            using In = decltype(in);
            using Out = decltype(out);
            convertKernel<In, Out><<<gridFor(n), kThreads, 0, stream>>>(static_cast<const In*>(src), static_cast<Out*>(dst), n);
        });
    });
    checkLaunch("convert");
}

void fill(void* dst, DType type, float value, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatch(type, [&](auto out) {
        using Out = decltype(out);
        fillKernel<Out><<<gridFor(n), kThreads, 0, stream>>>(static_cast<Out*>(dst), value, n);
    });
    checkLaunch("fill");
}

void addInto(void* dst, const void* src, DType type, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        addIntoKernel<T><<<gridFor(n), kThreads, 0, stream>>>(static_cast<T*>(dst), static_cast<const T*>(src), n);
    });
    checkLaunch("add gradients");
}

int unscaleBlocks(int64_t n) {
    // Four elements a thread at least, at most 256 blocks: enough to fill the device, few partials.
    const int64_t blocks = (n + 4 * kThreads - 1) / (4 * kThreads);
    return static_cast<int>(std::clamp<int64_t>(blocks, 1, 256));
}

void unscaleAndSumSquares(float* g, int64_t n, float invScale, double* partials, cudaStream_t stream) {
    unscaleKernel<<<unscaleBlocks(n), kThreads, 0, stream>>>(g, n, invScale, partials);
    checkLaunch("unscale gradients");
}

void sumPartials(const double* partials, int count, double* result, cudaStream_t stream) {
    sumPartialsKernel<<<1, kThreads, 0, stream>>>(partials, count, result);
    checkLaunch("sum the squares");
}

void scale(float* p, int64_t n, float factor, cudaStream_t stream) {
    if (n == 0) return;
    scaleKernel<<<gridFor(n), kThreads, 0, stream>>>(p, n, factor);
    checkLaunch("scale");
}

void sgdStep(float* w, const float* g, float* momentum, int64_t n, float learningRate, float mu, float weightDecay,
             bool nesterov, cudaStream_t stream) {
    if (n == 0) return;
    sgdKernel<<<gridFor(n), kThreads, 0, stream>>>(w, g, mu == 0.0f ? nullptr : momentum, n, learningRate, mu,
                                                    weightDecay, nesterov);
    checkLaunch("SGD step");
}

void adamStep(float* w, const float* g, float* m, float* v, int64_t n, float learningRate, float beta1, float beta2,
              float epsilon, float weightDecay, bool decoupledWeightDecay, int64_t step, cudaStream_t stream) {
    if (n == 0) return;
    // Bias corrections as the CPU backend computes them: in double, then rounded once.
    const double t = static_cast<double>(step);
    const float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1), t));
    const float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2), t));
    adamKernel<<<gridFor(n), kThreads, 0, stream>>>(w, g, m, v, n, learningRate, beta1, beta2, epsilon, weightDecay,
                                                     decoupledWeightDecay, c1, c2);
    checkLaunch("Adam step");
}

}  // namespace ampstudio::cuda
