// CPU kernel of BatchNorm (backend/cpu/cpu_kernel.h says how kernels are written): per-channel
// loops of our own over the stored layout, with MXNet's moving statistics and outputs.
//
// Why not oneDNN's batch normalization: the engine's tensors are plain (outer, C, inner), and on
// that layout oneDNN 2.6 runs its generic ncsp kernel, which took 3.4 ms forward + backward for one
// (64, 32, 28, 28) layer here, more than the convolution beside it. These loops walk each channel's
// contiguous planes (a channel's batch fits in L2), one thread per channel, and read and write
// bfloat16 as stored (computesInStorageTypes: every sum in double, each output rounded once).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backend/cpu/cpu_kernel.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

// Element i of a plane of T (float, or the bits of a bfloat16) as float32, and back.
inline float load(const float* p, int64_t i) { return p[i]; }
inline float load(const uint16_t* p, int64_t i) { return bfloat16BitsToFloat(p[i]); }
inline void store(float* p, int64_t i, float v) { p[i] = v; }
inline void store(uint16_t* p, int64_t i, float v) { p[i] = floatToBfloat16Bits(v); }

// Calls f with the view's data as `const float*` or `const uint16_t*` (bfloat16), by its dtype.
template <typename F>
void withData(const CpuArray& a, F&& f) {
    if (a.dtype == DType::BF16) {
        f(reinterpret_cast<uint16_t*>(a.data));
    } else {
        f(a.data);
    }
}

// BatchNorm (MXNet 1.9.1 src/operator/nn/batch_norm.cc), the data viewed as (outer, C, inner):
//   Training without use_global_stats: batch mean and biased variance (sum/N, as MXNet); the moving
//   statistics (mutable inputs 3, 4) become moving * momentum + batch * (1 - momentum) in forward,
//   as MXNet's MKLDNN build does (the native one defers it to backward; the result is the same).
//   Otherwise: the moving statistics normalise and stay as they are.
// Outputs 1 and 2 hold what MXNet's do: the mean used and the inverse standard deviation
// 1/sqrt(var + eps). fix_gamma (default True) uses gamma = 1 and gives gamma a zero gradient.
class BatchNormKernel final : public CpuKernel {
public:
    explicit BatchNormKernel(const KernelSetup& setup) {
        const BatchNormParams p = batchNormParams(setup);
        m_eps = p.eps;
        m_momentum = p.momentum;
        m_fixGamma = p.fixGamma;
        m_globalStats = p.useGlobalStats;
        m_outer = p.layout.outer;
        m_channels = p.layout.channels;
        m_inner = p.layout.inner;
        m_mean.resize(static_cast<std::size_t>(m_channels));
        m_invStd.resize(static_cast<std::size_t>(m_channels));
    }

