#pragma once
// A CPU kernel from a per-element functor, and the activation functions that both Activation
// (cpu_activation_kernels.cpp) and the relu, sigmoid and tanh ops (cpu_elemwise_kernels.cpp) compute.
// A functor has f(x) and df(x, y), the derivative given x and y = f(x); it is inlined into the
// loops, so that they vectorise and no call is made per element.
#include <cmath>
#include <memory>

#include "backend/cpu/cpu_kernel.h"
#include "tensor/parallel_for.h"

namespace ampstudio::cpu {

// ---- activation functions (mshadow_op.h) -----------------------------------------------------------

struct Relu {
    float f(float x) const { return x > 0.0f ? x : 0.0f; }
    float df(float x, float) const { return x > 0.0f ? 1.0f : 0.0f; }
};
struct Sigmoid {
    float f(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
    float df(float, float y) const { return y * (1.0f - y); }
};
struct Tanh {
    float f(float x) const { return std::tanh(x); }
    float df(float, float y) const { return 1.0f - y * y; }
};
// log(1 + e^x), linear past 20 where e^x swamps the 1 (mshadow_op::softrelu); d/dx = sigmoid(x).
struct SoftRelu {
    float f(float x) const { return x > 20.0f ? x : std::log1p(std::exp(x)); }
    float df(float x, float) const { return 1.0f / (1.0f + std::exp(-x)); }
};
struct SoftSign {
    float f(float x) const { return x / (1.0f + std::abs(x)); }
    float df(float x, float) const {
        const float d = 1.0f + std::abs(x);
        return 1.0f / (d * d);
    }
};

// y = f(x); backward gx = dy * df(x, y).
template <typename F>
std::unique_ptr<CpuKernel> unaryKernel(F fn) {
    return makeLambdaKernel(
        [fn](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            const float* x = in[0].data;
            float* y = out[0].data;
            parallelFor(in[0].size(), [&](int64_t b, int64_t e) {
#pragma omp simd
                for (int64_t i = b; i < e; ++i) {
                    y[i] = fn.f(x[i]);
                }
            });
        },
        [fn](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out,
             std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            const float* x = in[0].data;
            const float* y = out[0].data;
            const float* dy = outGrad[0].data;
            float* g = inGrad[0].data;
            parallelFor(in[0].size(), [&](int64_t b, int64_t e) {
#pragma omp simd
                for (int64_t i = b; i < e; ++i) {
                    g[i] = dy[i] * fn.df(x[i], y[i]);
                }
            });
        });
}

}  // namespace ampstudio::cpu
