// CPU kernels of Convolution and Deconvolution (backend/cpu/cpu_kernel.h says how kernels are written):
// oneDNN primitives (forward, backward-data, backward-weights) created once per node over plain NCHW
// views of the engine's buffers. Shapes and attributes were validated by ops/nn_ops.cpp before any
// kernel is made.
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_kernel.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

using dnnl::memory;
using Dims = memory::dims;

constexpr auto kF32 = memory::data_type::f32;

// What the oneDNN convolution and deconvolution descriptors both need. oneDNN's dilation counts the
// gaps between taps (MXNet's dilate - 1).
struct ConvGeometry {
    memory::desc src, weights, bias, dst;
    // float32, or bfloat16 for the native path (src, weights, dst as stored; bias as stored too)
    memory::data_type type = kF32;
    Dims strides, dilates, padL, padR;
    bool hasBias = false;
    int64_t filters = 0;
    int64_t weightSize = 0;
};

memory::data_type dnnlType(DType t) { return t == DType::BF16 ? memory::data_type::bf16 : kF32; }

// Whether a Convolution / Deconvolution's tensors suit the native bf16 kernel.
bool bfloat16Convolution(const KernelSetup& setup) {
    if (!cpuNativeBfloat16() || setup.inTypes.size() < 2 || setup.outTypes.empty()) return false;
    if (setup.inTypes[0] != DType::BF16 || setup.inTypes[1] != DType::BF16 || setup.outTypes[0] != DType::BF16) return false;
    return setup.inTypes.size() < 3 || setup.inTypes[2] == DType::BF16 || setup.inTypes[2] == DType::F32;
}

// Convolution: weight (O, I/g, kh, kw) row-major is oihw, or goihw (g, O/g, I/g, kh, kw) over the
// same memory for groups. Padding is symmetric as in MXNet; the floor of the output size is
// consistent with oneDNN's integer-division check of the geometry.
ConvGeometry convolutionGeometry(const KernelSetup& setup, memory::data_type type = kF32) {
    const ConvolutionParams p = convolutionParams(setup.node);
    ConvGeometry g;
    g.type = type;
    const memory::data_type biasType = type == kF32 || setup.inTypes.size() < 3 ? type : dnnlType(setup.inTypes[2]);
    const Shape& w = setup.inShapes[1];
    const int64_t groups = p.groups;
    g.hasBias = p.hasBias;
    g.filters = w[0];
    g.weightSize = shapeSize(w);
    g.src = nchwDesc(setup.inShapes[0], type);
    g.dst = nchwDesc(setup.outShapes[0], type);
    g.weights = groups == 1 ? memory::desc({w[0], w[1], w[2], w[3]}, type, memory::format_tag::oihw)
                            : memory::desc({groups, w[0] / groups, w[1], w[2], w[3]}, type, memory::format_tag::goihw);
    g.bias = g.hasBias ? memory::desc({g.filters}, biasType, memory::format_tag::x) : memory::desc();
    g.strides = dnnlDims(p.stride);
    g.padL = dnnlDims(p.pad);
    g.padR = g.padL;
    g.dilates = {p.dilate[0] - 1, p.dilate[1] - 1};
    return g;
}

