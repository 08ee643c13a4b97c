// cuBLAS is column-major: a row-major (r, c) matrix is the column-major (c, r) one, its transpose. So
// the row-major c = op(a) x op(b) is computed as the column-major c^T = op(b)^T x op(a)^T, b first,
// with each operand's leading dimension its stored row length. The 64-bit interface, so no dimension
// or stride needs to fit an int.
#include "backend/cuda/ops/cuda_gemm.h"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"

namespace ampstudio::cuda {

namespace {

cudaDataType_t cublasDataType(DType type) {
    switch (type) {
        case DType::F32:
            return CUDA_R_32F;
        case DType::F16:
            return CUDA_R_16F;
        case DType::BF16:
            return CUDA_R_16BF;
        default:
            break;
    }
    throw std::invalid_argument("cuBLAS GEMMs here take float32, float16 and bfloat16, not " +
                                std::string(dtypeName(type)));
}

// By default cuBLAS may add split-K partial products in the output type (f16, bf16), rounding more
// than once; the CPU reference rounds once, from f32. The flag keeps every reduction in f32.
void keepReductionsInF32(cublasHandle_t handle) {
    cublasMath_t mode{};
    cublasCheck(cublasGetMathMode(handle, &mode), "read the math mode");
    const auto flag = static_cast<unsigned>(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    if ((static_cast<unsigned>(mode) & flag) == 0) {
        cublasCheck(cublasSetMathMode(handle, static_cast<cublasMath_t>(static_cast<unsigned>(mode) | flag)),
                    "disallow reduced-precision reductions");
    }
}

}  // namespace

bool gemmSupports(DType type) {
    return type == DType::F32 || type == DType::F16 || type == DType::BF16;
}

void gemm(const CudaContext& ctx, DType type, const GemmDims& d, const void* a, const void* b, void* c,
          bool accumulate) {
    const cudaDataType_t dataType = cublasDataType(type);
    if (d.m == 0 || d.n == 0 || d.batch == 0) {
        return;
    }
    if (d.k == 0) {
        // cuBLAS rejects a zero leading dimension; an empty sum is zero.
        if (!accumulate) {
            const auto bytes = static_cast<std::size_t>(d.batch * d.m * d.n) * dtypeSize(type);
            cudaCheck(cudaMemsetAsync(c, 0, bytes, ctx.stream), "zero an empty product");
        }
        return;
    }
    keepReductionsInF32(ctx.cublas);
    const cublasComputeType_t compute =
        type == DType::F32 && ctx.backend.options().tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float alpha = 1.0f;
    const float beta = accumulate ? 1.0f : 0.0f;
    const cublasOperation_t opA = d.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opB = d.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int64_t lda = d.transposeA ? d.m : d.k;
    const int64_t ldb = d.transposeB ? d.k : d.n;
    const int64_t ldc = d.n;
    if (d.batch == 1) {
        cublasCheck(cublasGemmEx_64(ctx.cublas, opB, opA, d.n, d.m, d.k, &alpha, b, dataType, ldb, a,
                                    dataType, lda, &beta, c, dataType, ldc, compute, CUBLAS_GEMM_DEFAULT),
                    "matrix product (cublasGemmEx)");
        return;
    }
    cublasCheck(cublasGemmStridedBatchedEx_64(ctx.cublas, opB, opA, d.n, d.m, d.k, &alpha, b, dataType, ldb,
                                              d.k * d.n, a, dataType, lda, d.m * d.k, &beta, c, dataType, ldc,
                                              d.m * d.n, d.batch, compute, CUBLAS_GEMM_DEFAULT),
                "batched matrix product (cublasGemmStridedBatchedEx)");
}

}  // namespace ampstudio::cuda
