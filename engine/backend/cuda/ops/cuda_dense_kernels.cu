// Device code of the dense ops besides their GEMMs: FullyConnected's bias broadcast and bias gradient,
// and Embedding's gather and its weight gradient. Values of f16/bf16 tensors are summed in f32 and
// rounded once. Nothing here uses atomics, so every result is the same bits on every run; Embedding's
// weight gradient even adds in the CPU's order (a stable sort by row keeps each row's indices in
// their original order), so in f32 it matches the CPU bit for bit.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_dense_launchers.h"

namespace ampstudio::cuda {
namespace {

// Column sums: a block covers 32 adjacent columns (coalesced rows) with 8 threads down each, over one
// chunk of rows; long columns are split into chunks whose partial sums a second pass adds in order.
constexpr int kSumCols = 32;
constexpr int kSumRowThreads = kThreads / kSumCols;
constexpr int64_t kRowsPerChunk = 1024;
constexpr int64_t kMaxChunks = 65535;  // gridDim.y

int64_t sumChunks(int64_t rows) {
    return std::min<int64_t>((rows + kRowsPerChunk - 1) / kRowsPerChunk, kMaxChunks);
}

template <typename T>
__global__ void broadcastRowsKernel(const T* bias, T* out, int64_t rows, int64_t cols) {
    AMS_GRID_STRIDE(i, rows * cols) {
        out[i] = bias[i % cols];
    }
}

// out[chunk * cols + col] = the sum of column col over the chunk's rows (Out: T for the final sum,
// float for a partial one).
template <typename T, typename Out>
__global__ void columnSumKernel(const T* x, Out* out, int64_t rows, int64_t cols, int64_t rowsPerChunk) {
    __shared__ float partial[kSumRowThreads][kSumCols];
    const int64_t col = blockIdx.x * int64_t(kSumCols) + threadIdx.x;
    const int64_t begin = blockIdx.y * rowsPerChunk;
    const int64_t end = begin + rowsPerChunk < rows ? begin + rowsPerChunk : rows;
    float sum = 0.0f;
    if (col < cols) {
        for (int64_t r = begin + threadIdx.y; r < end; r += kSumRowThreads) {
            sum += toFloat<T>(x[r * cols + col]);
        }
    }
    partial[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && col < cols) {
        float total = 0.0f;
        for (int y = 0; y < kSumRowThreads; ++y) {
            total += partial[y][threadIdx.x];
        }
        out[blockIdx.y * cols + col] = fromFloat<Out>(total);
    }
}

template <typename T>
__global__ void sumPartialColumnsKernel(const float* partials, T* sum, int64_t chunks, int64_t cols) {
    AMS_GRID_STRIDE(col, cols) {
        float total = 0.0f;
        for (int64_t c = 0; c < chunks; ++c) {
            total += partials[c * cols + col];
        }
        sum[col] = fromFloat<T>(total);
    }
}

// The CPU's EmbeddingKernel::row: compared as floats first, so huge values and NaN cannot overflow
// the conversion.
template <typename I>
__device__ __forceinline__ int64_t embeddingRow(I raw, int64_t rows) {
    const float index = toFloat<I>(raw);
    if (!(index > 0.0f)) {
        return 0;
    }
    if (index >= static_cast<float>(rows - 1)) {
        return rows - 1;
    }
    return static_cast<int64_t>(index);
}

template <typename I, typename T>
__global__ void embeddingForwardKernel(const I* index, const T* weight, T* out, int64_t count, int64_t rows,
                                       int64_t dim) {
    AMS_GRID_STRIDE(e, count * dim) {
        const int64_t i = e / dim;
        out[e] = weight[embeddingRow(index[i], rows) * dim + (e - i * dim)];
    }
}

template <typename I>
__global__ void embeddingKeysKernel(const I* index, uint64_t* rowOf, int64_t* position, int64_t count,
                                    int64_t rows) {
    AMS_GRID_STRIDE(i, count) {
        rowOf[i] = static_cast<uint64_t>(embeddingRow(index[i], rows));
        position[i] = i;
    }
}

// One thread per (sorted position, column); the thread at the first position of a row's run sums the
// run for its column.
template <typename T>
__global__ void embeddingRowSumKernel(const uint64_t* sortedRow, const int64_t* sortedPosition,
                                      const T* outGrad, T* weightGrad, int64_t count, int64_t dim) {
    AMS_GRID_STRIDE(e, count * dim) {
        const int64_t p = e / dim;
        const int64_t col = e - p * dim;
        const uint64_t row = sortedRow[p];
        if (p > 0 && sortedRow[p - 1] == row) {
            continue;
        }
        float sum = 0.0f;
        for (int64_t q = p; q < count && sortedRow[q] == row; ++q) {
            sum += toFloat<T>(outGrad[sortedPosition[q] * dim + col]);
        }
        weightGrad[static_cast<int64_t>(row) * dim + col] = fromFloat<T>(sum);
    }
}

// Radix sort over the bits a row number can have.
int rowBits(int64_t rows) {
    int bits = 1;
    while (bits < 63 && (int64_t{1} << bits) < rows) {
        ++bits;
    }
    return bits;
}

constexpr std::size_t kAlign = 256;

std::size_t alignUp(std::size_t bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
}

// The backward workspace: row keys and positions, unsorted and sorted, then CUB's scratch.
struct EmbeddingScratch {
    uint64_t* rowOf = nullptr;
    uint64_t* sortedRow = nullptr;
    int64_t* position = nullptr;
    int64_t* sortedPosition = nullptr;
    void* sortTemp = nullptr;
    std::size_t sortTempBytes = 0;
    std::size_t totalBytes = 0;
};

EmbeddingScratch embeddingScratch(int64_t count, int64_t rows, void* base) {
    EmbeddingScratch s;
    cudaCheck(cub::DeviceRadixSort::SortPairs(nullptr, s.sortTempBytes, s.rowOf, s.sortedRow, s.position,
                                              s.sortedPosition, count, 0, rowBits(rows)),
              "size the Embedding gradient's sort");
    const std::size_t arrayBytes = alignUp(static_cast<std::size_t>(count) * sizeof(uint64_t));
    auto* p = static_cast<char*>(base);
    if (p != nullptr) {
        s.rowOf = reinterpret_cast<uint64_t*>(p);
        s.sortedRow = reinterpret_cast<uint64_t*>(p + arrayBytes);
        s.position = reinterpret_cast<int64_t*>(p + 2 * arrayBytes);
        s.sortedPosition = reinterpret_cast<int64_t*>(p + 3 * arrayBytes);
        s.sortTemp = p + 4 * arrayBytes;
    }
    s.totalBytes = 4 * arrayBytes + alignUp(s.sortTempBytes);
    return s;
}

}  // namespace

void broadcastRows(const void* bias, void* out, DType type, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (rows * cols == 0) {
        return;
    }
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        broadcastRowsKernel<T><<<gridFor(rows * cols), kThreads, 0, stream>>>(
            static_cast<const T*>(bias), static_cast<T*>(out), rows, cols);
    });
    checkLaunch("broadcast the bias");
}