// Deconvolution: oneDNN's weights are logically (O, I, kh, kw) or (g, O/g, I/g, kh, kw), MXNet's
// are stored (I, O/g, kh, kw) = (g, I/g, O/g, kh, kw); strides describe that storage with no copy.
// The right padding is pad - adj, which makes oneDNN's output size s(H-1) + d(k-1)+1 - 2p + adj.
ConvGeometry deconvolutionGeometry(const KernelSetup& setup, memory::data_type type = kF32) {
    const ConvolutionParams p = deconvolutionParams(setup.node);
    ConvGeometry g;
    g.type = type;
    const memory::data_type biasType = type == kF32 || setup.inTypes.size() < 3 ? type : dnnlType(setup.inTypes[2]);
    const Shape& w = setup.inShapes[1];
    const int64_t groups = p.groups;
    g.hasBias = p.hasBias;
    const int64_t in = w[0], outPerGroup = w[1], kh = w[2], kw = w[3];
    g.filters = outPerGroup * groups;
    g.weightSize = shapeSize(w);
    g.src = nchwDesc(setup.inShapes[0], type);
    g.dst = nchwDesc(setup.outShapes[0], type);
    const int64_t khw = kh * kw;
    if (groups == 1) {
        g.weights = memory::desc({outPerGroup, in, kh, kw}, type, {khw, outPerGroup * khw, kw, 1});
    } else {
        const int64_t inPerGroup = in / groups;
        g.weights = memory::desc({groups, outPerGroup, inPerGroup, kh, kw}, type,
                                 {inPerGroup * outPerGroup * khw, khw, outPerGroup * khw, kw, 1});
    }
    g.bias = g.hasBias ? memory::desc({g.filters}, biasType, memory::format_tag::x) : memory::desc();
    g.strides = dnnlDims(p.stride);
    g.padL = dnnlDims(p.pad);
    g.padR = {p.pad[0] - p.adj[0], p.pad[1] - p.adj[1]};
    g.dilates = {p.dilate[0] - 1, p.dilate[1] - 1};
    return g;
}

// A tensor stored plain (NCHW, oihw ...) as a primitive wants it: the tensor's own memory when the
// layouts agree, else a buffer of the primitive's layout that a reorder fills (an input) or empties
// (an output). The native bf16 path lets oneDNN choose its layouts (format `any`: the blocked ones
// its bf16 kernels run on); float32 keeps the plain ones, so there nothing is reordered.
class Staged {
public:
    memory in(dnnl::stream& stream, const memory::desc& wanted, const memory::desc& plain, void* data) {
        memory stored(plain, stream.get_engine(), data);
        if (wanted == plain) return stored;
        dnnl::reorder(stored, buffer(stream, wanted)).execute(stream, stored, m_buffer);
        return m_buffer;
    }
    memory out(dnnl::stream& stream, const memory::desc& wanted, const memory::desc& plain, void* data) {
        m_target = memory(plain, stream.get_engine(), data);
        return wanted == plain ? m_target : buffer(stream, wanted);
    }
    // After the primitive ran: the buffer into the tensor, where out() handed a buffer.
    void finish(dnnl::stream& stream) {
        if (m_target && m_buffer && m_target.get_desc() != m_buffer.get_desc() && m_handedBuffer) {
            dnnl::reorder(m_buffer, m_target).execute(stream, m_buffer, m_target);
        }
        m_target = memory();
        m_handedBuffer = false;
    }

private:
    memory& buffer(dnnl::stream& stream, const memory::desc& wanted) {
        if (!m_buffer || m_buffer.get_desc() != wanted) m_buffer = memory(wanted, stream.get_engine());
        m_handedBuffer = true;
        return m_buffer;
    }

    memory m_buffer, m_target;
    bool m_handedBuffer = false;
};

memory::desc anyLayout(const memory::desc& d) {
    return d.is_zero() ? d : memory::desc(d.dims(), d.data_type(), memory::format_tag::any);
}

// Convolution and Deconvolution differ only in their oneDNN primitive types and algorithm:
// data (0), weight (1), optional bias (2) -> output (0).
template <typename Forward, typename BackwardData, typename BackwardWeights>
class ConvolutionKernel final : public CpuKernel {
public:
    ConvolutionKernel(const KernelSetup& setup, CpuDnnl& dnnl, dnnl::algorithm algorithm, const ConvGeometry& g)
        : m_g(g), m_algorithm(algorithm) {
        const auto& eng = dnnl.engine;
        try {
            // The native path computes the weight and bias gradients in f32 and rounds them once.
            m_gradWeights = g.weights;
            m_gradBias = g.bias;
            if (storage()) {
                m_gradWeights = memory::desc(g.weights.dims(), kF32, weightStrides());
                if (g.hasBias) m_gradBias = memory::desc({g.filters}, kF32, memory::format_tag::x);
            }
            m_forwardPd = typename Forward::primitive_desc(
                typename Forward::desc(dnnl::prop_kind::forward_training, algorithm, chosen(g.src), chosen(g.weights),
                                       g.bias, chosen(g.dst), g.strides, g.dilates, g.padL, g.padR),
                eng);
            m_forward = Forward(m_forwardPd);
            m_backwardDataPd = backwardData(eng, g.src);
            m_backwardData = BackwardData(m_backwardDataPd);
            m_backwardWeightsPd = typename BackwardWeights::primitive_desc(
                typename BackwardWeights::desc(algorithm, chosen(g.src), chosen(m_gradWeights), m_gradBias, chosen(g.dst),
                                               g.strides, g.dilates, g.padL, g.padR),
                eng, m_forwardPd);
            m_backwardWeights = BackwardWeights(m_backwardWeightsPd);
        } catch (const dnnl::error& e) {
            if (storage()) throw;  // the factory falls back to the converting path
            dnnlFailure(setup.node, e);
        }
    }

