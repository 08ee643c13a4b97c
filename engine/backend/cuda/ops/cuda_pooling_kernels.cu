// Device code of the Pooling kernel's full-convention path (cuda_pooling_launchers.h): padding and
// cropping copies, and the average's divisor as MXNet defines it.
#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_pooling_launchers.h"

namespace ampstudio::cuda {
namespace {

template <typename In, typename Out>
__global__ void copyPlanesKernel(const In* src, int64_t srcRows, int64_t srcCols, Out* dst, int64_t dstRows,
                                 int64_t dstCols, int64_t n, float fill) {
    AMS_GRID_STRIDE(i, n) {
        const int64_t c = i % dstCols;
        const int64_t r = (i / dstCols) % dstRows;
        const int64_t p = i / (dstCols * dstRows);
        const bool inside = r < srcRows && c < srcCols;
        dst[i] = fromFloat<Out>(inside ? toFloat<In>(src[(p * srcRows + r) * srcCols + c]) : fill);
    }
}

__device__ __forceinline__ int64_t divisorOf(PoolDim d, PoolDivisor divisor, int64_t o) {
    const int64_t start = o * d.stride - d.pad;
    switch (divisor) {
        case PoolDivisor::Window: return min(start + d.kernel, d.size + d.pad) - start;
        case PoolDivisor::Valid: return min(start + d.kernel, d.size) - max(start, int64_t{0});
        default: return 1;
    }
}

template <typename In, typename Out>
__global__ void rescalePooledKernel(const In* src, Out* dst, int64_t outRows, int64_t outCols, int64_t n, PoolDim rows,
                                    PoolDim cols, PoolDivisor divisor) {
    const float window = static_cast<float>(rows.kernel * cols.kernel);
    AMS_GRID_STRIDE(i, n) {
        const int64_t c = i % outCols;
        const int64_t r = (i / outCols) % outRows;
        const int64_t count = divisorOf(rows, divisor, r) * divisorOf(cols, divisor, c);
        // A window with no input in it (possible only past the input with count_include_pad=False)
        // averages nothing: 0, as the sum over it is.
        const float scale = count > 0 ? window / static_cast<float>(count) : 0.0f;
        dst[i] = fromFloat<Out>(toFloat<In>(src[i]) * scale);
    }
}

}  // namespace

void copyPlanes(const void* src, DType srcType, int64_t srcRows, int64_t srcCols, void* dst, DType dstType,
                int64_t dstRows, int64_t dstCols, int64_t planes, float fill, cudaStream_t stream) {
    const int64_t n = planes * dstRows * dstCols;
    if (n == 0) return;
    dispatchFloat(srcType, [&](auto in) {
        dispatchFloat(dstType, [&](auto out) {
            using In = decltype(in);
            using Out = decltype(out);
            copyPlanesKernel<<<gridFor(n), kThreads, 0, stream>>>(static_cast<const In*>(src), srcRows, srcCols,
                                                                  static_cast<Out*>(dst), dstRows, dstCols, n, fill);
        });
    });
    checkLaunch("copyPlanes");
}

void rescalePooled(const void* src, DType srcType, void* dst, DType dstType, int64_t planes, int64_t outRows,
                   int64_t outCols, PoolDim rows, PoolDim cols, PoolDivisor divisor, cudaStream_t stream) {
    const int64_t n = planes * outRows * outCols;
    if (n == 0) return;
    dispatchFloat(srcType, [&](auto in) {
        dispatchFloat(dstType, [&](auto out) {
            using In = decltype(in);
            using Out = decltype(out);
            rescalePooledKernel<<<gridFor(n), kThreads, 0, stream>>>(
                static_cast<const In*>(src), static_cast<Out*>(dst), outRows, outCols, n, rows, cols, divisor);
        });
    });
    checkLaunch("rescalePooled");
}

}  // namespace ampstudio::cuda