std::size_t columnSumWorkspaceBytes(int64_t rows, int64_t cols) {
    const int64_t chunks = sumChunks(rows);
    return chunks > 1 ? static_cast<std::size_t>(chunks * cols) * sizeof(float) : 0;
}

void columnSum(const void* x, void* sum, DType type, int64_t rows, int64_t cols, void* workspace,
               cudaStream_t stream) {
    if (cols == 0) {
        return;
    }
    if (rows == 0) {
        cudaCheck(cudaMemsetAsync(sum, 0, static_cast<std::size_t>(cols) * dtypeSize(type), stream),
                  "zero an empty column sum");
        return;
    }
    const int64_t chunks = sumChunks(rows);
    const int64_t rowsPerChunk = (rows + chunks - 1) / chunks;
    const dim3 grid(static_cast<unsigned>((cols + kSumCols - 1) / kSumCols), static_cast<unsigned>(chunks));
    const dim3 block(kSumCols, kSumRowThreads);
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        const T* in = static_cast<const T*>(x);
        if (chunks == 1) {
            columnSumKernel<T, T>
                <<<grid, block, 0, stream>>>(in, static_cast<T*>(sum), rows, cols, rowsPerChunk);
            return;
        }
        auto* partials = static_cast<float*>(workspace);
        columnSumKernel<T, float><<<grid, block, 0, stream>>>(in, partials, rows, cols, rowsPerChunk);
        checkLaunch("sum columns in chunks");
        sumPartialColumnsKernel<T>
            <<<gridFor(cols), kThreads, 0, stream>>>(partials, static_cast<T*>(sum), chunks, cols);
    });
    checkLaunch("sum columns");
}

void embeddingForward(const void* index, DType indexType, const void* weight, void* out, DType type,
                      int64_t count, int64_t rows, int64_t dim, cudaStream_t stream) {
    if (count * dim == 0) {
        return;
    }
    dispatch(indexType, [&](auto indexTag) {
        using I = decltype(indexTag);
        dispatchFloat(type, [&](auto tag) {
            using T = decltype(tag);
            embeddingForwardKernel<I, T><<<gridFor(count * dim), kThreads, 0, stream>>>(
                static_cast<const I*>(index), static_cast<const T*>(weight), static_cast<T*>(out), count,
                rows, dim);
        });
    });
    checkLaunch("gather embedding rows");
}

std::size_t embeddingBackwardWorkspaceBytes(int64_t count, int64_t rows) {
    return count == 0 ? 0 : embeddingScratch(count, rows, nullptr).totalBytes;
}

void embeddingBackward(const void* index, DType indexType, const void* outGrad, void* weightGrad, DType type,
                       int64_t count, int64_t rows, int64_t dim, void* workspace, cudaStream_t stream) {
    if (rows * dim == 0) {
        return;
    }
    cudaCheck(cudaMemsetAsync(weightGrad, 0, static_cast<std::size_t>(rows * dim) * dtypeSize(type), stream),
              "zero the embedding gradient");
    if (count == 0) {
        return;
    }
    const EmbeddingScratch s = embeddingScratch(count, rows, workspace);
    dispatch(indexType, [&](auto indexTag) {
        using I = decltype(indexTag);
        embeddingKeysKernel<I><<<gridFor(count), kThreads, 0, stream>>>(static_cast<const I*>(index), s.rowOf,
                                                                        s.position, count, rows);
    });
    checkLaunch("find the embedding rows");
    std::size_t sortTempBytes = s.sortTempBytes;
    cudaCheck(cub::DeviceRadixSort::SortPairs(s.sortTemp, sortTempBytes, s.rowOf, s.sortedRow, s.position,
                                              s.sortedPosition, count, 0, rowBits(rows), stream),
              "sort the embedding indices by row");
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        embeddingRowSumKernel<T><<<gridFor(count * dim), kThreads, 0, stream>>>(
            s.sortedRow, s.sortedPosition, static_cast<const T*>(outGrad), static_cast<T*>(weightGrad), count,
            dim);
    });
    checkLaunch("sum the embedding gradient rows");
}

}  // namespace ampstudio::cuda
