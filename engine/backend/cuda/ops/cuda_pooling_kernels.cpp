// Pooling on cuDNN, mirroring the CPU kernel (cpu_pooling_kernels.cpp) and MXNet's pool.h:
//   max                          cuDNN max (the deterministic variant, so backward is reproducible)
//   avg, count_include_pad=True  divided by the window clipped to the padded input
//   avg, count_include_pad=False divided by the input positions the window covers
//   sum                          the window's sum
// With pooling_convention=valid (or full when it gives the same size) every window lies within
// the padded input, so cuDNN's own modes are exact: count-include-padding divides by kh*kw, which
// is then MXNet's divisor, count-exclude-padding by the covered positions, and a sum is that
// average times kh*kw (alpha). Where full adds a last window that runs past the padding, cuDNN
// (symmetric padding, floored output) cannot express it: the data is copied into an f32 buffer
// extended on the bottom and right (-inf for max, 0 otherwise) so that cuDNN's floored windows
// are MXNet's, pooled with count-include-padding, and each average rescaled to MXNet's divisor
// while rounding to the storage type once; backward runs the same way and crops the gradient.
//
// A max pool's hidden second output (MXNet's workspace) is a copy of the first, as on the CPU.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_cudnn.h"
#include "backend/cuda/ops/cuda_pooling_launchers.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using cudnn::kOne;
using cudnn::kZero;

