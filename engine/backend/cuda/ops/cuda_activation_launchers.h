#pragma once
// Launchers for the activation family's own device code (cuda_activation_kernels.cu): the two
// Activation types cuDNN lacks, with the CPU reference's formulas (cpu_unary_kernel.h), and
// the scaling softmax's temperature needs. C++17: plain parameters, no engine header beyond
// dtype.h. Every launcher enqueues on `stream` and returns at once.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

enum class SoftActivation : int {
    SoftRelu,  // log(1 + e^x), x itself past 20; d/dx = sigmoid(x)
    SoftSign,  // x / (1 + |x|); d/dx = 1 / (1 + |x|)^2
};

// y = f(x) over n elements of `type` (f32, f16, bf16), computed in f32.
void softActivationForward(SoftActivation f, const void* x, void* y, DType type, int64_t n, cudaStream_t stream);
// dx = dy * f'(x).
void softActivationBackward(SoftActivation f, const void* x, const void* dy, void* dx, DType type, int64_t n,
                            cudaStream_t stream);

// dst = src * factor, element-wise, converting from srcType to dstType (f32, f16, bf16).
void scaleInto(const void* src, DType srcType, void* dst, DType dstType, float factor, int64_t n, cudaStream_t stream);

}  // namespace ampstudio::cuda
