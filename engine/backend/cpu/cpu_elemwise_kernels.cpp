// CPU kernels of the elemwise ops (backend/cpu/cpu_kernel.h says how kernels are written), with
// MXNet 1.9.1's forward and backward (mshadow_op.h, leaky_relu-inl.h, broadcast_reduce_op.h,
// dropout-inl.h). Activation and the softmaxes are cpu_activation_kernels.cpp's.
//
// Every per-element function is a small functor inlined into a template loop (cpu_unary_kernel.h),
// so that the loops vectorise and no call is made per element. Binary broadcasting and sum/mean share
// one iteration plan (cpu_broadcast_plan.h) that merges contiguous dims, so the inner loop runs over
// the longest run.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "backend/cpu/cpu_broadcast_plan.h"
#include "backend/cpu/cpu_kernel.h"
#include "backend/cpu/cpu_unary_kernel.h"
#include "backend/dropout_mask.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using cpu::BroadcastPlan;
using cpu::unaryKernel;

// ---- unary functions: f(x) and df/dx given x and y = f(x); the activations are cpu_unary_kernel.h's

struct Exp {
    float f(float x) const { return std::exp(x); }
    float df(float, float y) const { return y; }
};
struct Log {
    float f(float x) const { return std::log(x); }
    float df(float x, float) const { return 1.0f / x; }
};
struct Sqrt {
    float f(float x) const { return std::sqrt(x); }
    float df(float, float y) const { return 0.5f / y; }
};
struct Square {
    float f(float x) const { return x * x; }
    float df(float x, float) const { return 2.0f * x; }
};
struct Sin {
    float f(float x) const { return std::sin(x); }
    float df(float x, float) const { return std::cos(x); }
};
struct Cos {
    float f(float x) const { return std::cos(x); }
    float df(float x, float) const { return -std::sin(x); }
};
struct Abs {
    float f(float x) const { return std::abs(x); }
    float df(float x, float) const { return static_cast<float>((x > 0.0f) - (x < 0.0f)); }
};
struct Negative {
    float f(float x) const { return -x; }
    float df(float, float) const { return -1.0f; }
};
struct Reciprocal {
    float f(float x) const { return 1.0f / x; }
    float df(float x, float) const { return -1.0f / (x * x); }
};
struct Rsqrt {
    float f(float x) const { return 1.0f / std::sqrt(x); }
    float df(float x, float y) const { return -0.5f * y / x; }
};

// ---- scalar ops: attribute `scalar` ------------------------------------------------------------

struct PlusScalar {
    float s;
    float f(float x) const { return x + s; }
    float df(float, float) const { return 1.0f; }
};
struct MinusScalar {
    float s;
    float f(float x) const { return x - s; }
    float df(float, float) const { return 1.0f; }
};
struct RMinusScalar {
    float s;
    float f(float x) const { return s - x; }
    float df(float, float) const { return -1.0f; }
};
struct MulScalar {
    float s;
    float f(float x) const { return x * s; }
    float df(float, float) const { return s; }
};
struct DivScalar {
    float s;
    float f(float x) const { return x / s; }
    float df(float, float) const { return 1.0f / s; }
};
struct RDivScalar {
    float s;
    float f(float x) const { return s / x; }
    float df(float x, float) const { return -s / (x * x); }
};
struct PowerScalar {
    float s;
    float f(float x) const { return std::pow(x, s); }
    float df(float x, float) const { return s * std::pow(x, s - 1.0f); }
};
struct RPowerScalar {
    float s;
    float f(float x) const { return std::pow(s, x); }
    float df(float, float y) const { return y * std::log(s); }
};
// MXNet's backward of maximum/minimum with a scalar passes the gradient where x >= s (x <= s).
struct MaximumScalar {
    float s;
    float f(float x) const { return x > s ? x : s; }
    float df(float x, float) const { return x >= s ? 1.0f : 0.0f; }
};
struct MinimumScalar {
    float s;
    float f(float x) const { return x < s ? x : s; }
    float df(float x, float) const { return x <= s ? 1.0f : 0.0f; }
};
struct Clip {
    float lo, hi;
    float f(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
    float df(float x, float) const { return x < lo || x > hi ? 0.0f : 1.0f; }
};

// ---- LeakyReLU variants (leaky_relu-inl.h) -------------------------------------------------------

struct Leaky {
    float slope;
    float f(float x) const { return x > 0.0f ? x : slope * x; }
    float df(float x, float) const { return x > 0.0f ? 1.0f : slope; }
};
struct Elu {
    float alpha;
    float f(float x) const { return x > 0.0f ? x : alpha * std::expm1(x); }
    float df(float x, float y) const { return x > 0.0f ? 1.0f : y + alpha; }
};
struct Selu {
    static constexpr float kAlpha = 1.6732632423543772848170429916717f;
    static constexpr float kLambda = 1.0507009873554804934193349852946f;
    float f(float x) const { return kLambda * (x > 0.0f ? x : kAlpha * std::expm1(x)); }
    float df(float x, float y) const { return x > 0.0f ? kLambda : y + kLambda * kAlpha; }
};
// The exact (erf) form MXNet 1.9.1 uses, not the tanh approximation.
struct Gelu {
    float f(float x) const { return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(std::numbers::sqrt2 / 2))); }
    float df(float x, float) const {
        constexpr auto kInvSqrt2Pi = static_cast<float>(std::numbers::inv_sqrtpi / std::numbers::sqrt2);
        return 0.5f * (1.0f + std::erf(x * static_cast<float>(std::numbers::sqrt2 / 2))) +
               x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
    }
};

