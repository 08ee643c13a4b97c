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

// Elements before and after `axis` of a row-major shape.
int64_t outerSize(const Shape& s, std::size_t axis) {
    int64_t n = 1;
    for (std::size_t i = 0; i < axis; ++i) {
        n *= s[i];
    }
    return n;
}
int64_t innerSize(const Shape& s, std::size_t axis) {
    int64_t n = 1;
    for (std::size_t i = axis + 1; i < s.size(); ++i) {
        n *= s[i];
    }
    return n;
}

std::unique_ptr<CpuKernel> makeCopyKernel() {
    return makeLambdaKernel(
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            copyFloats(out[0].data, in[0].data, in[0].size());
        },
        [](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>, std::span<const CpuArray> outGrad,
           std::span<const CpuArray> inGrad) {
            if (inGrad[0].defined()) {
                copyFloats(inGrad[0].data, outGrad[0].data, outGrad[0].size());
            }
        });
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

// The layout shared by Concat and SliceChannel: `outer` blocks, in each of which the joined tensor
// holds part 0's slab, then part 1's, ...; part i's slab is its extent along the axis times the
// elements after the axis.
struct AxisParts {
    int64_t outer = 1;
    std::vector<int64_t> slab;
    int64_t total = 0;  // sum of slab

    AxisParts(const Shape& joined, std::size_t axis, std::span<const int64_t> extents)
        : outer(outerSize(joined, axis)) {
        const int64_t inner = innerSize(joined, axis);
        for (int64_t e : extents) {
            slab.push_back(e * inner);
            total += e * inner;
        }
    }

    // joined <- parts
    void join(std::span<const CpuArray> parts, float* joined) const {
        for (int64_t o = 0; o < outer; ++o) {
            float* dst = joined + o * total;
            for (std::size_t i = 0; i < slab.size(); ++i) {
                copyFloats(dst, parts[i].data + o * slab[i], slab[i]);
                dst += slab[i];
            }
        }
    }

    // parts <- joined, skipping undefined parts (gradients nobody wants)
    void split(const float* joined, std::span<const CpuArray> parts) const {
        for (int64_t o = 0; o < outer; ++o) {
            const float* src = joined + o * total;
            for (std::size_t i = 0; i < slab.size(); ++i) {
                if (parts[i].defined()) {
                    copyFloats(parts[i].data + o * slab[i], src, slab[i]);
                }
                src += slab[i];
            }
        }
    }
};

std::unique_ptr<CpuKernel> makeConcatKernel(const KernelSetup& setup) {
    const Shape& joined = setup.outShapes[0];
    const auto axis = static_cast<std::size_t>(positiveAxis(OpAttrs(setup.node).getInt("dim", 1), joined.size()));
    std::vector<int64_t> extents;
    for (const Shape& s : setup.inShapes) {
        extents.push_back(s[axis]);
    }
    return makeLambdaKernel(
        [parts = AxisParts(joined, axis, extents)](const CpuContext&, std::span<const CpuArray> in,
                                                   std::span<const CpuArray> out) { parts.join(in, out[0].data); },
        [parts = AxisParts(joined, axis, extents)](const CpuContext&, std::span<const CpuArray>,
                                                   std::span<const CpuArray>, std::span<const CpuArray> outGrad,
                                                   std::span<const CpuArray> inGrad) {
            parts.split(outGrad[0].data, inGrad);
        });
}

std::unique_ptr<CpuKernel> makeSliceChannelKernel(const KernelSetup& setup) {
    const Shape& joined = setup.inShapes[0];
    const auto axis = static_cast<std::size_t>(positiveAxis(OpAttrs(setup.node).getInt("axis", 1), joined.size()));
    // With squeeze_axis the outputs lack the axis, but their data is laid out exactly as unsqueezed.
    const auto count = static_cast<int64_t>(setup.outShapes.size());
    const std::vector<int64_t> extents(setup.outShapes.size(), joined[axis] / count);
    return makeLambdaKernel(
        [parts = AxisParts(joined, axis, extents)](const CpuContext&, std::span<const CpuArray> in,
                                                   std::span<const CpuArray> out) { parts.split(in[0].data, out); },
        [parts = AxisParts(joined, axis, extents)](const CpuContext&, std::span<const CpuArray>,
                                                   std::span<const CpuArray>, std::span<const CpuArray> outGrad,
                                                   std::span<const CpuArray> inGrad) {
            if (inGrad[0].defined()) {
                parts.join(outGrad, inGrad[0].data);
            }
        });
}

// slice_axis: in each of `outer` blocks, `len` slabs starting at `begin` of the `size` along the axis.
struct SliceLayout {
    int64_t outer = 1, inner = 1, size = 0, begin = 0, len = 0;
};

std::unique_ptr<CpuKernel> makeSliceAxisKernel(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    const auto axis = static_cast<std::size_t>(positiveAxis(attrs.requireInt("axis"), data.size()));
    SliceLayout l;
    l.outer = outerSize(data, axis);
    l.inner = innerSize(data, axis);
    l.size = data[axis];
    l.len = setup.outShapes[0][axis];
    l.begin = attrs.requireInt("begin");
    l.begin = l.begin < 0 ? l.begin + l.size : l.begin;
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
    for (const char* op : {"Flatten", "Reshape", "expand_dims", "squeeze"}) {
        table.add(op, [](const KernelSetup&, CpuDnnl&) { return makeCopyKernel(); });
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
