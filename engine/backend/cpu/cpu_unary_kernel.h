#pragma once
// A CPU kernel from a per-element functor, and the activation functions that both Activation
// (cpu_activation_kernels.cpp) and the relu, sigmoid and tanh ops (cpu_elemwise_kernels.cpp) compute.
// A functor has f(x) and df(x, y), the derivative given x and y = f(x); it is inlined into the
// loops, so that they vectorise and no call is made per element.
#include <cmath>
#include <memory>

#include "backend/cpu/cpu_kernel.h"
#include "tensor/float_convert.h"
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

// y = f(x); backward gx = dy * df(x, y). It computes in storage types: bfloat16 is read and rounded
// per element inside the loop (f32 arithmetic, one rounding per output, as the converting path),
// one pass over memory instead of a conversion pass before and after; float32 runs the plain loops.
template <typename F>
class UnaryCpuKernel final : public CpuKernel {
public:
    explicit UnaryCpuKernel(F fn) : m_fn(fn) {}

    bool computesInStorageTypes() const override { return true; }

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const CpuArray& x = in[0];
        const CpuArray& y = out[0];
        const F fn = m_fn;
        if (x.dtype == DType::F32 && y.dtype == DType::F32) {
            parallelFor(x.size(), [&](int64_t b, int64_t e) {
#pragma omp simd
                for (int64_t i = b; i < e; ++i) y.data[i] = fn.f(x.data[i]);
            });
            return;
        }
        parallelFor(x.size(), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) storeElement(y, i, fn.f(loadElement(x, i)));
        });
    }

    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) return;
        const CpuArray &x = in[0], &y = out[0], &dy = outGrad[0], &g = inGrad[0];
        const F fn = m_fn;
        if (x.dtype == DType::F32 && y.dtype == DType::F32 && dy.dtype == DType::F32 && g.dtype == DType::F32) {
            parallelFor(x.size(), [&](int64_t b, int64_t e) {
#pragma omp simd
                for (int64_t i = b; i < e; ++i) g.data[i] = dy.data[i] * fn.df(x.data[i], y.data[i]);
            });
            return;
        }
        parallelFor(x.size(), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
                storeElement(g, i, loadElement(dy, i) * fn.df(loadElement(x, i), loadElement(y, i)));
            }
        });
    }

private:
    F m_fn;
};

template <typename F>
std::unique_ptr<CpuKernel> unaryKernel(F fn) {
    return std::make_unique<UnaryCpuKernel<F>>(fn);
}

}  // namespace ampstudio::cpu
