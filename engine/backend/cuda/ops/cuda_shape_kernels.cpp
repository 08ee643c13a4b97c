// CUDA kernels of the shape ops, the CPU's (cpu_shape_kernels.cpp) on the device:
//   Flatten, Reshape, expand_dims, squeeze   a copy of the row-major data
//   transpose, SwapAxis                      a strided copy through the input's permuted strides
//   Concat / SliceChannel                    row copies along the axis; each one's backward is the other
//   slice_axis                               a row copy; backward zeros the rest of the gradient
// Elements move in their storage dtype, bit for bit. Shapes and attributes were checked by shape
// inference (ops/shape_ops.cpp) before any kernel is made.
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_shape_launchers.h"
#include "backend/kernel_params.h"
#include "ops/op_attrs.h"

namespace ampstudio {

namespace {

std::byte* bytesOf(const Tensor& t) {
    return static_cast<std::byte*>(t.data());
}

// Elements are moved, never converted, so every input and output must share one dtype (shape
// inference's ElemwiseType guarantees it for graphs the executor binds).
std::size_t sharedElementBytes(const KernelSetup& setup) {
    const DType type = setup.inTypes[0];
    for (const auto* types : {&setup.inTypes, &setup.outTypes}) {
        for (DType t : *types) {
            if (t != type) {
                OpAttrs(setup.node)
                    .fail("the CUDA backend moves shape op elements without converting them; got " +
                          std::string(dtypeName(type)) + " and " + std::string(dtypeName(t)));
            }
        }
    }
    return dtypeSize(type);
}

void copyTensor(const Tensor& src, const Tensor& dst, cudaStream_t stream) {
    if (src.data() != dst.data() && dst.bytes() != 0) {
        cudaCheck(cudaMemcpyAsync(dst.data(), src.data(), dst.bytes(), cudaMemcpyDeviceToDevice, stream),
                  "copy");
    }
}

std::unique_ptr<CudaKernel> makeCopyKernel(const KernelSetup& setup) {
    sharedElementBytes(setup);  // for its dtype check: a copy needs no element size
    return makeLambdaCudaKernel([](const CudaContext& ctx, std::span<const Tensor> in,
                                   std::span<const Tensor> out) { copyTensor(in[0], out[0], ctx.stream); },
                                [](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                                   std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
                                    if (inGrad[0].defined()) {
                                        copyTensor(outGrad[0], inGrad[0], ctx.stream);
                                    }
                                });
}

// out[i0, .., in] = data[i_perm[0], ..]: the output's index space read through the input's strides,
// permuted. Backward walks the same index space, reading the output gradient densely and writing the
// input gradient through the permuted strides: each of its elements exactly once.
std::unique_ptr<CudaKernel> makePermuteKernel(const KernelSetup& setup, const std::vector<int64_t>& perm) {
    const std::size_t elementBytes = sharedElementBytes(setup);
    const Shape& data = setup.inShapes[0];
    if (data.size() > static_cast<std::size_t>(cuda::kMaxPermuteRank)) {
        OpAttrs(setup.node)
            .fail("transposes of more than " + std::to_string(cuda::kMaxPermuteRank) +
                  " dimensions are not supported");
    }
    std::vector<int64_t> strides(data.size(), 1);
    for (std::size_t i = data.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * data[i];
    }
    cuda::StridedCopy forward;
    forward.rank = static_cast<int>(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        forward.dims[i] = data[static_cast<std::size_t>(perm[i])];
        forward.srcStrides[i] = strides[static_cast<std::size_t>(perm[i])];
    }
    int64_t dense = 1;
    for (std::size_t i = perm.size(); i-- > 0;) {
        forward.dstStrides[i] = dense;
        dense *= forward.dims[i];
    }
    cuda::StridedCopy backward = forward;
    std::swap(backward.srcStrides, backward.dstStrides);
    return makeLambdaCudaKernel(
        [forward, elementBytes](const CudaContext& ctx, std::span<const Tensor> in,
                                std::span<const Tensor> out) {
            cuda::stridedCopy(in[0].data(), out[0].data(), elementBytes, forward, ctx.stream);
        },
        [backward, elementBytes](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                                 std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            if (inGrad[0].defined()) {
                cuda::stridedCopy(outGrad[0].data(), inGrad[0].data(), elementBytes, backward, ctx.stream);
            }
        });
}

// Concat's and SliceChannel's parts (kernel_params.h's AxisParts) moved as rows of elements.
struct AxisCopies {
    std::size_t elementBytes = 4;
    AxisParts parts;

