// Passes over whole buffers: grid-stride loops over flat memory. Conversions go through f32 registers
// with the CUDA math library's round-to-nearest-even intrinsics, so an f16/bf16 value is exactly what
// the CPU reference (tensor/float_convert.h) produces, inf, NaN and subnormals included.
#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_device.cuh"

namespace ampstudio::cuda {
namespace {

template <typename In, typename Out>
__global__ void convertKernel(const In* src, Out* dst, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dst[i] = fromFloat<Out>(toFloat<In>(src[i])); }
}

template <typename Out>
__global__ void fillKernel(Out* dst, float value, int64_t n) {
    const Out v = fromFloat<Out>(value);
    AMS_GRID_STRIDE(i, n) { dst[i] = v; }
}

template <typename T>
__global__ void addIntoKernel(T* dst, const T* src, int64_t n) {
    AMS_GRID_STRIDE(i, n) { dst[i] = fromFloat<T>(toFloat<T>(dst[i]) + toFloat<T>(src[i])); }
}

template <typename Out>
__global__ void fillFromDeviceKernel(Out* dst, const float* value, int64_t n) {
    const Out v = fromFloat<Out>(*value);
    AMS_GRID_STRIDE(i, n) { dst[i] = v; }
}

}  // namespace

void convert(const void* src, DType srcType, void* dst, DType dstType, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatch(srcType, [&](auto in) {
        dispatch(dstType, [&](auto out) {
            using In = decltype(in);
            using Out = decltype(out);
            convertKernel<In, Out><<<gridFor(n), kThreads, 0, stream>>>(static_cast<const In*>(src), static_cast<Out*>(dst), n);
        });
    });
    checkLaunch("convert");
}

void fill(void* dst, DType type, float value, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatch(type, [&](auto out) {
        using Out = decltype(out);
        fillKernel<Out><<<gridFor(n), kThreads, 0, stream>>>(static_cast<Out*>(dst), value, n);
    });
    checkLaunch("fill");
}

void addInto(void* dst, const void* src, DType type, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatchFloat(type, [&](auto value) {
        using T = decltype(value);
        addIntoKernel<T><<<gridFor(n), kThreads, 0, stream>>>(static_cast<T*>(dst), static_cast<const T*>(src), n);
    });
    checkLaunch("add gradients");
}

void fillFromDevice(void* dst, DType type, const float* value, int64_t n, cudaStream_t stream) {
    if (n == 0) return;
    dispatch(type, [&](auto out) {
        using Out = decltype(out);
        fillFromDeviceKernel<Out><<<gridFor(n), kThreads, 0, stream>>>(static_cast<Out*>(dst), value, n);
    });
    checkLaunch("fill");
}

}  // namespace ampstudio::cuda
