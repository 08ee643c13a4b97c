// CUDA kernels of the element-wise family, the reductions and Dropout, with the semantics of
// backend/cpu/cpu_elemwise_kernels.cpp: the same attributes (backend/kernel_params.h), outputs and
// derivative formulas. Host side only: shapes become strided walks (cuda_elemwise_launchers.h) once,
// at kernel creation, and the device code runs them.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_elemwise_launchers.h"
#include "backend/dropout_mask.h"
#include "backend/kernel_params.h"
#include "ops/op_attrs.h"

namespace ampstudio {

namespace {

using cuda::BinaryOp;
using cuda::UnaryFn;
using cuda::UnaryOp;
using cuda::Walk;

// ---- walks --------------------------------------------------------------------------------------

using Strides = std::vector<int64_t>;

Strides denseStrides(const Shape& shape) {
    Strides s(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;) {
        s[d - 1] = s[d] * shape[d];
    }
    return s;
}

// Strides of `shape` read at the indices of `out`, right-aligned (numpy's rank extension), 0 along
// the dims it broadcasts: the CPU's BroadcastPlan::strides.
Strides broadcastStrides(const Shape& shape, const Shape& out) {
    Strides s(out.size(), 0);
    int64_t stride = 1;
    for (std::size_t k = shape.size(); k-- > 0;) {
        s[k + out.size() - shape.size()] = shape[k] == 1 ? 0 : stride;
        stride *= shape[k];
    }
    return s;
}

// A walk over the dims of `dims` that `use` selects, in order, with one stride list per operand.
// Dims of size 1 are dropped and neighbours contiguous for every operand merged, as BroadcastPlan
// does, so the walk's rank (and the device's index arithmetic) stays small.
Walk makeWalk(const OpAttrs& attrs, const Shape& dims, const std::vector<Strides>& operands,
              const std::vector<bool>& use) {
    Walk w;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (!use[d] || dims[d] == 1) {
            continue;
        }
        if (w.rank > 0) {
            const int p = w.rank - 1;
            bool contiguous = true;
            for (std::size_t j = 0; j < operands.size(); ++j) {
                contiguous = contiguous && w.strides[j][p] == operands[j][d] * dims[d];
            }
            if (contiguous) {
                w.dims[p] *= dims[d];
                for (std::size_t j = 0; j < operands.size(); ++j) {
                    w.strides[j][p] = operands[j][d];
                }
                continue;
            }
        }
        if (w.rank == cuda::kMaxWalkDims) {
            attrs.fail("the CUDA kernel walks at most " + std::to_string(cuda::kMaxWalkDims) +
                       " non-contiguous dims, the shapes need more");
        }
        w.dims[w.rank] = dims[d];
        for (std::size_t j = 0; j < operands.size(); ++j) {
            w.strides[j][w.rank] = operands[j][d];
        }
        ++w.rank;
    }
    return w;
}

Walk makeWalk(const OpAttrs& attrs, const Shape& dims, const std::vector<Strides>& operands) {
    return makeWalk(attrs, dims, operands, std::vector<bool>(dims.size(), true));
}

// ---- unary ----------------------------------------------------------------------------------------

std::unique_ptr<CudaKernel> unaryKernel(UnaryFn fn) {
    return makeLambdaCudaKernel(
        [fn](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            cuda::unaryForward(fn, in[0].data(), out[0].data(), in[0].dtype(), in[0].size(), ctx.stream);
        },
        [fn](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
             std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            cuda::unaryBackward(fn, in[0].data(), out[0].data(), outGrad[0].data(), inGrad[0].data(),
                                in[0].dtype(), in[0].size(), ctx.stream);
        });
}

CudaKernelFactory unaryFactory(UnaryOp op) {
    return [op](const KernelSetup& setup, CudaBackend&) {
        requireOneFloatType(setup);
        return unaryKernel(UnaryFn{op});
    };
}

CudaKernelFactory scalarFactory(UnaryOp op) {
    return [op](const KernelSetup& setup, CudaBackend&) {
        requireOneFloatType(setup);
        return unaryKernel(UnaryFn{op, scalarOperand(setup.node)});
    };
}

std::unique_ptr<CudaKernel> makeClip(const KernelSetup& setup, CudaBackend&) {
    requireOneFloatType(setup);
    const ClipParams p = clipParams(setup.node);
    return unaryKernel(UnaryFn{UnaryOp::Clip, p.min, p.max});
}

// ---- binary -------------------------------------------------------------------------------------

// elemwise_*: both operands of the output's shape.
std::unique_ptr<CudaKernel> elemwiseBinaryKernel(BinaryOp op) {
    return makeLambdaCudaKernel(
        [op](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            cuda::binaryForward(op, in[0].data(), in[1].data(), out[0].data(), out[0].dtype(), out[0].size(),
                                ctx.stream);
        },
        [op](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
             std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            cuda::binaryBackward(op, in[0].data(), in[1].data(), outGrad[0].data(), inGrad[0].data(),
                                 inGrad[1].data(), outGrad[0].dtype(), outGrad[0].size(), ctx.stream);
        });
}

CudaKernelFactory elemwiseFactory(BinaryOp op) {
    return [op](const KernelSetup& setup, CudaBackend&) {
        requireOneFloatType(setup);
        return elemwiseBinaryKernel(op);
    };
}

// y = f(a, b) with a and b broadcast to out; each operand's gradient is summed over the dims it was
// broadcast along: for operand X, a walk over X's own dims (its gradient's elements, in order) and
// one over the dims X is broadcast along.
class BroadcastBinaryKernel final : public CudaKernel {
public:
    BroadcastBinaryKernel(const OpAttrs& attrs, BinaryOp op, const Shape& out, const Shape& a, const Shape& b)
        : m_op(op) {
        const Strides sa = broadcastStrides(a, out);
        const Strides sb = broadcastStrides(b, out);
        const Strides sy = denseStrides(out);
        m_forward = makeWalk(attrs, out, {sa, sb});
        for (int x = 0; x < 2; ++x) {
            const Strides& own = x == 0 ? sa : sb;
            std::vector<bool> keep(out.size());
            std::vector<bool> reduce(out.size());
            for (std::size_t d = 0; d < out.size(); ++d) {
                keep[d] = own[d] != 0;
                reduce[d] = own[d] == 0;
            }
            m_kept[x] = makeWalk(attrs, out, {sy, sa, sb}, keep);
            m_reduced[x] = makeWalk(attrs, out, {sy, sa, sb}, reduce);
        }
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        cuda::broadcastForward(m_op, m_forward, in[0].data(), in[1].data(), out[0].data(), out[0].dtype(),
                               ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        for (int x = 0; x < 2; ++x) {
            if (inGrad[x].defined()) {
                cuda::broadcastBackward(m_op, x, m_kept[x], m_reduced[x], in[0].data(), in[1].data(),
                                        outGrad[0].data(), inGrad[x].data(), inGrad[x].dtype(), ctx.stream);
            }
        }
    }

private:
    BinaryOp m_op;
    Walk m_forward;
    Walk m_kept[2];
    Walk m_reduced[2];
};

CudaKernelFactory broadcastFactory(BinaryOp op) {
    return [op](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        requireOneFloatType(setup);
        const OpAttrs attrs(setup.node);
        return std::make_unique<BroadcastBinaryKernel>(attrs, op, setup.outShapes[0], setup.inShapes[0],
                                                       setup.inShapes[1]);
    };
}

// add_n: y = sum of all inputs, in order; every input's gradient is dy.
std::unique_ptr<CudaKernel> makeAddN(const KernelSetup& setup, CudaBackend&) {
    requireOneFloatType(setup);
    return makeLambdaCudaKernel(
        [](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            std::vector<const void*> inputs;
            inputs.reserve(in.size());
            for (const Tensor& t : in) {
                inputs.push_back(t.data());
            }
            const int64_t n = out[0].size();
            float* scratch = nullptr;
            if (in.size() > static_cast<std::size_t>(cuda::kAddNChunk)) {
                scratch =
                    static_cast<float*>(ctx.backend.workspace(static_cast<std::size_t>(n) * sizeof(float)));
            }
            cuda::addN(inputs.data(), static_cast<int>(inputs.size()), out[0].data(), out[0].dtype(), n,
                       scratch, ctx.stream);
        },
        [](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
           std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            for (const Tensor& g : inGrad) {
                if (g.defined()) {
                    cudaCheck(cudaMemcpyAsync(g.data(), outGrad[0].data(), g.bytes(),
                                              cudaMemcpyDeviceToDevice, ctx.stream),
                              "add_n backward");
                }
            }
        });
}

// ---- LeakyReLU ------------------------------------------------------------------------------------

// prelu is broadcast_mul's structure with gamma seen as (1, C, 1, ...), or (1) when one gamma serves
// every channel: its gradient is the same deterministic reduction over the broadcast dims.
std::unique_ptr<CudaKernel> makePRelu(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    Shape gamma(data.size(), 1);
    if (shapeSize(setup.inShapes[1]) != 1) {
        gamma[1] = data[1];
    }
    return std::make_unique<BroadcastBinaryKernel>(attrs, BinaryOp::PRelu, data, data, gamma);
}

std::unique_ptr<CudaKernel> makeLeakyReLU(const KernelSetup& setup, CudaBackend&) {
    requireOneFloatType(setup);
    const LeakyReluParams p = leakyReluParams(setup.node);
    switch (p.type) {
        case LeakyReluType::Leaky: return unaryKernel(UnaryFn{UnaryOp::Leaky, p.slope});
        case LeakyReluType::Elu: return unaryKernel(UnaryFn{UnaryOp::Elu, p.slope});
        case LeakyReluType::Selu: return unaryKernel(UnaryFn{UnaryOp::Selu});
        case LeakyReluType::Gelu: return unaryKernel(UnaryFn{UnaryOp::Gelu});
        case LeakyReluType::PRelu: break;
    }
    return makePRelu(setup);
}

// ---- sum, mean ------------------------------------------------------------------------------------

// Sums in double over the reduced axes (the CPU's accumulator); the backward broadcasts dy * scale.
class ReduceKernel final : public CudaKernel {
public:
    ReduceKernel(const KernelSetup& setup, bool mean) {
        const OpAttrs attrs(setup.node);  // for makeWalk's errors
        const Shape& data = setup.inShapes[0];
        const ReduceParams p = reduceParams(setup);
        std::vector<bool> keep(data.size());
        for (std::size_t d = 0; d < data.size(); ++d) {
            keep[d] = !p.reduced[d];
        }
        m_scale = mean ? 1.0 / static_cast<double>(p.count) : 1.0;
        const Strides sx = denseStrides(data);
        m_kept = makeWalk(attrs, data, {sx}, keep);
        m_reduced = makeWalk(attrs, data, {sx}, p.reduced);
        // p.kept is the output with keepdims.
        m_broadcast = makeWalk(attrs, data, {broadcastStrides(p.kept, data)});
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        cuda::reduceSum(m_kept, m_reduced, in[0].data(), out[0].data(), m_scale, in[0].dtype(), ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        cuda::broadcastScaled(m_broadcast, outGrad[0].data(), inGrad[0].data(), static_cast<float>(m_scale),
                              inGrad[0].dtype(), ctx.stream);
    }

private:
    Walk m_kept, m_reduced, m_broadcast;
    double m_scale = 1.0;
};

// ---- Dropout ------------------------------------------------------------------------------------

// Outputs (output, mask), the mask 1/(1-p) where kept and 0 where dropped; which elements drop is
// backend/dropout_mask.h's, as on the CPU.
class DropoutKernel final : public CudaKernel {
public:
    explicit DropoutKernel(const KernelSetup& setup) {
        const DropoutParams p = dropoutParams(setup.node);
        m_p = p.p;
        m_always = p.always;
        m_nameHash = dropout::nameHash(setup.node.name);
        if (setup.outShapes.size() < 2) {
            OpAttrs(setup.node).fail("Dropout needs its mask output (output 1)");
        }
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        const Tensor& x = in[0];
        if (!(m_always || ctx.exec.training) || m_p == 0.0f) {
            if (out[0].data() != x.data()) {
                cudaCheck(
                    cudaMemcpyAsync(out[0].data(), x.data(), x.bytes(), cudaMemcpyDeviceToDevice, ctx.stream),
                    "Dropout pass-through");
            }
            cuda::fill(out[1].data(), out[1].dtype(), 1.0f, out[1].size(), ctx.stream);
            return;
        }
        const uint64_t key = dropout::passKey(ctx.exec.seed, m_nameHash, ctx.exec.step);
        cuda::dropoutForward(x.data(), out[0].data(), out[1].data(), x.dtype(), x.size(), key, m_p,
                             ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        cuda::binaryForward(BinaryOp::Mul, outGrad[0].data(), out[1].data(), inGrad[0].data(),
                            inGrad[0].dtype(), inGrad[0].size(), ctx.stream);
    }

private:
    float m_p = 0.5f;
    bool m_always = false;
    uint64_t m_nameHash = 0;
};

}  // namespace

void addCudaElemwiseKernels(CudaKernelTable& table) {
    table.add("LeakyReLU", makeLeakyReLU);

    table.add("relu", unaryFactory(UnaryOp::Relu));
    table.add("sigmoid", unaryFactory(UnaryOp::Sigmoid));
    table.add("tanh", unaryFactory(UnaryOp::Tanh));
    table.add("exp", unaryFactory(UnaryOp::Exp));
    table.add("log", unaryFactory(UnaryOp::Log));
    table.add("sqrt", unaryFactory(UnaryOp::Sqrt));
    table.add("square", unaryFactory(UnaryOp::Square));
    table.add("sin", unaryFactory(UnaryOp::Sin));
    table.add("cos", unaryFactory(UnaryOp::Cos));
    table.add("abs", unaryFactory(UnaryOp::Abs));
    table.add("negative", unaryFactory(UnaryOp::Negative));
    table.add("reciprocal", unaryFactory(UnaryOp::Reciprocal));
    table.add("rsqrt", unaryFactory(UnaryOp::Rsqrt));

    table.add("_plus_scalar", scalarFactory(UnaryOp::PlusScalar));
    table.add("_minus_scalar", scalarFactory(UnaryOp::MinusScalar));
    table.add("_rminus_scalar", scalarFactory(UnaryOp::RMinusScalar));
    table.add("_mul_scalar", scalarFactory(UnaryOp::MulScalar));
    table.add("_div_scalar", scalarFactory(UnaryOp::DivScalar));
    table.add("_rdiv_scalar", scalarFactory(UnaryOp::RDivScalar));
    table.add("_power_scalar", scalarFactory(UnaryOp::PowerScalar));
    table.add("_rpower_scalar", scalarFactory(UnaryOp::RPowerScalar));
    table.add("_maximum_scalar", scalarFactory(UnaryOp::MaximumScalar));
    table.add("_minimum_scalar", scalarFactory(UnaryOp::MinimumScalar));
    table.add("clip", makeClip);

    table.add("elemwise_add", elemwiseFactory(BinaryOp::Add));
    table.add("elemwise_sub", elemwiseFactory(BinaryOp::Sub));
    table.add("elemwise_mul", elemwiseFactory(BinaryOp::Mul));
    table.add("elemwise_div", elemwiseFactory(BinaryOp::Div));
    table.add("broadcast_add", broadcastFactory(BinaryOp::Add));
    table.add("broadcast_sub", broadcastFactory(BinaryOp::Sub));
    table.add("broadcast_mul", broadcastFactory(BinaryOp::Mul));
    table.add("broadcast_div", broadcastFactory(BinaryOp::Div));
    table.add("add_n", makeAddN);

    table.add("sum", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        requireOneFloatType(setup);
        return std::make_unique<ReduceKernel>(setup, false);
    });
    table.add("mean", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        requireOneFloatType(setup);
        return std::make_unique<ReduceKernel>(setup, true);
    });
    table.add("Dropout", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        requireOneFloatType(setup);
        return std::make_unique<DropoutKernel>(setup);
    });
}

}  // namespace ampstudio