template <typename F>
CpuKernelFactory unaryFactory() {
    return [](const KernelSetup&, CpuDnnl&) { return unaryKernel(F{}); };
}

template <typename F>
CpuKernelFactory scalarFactory() {
    return [](const KernelSetup& setup, CpuDnnl&) { return unaryKernel(F{scalarOperand(setup.node)}); };
}

std::unique_ptr<CpuKernel> makeClip(const KernelSetup& setup, CpuDnnl&) {
    const ClipParams p = clipParams(setup.node);
    return unaryKernel(Clip{p.min, p.max});
}

// prelu: y = x > 0 ? x : gamma[c] * x, c the index along axis 1 (or one gamma for all).
class PReluKernel final : public CpuKernel {
public:
    explicit PReluKernel(const KernelSetup& setup) {
        const Shape& data = setup.inShapes[0];
        m_outer = data[0];
        m_channels = data[1];
        m_inner = shapeSize(data) / (m_outer * m_channels);
        m_sharedGamma = shapeSize(setup.inShapes[1]) == 1;
    }

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const float* x = in[0].data;
        float* y = out[0].data;
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t c = 0; c < m_channels; ++c) {
                const float a = in[1].data[m_sharedGamma ? 0 : c];
                const int64_t base = (o * m_channels + c) * m_inner;
                for (int64_t i = base; i < base + m_inner; ++i) {
                    y[i] = x[i] > 0.0f ? x[i] : a * x[i];
                }
            }
        }
    }

    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const float* x = in[0].data;
        const float* dy = outGrad[0].data;
        float* gx = inGrad[0].data;
        float* gGamma = inGrad[1].data;
        if (gGamma != nullptr) {
            std::fill_n(gGamma, inGrad[1].size(), 0.0f);
        }
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t c = 0; c < m_channels; ++c) {
                const int64_t k = m_sharedGamma ? 0 : c;
                const float a = in[1].data[k];
                const int64_t base = (o * m_channels + c) * m_inner;
                if (gx != nullptr) {
                    for (int64_t i = base; i < base + m_inner; ++i) {
                        gx[i] = x[i] > 0.0f ? dy[i] : a * dy[i];
                    }
                }
                if (gGamma != nullptr) {
                    float sum = 0.0f;
                    for (int64_t i = base; i < base + m_inner; ++i) {
                        sum += x[i] > 0.0f ? 0.0f : x[i] * dy[i];
                    }
                    gGamma[k] += sum;
                }
            }
        }
    }

private:
    int64_t m_outer = 1, m_channels = 1, m_inner = 1;
    bool m_sharedGamma = false;
};

std::unique_ptr<CpuKernel> makeLeakyReLU(const KernelSetup& setup, CpuDnnl&) {
    const LeakyReluParams p = leakyReluParams(setup.node);
    switch (p.type) {
        case LeakyReluType::Leaky: return unaryKernel(Leaky{p.slope});
        case LeakyReluType::Elu: return unaryKernel(Elu{p.slope});
        case LeakyReluType::Selu: return unaryKernel(Selu{});
        case LeakyReluType::Gelu: return unaryKernel(Gelu{});
        case LeakyReluType::PRelu: break;
    }
    return std::make_unique<PReluKernel>(setup);
}

// ---- binary ops: f(a, b) and its partial derivatives ------------------------------------------

struct Add {
    static float f(float a, float b) { return a + b; }
    static float da(float, float) { return 1.0f; }
    static float db(float, float) { return 1.0f; }
};
struct Sub {
    static float f(float a, float b) { return a - b; }
    static float da(float, float) { return 1.0f; }
    static float db(float, float) { return -1.0f; }
};
struct Mul {
    static float f(float a, float b) { return a * b; }
    static float da(float, float b) { return b; }
    static float db(float a, float) { return a; }
};
struct Div {
    static float f(float a, float b) { return a / b; }
    static float da(float, float b) { return 1.0f / b; }
    static float db(float a, float b) { return -a / (b * b); }
};