    bool computesInStorageTypes() const override { return true; }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        m_usedBatch = ctx.exec.training && !m_globalStats;
        m_batchVar = m_usedBatch;
        const CpuArray &x = in[0], &y = out[0];
        const double count = static_cast<double>(m_outer * m_inner);
        withData(x, [&](const auto* xs) {
            withData(y, [&](auto* ys) {
#pragma omp parallel for schedule(static)
                for (int64_t c = 0; c < m_channels; ++c) {
                    float mean = 0.0f, var = 0.0f;
                    if (m_usedBatch) {
                        double sum = 0.0;
                        for (int64_t o = 0; o < m_outer; ++o) {
                            const auto* plane = xs + (o * m_channels + c) * m_inner;
                            for (int64_t i = 0; i < m_inner; ++i) sum += load(plane, i);
                        }
                        const double m = count > 0 ? sum / count : 0.0;
                        double squares = 0.0;
                        for (int64_t o = 0; o < m_outer; ++o) {
                            const auto* plane = xs + (o * m_channels + c) * m_inner;
                            for (int64_t i = 0; i < m_inner; ++i) {
                                const double d = load(plane, i) - m;
                                squares += d * d;
                            }
                        }
                        mean = static_cast<float>(m);
                        var = static_cast<float>(count > 0 ? squares / count : 0.0);
                    } else {
                        mean = loadElement(in[3], c);
                        var = loadElement(in[4], c);
                    }
                    const float invStd = 1.0f / std::sqrt(var + m_eps);
                    m_mean[c] = mean;
                    m_invStd[c] = invStd;
                    const float scale = (m_fixGamma ? 1.0f : loadElement(in[1], c)) * invStd;
                    const float shift = loadElement(in[2], c) - mean * scale;
                    for (int64_t o = 0; o < m_outer; ++o) {
                        const int64_t base = (o * m_channels + c) * m_inner;
                        for (int64_t i = 0; i < m_inner; ++i) store(ys + base, i, load(xs + base, i) * scale + shift);
                    }
                    if (m_usedBatch) {
                        storeElement(in[3], c, loadElement(in[3], c) * m_momentum + mean * (1.0f - m_momentum));
                        storeElement(in[4], c, loadElement(in[4], c) * m_momentum + var * (1.0f - m_momentum));
                    }
                }
            });
        });
        if (out.size() > 2) {
            for (int64_t c = 0; c < m_channels; ++c) {
                storeElement(out[1], c, m_mean[c]);
                storeElement(out[2], c, m_invStd[c]);
            }
        }
    }

    // The gradient of the normalisation forward used: through the batch statistics in training,
    // a per-channel scale with the moving ones. The mean/var outputs carry no gradient (as MXNet).
    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const CpuArray &x = in[0], &dy = outGrad[0];
        CpuArray dx = inGrad[0];
        const double count = static_cast<double>(m_outer * m_inner);
        std::vector<float> dGamma(static_cast<std::size_t>(m_channels)), dBeta(static_cast<std::size_t>(m_channels));
        const auto run = [&](const auto* xs, const auto* dys, auto* dxs) {
#pragma omp parallel for schedule(static)
            for (int64_t c = 0; c < m_channels; ++c) {
                const float mean = m_mean[c], invStd = m_invStd[c];
                double sumDy = 0.0, sumDyXhat = 0.0;
                for (int64_t o = 0; o < m_outer; ++o) {
                    const int64_t base = (o * m_channels + c) * m_inner;
                    for (int64_t i = 0; i < m_inner; ++i) {
                        const float g = load(dys + base, i);
                        sumDy += g;
                        sumDyXhat += static_cast<double>(g) * ((load(xs + base, i) - mean) * invStd);
                    }
                }
                dGamma[c] = static_cast<float>(sumDyXhat);
                dBeta[c] = static_cast<float>(sumDy);
                if (dxs == nullptr) continue;
                const float gamma = m_fixGamma ? 1.0f : loadElement(in[1], c);
                const float k = gamma * invStd;
                // Through the batch statistics: dx = k (dy - mean(dy) - xhat mean(dy xhat)).
                const float meanDy = m_batchVar && count > 0 ? static_cast<float>(sumDy / count) : 0.0f;
                const float meanDyXhat = m_batchVar && count > 0 ? static_cast<float>(sumDyXhat / count) : 0.0f;
                for (int64_t o = 0; o < m_outer; ++o) {
                    const int64_t base = (o * m_channels + c) * m_inner;
                    for (int64_t i = 0; i < m_inner; ++i) {
                        const float xhat = (load(xs + base, i) - mean) * invStd;
                        store(dxs + base, i, k * (load(dys + base, i) - meanDy - xhat * meanDyXhat));
                    }
                }
            }
        };
        withData(x, [&](const auto* xs) {
            withData(dy, [&](const auto* dys) {
                if (!dx.defined()) {
                    run(xs, dys, static_cast<float*>(nullptr));
                } else {
                    withData(dx, [&](auto* dxs) { run(xs, dys, dxs); });
                }
            });
        });
        if (inGrad[1].defined()) {
            for (int64_t c = 0; c < m_channels; ++c) storeElement(inGrad[1], c, m_fixGamma ? 0.0f : dGamma[c]);
        }
        if (inGrad[2].defined()) {
            for (int64_t c = 0; c < m_channels; ++c) storeElement(inGrad[2], c, dBeta[c]);
        }
        // The moving statistics (inputs 3, 4) are auxiliary states: zero if a gradient is asked for.
        for (std::size_t i = 3; i < inGrad.size(); ++i) {
            if (inGrad[i].defined()) {
                for (int64_t k = 0; k < inGrad[i].size(); ++k) storeElement(inGrad[i], k, 0.0f);
            }
        }
    }

private:
    float m_eps = 1e-3f, m_momentum = 0.9f;
    bool m_fixGamma = true, m_globalStats = false, m_usedBatch = false, m_batchVar = false;
    int64_t m_outer = 0, m_channels = 0, m_inner = 0;
    // The statistics forward normalised with (batch, or the moving ones), for backward.
    std::vector<float> m_mean, m_invStd;
};

}  // namespace

void addCpuBatchNormKernels(CpuKernelTable& table) {
    table.add("BatchNorm", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BatchNormKernel>(setup);
    });
}

}  // namespace ampstudio