    bool computesInStorageTypes() const override { return storage(); }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        dnnl::stream& s = ctx.dnnl.stream;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, m_src.in(s, m_forwardPd.src_desc(), m_g.src, in[0].data)},
                                             {DNNL_ARG_WEIGHTS, m_weights.in(s, m_forwardPd.weights_desc(), m_g.weights, in[1].data)},
                                             {DNNL_ARG_DST, m_dst.out(s, m_forwardPd.dst_desc(), m_g.dst, out[0].data)}};
        if (m_g.hasBias) {
            args.emplace(DNNL_ARG_BIAS, memory(m_g.bias, s.get_engine(), in[2].data));
        }
        m_forward.execute(s, args);
        m_dst.finish(s);
        s.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        dnnl::stream& s = ctx.dnnl.stream;
        const auto& eng = s.get_engine();
        if (outGrad[0].dtype != in[0].dtype) throw std::logic_error("Convolution: the output gradient's dtype is not the data's");
        if (inGrad[0].defined()) {
            // The data gradient in its dtype: bf16 written in place, or the adapter's f32 scratch to add.
            const bool f32 = inGrad[0].dtype == DType::F32 && storage();
            const memory::desc dx = f32 ? memory::desc(m_g.src.dims(), kF32, memory::format_tag::nchw) : m_g.src;
            if (f32 && !m_backwardDataF32) {
                m_backwardDataF32Pd = backwardData(eng, dx);
                m_backwardDataF32 = BackwardData(m_backwardDataF32Pd);
            }
            const auto& pd = f32 ? m_backwardDataF32Pd : m_backwardDataPd;
            (f32 ? m_backwardDataF32 : m_backwardData)
                .execute(s, {{DNNL_ARG_DIFF_DST, m_dy.in(s, pd.diff_dst_desc(), m_g.dst, outGrad[0].data)},
                             {DNNL_ARG_WEIGHTS, m_weightsForData.in(s, pd.weights_desc(), m_g.weights, in[1].data)},
                             {DNNL_ARG_DIFF_SRC, m_dx.out(s, pd.diff_src_desc(), dx, inGrad[0].data)}});
            m_dx.finish(s);
        }
        const bool wantWeight = inGrad[1].defined();
        const bool wantBias = m_g.hasBias && inGrad[2].defined();
        if (wantWeight || wantBias) {
            // One primitive computes both; a gradient nobody wants goes to scratch, as does the
            // native path's f32 gradient before it is written in its tensor's dtype.
            const bool weightDirect = wantWeight && (!storage() || inGrad[1].dtype == DType::F32);
            float* dw = weightDirect ? inGrad[1].data : scratch(m_weightScratch, m_g.weightSize);
            const auto& pd = m_backwardWeightsPd;
            std::unordered_map<int, memory> args{{DNNL_ARG_SRC, m_srcForWeights.in(s, pd.src_desc(), m_g.src, in[0].data)},
                                                 {DNNL_ARG_DIFF_DST, m_dyForWeights.in(s, pd.diff_dst_desc(), m_g.dst, outGrad[0].data)},
                                                 {DNNL_ARG_DIFF_WEIGHTS, m_dw.out(s, pd.diff_weights_desc(), m_gradWeights, dw)}};
            const bool biasDirect = wantBias && (!storage() || inGrad[2].dtype == DType::F32);
            if (m_g.hasBias) {
                float* db = biasDirect ? inGrad[2].data : scratch(m_biasScratch, m_g.filters);
                args.emplace(DNNL_ARG_DIFF_BIAS, memory(m_gradBias, eng, db));
            }
            m_backwardWeights.execute(s, args);
            m_dw.finish(s);
            s.wait();
            if (wantWeight && !weightDirect) round(m_weightScratch, inGrad[1]);
            if (wantBias && !biasDirect) round(m_biasScratch, inGrad[2]);
        }
        s.wait();
    }

