#pragma once
// Launchers for the Pooling kernel's own device code (cuda_pooling_kernels.cu): what cuDNN's
// pooling lacks for pooling_convention=full, whose last window may run past the padding (cuDNN
// pads both sides alike and floors the output size). C++17: plain parameters, no engine header
// beyond dtype.h. Every launcher enqueues on `stream` and returns at once.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// dst (planes, dstRows, dstCols) from src (planes, srcRows, srcCols), converting dtypes: the
// top-left overlap of each plane copied, the rest of dst set to `fill`. Pads or crops every plane.
void copyPlanes(const void* src, DType srcType, int64_t srcRows, int64_t srcCols, void* dst, DType dstType,
                int64_t dstRows, int64_t dstCols, int64_t planes, float fill, cudaStream_t stream);

// What an average divides by along one spatial dim (MXNet's pool.h, the CPU reference):
//   Window  the window clipped to the padded input, min(start + k, size + pad) - start
//   Valid   the input positions the window covers, min(start + k, size) - max(start, 0)
//   One     nothing (sum pooling)
enum class PoolDivisor : int { Window, Valid, One };

struct PoolDim {
    int64_t kernel = 1, stride = 1, pad = 0, size = 1;  // size: of the unpadded input
};

// dst = src * (rows.kernel * cols.kernel) / (divisor(r) * divisor(c)) over (planes, outRows, outCols):
// turns an average that divided by the whole window (cuDNN's count-include-padding) into the one
// the divisor names, converting dtypes on the way.
void rescalePooled(const void* src, DType srcType, void* dst, DType dstType, int64_t planes, int64_t outRows,
                   int64_t outCols, PoolDim rows, PoolDim cols, PoolDivisor divisor, cudaStream_t stream);

}  // namespace ampstudio::cuda
