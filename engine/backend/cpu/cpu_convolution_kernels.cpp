// CPU kernels of Convolution and Deconvolution (backend/cpu/cpu_kernel.h says how kernels are written):
// oneDNN primitives (forward, backward-data, backward-weights) created once per node over plain NCHW
// views of the engine's buffers. Shapes and attributes were validated by ops/nn_ops.cpp before any
// kernel is made.
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

namespace {

using dnnl::memory;
using Dims = memory::dims;

constexpr auto kF32 = memory::data_type::f32;

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
    g.strides = dnnlDims(p.stride);
    g.padL = dnnlDims(p.pad);
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
    g.strides = dnnlDims(p.stride);
    g.padL = dnnlDims(p.pad);
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

}  // namespace

void addCpuConvolutionKernels(CpuKernelTable& table) {
    table.add("Convolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<ConvKernel>(setup, dnnl, dnnl::algorithm::convolution_direct,
                                            convolutionGeometry(setup));
    });
    table.add("Deconvolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<DeconvKernel>(setup, dnnl, dnnl::algorithm::deconvolution_direct,
                                              deconvolutionGeometry(setup));
    });
}

}  // namespace ampstudio