// elemwise_*: both operands of the output's shape.
template <typename F>
std::unique_ptr<CpuKernel> elemwiseBinaryKernel() {
    return makeLambdaKernel(
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            const float* a = in[0].data;
            const float* b = in[1].data;
            float* y = out[0].data;
            for (int64_t i = 0, n = out[0].size(); i < n; ++i) {
                y[i] = F::f(a[i], b[i]);
            }
        },
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
           std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            const float* a = in[0].data;
            const float* b = in[1].data;
            const float* dy = outGrad[0].data;
            const int64_t n = outGrad[0].size();
            if (float* ga = inGrad[0].data) {
                for (int64_t i = 0; i < n; ++i) {
                    ga[i] = dy[i] * F::da(a[i], b[i]);
                }
            }
            if (float* gb = inGrad[1].data) {
                for (int64_t i = 0; i < n; ++i) {
                    gb[i] = dy[i] * F::db(a[i], b[i]);
                }
            }
        });
}

// broadcast_*: the backward sums each operand's gradient over the axes it was broadcast along.
template <typename F>
class BroadcastBinaryKernel final : public CpuKernel {
public:
    explicit BroadcastBinaryKernel(const KernelSetup& setup)
        : m_plan(setup.outShapes[0], setup.inShapes[0], setup.inShapes[1]) {}

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const float* a = in[0].data;
        const float* b = in[1].data;
        float* y = out[0].data;
        m_plan.forEach([&](int64_t i, int64_t ia, int64_t ib) { y[i] = F::f(a[ia], b[ib]); });
    }

    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const float* a = in[0].data;
        const float* b = in[1].data;
        const float* dy = outGrad[0].data;
        float* ga = inGrad[0].data;
        float* gb = inGrad[1].data;
        if (ga != nullptr) {
            std::fill_n(ga, inGrad[0].size(), 0.0f);
            m_plan.forEach([&](int64_t i, int64_t ia, int64_t ib) { ga[ia] += dy[i] * F::da(a[ia], b[ib]); });
        }
        if (gb != nullptr) {
            std::fill_n(gb, inGrad[1].size(), 0.0f);
            m_plan.forEach([&](int64_t i, int64_t ia, int64_t ib) { gb[ib] += dy[i] * F::db(a[ia], b[ib]); });
        }
    }

private:
    BroadcastPlan m_plan;
};

template <typename F>
CpuKernelFactory broadcastFactory() {
    return [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BroadcastBinaryKernel<F>>(setup);
    };
}

// add_n: y = sum of all inputs; every input's gradient is dy.
std::unique_ptr<CpuKernel> makeAddN(const KernelSetup&, CpuDnnl&) {
    return makeLambdaKernel(
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            float* y = out[0].data;
            const int64_t n = out[0].size();
            std::copy_n(in[0].data, n, y);
            for (std::size_t k = 1; k < in.size(); ++k) {
                const float* x = in[k].data;
                for (int64_t i = 0; i < n; ++i) {
                    y[i] += x[i];
                }
            }
        },
        [](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
           std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            for (const CpuArray& g : inGrad) {
                if (g.defined()) {
                    std::copy_n(outGrad[0].data, g.size(), g.data);
                }
            }
        });
}

// ---- sum, mean --------------------------------------------------------------------------------------

// Iterates the input with the output read at stride 0 along the reduced axes; accumulates in double
// (a scratch buffer made once) so that long reductions do not lose low bits.
class ReduceKernel final : public CpuKernel {
public:
    ReduceKernel(const KernelSetup& setup, bool mean) {
        const Shape& data = setup.inShapes[0];
        const ReduceParams p = reduceParams(setup);
        m_scale = mean ? 1.0 / static_cast<double>(p.count) : 1.0;
        // The output read with keepdims' shape: stride 0 along the reduced axes.
        m_plan = BroadcastPlan(data, data, p.kept);
        m_accumulator.resize(static_cast<std::size_t>(shapeSize(p.kept)));
    }

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        std::fill(m_accumulator.begin(), m_accumulator.end(), 0.0);
        const float* x = in[0].data;
        double* acc = m_accumulator.data();
        m_plan.forEach([&](int64_t, int64_t ix, int64_t iy) { acc[iy] += x[ix]; });
        for (std::size_t i = 0; i < m_accumulator.size(); ++i) {
            out[0].data[i] = static_cast<float>(m_accumulator[i] * m_scale);
        }
    }

    void backward(const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const float* dy = outGrad[0].data;
        float* g = inGrad[0].data;
        const auto scale = static_cast<float>(m_scale);
        m_plan.forEach([&](int64_t, int64_t ix, int64_t iy) { g[ix] = dy[iy] * scale; });
    }

