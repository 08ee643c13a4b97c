#pragma once
// Device-side helpers shared by the CUDA backend's .cu files (C++17, nvcc only): launch geometry,
// f32 <-> storage conversions with round-to-nearest-even (the CPU reference's rounding,
// tensor/float_convert.h), and dispatch from a DType to the C++ type that stores it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backend/cuda/cuda_check.h"
#include "tensor/dtype.h"

namespace ampstudio::cuda {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements: one per kThreads elements, at most 65535.
inline int gridFor(int64_t n) {
    const int64_t blocks = (n + kThreads - 1) / kThreads;
    return static_cast<int>(std::clamp<int64_t>(blocks, 1, 65535));
}

inline void checkLaunch(const char* what) { cudaCheck(cudaGetLastError(), what); }

// for (i in [0, n)) over the whole grid.
#define AMS_GRID_STRIDE(i, n)                                                          \
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); \
         i += int64_t(blockDim.x) * gridDim.x)

template <typename T>
__device__ __forceinline__ float toFloat(T v) {
    return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float toFloat<__half>(__half v) {
    return __half2float(v);
}
template <>
__device__ __forceinline__ float toFloat<__nv_bfloat16>(__nv_bfloat16 v) {
    return __bfloat162float(v);
}

template <typename T>
__device__ __forceinline__ T fromFloat(float v) {
    return static_cast<T>(v);
}
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) {
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

[[noreturn]] inline void unsupportedType(DType type) {
    throw std::invalid_argument("the CUDA backend cannot compute on " + std::string(dtypeName(type)) + " tensors");
}

// Calls f with a value of the C++ type that stores `type` (every dtype the backend holds).
template <typename F>
void dispatch(DType type, F&& f) {
    switch (type) {
        case DType::F32: f(float{}); return;
        case DType::F16: f(__half{}); return;
        case DType::BF16: f(__nv_bfloat16{}); return;
        case DType::F64: f(double{}); return;
        case DType::I32: f(int32_t{}); return;
        case DType::I64: f(int64_t{}); return;
        case DType::U8: f(uint8_t{}); return;
        case DType::I8: f(int8_t{}); return;
        default: break;
    }
    unsupportedType(type);
}

// The same for the three dtypes ops compute on: f32, f16, bf16.
template <typename F>
void dispatchFloat(DType type, F&& f) {
    switch (type) {
        case DType::F32: f(float{}); return;
        case DType::F16: f(__half{}); return;
        case DType::BF16: f(__nv_bfloat16{}); return;
        default: break;
    }
    unsupportedType(type);
}

}  // namespace ampstudio::cuda
