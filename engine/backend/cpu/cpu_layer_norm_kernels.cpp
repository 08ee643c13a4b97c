// CPU kernel of LayerNorm (backend/cpu/cpu_kernel.h says how kernels are written): a loop over the
// slices along the normalised axis, statistics in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

namespace {

// LayerNorm (src/operator/nn/layer_norm.cc): each slice along `axis` normalised with its mean and
// biased variance, out = (x - mean) / std * gamma + beta, std = sqrt(var + eps); outputs 1 and 2
// are the mean and std (no gradient flows from them, as in MXNet). The data is (outer, C, inner).
class LayerNormKernel final : public CpuKernel {
public:
    explicit LayerNormKernel(const KernelSetup& setup) {
        const LayerNormParams p = layerNormParams(setup);
        m_outer = p.layout.outer;
        m_channels = p.layout.channels;
        m_inner = p.layout.inner;
        m_eps = p.eps;
        const auto slices = static_cast<std::size_t>(m_outer * m_inner);
        m_mean.resize(slices);
        m_std.resize(slices);
    }

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const float* x = in[0].data;
        const float* gamma = in[1].data;
        const float* beta = in[2].data;
        float* y = out[0].data;
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t i = 0; i < m_inner; ++i) {
                const int64_t base = o * m_channels * m_inner + i;
                double sum = 0.0;
                for (int64_t c = 0; c < m_channels; ++c) {
                    sum += x[base + c * m_inner];
                }
                const double mean = sum / static_cast<double>(m_channels);
                double sq = 0.0;
                for (int64_t c = 0; c < m_channels; ++c) {
                    const double d = x[base + c * m_inner] - mean;
                    sq += d * d;
                }
                const double stdev = std::sqrt(sq / static_cast<double>(m_channels) + m_eps);
                const auto inv = static_cast<float>(1.0 / stdev);
                const auto m = static_cast<float>(mean);
                for (int64_t c = 0; c < m_channels; ++c) {
                    y[base + c * m_inner] = (x[base + c * m_inner] - m) * inv * gamma[c] + beta[c];
                }
                const auto s = static_cast<std::size_t>(o * m_inner + i);
                m_mean[s] = m;
                m_std[s] = static_cast<float>(stdev);
            }
        }
        if (out.size() > 2) {
            std::copy(m_mean.begin(), m_mean.end(), out[1].data);
            std::copy(m_std.begin(), m_std.end(), out[2].data);
        }
    }

    // With xhat = (x - mean) / std and g = dy * gamma along a slice:
    //   dx = (g - mean(g) - xhat * mean(g * xhat)) / std, dgamma = sum dy * xhat, dbeta = sum dy.
    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const float* x = in[0].data;
        const float* gamma = in[1].data;
        const float* dy = outGrad[0].data;
        float* dx = inGrad[0].data;
        float* dgamma = inGrad[1].data;
        float* dbeta = inGrad[2].data;
        if (dgamma != nullptr) {
            std::fill_n(dgamma, m_channels, 0.0f);
        }
        if (dbeta != nullptr) {
            std::fill_n(dbeta, m_channels, 0.0f);
        }
        for (int64_t o = 0; o < m_outer; ++o) {
            for (int64_t i = 0; i < m_inner; ++i) {
                const int64_t base = o * m_channels * m_inner + i;
                const auto s = static_cast<std::size_t>(o * m_inner + i);
                const float mean = m_mean[s];
                const float inv = 1.0f / m_std[s];
                double sumG = 0.0, sumGx = 0.0;
                for (int64_t c = 0; c < m_channels; ++c) {
                    const int64_t k = base + c * m_inner;
                    const float xhat = (x[k] - mean) * inv;
                    const float g = dy[k] * gamma[c];
                    sumG += g;
                    sumGx += static_cast<double>(g) * xhat;
                    if (dgamma != nullptr) {
                        dgamma[c] += dy[k] * xhat;
                    }
                    if (dbeta != nullptr) {
                        dbeta[c] += dy[k];
                    }
                }
                if (dx == nullptr) {
                    continue;
                }
                const auto meanG = static_cast<float>(sumG / static_cast<double>(m_channels));
                const auto meanGx = static_cast<float>(sumGx / static_cast<double>(m_channels));
                for (int64_t c = 0; c < m_channels; ++c) {
                    const int64_t k = base + c * m_inner;
                    const float xhat = (x[k] - mean) * inv;
                    dx[k] = (dy[k] * gamma[c] - meanG - xhat * meanGx) * inv;
                }
            }
        }
    }

private:
    int64_t m_outer = 1, m_inner = 1, m_channels = 1;
    float m_eps = 1e-5f;
    // Per-slice statistics of the last forward, for backward (the outputs may be rounded to f16).
    std::vector<float> m_mean, m_std;
};

}  // namespace

void addCpuLayerNormKernels(CpuKernelTable& table) {
    table.add("LayerNorm", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<LayerNormKernel>(setup);
    });
}

}  // namespace ampstudio
