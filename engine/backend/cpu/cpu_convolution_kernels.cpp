// CPU kernels of the nn ops (backend/cpu/cpu_kernel.h says how kernels are written).
// Convolution, Deconvolution, Pooling and BatchNorm run oneDNN primitives (forward, backward-data,
// backward-weights), created once per node over plain NCHW views of the engine's buffers; LayerNorm
// is a loop. Shapes and attributes were validated by ops/nn_ops.cpp before any kernel is made.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/cpu_kernel.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using dnnl::memory;
using Dims = memory::dims;

constexpr auto kF32 = memory::data_type::f32;

Dims dims(const Pair& p) { return {p[0], p[1]}; }

memory::desc nchwDesc(const Shape& s) { return memory::desc(Dims(s.begin(), s.end()), kF32, memory::format_tag::nchw); }

// oneDNN refuses some geometries (a pooling window wholly in padding); that is the node's error.
[[noreturn]] void dnnlFailure(const Node& node, const dnnl::error& e) {
    throw OpError(node, std::string("oneDNN cannot run this setup: ") + e.what());
}

// --- Convolution and Deconvolution ---------------------------------------------------------------

// What the oneDNN convolution and deconvolution descriptors both need. oneDNN's dilation counts the
// gaps between taps (MXNet's dilate - 1).
struct ConvGeometry {
    memory::desc src, weights, bias, dst;
    Dims strides, dilates, padL, padR;
    bool hasBias = false;
    int64_t filters = 0;
    int64_t weightSize = 0;
};

// Convolution: weight (O, I/g, kh, kw) row-major is oihw, or goihw (g, O/g, I/g, kh, kw) over the
// same memory for groups. Padding is symmetric as in MXNet; the floor of the output size is
// consistent with oneDNN's integer-division check of the geometry.
ConvGeometry convolutionGeometry(const KernelSetup& setup) {
    const ConvolutionParams p = convolutionParams(setup.node);
    ConvGeometry g;
    const Shape& w = setup.inShapes[1];
    const int64_t groups = p.groups;
    g.hasBias = p.hasBias;
    g.filters = w[0];
    g.weightSize = shapeSize(w);
    g.src = nchwDesc(setup.inShapes[0]);
    g.dst = nchwDesc(setup.outShapes[0]);
    g.weights = groups == 1 ? memory::desc({w[0], w[1], w[2], w[3]}, kF32, memory::format_tag::oihw)
                            : memory::desc({groups, w[0] / groups, w[1], w[2], w[3]}, kF32, memory::format_tag::goihw);
    g.bias = g.hasBias ? memory::desc({g.filters}, kF32, memory::format_tag::x) : memory::desc();
    g.strides = dims(p.stride);
    g.padL = dims(p.pad);
    g.padR = g.padL;
    g.dilates = {p.dilate[0] - 1, p.dilate[1] - 1};
    return g;
}

// Deconvolution: oneDNN's weights are logically (O, I, kh, kw) or (g, O/g, I/g, kh, kw), MXNet's
// are stored (I, O/g, kh, kw) = (g, I/g, O/g, kh, kw); strides describe that storage with no copy.
// The right padding is pad - adj, which makes oneDNN's output size s(H-1) + d(k-1)+1 - 2p + adj.
ConvGeometry deconvolutionGeometry(const KernelSetup& setup) {
    const ConvolutionParams p = deconvolutionParams(setup.node);
    ConvGeometry g;
    const Shape& w = setup.inShapes[1];
    const int64_t groups = p.groups;
    g.hasBias = p.hasBias;
    const int64_t in = w[0], outPerGroup = w[1], kh = w[2], kw = w[3];
    g.filters = outPerGroup * groups;
    g.weightSize = shapeSize(w);
    g.src = nchwDesc(setup.inShapes[0]);
    g.dst = nchwDesc(setup.outShapes[0]);
    const int64_t khw = kh * kw;
    if (groups == 1) {
        g.weights = memory::desc({outPerGroup, in, kh, kw}, kF32, {khw, outPerGroup * khw, kw, 1});
    } else {
        const int64_t inPerGroup = in / groups;
        g.weights = memory::desc({groups, outPerGroup, inPerGroup, kh, kw}, kF32,
                                 {inPerGroup * outPerGroup * khw, khw, outPerGroup * khw, kw, 1});
    }
    g.bias = g.hasBias ? memory::desc({g.filters}, kF32, memory::format_tag::x) : memory::desc();
    g.strides = dims(p.stride);
    g.padL = dims(p.pad);
    g.padR = {p.pad[0] - p.adj[0], p.pad[1] - p.adj[1]};
    g.dilates = {p.dilate[0] - 1, p.dilate[1] - 1};
    return g;
}