private:
    static float* scratch(std::vector<float>& buffer, int64_t size) {
        buffer.resize(static_cast<std::size_t>(size));
        return buffer.data();
    }

    // An f32 gradient into a bfloat16 tensor, rounded once.
    static void round(const std::vector<float>& f32, const CpuArray& dst) {
        floatsToBfloat16(f32, {reinterpret_cast<uint16_t*>(dst.data), f32.size()});
    }

    bool storage() const { return m_g.type == memory::data_type::bf16; }

    // The layout a primitive is asked for: oneDNN's choice on the native path, the stored one else.
    memory::desc chosen(const memory::desc& plain) const { return storage() ? anyLayout(plain) : plain; }

    // The weights' strides (the same layout in f32 for the native path's f32 gradient).
    Dims weightStrides() const {
        const auto& blocking = m_g.weights.data.format_desc.blocking;
        return Dims(blocking.strides, blocking.strides + m_g.weights.data.ndims);
    }

    typename BackwardData::primitive_desc backwardData(const dnnl::engine& eng, const memory::desc& diffSrc) const {
        return typename BackwardData::primitive_desc(
            typename BackwardData::desc(m_algorithm, chosen(diffSrc), chosen(m_g.weights), chosen(m_g.dst), m_g.strides,
                                        m_g.dilates, m_g.padL, m_g.padR),
            eng, m_forwardPd);
    }

    ConvGeometry m_g;
    dnnl::algorithm m_algorithm;
    memory::desc m_gradWeights, m_gradBias;
    typename Forward::primitive_desc m_forwardPd;
    typename BackwardData::primitive_desc m_backwardDataPd, m_backwardDataF32Pd;
    typename BackwardWeights::primitive_desc m_backwardWeightsPd;
    Forward m_forward;
    BackwardData m_backwardData, m_backwardDataF32;
    BackwardWeights m_backwardWeights;
    // One per primitive argument: the layouts each primitive wants may differ, and a buffer is kept.
    Staged m_src, m_weights, m_dst, m_dy, m_weightsForData, m_dx, m_srcForWeights, m_dyForWeights, m_dw;
    std::vector<float> m_weightScratch, m_biasScratch;
};

using ConvKernel =
    ConvolutionKernel<dnnl::convolution_forward, dnnl::convolution_backward_data, dnnl::convolution_backward_weights>;
using DeconvKernel = ConvolutionKernel<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                                       dnnl::deconvolution_backward_weights>;

}  // namespace

void addCpuConvolutionKernels(CpuKernelTable& table) {
    // bfloat16 tensors on oneDNN's native bf16 primitives where the CPU has them (cpuNativeBfloat16),
    // else, and for any geometry oneDNN refuses in bf16, float32 primitives between conversions.
    table.add("Convolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        if (bfloat16Convolution(setup)) {
            try {
                return std::make_unique<ConvKernel>(setup, dnnl, dnnl::algorithm::convolution_direct,
                                                    convolutionGeometry(setup, memory::data_type::bf16));
            } catch (const dnnl::error&) {
            }
        }
        return std::make_unique<ConvKernel>(setup, dnnl, dnnl::algorithm::convolution_direct,
                                            convolutionGeometry(setup));
    });
    table.add("Deconvolution", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        if (bfloat16Convolution(setup)) {
            try {
                return std::make_unique<DeconvKernel>(setup, dnnl, dnnl::algorithm::deconvolution_direct,
                                                      deconvolutionGeometry(setup, memory::data_type::bf16));
            } catch (const dnnl::error&) {
            }
        }
        return std::make_unique<DeconvKernel>(setup, dnnl, dnnl::algorithm::deconvolution_direct,
                                              deconvolutionGeometry(setup));
    });
}

}  // namespace ampstudio