private:
    BroadcastPlan m_plan;
    double m_scale = 1.0;
    std::vector<double> m_accumulator;
};

// ---- Dropout ------------------------------------------------------------------------------------------

// Outputs (output, mask). The mask holds what MXNet's does: 1/(1-p) where kept, 0 where dropped,
// so output = data * mask and the backward is dy * mask; which elements drop is backend/dropout_mask.h's.
class DropoutKernel final : public CpuKernel {
public:
    explicit DropoutKernel(const KernelSetup& setup) {
        const DropoutParams p = dropoutParams(setup.node);
        m_p = p.p;
        m_always = p.always;
        m_nameHash = dropout::nameHash(setup.node.name);
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const float* x = in[0].data;
        float* y = out[0].data;
        float* mask = out[1].data;
        const int64_t n = in[0].size();
        if (!(m_always || ctx.exec.training) || m_p == 0.0f) {
            std::copy_n(x, n, y);
            std::fill_n(mask, n, 1.0f);
            return;
        }
        const float scale = m_p < 1.0f ? 1.0f / (1.0f - m_p) : 0.0f;
        const uint64_t key = dropout::passKey(ctx.exec.seed, m_nameHash, ctx.exec.step);
        for (int64_t i = 0; i < n; ++i) {
            const float u = dropout::uniform(key, i);
            mask[i] = u >= m_p ? scale : 0.0f;
            y[i] = x[i] * mask[i];
        }
    }

    void backward(const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray> out,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const float* mask = out[1].data;
        const float* dy = outGrad[0].data;
        float* g = inGrad[0].data;
        for (int64_t i = 0, n = inGrad[0].size(); i < n; ++i) {
            g[i] = dy[i] * mask[i];
        }
    }

private:
    float m_p = 0.5f;
    bool m_always = false;
    uint64_t m_nameHash = 0;
};

}  // namespace

void addCpuElemwiseKernels(CpuKernelTable& table) {
    table.add("LeakyReLU", makeLeakyReLU);

    table.add("relu", unaryFactory<cpu::Relu>());
    table.add("sigmoid", unaryFactory<cpu::Sigmoid>());
    table.add("tanh", unaryFactory<cpu::Tanh>());
    table.add("exp", unaryFactory<Exp>());
    table.add("log", unaryFactory<Log>());
    table.add("sqrt", unaryFactory<Sqrt>());
    table.add("square", unaryFactory<Square>());
    table.add("sin", unaryFactory<Sin>());
    table.add("cos", unaryFactory<Cos>());
    table.add("abs", unaryFactory<Abs>());
    table.add("negative", unaryFactory<Negative>());
    table.add("reciprocal", unaryFactory<Reciprocal>());
    table.add("rsqrt", unaryFactory<Rsqrt>());

    table.add("_plus_scalar", scalarFactory<PlusScalar>());
    table.add("_minus_scalar", scalarFactory<MinusScalar>());
    table.add("_rminus_scalar", scalarFactory<RMinusScalar>());
    table.add("_mul_scalar", scalarFactory<MulScalar>());
    table.add("_div_scalar", scalarFactory<DivScalar>());
    table.add("_rdiv_scalar", scalarFactory<RDivScalar>());
    table.add("_power_scalar", scalarFactory<PowerScalar>());
    table.add("_rpower_scalar", scalarFactory<RPowerScalar>());
    table.add("_maximum_scalar", scalarFactory<MaximumScalar>());
    table.add("_minimum_scalar", scalarFactory<MinimumScalar>());
    table.add("clip", makeClip);

    table.add("elemwise_add", [](const KernelSetup&, CpuDnnl&) { return elemwiseBinaryKernel<Add>(); });
    table.add("elemwise_sub", [](const KernelSetup&, CpuDnnl&) { return elemwiseBinaryKernel<Sub>(); });
    table.add("elemwise_mul", [](const KernelSetup&, CpuDnnl&) { return elemwiseBinaryKernel<Mul>(); });
    table.add("elemwise_div", [](const KernelSetup&, CpuDnnl&) { return elemwiseBinaryKernel<Div>(); });
    table.add("broadcast_add", broadcastFactory<Add>());
    table.add("broadcast_sub", broadcastFactory<Sub>());
    table.add("broadcast_mul", broadcastFactory<Mul>());
    table.add("broadcast_div", broadcastFactory<Div>());
    table.add("add_n", makeAddN);

    table.add("sum", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<ReduceKernel>(setup, false);
    });
    table.add("mean", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<ReduceKernel>(setup, true);
    });
    table.add("Dropout", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<DropoutKernel>(setup);
    });
}

}  // namespace ampstudio