// Convolution and Deconvolution differ only in their oneDNN primitive types and algorithm:
// data (0), weight (1), optional bias (2) -> output (0).
template <typename Forward, typename BackwardData, typename BackwardWeights>
class ConvolutionKernel final : public CpuKernel {
public:
    ConvolutionKernel(const KernelSetup& setup, CpuDnnl& dnnl, dnnl::algorithm algorithm, const ConvGeometry& g)
        : m_g(g) {
        const auto& eng = dnnl.engine;
        try {
            const typename Forward::primitive_desc fwd(
                typename Forward::desc(dnnl::prop_kind::forward_training, algorithm, g.src, g.weights, g.bias, g.dst,
                                       g.strides, g.dilates, g.padL, g.padR),
                eng);
            m_forward = Forward(fwd);
            m_backwardData = BackwardData(typename BackwardData::primitive_desc(
                typename BackwardData::desc(algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.padL, g.padR),
                eng, fwd));
            m_backwardWeights = BackwardWeights(typename BackwardWeights::primitive_desc(
                typename BackwardWeights::desc(algorithm, g.src, g.weights, g.bias, g.dst, g.strides, g.dilates,
                                               g.padL, g.padR),
                eng, fwd));
        } catch (const dnnl::error& e) {
            dnnlFailure(setup.node, e);
        }
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto& eng = ctx.dnnl.engine;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(m_g.src, eng, in[0].data)},
                                             {DNNL_ARG_WEIGHTS, memory(m_g.weights, eng, in[1].data)},
                                             {DNNL_ARG_DST, memory(m_g.dst, eng, out[0].data)}};
        if (m_g.hasBias) {
            args.emplace(DNNL_ARG_BIAS, memory(m_g.bias, eng, in[2].data));
        }
        m_forward.execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const auto& eng = ctx.dnnl.engine;
        const memory dy(m_g.dst, eng, outGrad[0].data);
        if (inGrad[0].defined()) {
            m_backwardData.execute(ctx.dnnl.stream, {{DNNL_ARG_DIFF_DST, dy},
                                                     {DNNL_ARG_WEIGHTS, memory(m_g.weights, eng, in[1].data)},
                                                     {DNNL_ARG_DIFF_SRC, memory(m_g.src, eng, inGrad[0].data)}});
        }
        const bool wantWeight = inGrad[1].defined();
        const bool wantBias = m_g.hasBias && inGrad[2].defined();
        if (wantWeight || wantBias) {
            // One primitive computes both; a gradient nobody wants goes to scratch.
            float* dw = wantWeight ? inGrad[1].data : scratch(m_weightScratch, m_g.weightSize);
            std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(m_g.src, eng, in[0].data)},
                                                 {DNNL_ARG_DIFF_DST, dy},
                                                 {DNNL_ARG_DIFF_WEIGHTS, memory(m_g.weights, eng, dw)}};
            if (m_g.hasBias) {
                float* db = wantBias ? inGrad[2].data : scratch(m_biasScratch, m_g.filters);
                args.emplace(DNNL_ARG_DIFF_BIAS, memory(m_g.bias, eng, db));
            }
            m_backwardWeights.execute(ctx.dnnl.stream, args);
        }
        ctx.dnnl.stream.wait();
    }

private:
    static float* scratch(std::vector<float>& buffer, int64_t size) {
        buffer.resize(static_cast<std::size_t>(size));
        return buffer.data();
    }

    ConvGeometry m_g;
    Forward m_forward;
    BackwardData m_backwardData;
    BackwardWeights m_backwardWeights;
    std::vector<float> m_weightScratch, m_biasScratch;
};

using ConvKernel =
    ConvolutionKernel<dnnl::convolution_forward, dnnl::convolution_backward_data, dnnl::convolution_backward_weights>;
using DeconvKernel = ConvolutionKernel<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                                       dnnl::deconvolution_backward_weights>;

// --- Pooling ---------------------------------------------------------------------------------------

