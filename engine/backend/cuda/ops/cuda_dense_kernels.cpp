// CUDA kernels of the dense ops, the CPU's (cpu_dense_kernels.cpp) on the device. FullyConnected,
// dot and batch_dot are three GEMMs each (forward and the two input gradients) through cuda_gemm.h,
// the transposes folded into cuBLAS's operations as the CPU folds them into strided views; the bias
// is broadcast into the output before the product accumulates onto it, so the sum is rounded once,
// and its gradient is a column sum of our own. Embedding is a row gather; its weight gradient a
// deterministic scatter-add (cuda_dense_launchers.h). Operands share one dtype: the executor's type
// inference gives these ops one dtype for all inputs and outputs (Embedding: indices aside), and cuBLAS
// multiplies operands of one dtype, so any other setup is refused when the kernel is made.
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_dense_launchers.h"
#include "backend/cuda/ops/cuda_gemm.h"
#include "backend/kernel_params.h"
#include "ops/op_attrs.h"

namespace ampstudio {

namespace {

using cuda::GemmDims;

// The dtype every input and output of a GEMM op shares.
DType requireOneGemmType(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const DType type = setup.inTypes[0];
    if (!cuda::gemmSupports(type)) {
        attrs.fail("the CUDA backend multiplies float32, float16 and bfloat16 matrices, not " +
                   std::string(dtypeName(type)));
    }
    for (const auto* types : {&setup.inTypes, &setup.outTypes}) {
        for (DType t : *types) {
            if (t != type) {
                attrs.fail("cuBLAS needs every input and output in one dtype; got " +
                           std::string(dtypeName(type)) + " and " + std::string(dtypeName(t)));
            }
        }
    }
    return type;
}

class FullyConnectedKernel final : public CudaKernel {
public:
    explicit FullyConnectedKernel(const KernelSetup& setup) : m_type(requireOneGemmType(setup)) {
        m_hasBias = fullyConnectedHasBias(setup.node);
        m_h = setup.outShapes[0].back();
        m_k = setup.inShapes[1][1];
        // The CPU's size(data) / K, also when K is 0; flatten or not, every output row is a data row.
        m_n = shapeSize(setup.outShapes[0]) / m_h;
    }

    // out (N,H) = data (N,K) x weight^T (K,H) [+ bias]
    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        if (m_hasBias) {
            cuda::broadcastRows(in[2].data(), out[0].data(), m_type, m_n, m_h, ctx.stream);
        }
        cuda::gemm(ctx, m_type, GemmDims{.m = m_n, .n = m_h, .k = m_k, .transposeB = true}, in[0].data(),
                   in[1].data(), out[0].data(), m_hasBias);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        const void* dy = outGrad[0].data();
        if (inGrad[0].defined()) {
            // dData (N,K) = dOut (N,H) x weight (H,K)
            cuda::gemm(ctx, m_type, GemmDims{.m = m_n, .n = m_k, .k = m_h}, dy, in[1].data(),
                       inGrad[0].data());
        }
        if (inGrad[1].defined()) {
            // dWeight (H,K) = dOut^T (H,N) x data (N,K)
            cuda::gemm(ctx, m_type, GemmDims{.m = m_h, .n = m_k, .k = m_n, .transposeA = true}, dy,
                       in[0].data(), inGrad[1].data());
        }
        if (m_hasBias && inGrad[2].defined()) {
            void* workspace = ctx.backend.workspace(cuda::columnSumWorkspaceBytes(m_n, m_h));
            cuda::columnSum(dy, inGrad[2].data(), m_type, m_n, m_h, workspace, ctx.stream);
        }
    }

private:
    DType m_type;
    bool m_hasBias = true;
    int64_t m_n = 0, m_k = 0, m_h = 0;
};

// What dot and batch_dot compute: `batch` products out (M,N) = op(lhs) (M,K) x op(rhs) (K,N), where
// op transposes the lhs stored as (K,M) when transpose_a, the rhs stored as (N,K) when transpose_b.
// The gradients, each written densely in its input's own layout (as the CPU's):
//   dLhs (M,K) = dOut (M,N) x op(rhs)^T (N,K)       dLhs^T (K,M) = op(rhs) (K,N) x dOut^T (N,M) [transpose_a]
//   dRhs (K,N) = op(lhs)^T (K,M) x dOut (M,N)       dRhs^T (N,K) = dOut^T (N,M) x op(lhs) (M,K) [transpose_b]
// op(rhs)^T is rhs read as stored when transpose_b, transposed otherwise; op(lhs)^T likewise.
class BatchedProductKernel final : public CudaKernel {
public:
    BatchedProductKernel(const KernelSetup& setup, const ProductDims& d)
        : m_type(requireOneGemmType(setup)), m_d(d) {}

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        const GemmDims dims{.m = m_d.m,
                            .n = m_d.n,
                            .k = m_d.k,
                            .batch = m_d.batch,
                            .transposeA = m_d.ta,
                            .transposeB = m_d.tb};
        cuda::gemm(ctx, m_type, dims, in[0].data(), in[1].data(), out[0].data());
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        const void* dy = outGrad[0].data();
        const void* lhs = in[0].data();
        const void* rhs = in[1].data();
        const int64_t b = m_d.batch;
        if (inGrad[0].defined()) {
            if (m_d.ta) {
                const GemmDims dims{
                    .m = m_d.k, .n = m_d.m, .k = m_d.n, .batch = b, .transposeA = m_d.tb, .transposeB = true};
                cuda::gemm(ctx, m_type, dims, rhs, dy, inGrad[0].data());
            } else {
                const GemmDims dims{.m = m_d.m, .n = m_d.k, .k = m_d.n, .batch = b, .transposeB = !m_d.tb};
                cuda::gemm(ctx, m_type, dims, dy, rhs, inGrad[0].data());
            }
        }
        if (inGrad[1].defined()) {
            if (m_d.tb) {
                const GemmDims dims{
                    .m = m_d.n, .n = m_d.k, .k = m_d.m, .batch = b, .transposeA = true, .transposeB = m_d.ta};
                cuda::gemm(ctx, m_type, dims, dy, lhs, inGrad[1].data());
            } else {
                const GemmDims dims{.m = m_d.k, .n = m_d.n, .k = m_d.m, .batch = b, .transposeA = !m_d.ta};
                cuda::gemm(ctx, m_type, dims, lhs, dy, inGrad[1].data());
            }
        }
    }

private:
    DType m_type;
    ProductDims m_d;
};

