#pragma once
// Host-side launchers of the passes over whole buffers that the backend and many op kernels need
// (cuda_buffer_kernels.cu): dtype conversion, fills, and the adding of a gradient into another. Every
// launcher enqueues on `stream` and returns at once; none synchronises. C++17, because nvcc compiles it
// in the .cu: plain parameters and no engine header beyond dtype.h.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// Element-wise dtype conversion (f32, f16, bf16 round to nearest even; f64 and ints too), n elements.
// Throws std::invalid_argument for a dtype the backend does not compute on.
void convert(const void* src, DType srcType, void* dst, DType dstType, int64_t n, cudaStream_t stream);
void fill(void* dst, DType type, float value, int64_t n, cudaStream_t stream);
// dst += src, element-wise, both of `type` (f32, f16, bf16): added in f32 and rounded once.
void addInto(void* dst, const void* src, DType type, int64_t n, cudaStream_t stream);

// Every element of dst (of `type`) set to *value, a float in device memory.
void fillFromDevice(void* dst, DType type, const float* value, int64_t n, cudaStream_t stream);

}  // namespace ampstudio::cuda