class PoolingKernel final : public CudaKernel {
public:
    PoolingKernel(const KernelSetup& setup, CudaBackend& backend) {
        const OpAttrs attrs(setup.node);  // for the cuDNN helpers' errors
        const Shape& data = setup.inShapes[0];
        const Shape& outShape = setup.outShapes[0];
        if (data.size() != 4 || outShape.size() != 4) {
            attrs.fail("cuDNN pooling needs 4-D NCHW data, got " + shapeString(data));
        }
        const PoolingParams p = poolingParams(setup);
        const Pair& kernel = p.kernel;
        const Pair& stride = p.stride;
        const Pair& pad = p.pad;
        for (std::size_t i = 0; i < 2; ++i) {
            // A window wholly in the padding, which the CPU's oneDNN refuses as well.
            if (pad[i] >= kernel[i]) {
                attrs.fail("pad " + std::to_string(pad[i]) + " must be smaller than the kernel " +
                           std::to_string(kernel[i]));
            }
        }
        m_max = p.type == PoolType::Max;
        m_type = setup.inTypes[0];
        m_planes = data[0] * data[1];
        m_inRows = data[2];
        m_inCols = data[3];
        m_outRows = outShape[2];
        m_outCols = outShape[3];
        m_rows = cuda::PoolDim{kernel[0], stride[0], pad[0], data[2]};
        m_cols = cuda::PoolDim{kernel[1], stride[1], pad[1], data[3]};
        m_divisor = p.type == PoolType::Sum ? cuda::PoolDivisor::One
                    : p.countIncludePad      ? cuda::PoolDivisor::Window
                                             : cuda::PoolDivisor::Valid;

        // cuDNN's output size floor((H + 2p - k) / s) + 1; the input extended by `extra` rows makes
        // it the node's (full convention: one more window).
        const int64_t extraRows = std::max<int64_t>(0, (m_outRows - 1) * stride[0] + kernel[0] - 2 * pad[0] - data[2]);
        const int64_t extraCols = std::max<int64_t>(0, (m_outCols - 1) * stride[1] + kernel[1] - 2 * pad[1] - data[3]);
        m_extended = extraRows > 0 || extraCols > 0;

        cudnnPoolingMode_t mode = CUDNN_POOLING_MAX_DETERMINISTIC;
        if (!m_max) {
            mode = m_extended || m_divisor != cuda::PoolDivisor::Valid ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                       : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
        }
        // A sum is the count-include-padding average (kh*kw in every valid-convention window) times kh*kw.
        m_alpha = !m_extended && m_divisor == cuda::PoolDivisor::One ? static_cast<float>(kernel[0] * kernel[1]) : 1.0f;
        cudnnCheck(cudnnSetPooling2dDescriptor(m_pool, mode, CUDNN_PROPAGATE_NAN, cudnn::dim(attrs, kernel[0]),
                                               cudnn::dim(attrs, kernel[1]), cudnn::dim(attrs, pad[0]),
                                               cudnn::dim(attrs, pad[1]), cudnn::dim(attrs, stride[0]),
                                               cudnn::dim(attrs, stride[1])),
                   "setting the pooling descriptor");

        const cudnnDataType_t dataType = m_extended ? CUDNN_DATA_FLOAT : cudnn::dataType(attrs, m_type);
        const Shape xShape{data[0], data[1], data[2] + extraRows, data[3] + extraCols};
        m_x = cudnn::tensor4d(attrs, dataType, xShape);
        m_y = cudnn::tensor4d(attrs, dataType, outShape);
        int n = 0, c = 0, h = 0, w = 0;
        cudnnCheck(cudnnGetPooling2dForwardOutputDim(m_pool, m_x, &n, &c, &h, &w), "computing the pooling output size");
        if (Shape{n, c, h, w} != outShape) {
            attrs.fail("cuDNN's pooling of " + shapeString(xShape) + " gives " + shapeString(Shape{n, c, h, w}) +
                       ", not " + shapeString(outShape));
        }
        if (m_extended) {
            cudnn::dataType(attrs, m_type);  // refuses what the kernels cannot convert
            m_extendedX = backend.allocate(xShape, DType::F32);
            m_extendedGradX = backend.allocate(xShape, DType::F32);
            m_extendedY = backend.allocate(outShape, DType::F32);
            m_extendedGradY = backend.allocate(outShape, DType::F32);
        }
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        const Tensor& y = out[0];
        if (!m_extended) {
            cudnnCheck(cudnnPoolingForward(ctx.cudnn, m_pool, &m_alpha, m_x, in[0].data(), &kZero, m_y, y.data()),
                       "running the pooling");
        } else {
            cuda::copyPlanes(in[0].data(), m_type, m_inRows, m_inCols, m_extendedX.data(), DType::F32,
                             m_extendedX.shape()[2], m_extendedX.shape()[3], m_planes, m_max ? -INFINITY : 0.0f,
                             ctx.stream);
            cudnnCheck(cudnnPoolingForward(ctx.cudnn, m_pool, &kOne, m_x, m_extendedX.data(), &kZero, m_y,
                                           m_extendedY.data()),
                       "running the pooling");
            if (m_max) {
                cuda::convert(m_extendedY.data(), DType::F32, y.data(), m_type, y.size(), ctx.stream);
            } else {
                cuda::rescalePooled(m_extendedY.data(), DType::F32, y.data(), m_type, m_planes, m_outRows, m_outCols,
                                    m_rows, m_cols, m_divisor, ctx.stream);
            }
        }
        for (std::size_t k = 1; k < out.size(); ++k) {
            cudaCheck(cudaMemcpyAsync(out[k].data(), y.data(), y.bytes(), cudaMemcpyDeviceToDevice, ctx.stream),
                      "copying the pooling workspace output");
        }
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        const Tensor& dx = inGrad[0];
        if (!dx.defined()) {
            return;
        }
        const Tensor& dy = outGrad[0];
        if (!m_extended) {
            cudnnCheck(cudnnPoolingBackward(ctx.cudnn, m_pool, &m_alpha, m_y, out[0].data(), m_y, dy.data(), m_x,
                                            in[0].data(), &kZero, m_x, dx.data()),
                       "running the pooling backward");
            return;
        }
        // m_extendedX and m_extendedY still hold what the last forward pooled.
        if (m_max) {
            cuda::convert(dy.data(), m_type, m_extendedGradY.data(), DType::F32, dy.size(), ctx.stream);
        } else {
            cuda::rescalePooled(dy.data(), m_type, m_extendedGradY.data(), DType::F32, m_planes, m_outRows, m_outCols,
                                m_rows, m_cols, m_divisor, ctx.stream);
        }
        cudnnCheck(cudnnPoolingBackward(ctx.cudnn, m_pool, &kOne, m_y, m_extendedY.data(), m_y,
                                        m_extendedGradY.data(), m_x, m_extendedX.data(), &kZero, m_x,
                                        m_extendedGradX.data()),
                   "running the pooling backward");
        cuda::copyPlanes(m_extendedGradX.data(), DType::F32, m_extendedGradX.shape()[2], m_extendedGradX.shape()[3],
                         dx.data(), m_type, m_inRows, m_inCols, m_planes, 0.0f, ctx.stream);
    }

private:
    bool m_max = false;
    bool m_extended = false;
    DType m_type = DType::F32;
    float m_alpha = 1.0f;
    int64_t m_planes = 0, m_inRows = 0, m_inCols = 0, m_outRows = 0, m_outCols = 0;
    cuda::PoolDim m_rows, m_cols;
    cuda::PoolDivisor m_divisor = cuda::PoolDivisor::Window;
    cudnn::PoolingDesc m_pool;
    cudnn::TensorDesc m_x, m_y;
    // The full-convention path's f32 buffers: the extended input, its gradient, the output and its gradient.
    Tensor m_extendedX, m_extendedGradX, m_extendedY, m_extendedGradY;
};

}  // namespace

void addCudaPoolingKernels(CudaKernelTable& table) {
    table.add("Pooling", [](const KernelSetup& setup, CudaBackend& backend) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<PoolingKernel>(setup, backend);
    });
}

}  // namespace ampstudio