bool isIndexType(DType t) {
    switch (t) {
        case DType::F32:
        case DType::F64:
        case DType::F16:
        case DType::BF16:
        case DType::I32:
        case DType::I64:
        case DType::U8:
        case DType::I8:
            return true;
        default:
            return false;
    }
}

// Embedding: out[i] = weight[clip(index[i])], indices read as floats, truncated toward zero and
// clipped into [0, input_dim - 1] (NaN to 0), in backward too, as the CPU does. The indices get a
// zero gradient.
class EmbeddingKernel final : public CudaKernel {
public:
    explicit EmbeddingKernel(const KernelSetup& setup)
        : m_indexType(setup.inTypes[0]),
          m_type(setup.inTypes[1]),
          m_rows(setup.inShapes[1][0]),
          m_dim(setup.inShapes[1][1]),
          m_count(shapeSize(setup.inShapes[0])) {
        const OpAttrs attrs(setup.node);
        if (!cuda::gemmSupports(m_type)) {
            attrs.fail("the CUDA backend's Embedding takes a float32, float16 or bfloat16 weight, not " +
                       std::string(dtypeName(m_type)));
        }
        if (setup.outTypes[0] != m_type) {
            attrs.fail("output dtype " + std::string(dtypeName(setup.outTypes[0])) +
                       " differs from the weight's " + std::string(dtypeName(m_type)));
        }
        if (!isIndexType(m_indexType)) {
            attrs.fail("the CUDA backend cannot read Embedding indices of dtype " +
                       std::string(dtypeName(m_indexType)));
        }
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        cuda::embeddingForward(in[0].data(), m_indexType, in[1].data(), out[0].data(), m_type, m_count,
                               m_rows, m_dim, ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        if (inGrad[0].defined() && inGrad[0].bytes() > 0) {
            // All-zero bits are zero in every dtype an index can have.
            cudaCheck(cudaMemsetAsync(inGrad[0].data(), 0, inGrad[0].bytes(), ctx.stream),
                      "zero the embedding indices' gradient");
        }
        if (!inGrad[1].defined()) {
            return;
        }
        void* workspace = ctx.backend.workspace(cuda::embeddingBackwardWorkspaceBytes(m_count, m_rows));
        cuda::embeddingBackward(in[0].data(), m_indexType, outGrad[0].data(), inGrad[1].data(), m_type,
                                m_count, m_rows, m_dim, workspace, ctx.stream);
    }

private:
    DType m_indexType;
    DType m_type;
    int64_t m_rows = 0, m_dim = 0, m_count = 0;
};

}  // namespace

void addCudaDenseKernels(CudaKernelTable& table) {
    table.add("FullyConnected", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<FullyConnectedKernel>(setup);
    });
    table.add("dot", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<BatchedProductKernel>(setup, dotDims(setup));
    });
    table.add("batch_dot", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<BatchedProductKernel>(setup, batchDotDims(setup));
    });
    table.add("Embedding", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<EmbeddingKernel>(setup);
    });
}

}  // namespace ampstudio
