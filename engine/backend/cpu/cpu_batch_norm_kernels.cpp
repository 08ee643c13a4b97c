// CPU kernel of BatchNorm (backend/cpu/cpu_kernel.h says how kernels are written): oneDNN's batch
// normalization, forward and backward, with MXNet's moving statistics and outputs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

namespace {

using dnnl::memory;

constexpr auto kF32 = memory::data_type::f32;

// BatchNorm (MXNet 1.9.1 src/operator/nn/batch_norm.cc) on oneDNN batch_normalization, the data
// viewed as (outer, C, inner, 1) so any `axis` is oneDNN's channel axis 1 without a copy.
//   Training without use_global_stats: batch mean and biased variance (sum/N, as MXNet); the moving
//   statistics (mutable inputs 3, 4) become moving * momentum + batch * (1 - momentum) in forward,
//   as MXNet's MKLDNN build does (the native one defers it to backward; the result is the same).
//   Otherwise: the moving statistics normalise and stay as they are.
// Outputs 1 and 2 hold what MXNet's do: the mean used and the inverse standard deviation
// 1/sqrt(var + eps). fix_gamma (default True) uses gamma = 1 and gives gamma a zero gradient.
class BatchNormKernel final : public CpuKernel {
public:
    BatchNormKernel(const KernelSetup& setup, CpuDnnl& dnnl) {
        const BatchNormParams p = batchNormParams(setup);
        m_eps = p.eps;
        m_momentum = p.momentum;
        m_fixGamma = p.fixGamma;
        m_globalStats = p.useGlobalStats;
        m_channels = p.layout.channels;
        m_data = memory::desc({p.layout.outer, m_channels, p.layout.inner, 1}, kF32, memory::format_tag::nchw);
        m_stat = memory::desc({m_channels}, kF32, memory::format_tag::x);
        const auto c = static_cast<std::size_t>(m_channels);
        m_ones.assign(c, 1.0f);
        m_mean.resize(c);
        m_var.resize(c);
        m_diffScale.resize(c);
        m_diffShift.resize(c);
        using dnnl::normalization_flags;
        using Fwd = dnnl::batch_normalization_forward;
        using Bwd = dnnl::batch_normalization_backward;
        const auto flags = normalization_flags::use_scale | normalization_flags::use_shift;
        const auto global = flags | normalization_flags::use_global_stats;
        const auto& eng = dnnl.engine;
        try {
            const Fwd::primitive_desc batchPd(Fwd::desc(dnnl::prop_kind::forward_training, m_data, m_eps, flags), eng);
            const Fwd::primitive_desc globalPd(Fwd::desc(dnnl::prop_kind::forward_training, m_data, m_eps, global),
                                               eng);
            m_forwardBatch = Fwd(batchPd);
            m_forwardGlobal = Fwd(globalPd);
            const auto backward = dnnl::prop_kind::backward;
            m_backwardBatch = Bwd(Bwd::primitive_desc(Bwd::desc(backward, m_data, m_data, m_eps, flags), eng, batchPd));
            m_backwardGlobal =
                Bwd(Bwd::primitive_desc(Bwd::desc(backward, m_data, m_data, m_eps, global), eng, globalPd));
        } catch (const dnnl::error& e) {
            dnnlFailure(setup.node, e);
        }
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto& eng = ctx.dnnl.engine;
        m_usedBatch = ctx.exec.training && !m_globalStats;
        float* movingMean = in[3].data;
        float* movingVar = in[4].data;
        if (!m_usedBatch) {
            std::copy_n(movingMean, m_channels, m_mean.data());
            std::copy_n(movingVar, m_channels, m_var.data());
        }
        (m_usedBatch ? m_forwardBatch : m_forwardGlobal)
            .execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(m_data, eng, in[0].data)},
                                       {DNNL_ARG_DST, memory(m_data, eng, out[0].data)},
                                       {DNNL_ARG_SCALE, memory(m_stat, eng, gamma(in[1]))},
                                       {DNNL_ARG_SHIFT, memory(m_stat, eng, in[2].data)},
                                       {DNNL_ARG_MEAN, memory(m_stat, eng, m_mean.data())},
                                       {DNNL_ARG_VARIANCE, memory(m_stat, eng, m_var.data())}});
        ctx.dnnl.stream.wait();
        if (m_usedBatch) {
            for (int64_t c = 0; c < m_channels; ++c) {
                movingMean[c] = movingMean[c] * m_momentum + m_mean[c] * (1.0f - m_momentum);
                movingVar[c] = movingVar[c] * m_momentum + m_var[c] * (1.0f - m_momentum);
            }
        }
        if (out.size() > 2) {
            for (int64_t c = 0; c < m_channels; ++c) {
                out[1].data[c] = m_mean[c];
                out[2].data[c] = 1.0f / std::sqrt(m_var[c] + m_eps);
            }
        }
    }

    // The gradient of the normalisation forward used: through the batch statistics in training,
    // a per-channel scale with the moving ones. The mean/var outputs carry no gradient (as MXNet).
    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const auto& eng = ctx.dnnl.engine;
        float* dx = inGrad[0].data;
        if (dx == nullptr) {
            m_dataScratch.resize(static_cast<std::size_t>(outGrad[0].size()));
            dx = m_dataScratch.data();
        }
        (m_usedBatch ? m_backwardBatch : m_backwardGlobal)
            .execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(m_data, eng, in[0].data)},
                                       {DNNL_ARG_DIFF_DST, memory(m_data, eng, outGrad[0].data)},
                                       {DNNL_ARG_SCALE, memory(m_stat, eng, gamma(in[1]))},
                                       // oneDNN 2.6 refuses to run without the shift it does not read.
                                       {DNNL_ARG_SHIFT, memory(m_stat, eng, in[2].data)},
                                       {DNNL_ARG_MEAN, memory(m_stat, eng, m_mean.data())},
                                       {DNNL_ARG_VARIANCE, memory(m_stat, eng, m_var.data())},
                                       {DNNL_ARG_DIFF_SRC, memory(m_data, eng, dx)},
                                       {DNNL_ARG_DIFF_SCALE, memory(m_stat, eng, m_diffScale.data())},
                                       {DNNL_ARG_DIFF_SHIFT, memory(m_stat, eng, m_diffShift.data())}});
        ctx.dnnl.stream.wait();
        if (inGrad[1].defined()) {
            if (m_fixGamma) {
                std::fill_n(inGrad[1].data, m_channels, 0.0f);
            } else {
                std::copy_n(m_diffScale.data(), m_channels, inGrad[1].data);
            }
        }
        if (inGrad[2].defined()) {
            std::copy_n(m_diffShift.data(), m_channels, inGrad[2].data);
        }
        // The moving statistics (inputs 3, 4) are auxiliary states: zero if a gradient is asked for.
        for (std::size_t i = 3; i < inGrad.size(); ++i) {
            if (inGrad[i].defined()) {
                std::fill_n(inGrad[i].data, inGrad[i].size(), 0.0f);
            }
        }
    }

private:
    float* gamma(const CpuArray& g) { return m_fixGamma ? m_ones.data() : g.data; }

    float m_eps = 1e-3f, m_momentum = 0.9f;
    bool m_fixGamma = true, m_globalStats = false, m_usedBatch = false;
    int64_t m_channels = 0;
    memory::desc m_data, m_stat;
    // The statistics forward normalised with (batch, or a copy of the moving ones), for backward.
    std::vector<float> m_ones, m_mean, m_var, m_diffScale, m_diffShift, m_dataScratch;
    dnnl::batch_normalization_forward m_forwardBatch, m_forwardGlobal;
    dnnl::batch_normalization_backward m_backwardBatch, m_backwardGlobal;
};

}  // namespace

void addCpuBatchNormKernels(CpuKernelTable& table) {
    table.add("BatchNorm", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BatchNormKernel>(setup, dnnl);
    });
}

}  // namespace ampstudio
