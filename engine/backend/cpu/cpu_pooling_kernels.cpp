// CPU kernel of Pooling (backend/cpu/cpu_kernel.h says how kernels are written): a oneDNN pooling
// primitive over plain NCHW views, created once per node, with MXNet's divisors where oneDNN's
// differ. Shapes and attributes were validated by ops/nn_ops.cpp before any kernel is made.
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_kernel.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

using dnnl::memory;
using Dims = memory::dims;

// Pooling through oneDNN: max (its forward workspace kept for backward), avg with
// count_include_pad=False as avg_exclude_padding, and the rest as avg_include_padding rescaled per
// output position. MXNet (src/operator/nn/pool.h) divides an including average by the window
// clipped to the padded input, (min(start + k, H + p) - start) per dim, which differs from
// oneDNN's fixed k only where pooling_convention=full lets a window run past the padding; sum is
// that average times k. The factor is separable, one per output row and one per column.
//
// A max pool whose windows do not overlap (stride >= kernel) is exact in bfloat16 both ways (the
// forward picks a stored value, the backward routes each gradient to one place): on a CPU with
// native bf16 (cpuNativeBfloat16) such a pool runs oneDNN's bf16 primitives on the stored tensors.
class PoolingKernel final : public CpuKernel {
public:
    PoolingKernel(const KernelSetup& setup, CpuDnnl& dnnl) {
        const PoolingParams p = poolingParams(setup);
        const Shape& data = setup.inShapes[0];
        const Shape& outShape = setup.outShapes[0];
        const Dims kernel = dnnlDims(p.kernel), strides = dnnlDims(p.stride), padL = dnnlDims(p.pad);
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
        m_bf16 = m_max && cpuNativeBfloat16() && strides[0] >= kernel[0] && strides[1] >= kernel[1] &&
                 setup.inTypes[0] == DType::BF16 &&
                 std::all_of(setup.outTypes.begin(), setup.outTypes.end(), [](DType t) { return t == DType::BF16; });
        const auto type = m_bf16 ? memory::data_type::bf16 : memory::data_type::f32;
        m_src = nchwDesc(data, type);
        m_dst = nchwDesc(outShape, type);
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
            std::memcpy(out[k].data, out[0].data, static_cast<std::size_t>(out[0].size()) * dtypeSize(out[0].dtype));
        }
    }

    bool computesInStorageTypes() const override { return m_bf16; }

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
        // A bf16 gradient the adapter adds to arrives as an f32 scratch: computed in bf16 (exact here)
        // into a buffer, then widened.
        const bool widen = m_bf16 && inGrad[0].dtype == DType::F32;
        if (widen) m_bf16Grad.resize(static_cast<std::size_t>(inGrad[0].size()));
        void* dx = widen ? static_cast<void*>(m_bf16Grad.data()) : static_cast<void*>(inGrad[0].data);
        std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, memory(m_dst, eng, dy)},
                                             {DNNL_ARG_DIFF_SRC, memory(m_src, eng, dx)}};
        if (m_max) {
            args.emplace(DNNL_ARG_WORKSPACE, m_workspace);
        }
        m_backward.execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
        if (widen) bfloat16ToFloats(m_bf16Grad, inGrad[0].span());
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

    bool m_max = false, m_scaled = false, m_bf16 = false;
    std::vector<uint16_t> m_bf16Grad;
    int64_t m_planes = 0;
    std::vector<float> m_rowScale, m_colScale, m_scaledGrad;
    memory::desc m_src, m_dst;
    memory m_workspace;
    dnnl::pooling_forward m_forward;
    dnnl::pooling_backward m_backward;
};

}  // namespace

void addCpuPoolingKernels(CpuKernelTable& table) {
    table.add("Pooling", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<PoolingKernel>(setup, dnnl);
    });
}

}  // namespace ampstudio
