#pragma once
// Row-major GEMMs on cuBLAS for the kernels that need one (the dense ops): c = op(a) x op(b), one
// matrix product or a batch of equally strided ones, in the tensors' own dtype (f32, f16, bf16) with
// f32 accumulation, TF32 for f32 when the backend's tf32 option is set.
#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio {

struct CudaContext;

namespace cuda {

// c (m, n) = op(a) (m, k) x op(b) (k, n), all dense row-major. op(a) is a as stored (m, k), or a
// stored (k, m) and read transposed; likewise op(b) is b (k, n) or b stored (n, k) transposed. A
// batch holds `batch` such products, each matrix right after the previous one (m*k, k*n, m*n apart).
struct GemmDims {
    int64_t m = 1;
    int64_t n = 1;
    int64_t k = 1;
    int64_t batch = 1;
    bool transposeA = false;
    bool transposeB = false;
};

bool gemmSupports(DType type);  // f32, f16, bf16

// Queues the product on ctx's stream. accumulate: c += product instead of c = product, the sum taken
// in f32 and rounded once (a bias already in c is added before the product is rounded). k == 0 gives
// a zero product. Throws std::invalid_argument for a dtype gemmSupports refuses.
void gemm(const CudaContext& ctx, DType type, const GemmDims& dims, const void* a, const void* b, void* c,
          bool accumulate = false);

}  // namespace cuda
}  // namespace ampstudio
