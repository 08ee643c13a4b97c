// CUDA kernel of LayerNorm, with the semantics of the CPU's (cpu_layer_norm_kernels.cpp): the same
// attributes (backend/kernel_params.h), outputs and gradient formulas. Host side only; the device code
// is cuda_layer_norm_kernels.cu.
#include <algorithm>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_layer_norm_launchers.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

// Outputs 1 and 2 (mean, std) when present; the f32 statistics of the last forward are kept for
// backward in device buffers of the kernel's own, since the outputs may be rounded to f16.
class LayerNormKernel final : public CudaKernel {
public:
    LayerNormKernel(const KernelSetup& setup, CudaBackend& backend) {
        const LayerNormParams p = layerNormParams(setup);
        m_shape.outer = p.layout.outer;
        m_shape.channels = p.layout.channels;
        m_shape.inner = p.layout.inner;
        m_eps = p.eps;
        const int64_t slices = std::max<int64_t>(m_shape.outer * m_shape.inner, 1);
        m_mean = backend.allocate({slices}, DType::F32);
        m_std = backend.allocate({slices}, DType::F32);
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        const bool statistics = out.size() > 2;
        cuda::layerNormForward(m_shape, m_eps, in[0].data(), in[1].data(), in[2].data(), out[0].data(),
                               m_mean.data<float>(), m_std.data<float>(),
                               statistics ? out[1].data() : nullptr, statistics ? out[2].data() : nullptr,
                               in[0].dtype(), ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        cuda::layerNormBackward(m_shape, in[0].data(), in[1].data(), outGrad[0].data(), m_mean.data<float>(),
                                m_std.data<float>(), inGrad[0].data(), inGrad[1].data(), inGrad[2].data(),
                                in[0].dtype(), ctx.stream);
    }

private:
    cuda::LayerNormShape m_shape;
    float m_eps = 1e-5f;
    Tensor m_mean, m_std;
};

}  // namespace

void addCudaLayerNormKernels(CudaKernelTable& table) {
    table.add("LayerNorm", [](const KernelSetup& setup, CudaBackend& backend) -> std::unique_ptr<CudaKernel> {
        requireOneFloatType(setup);
        return std::make_unique<LayerNormKernel>(setup, backend);
    });
}

}  // namespace ampstudio