    // joined <- parts
    void join(std::span<const Tensor> from, const Tensor& joined, cudaStream_t stream) const {
        int64_t offset = 0;
        for (std::size_t i = 0; i < parts.slab.size(); ++i) {
            cuda::copyRows(from[i].data(), parts.slab[i], bytesOf(joined) + offset * elementBytes, parts.total,
                           parts.outer, parts.slab[i], elementBytes, stream);
            offset += parts.slab[i];
        }
    }

    // parts <- joined, skipping undefined parts (gradients nobody wants)
    void split(const Tensor& joined, std::span<const Tensor> to, cudaStream_t stream) const {
        int64_t offset = 0;
        for (std::size_t i = 0; i < parts.slab.size(); ++i) {
            if (to[i].defined()) {
                cuda::copyRows(bytesOf(joined) + offset * elementBytes, parts.total, to[i].data(), parts.slab[i],
                               parts.outer, parts.slab[i], elementBytes, stream);
            }
            offset += parts.slab[i];
        }
    }
};

std::unique_ptr<CudaKernel> makeConcatKernel(const KernelSetup& setup) {
    const AxisCopies copies{sharedElementBytes(setup), concatParts(setup)};
    return makeLambdaCudaKernel(
        [copies](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            copies.join(in, out[0], ctx.stream);
        },
        [copies](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                 std::span<const Tensor> outGrad,
                 std::span<const Tensor> inGrad) { copies.split(outGrad[0], inGrad, ctx.stream); });
}

std::unique_ptr<CudaKernel> makeSliceChannelKernel(const KernelSetup& setup) {
    const AxisCopies copies{sharedElementBytes(setup), sliceChannelParts(setup)};
    return makeLambdaCudaKernel(
        [copies](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            copies.split(in[0], out, ctx.stream);
        },
        [copies](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                 std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            if (inGrad[0].defined()) {
                copies.join(outGrad, inGrad[0], ctx.stream);
            }
        });
}

std::unique_ptr<CudaKernel> makeSliceAxisKernel(const KernelSetup& setup) {
    const std::size_t elementBytes = sharedElementBytes(setup);
    const SliceAxisLayout l = sliceAxisLayout(setup);
    return makeLambdaCudaKernel(
        [l, elementBytes](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            cuda::copyRows(bytesOf(in[0]) + l.begin * l.inner * elementBytes, l.size * l.inner, out[0].data(),
                           l.len * l.inner, l.outer, l.len * l.inner, elementBytes, ctx.stream);
        },
        [l, elementBytes](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                          std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            // All-zero bytes are 0.0 in every float dtype.
            cudaCheck(cudaMemsetAsync(inGrad[0].data(), 0, inGrad[0].bytes(), ctx.stream),
                      "zero slice gradient");
            cuda::copyRows(outGrad[0].data(), l.len * l.inner, bytesOf(inGrad[0]) + l.begin * l.inner * elementBytes,
                           l.size * l.inner, l.outer, l.len * l.inner, elementBytes, ctx.stream);
        });
}

}  // namespace

void addCudaShapeKernels(CudaKernelTable& table) {
    for (const char* op : {"Flatten", "Reshape", "expand_dims", "squeeze"}) {
        table.add(op, [](const KernelSetup& setup, CudaBackend&) { return makeCopyKernel(setup); });
    }
    table.add("transpose", [](const KernelSetup& setup, CudaBackend&) {
        return makePermuteKernel(setup, transposePerm(setup));
    });
    table.add("SwapAxis", [](const KernelSetup& setup, CudaBackend&) {
        return makePermuteKernel(setup, swapAxisPerm(setup));
    });
    table.add("Concat", [](const KernelSetup& setup, CudaBackend&) { return makeConcatKernel(setup); });
    table.add("SliceChannel",
              [](const KernelSetup& setup, CudaBackend&) { return makeSliceChannelKernel(setup); });
    table.add("slice_axis",
              [](const KernelSetup& setup, CudaBackend&) { return makeSliceAxisKernel(setup); });
}

}  // namespace ampstudio
