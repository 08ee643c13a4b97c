// CPU kernels of the shape ops (backend/cpu/cpu_kernel.h says how kernels are written).
//   Flatten, Reshape, expand_dims, squeeze   a copy of the row-major data (the views the adapter hands
//                                            out are separate buffers, so there is nothing to alias)
//   transpose, SwapAxis                      a oneDNN reorder from a permuted-strides view, created once
//   Concat / SliceChannel                    block copies along the axis; each one's backward is the other
//   slice_axis                               a block copy; backward zeros the rest of the gradient
// Shapes and attributes were checked by shape inference (ops/shape_ops.cpp) before any kernel is made.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backend/cpu/cpu_kernel.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using dnnl::memory;

void copyFloats(float* dst, const float* src, int64_t n) {
    std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(float));
}

// out[i0, .., in] = data[i_perm[0], ..]: the input read through a view whose dims are the output's
// and whose strides are the input's, permuted; oneDNN's reorder writes it densely. Backward is the
// same reorder in the other direction, the output gradient written through the permuted view.
class PermuteKernel final : public CpuKernel {
public:
    PermuteKernel(const KernelSetup& setup, CpuDnnl& dnnl, const std::vector<int64_t>& perm) {
        const Shape& data = setup.inShapes[0];
        if (data.size() > DNNL_MAX_NDIMS) {
            OpAttrs(setup.node).fail("transposes of more than " + std::to_string(DNNL_MAX_NDIMS) +
                                     " dimensions are not supported");
        }
        memory::dims strides(data.size(), 1);
        for (std::size_t i = data.size(); i-- > 1;) {
            strides[i - 1] = strides[i] * data[i];
        }
        memory::dims dims(perm.size()), permutedStrides(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) {
            dims[i] = data[static_cast<std::size_t>(perm[i])];
            permutedStrides[i] = strides[static_cast<std::size_t>(perm[i])];
        }
        m_viewDesc = memory::desc(dims, memory::data_type::f32, permutedStrides);
        m_denseDesc = dnnlDesc(Shape(dims.begin(), dims.end()));
        m_forward = dnnl::reorder(dnnl::reorder::primitive_desc(dnnl.engine, m_viewDesc, dnnl.engine, m_denseDesc));
        m_backward = dnnl::reorder(dnnl::reorder::primitive_desc(dnnl.engine, m_denseDesc, dnnl.engine, m_viewDesc));
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto& eng = ctx.dnnl.engine;
        m_forward.execute(ctx.dnnl.stream, {{DNNL_ARG_FROM, memory(m_viewDesc, eng, in[0].data)},
                                            {DNNL_ARG_TO, memory(m_denseDesc, eng, out[0].data)}});
        ctx.dnnl.stream.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray>, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const auto& eng = ctx.dnnl.engine;
        m_backward.execute(ctx.dnnl.stream, {{DNNL_ARG_FROM, memory(m_denseDesc, eng, outGrad[0].data)},
                                             {DNNL_ARG_TO, memory(m_viewDesc, eng, inGrad[0].data)}});
        ctx.dnnl.stream.wait();
    }

private:
    memory::desc m_viewDesc, m_denseDesc;
    dnnl::reorder m_forward, m_backward;
};

// joined <- parts (kernel_params.h's AxisParts says where each part's slabs lie)
void join(const AxisParts& p, std::span<const CpuArray> parts, float* joined) {
    for (int64_t o = 0; o < p.outer; ++o) {
        float* dst = joined + o * p.total;
        for (std::size_t i = 0; i < p.slab.size(); ++i) {
            copyFloats(dst, parts[i].data + o * p.slab[i], p.slab[i]);
            dst += p.slab[i];
        }
    }
}

// parts <- joined, skipping undefined parts (gradients nobody wants)
void split(const AxisParts& p, const float* joined, std::span<const CpuArray> parts) {
    for (int64_t o = 0; o < p.outer; ++o) {
        const float* src = joined + o * p.total;
        for (std::size_t i = 0; i < p.slab.size(); ++i) {
            if (parts[i].defined()) {
                copyFloats(parts[i].data + o * p.slab[i], src, p.slab[i]);
            }
            src += p.slab[i];
        }
    }
}

std::unique_ptr<CpuKernel> makeConcatKernel(const KernelSetup& setup) {
    const AxisParts parts = concatParts(setup);
    return makeLambdaKernel(
        [parts](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            join(parts, in, out[0].data);
        },
        [parts](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
                std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            split(parts, outGrad[0].data, inGrad);
        });
}

std::unique_ptr<CpuKernel> makeSliceChannelKernel(const KernelSetup& setup) {
    const AxisParts parts = sliceChannelParts(setup);
    return makeLambdaKernel(
        [parts](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            split(parts, in[0].data, out);
        },
        [parts](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
                std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            if (inGrad[0].defined()) {
                join(parts, outGrad, inGrad[0].data);
            }
        });
}

std::unique_ptr<CpuKernel> makeSliceAxisKernel(const KernelSetup& setup) {
    const SliceAxisLayout l = sliceAxisLayout(setup);
    return makeLambdaKernel(
        [l](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            for (int64_t o = 0; o < l.outer; ++o) {
                copyFloats(out[0].data + o * l.len * l.inner, in[0].data + (o * l.size + l.begin) * l.inner,
                           l.len * l.inner);
            }
        },
        [l](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>, std::span<const CpuArray> outGrad,
            std::span<const CpuArray> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            std::fill_n(inGrad[0].data, inGrad[0].size(), 0.0f);
            for (int64_t o = 0; o < l.outer; ++o) {
                copyFloats(inGrad[0].data + (o * l.size + l.begin) * l.inner, outGrad[0].data + o * l.len * l.inner,
                           l.len * l.inner);
            }
        });
}

}  // namespace

void addCpuShapeKernels(CpuKernelTable& table) {
    // They move values without changing them: bfloat16 is copied as stored.
    for (const char* op : {"Flatten", "Reshape", "expand_dims", "squeeze"}) {
        table.add(op, [](const KernelSetup&, CpuDnnl&) { return makeValueCopyKernel(); });
    }
    table.add("transpose", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<PermuteKernel>(setup, dnnl, transposePerm(setup));
    });
    table.add("SwapAxis", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<PermuteKernel>(setup, dnnl, swapAxisPerm(setup));
    });
    table.add("Concat", [](const KernelSetup& setup, CpuDnnl&) { return makeConcatKernel(setup); });
    table.add("SliceChannel", [](const KernelSetup& setup, CpuDnnl&) { return makeSliceChannelKernel(setup); });
    table.add("slice_axis", [](const KernelSetup& setup, CpuDnnl&) { return makeSliceAxisKernel(setup); });
}

}  // namespace ampstudio