// Pooling through oneDNN: max (its forward workspace kept for backward), avg with
// count_include_pad=False as avg_exclude_padding, and the rest as avg_include_padding rescaled per
// output position. MXNet (src/operator/nn/pool.h) divides an including average by the window
// clipped to the padded input, (min(start + k, H + p) - start) per dim, which differs from
// oneDNN's fixed k only where pooling_convention=full lets a window run past the padding; sum is
// that average times k. The factor is separable, one per output row and one per column.
class PoolingKernel final : public CpuKernel {
public:
    PoolingKernel(const KernelSetup& setup, CpuDnnl& dnnl) {
        const PoolingParams p = poolingParams(setup);
        const Shape& data = setup.inShapes[0];
        const Shape& outShape = setup.outShapes[0];
        const Dims kernel = dims(p.kernel), strides = dims(p.stride), padL = dims(p.pad);
        // The right padding that makes oneDNN's windows those of the output size (full convention
        // may need more than pad); never below pad, as integer division tolerates the excess.
        Dims padR(2);
        for (std::size_t i = 0; i < 2; ++i) {
            padR[i] = std::max(padL[i], (outShape[2 + i] - 1) * strides[i] + kernel[i] - data[2 + i] - padL[i]);
        }
        m_max = p.type == PoolType::Max;
        using dnnl::algorithm;
        const algorithm alg = m_max ? algorithm::pooling_max
                              : (p.type == PoolType::Avg && !p.countIncludePad) ? algorithm::pooling_avg_exclude_padding
                                                                                : algorithm::pooling_avg_include_padding;
        if (alg == algorithm::pooling_avg_include_padding) {
            const bool sum = p.type == PoolType::Sum;
            m_rowScale = windowScales(sum, kernel[0], strides[0], padL[0], data[2], outShape[2]);
            m_colScale = windowScales(sum, kernel[1], strides[1], padL[1], data[3], outShape[3]);
            auto one = [](float f) { return f == 1.0f; };
            m_scaled = !std::all_of(m_rowScale.begin(), m_rowScale.end(), one) ||
                       !std::all_of(m_colScale.begin(), m_colScale.end(), one);
        }
        m_planes = data[0] * data[1];
        m_src = nchwDesc(data);
        m_dst = nchwDesc(outShape);
        const auto& eng = dnnl.engine;
        try {
            const dnnl::pooling_forward::primitive_desc fwd(
                dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, alg, m_src, m_dst, strides, kernel,
                                            padL, padR),
                eng);
            m_forward = dnnl::pooling_forward(fwd);
            m_backward = dnnl::pooling_backward(dnnl::pooling_backward::primitive_desc(
                dnnl::pooling_backward::desc(alg, m_src, m_dst, strides, kernel, padL, padR), eng, fwd));
            if (m_max) {
                m_workspace = memory(fwd.workspace_desc(), eng);
            }
        } catch (const dnnl::error& e) {
            dnnlFailure(setup.node, e);
        }
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto& eng = ctx.dnnl.engine;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(m_src, eng, in[0].data)},
                                             {DNNL_ARG_DST, memory(m_dst, eng, out[0].data)}};
        if (m_max) {
            args.emplace(DNNL_ARG_WORKSPACE, m_workspace);
        }
        m_forward.execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
        if (m_scaled) {
            rescale(out[0].data, out[0].data);
        }
        // MXNet's hidden workspace output of a max pool: nothing reads it; it holds the output.
        for (std::size_t k = 1; k < out.size(); ++k) {
            std::memcpy(out[k].data, out[0].data, static_cast<std::size_t>(out[0].size()) * sizeof(float));
        }
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray>, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const auto& eng = ctx.dnnl.engine;
        float* dy = outGrad[0].data;
        if (m_scaled) {
            m_scaledGrad.resize(static_cast<std::size_t>(outGrad[0].size()));
            rescale(dy, m_scaledGrad.data());
            dy = m_scaledGrad.data();
        }
        std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, memory(m_dst, eng, dy)},
                                             {DNNL_ARG_DIFF_SRC, memory(m_src, eng, inGrad[0].data)}};
        if (m_max) {
            args.emplace(DNNL_ARG_WORKSPACE, m_workspace);
        }
        m_backward.execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
    }

private:
    // oneDNN's include-padding divisor k over MXNet's divisor (or over 1 for sum), per output index.
    static std::vector<float> windowScales(bool sum, int64_t k, int64_t stride, int64_t pad, int64_t size,
                                           int64_t outSize) {
        std::vector<float> scale(static_cast<std::size_t>(outSize));
        for (int64_t o = 0; o < outSize; ++o) {
            const int64_t start = o * stride - pad;
            const int64_t window = std::min(start + k, size + pad) - start;
            scale[static_cast<std::size_t>(o)] = sum ? static_cast<float>(k) : static_cast<float>(k) / window;
        }
        return scale;
    }

    void rescale(const float* src, float* dst) const {
        const std::size_t rows = m_rowScale.size(), cols = m_colScale.size();
        for (int64_t p = 0; p < m_planes; ++p) {
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t base = (static_cast<std::size_t>(p) * rows + r) * cols;
                for (std::size_t c = 0; c < cols; ++c) {
                    dst[base + c] = src[base + c] * m_rowScale[r] * m_colScale[c];
                }
            }
        }
    }

    bool m_max = false, m_scaled = false;
    int64_t m_planes = 0;
    std::vector<float> m_rowScale, m_colScale, m_scaledGrad;
    memory::desc m_src, m_dst;
    memory m_workspace;
    dnnl::pooling_forward m_forward;
    dnnl::pooling_backward m_backward;
};

// --- BatchNorm -------------------------------------------------------------------------------------

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

// --- LayerNorm -------------------------------------------------------------------------------------

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

void addCpuNnKernels(CpuKernelTable& table) {
    table.add("Convolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<ConvKernel>(setup, dnnl, dnnl::algorithm::convolution_direct,
                                            convolutionGeometry(setup));
    });
    table.add("Deconvolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<DeconvKernel>(setup, dnnl, dnnl::algorithm::deconvolution_direct,
                                              deconvolutionGeometry(setup));
    });
    table.add("Pooling", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<PoolingKernel>(setup, dnnl);
    });
    table.add("BatchNorm", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BatchNormKernel>(setup, dnnl);
    });
    table.add("LayerNorm", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<LayerNormKernel>(setup);
    });
}

}  // namespace ampstudio
