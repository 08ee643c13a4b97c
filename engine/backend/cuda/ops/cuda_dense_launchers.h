#pragma once
// Launchers of the dense ops' own device code (cuda_dense_kernels.cu); their matrix products go
// through cuda_gemm.h. Data of `type` (f32, f16, bf16) is summed in f32 and rounded once on store;
// Embedding's indices are of `indexType`, any dtype the backend holds, read as floats as the CPU
// reads them. C++17 (nvcc compiles it in the .cu).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// out (rows, cols) = bias (cols) in every row: FullyConnected's bias, placed before the product
// accumulates onto it.
void broadcastRows(const void* bias, void* out, DType type, int64_t rows, int64_t cols, cudaStream_t stream);

// sum (cols) = the sum over the rows of x (rows, cols), in f32 and in a fixed order (the same bits
// every run): FullyConnected's bias gradient. The workspace holds the partial sums of long columns.
std::size_t columnSumWorkspaceBytes(int64_t rows, int64_t cols);
void columnSum(const void* x, void* sum, DType type, int64_t rows, int64_t cols, void* workspace,
               cudaStream_t stream);

// Embedding over `count` indices into a weight of (rows, dim): out[i] = weight[row(index[i])], where
// row truncates toward zero and clips into [0, rows - 1] (NaN to 0), as the CPU does.
void embeddingForward(const void* index, DType indexType, const void* weight, void* out, DType type,
                      int64_t count, int64_t rows, int64_t dim, cudaStream_t stream);

// weightGrad (rows, dim) = for each row, the sum of the outGrad rows of the indices that select it
// (zero for rows none selects), each sum taken in f32 in index order, as the CPU's loop adds them:
// the indices are stably sorted by row, then every selected row is summed by one thread per column.
std::size_t embeddingBackwardWorkspaceBytes(int64_t count, int64_t rows);
void embeddingBackward(const void* index, DType indexType, const void* outGrad, void* weightGrad, DType type,
                       int64_t count, int64_t rows, int64_t dim, void* workspace, cudaStream_t stream);

}  // namespace ampstudio::cuda
