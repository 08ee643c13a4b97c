#pragma once
// What the cuDNN kernels (convolution, batch norm, pooling, activation, softmax) share: owning
// wrappers of cuDNN's descriptors, so a kernel that throws halfway through its constructor leaks
// nothing, the engine's dtypes in cuDNN's terms, and NCHW descriptors from engine shapes. Every
// kernel works on plain row-major NCHW views: data of another rank is viewed as 4-D first
// (BatchNorm and softmax as (outer, C, inner, 1)).
#include <cudnn.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "backend/cuda/cuda_check.h"
#include "backend/kernel_params.h"
#include "ops/op_attrs.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace ampstudio::cudnn {

// cuDNN's alpha and beta for float, half and bfloat16 data are floats (doubles only for double data).
inline constexpr float kOne = 1.0f;
inline constexpr float kZero = 0.0f;

// The storage type of f32, f16 and bf16 tensors; anything else is the node's error.
inline cudnnDataType_t dataType(const OpAttrs& attrs, DType type) {
    switch (type) {
        case DType::F32: return CUDNN_DATA_FLOAT;
        case DType::F16: return CUDNN_DATA_HALF;
        case DType::BF16: return CUDNN_DATA_BFLOAT16;
        default: break;
    }
    attrs.fail("the CUDA backend cannot run this op on " + std::string(dtypeName(type)) + " data");
}

// cuDNN's dimensions are ints.
inline int dim(const OpAttrs& attrs, int64_t v) {
    if (v < 0 || v > std::numeric_limits<int>::max()) {
        attrs.fail("dimension " + std::to_string(v) + " is too large for cuDNN");
    }
    return static_cast<int>(v);
}

// One cuDNN descriptor, created by Create, destroyed by Destroy; movable, not copyable.
template <typename Handle, cudnnStatus_t (*Create)(Handle*), cudnnStatus_t (*Destroy)(Handle)>
class Descriptor {
public:
    Descriptor() { cudnnCheck(Create(&m_handle), "creating a descriptor"); }
    ~Descriptor() {
        if (m_handle != nullptr) {
            Destroy(m_handle);
        }
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    Descriptor(Descriptor&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
    Descriptor& operator=(Descriptor&& other) noexcept {
        std::swap(m_handle, other.m_handle);
        return *this;
    }

    Handle get() const { return m_handle; }
    operator Handle() const { return m_handle; }  // NOLINT: passed straight to cuDNN calls

private:
    Handle m_handle = nullptr;
};

using TensorDesc = Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDesc =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;
using PoolingDesc = Descriptor<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;
using ActivationDesc =
    Descriptor<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor, cudnnDestroyActivationDescriptor>;

using Dims4 = std::array<int64_t, 4>;

// A packed NCHW tensor of n x c x h x w.
inline TensorDesc tensor4d(const OpAttrs& attrs, cudnnDataType_t type, const Dims4& d) {
    TensorDesc desc;
    cudnnCheck(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, type, dim(attrs, d[0]), dim(attrs, d[1]),
                                          dim(attrs, d[2]), dim(attrs, d[3])),
               "setting a tensor descriptor");
    return desc;
}

// A 4-D engine shape as a packed NCHW tensor (the nn ops' shapes were checked to be 4-D).
inline TensorDesc tensor4d(const OpAttrs& attrs, cudnnDataType_t type, const Shape& s) {
    if (s.size() != 4) {
        attrs.fail("cuDNN needs 4-D NCHW data, got " + shapeString(s));
    }
    return tensor4d(attrs, type, Dims4{s[0], s[1], s[2], s[3]});
}

// The data as (outer, C, inner, 1) around its axis: cuDNN's channel axis is then the engine's axis,
// with no copy, for any rank.
inline Dims4 channelView(const AxisLayout& l) { return Dims4{l.outer, l.channels, l.inner, 1}; }

// The per-channel (1, C, 1, 1) tensor that biases, BatchNorm's scale and statistics use.
inline TensorDesc channelTensor(const OpAttrs& attrs, cudnnDataType_t type, int64_t channels) {
    return tensor4d(attrs, type, Dims4{1, channels, 1, 1});
}

}  // namespace ampstudio::cudnn
