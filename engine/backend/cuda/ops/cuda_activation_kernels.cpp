// Activation, softmax and log_softmax, mirroring the CPU kernels (cpu_activation_kernels.cpp).
// Activation: relu, sigmoid and tanh on cuDNN (relu maps NaN to 0, as the CPU's x > 0 ? x : 0
// does); softrelu and softsign, which cuDNN lacks, on our own kernels.
// softmax / log_softmax over `axis`: the data viewed as (outer, axis, inner, 1), so cuDNN's
// channel mode normalises exactly that axis with no copy; cuDNN's accurate softmax subtracts the
// maximum as the CPU does. A temperature T != 1 divides the input first: in an f32 copy, normalised by
// cuDNN in f32 and rounded once to the storage type, as the CPU computes it; backward is cuDNN's
// with alpha = 1/T (softmax-inl.h's gradient of softmax(x / T)).
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_activation_launchers.h"
#include "backend/cuda/ops/cuda_cudnn.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using cudnn::kOne;
using cudnn::kZero;

// The element-wise ops see their data as one flat (1, 1, 1, n) tensor.
cudnn::TensorDesc flatTensor(const OpAttrs& attrs, DType type, int64_t n) {
    return cudnn::tensor4d(attrs, cudnn::dataType(attrs, type), cudnn::Dims4{1, 1, 1, n});
}

class CudnnActivationKernel final : public CudaKernel {
public:
    CudnnActivationKernel(const KernelSetup& setup, cudnnActivationMode_t mode)
        : m_data(flatTensor(OpAttrs(setup.node), setup.inTypes[0], shapeSize(setup.inShapes[0]))) {
        cudnnCheck(cudnnSetActivationDescriptor(m_activation, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0),
                   "setting the activation descriptor");
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        cudnnCheck(cudnnActivationForward(ctx.cudnn, m_activation, &kOne, m_data, in[0].data(), &kZero, m_data,
                                          out[0].data()),
                   "running the activation");
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        cudnnCheck(cudnnActivationBackward(ctx.cudnn, m_activation, &kOne, m_data, out[0].data(), m_data,
                                           outGrad[0].data(), m_data, in[0].data(), &kZero, m_data, inGrad[0].data()),
                   "running the activation backward");
    }

private:
    cudnn::TensorDesc m_data;
    cudnn::ActivationDesc m_activation;
};

std::unique_ptr<CudaKernel> makeSoftActivation(const KernelSetup& setup, cuda::SoftActivation f) {
    const OpAttrs attrs(setup.node);
    cudnn::dataType(attrs, setup.inTypes[0]);  // f32, f16, bf16 only
    return makeLambdaCudaKernel(
        [f](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            cuda::softActivationForward(f, in[0].data(), out[0].data(), in[0].dtype(), in[0].size(), ctx.stream);
        },
        [f](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
            std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            if (inGrad[0].defined()) {
                cuda::softActivationBackward(f, in[0].data(), outGrad[0].data(), inGrad[0].data(), in[0].dtype(),
                                             in[0].size(), ctx.stream);
            }
        });
}

std::unique_ptr<CudaKernel> makeActivation(const KernelSetup& setup, CudaBackend&) {
    switch (activationType(setup.node)) {
        case ActivationType::Relu: return std::make_unique<CudnnActivationKernel>(setup, CUDNN_ACTIVATION_RELU);
        case ActivationType::Sigmoid: return std::make_unique<CudnnActivationKernel>(setup, CUDNN_ACTIVATION_SIGMOID);
        case ActivationType::Tanh: return std::make_unique<CudnnActivationKernel>(setup, CUDNN_ACTIVATION_TANH);
        case ActivationType::SoftRelu: return makeSoftActivation(setup, cuda::SoftActivation::SoftRelu);
        case ActivationType::SoftSign: break;
    }
    return makeSoftActivation(setup, cuda::SoftActivation::SoftSign);
}

class SoftmaxKernel final : public CudaKernel {
public:
    SoftmaxKernel(const KernelSetup& setup, bool log) : m_algorithm(log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE) {
        const OpAttrs attrs(setup.node);  // for the cuDNN helpers' errors
        const SoftmaxParams p = softmaxParams(setup);
        m_type = setup.inTypes[0];
        const cudnn::Dims4 view = cudnn::channelView(p.layout);
        m_data = cudnn::tensor4d(attrs, cudnn::dataType(attrs, m_type), view);
        m_invTemperature = p.invTemperature;
        if (m_invTemperature != 1.0f) {
            m_scaled = cudnn::tensor4d(attrs, CUDNN_DATA_FLOAT, view);
        }
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        const Tensor& x = in[0];
        const Tensor& y = out[0];
        if (m_invTemperature == 1.0f) {
            cudnnCheck(cudnnSoftmaxForward(ctx.cudnn, m_algorithm, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, m_data, x.data(),
                                           &kZero, m_data, y.data()),
                       "running the softmax");
            return;
        }
        // x / T and its softmax in f32, then rounded once into y.
        const Tensor scaled = ctx.backend.allocate(x.shape(), DType::F32);
        cuda::scaleInto(x.data(), m_type, scaled.data(), DType::F32, m_invTemperature, x.size(), ctx.stream);
        const bool direct = m_type == DType::F32;
        const Tensor result = direct ? y : ctx.backend.allocate(x.shape(), DType::F32);
        cudnnCheck(cudnnSoftmaxForward(ctx.cudnn, m_algorithm, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, m_scaled,
                                       scaled.data(), &kZero, m_scaled, result.data()),
                   "running the softmax");
        if (!direct) {
            cuda::convert(result.data(), DType::F32, y.data(), m_type, y.size(), ctx.stream);
        }
    }

    void backward(const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        cudnnCheck(cudnnSoftmaxBackward(ctx.cudnn, m_algorithm, CUDNN_SOFTMAX_MODE_CHANNEL, &m_invTemperature, m_data,
                                        out[0].data(), m_data, outGrad[0].data(), &kZero, m_data, inGrad[0].data()),
                   "running the softmax backward");
    }

private:
    cudnnSoftmaxAlgorithm_t m_algorithm;
    DType m_type = DType::F32;
    float m_invTemperature = 1.0f;
    cudnn::TensorDesc m_data, m_scaled;
};

}  // namespace

void addCudaActivationKernels(CudaKernelTable& table) {
    table.add("Activation", makeActivation);
    table.add("softmax", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<SoftmaxKernel>(setup, false);
    });
    table.add("log_softmax", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<SoftmaxKernel>(setup, true);
    });
}

}  // namespace ampstudio
