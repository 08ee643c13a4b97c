#pragma once
// Launchers of the shape ops' device code (cuda_shape_kernels.cu). Shape ops move elements without
// computing on them, so they copy raw elements of `elementBytes` (1, 2, 4 or 8) whatever the dtype:
// the CPU's round trip through f32 gives the same values. C++17 (nvcc compiles it in the .cu).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ampstudio::cuda {

// The most dimensions a permutation may have: the CPU reference's limit (DNNL_MAX_NDIMS).
inline constexpr int kMaxPermuteRank = 12;

// Element (i0, .., i[rank-1]) of a `dims`-shaped index space goes from src[sum i_k srcStrides[k]] to
// dst[sum i_k dstStrides[k]] (strides in elements). A transpose reads through the input's permuted
// strides and writes densely; its backward reads densely and writes through the permuted strides.
struct StridedCopy {
    int rank = 0;
    int64_t dims[kMaxPermuteRank] = {};
    int64_t srcStrides[kMaxPermuteRank] = {};
    int64_t dstStrides[kMaxPermuteRank] = {};
};

void stridedCopy(const void* src, void* dst, std::size_t elementBytes, const StridedCopy& geometry,
                 cudaStream_t stream);

// `rows` rows of `rowElems` elements: dst[r * dstPitch + c] = src[r * srcPitch + c] (pitches in
// elements). Concat, SliceChannel and slice_axis are each one of these per part.
void copyRows(const void* src, int64_t srcPitch, void* dst, int64_t dstPitch, int64_t rows, int64_t rowElems,
              std::size_t elementBytes, cudaStream_t stream);

}  // namespace ampstudio::cuda
