// CPU kernels of the activation family (backend/cpu/cpu_kernel.h says how kernels are written), as
// the CUDA backend groups them (cuda_activation_kernels.cpp): Activation, softmax and log_softmax,
// with MXNet 1.9.1's forward and backward (activation-inl.h, softmax-inl.h).
#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_kernel.h"
#include "backend/cpu/cpu_unary_kernel.h"

namespace ampstudio {

namespace {

using cpu::unaryKernel;

std::unique_ptr<CpuKernel> makeActivation(const KernelSetup& setup, CpuDnnl&) {
    switch (activationType(setup.node)) {
        case ActivationType::Relu: return unaryKernel(cpu::Relu{});
        case ActivationType::Sigmoid: return unaryKernel(cpu::Sigmoid{});
        case ActivationType::Tanh: return unaryKernel(cpu::Tanh{});
        case ActivationType::SoftRelu: return unaryKernel(cpu::SoftRelu{});
        case ActivationType::SoftSign: break;
    }
    return unaryKernel(cpu::SoftSign{});
}

// Over `axis` of x / temperature. Backward (softmax-inl.h): softmax gx = y * (dy - sum(dy * y)) / T;
// log_softmax gx = (dy - exp(y) * sum(dy)) / T.
class SoftmaxKernel final : public CpuKernel {
public:
    SoftmaxKernel(const KernelSetup& setup, bool log) : m_log(log) {
        const SoftmaxParams p = softmaxParams(setup);
        m_outer = p.layout.outer;
        m_length = p.layout.channels;
        m_inner = p.layout.inner;
        m_invTemperature = p.invTemperature;
    }

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t s = 0; s < m_inner; ++s) {
                const float* x = in[0].data + o * m_length * m_inner + s;
                float* y = out[0].data + o * m_length * m_inner + s;
                float maxValue = -INFINITY;
                for (int64_t c = 0; c < m_length; ++c) {
                    maxValue = std::max(maxValue, x[c * m_inner] * m_invTemperature);
                }
                float sum = 0.0f;
                for (int64_t c = 0; c < m_length; ++c) {
                    const float shifted = x[c * m_inner] * m_invTemperature - maxValue;
                    y[c * m_inner] = m_log ? shifted : std::exp(shifted);
                    sum += std::exp(shifted);
                }
                const float logSum = std::log(sum);
                for (int64_t c = 0; c < m_length; ++c) {
                    y[c * m_inner] = m_log ? y[c * m_inner] - logSum : y[c * m_inner] / sum;
                }
            }
        }
    }

    void backward(const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray> out,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t s = 0; s < m_inner; ++s) {
                const int64_t base = o * m_length * m_inner + s;
                const float* y = out[0].data + base;
                const float* dy = outGrad[0].data + base;
                float* g = inGrad[0].data + base;
                float sum = 0.0f;
                for (int64_t c = 0; c < m_length; ++c) {
                    sum += m_log ? dy[c * m_inner] : dy[c * m_inner] * y[c * m_inner];
                }
                for (int64_t c = 0; c < m_length; ++c) {
                    const int64_t k = c * m_inner;
                    g[k] = (m_log ? dy[k] - std::exp(y[k]) * sum : y[k] * (dy[k] - sum)) * m_invTemperature;
                }
            }
        }
    }

private:
    bool m_log = false;
    int64_t m_outer = 1, m_length = 1, m_inner = 1;
    float m_invTemperature = 1.0f;
};

}  // namespace

void addCpuActivationKernels(CpuKernelTable& table) {
    table.add("Activation", makeActivation);
    table.add("softmax", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<SoftmaxKernel>(setup, false);
    });
    table.add("log_softmax", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<SoftmaxKernel>(setup, true);
    });
}

}  // namespace ampstudio
