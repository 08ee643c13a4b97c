// BatchNorm on cuDNN's spatial batch normalization, mirroring the CPU kernel
// (cpu_batch_norm_kernels.cpp, MXNet 1.9.1 batch_norm.cc). The data is viewed as (outer, C, inner, 1)
// around `axis`, so any axis is cuDNN's channel axis with no copy.
//   Training without use_global_stats: cuDNN's batch mean and biased variance normalise; the moving
//   statistics (mutable inputs 3, 4) become moving * momentum + batch * (1 - momentum). cuDNN's own
//   running update would keep the variance unbiased, so it writes the batch statistics to scratch
//   instead (factor 1) and our kernel applies MXNet's update with the biased variance.
//   Otherwise: the moving statistics normalise (cuDNN's inference) and stay as they are; backward
//   is then a per-channel scale, which cuDNN has no call for (our kernel).
// Outputs 1 and 2, when the node has them, hold the mean used and 1/sqrt(var + eps), as MXNet's.
// fix_gamma (default True) uses gamma = 1 and gives gamma a zero gradient; the moving statistics
// get zero gradients. Parameters and statistics are f32 (the op registry's dtype rule, which cuDNN
// requires for f16/bf16 data too); a parameter of another dtype is converted in and out.
#include <cmath>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_batch_norm_launchers.h"
#include "backend/cuda/ops/cuda_cudnn.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using cudnn::kOne;
using cudnn::kZero;

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

// `t` as f32: itself, or a converted copy (valid until the stream has run the kernel).
Tensor asF32(const CudaContext& ctx, const Tensor& t) {
    if (t.dtype() == DType::F32) {
        return t;
    }
    Tensor copy = ctx.backend.allocate(t.shape(), DType::F32);
    cuda::convert(t.data(), t.dtype(), copy.data(), DType::F32, t.size(), ctx.stream);
    return copy;
}

// dst = src (f32), in dst's dtype.
void store(const CudaContext& ctx, const Tensor& src, const Tensor& dst) {
    if (src.data() == dst.data()) {
        return;
    }
    if (dst.dtype() == DType::F32) {
        cudaCheck(cudaMemcpyAsync(dst.data(), src.data(), dst.bytes(), cudaMemcpyDeviceToDevice, ctx.stream),
                  "copying BatchNorm statistics");
    } else {
        cuda::convert(src.data(), DType::F32, dst.data(), dst.dtype(), dst.size(), ctx.stream);
    }
}

class BatchNormKernel final : public CudaKernel {
public:
    BatchNormKernel(const KernelSetup& setup, CudaBackend& backend) {
        const OpAttrs attrs(setup.node);  // for the cuDNN helpers' errors
        const BatchNormParams p = batchNormParams(setup);
        // The CPU normalises with eps rounded to f32; so does this.
        m_eps = p.eps;
        m_momentum = p.momentum;
        m_fixGamma = p.fixGamma;
        m_globalStats = p.useGlobalStats;
        if (m_eps < CUDNN_BN_MIN_EPSILON) {
            attrs.fail("eps " + std::to_string(m_eps) + " is below cuDNN's minimum " +
                       std::to_string(CUDNN_BN_MIN_EPSILON));
        }
        for (std::size_t i = 1; i < setup.inTypes.size(); ++i) {
            cudnn::dataType(attrs, setup.inTypes[i]);  // f32, f16, bf16 only
        }
        const cudnn::Dims4 view = cudnn::channelView(p.layout);
        m_outer = view[0];
        m_channels = view[1];
        m_inner = view[2];
        m_data = cudnn::tensor4d(attrs, cudnn::dataType(attrs, setup.inTypes[0]), view);
        m_stat = cudnn::channelTensor(attrs, CUDNN_DATA_FLOAT, m_channels);

        const Shape channels{m_channels};
        auto vector = [&] { return backend.allocate(channels, DType::F32); };
        m_ones = vector();
        backend.fill(m_ones, 1.0f);
        m_mean = vector();
        m_invStd = vector();
        m_batchMean = vector();
        m_batchVar = vector();
        m_gammaGrad = vector();
        m_betaGrad = vector();
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        m_usedBatch = ctx.exec.training && !m_globalStats;
        const Tensor gamma = m_fixGamma ? m_ones : asF32(ctx, in[1]);
        const Tensor beta = asF32(ctx, in[2]);
        const Tensor movingMean = asF32(ctx, in[3]);
        const Tensor movingVar = asF32(ctx, in[4]);
        if (m_usedBatch) {
            // cuDNN blends its "running" outputs with what they held: zero them so factor 1 gives the
            // batch statistics alone (0 * NaN would not).
            cudaCheck(cudaMemsetAsync(m_batchMean.data(), 0, m_batchMean.bytes(), ctx.stream),
                      "clearing the batch mean");
            cudaCheck(cudaMemsetAsync(m_batchVar.data(), 0, m_batchVar.bytes(), ctx.stream),
                      "clearing the batch variance");
            cudnnCheck(cudnnBatchNormalizationForwardTraining(
                           ctx.cudnn, kMode, &kOne, &kZero, m_data, in[0].data(), m_data, out[0].data(), m_stat,
                           gamma.data(), beta.data(), 1.0, m_batchMean.data(), m_batchVar.data(), m_eps,
                           m_mean.data(), m_invStd.data()),
                       "running the batch normalization");
            cuda::updateMovingStatistics(movingMean.data<float>(), movingVar.data<float>(), m_mean.data<float>(),
                                         m_batchVar.data<float>(), m_channels, m_outer * m_inner, m_momentum,
                                         ctx.stream);
            store(ctx, movingMean, in[3]);
            store(ctx, movingVar, in[4]);
        } else {
            cudnnCheck(cudnnBatchNormalizationForwardInference(ctx.cudnn, kMode, &kOne, &kZero, m_data, in[0].data(),
                                                               m_data, out[0].data(), m_stat, gamma.data(),
                                                               beta.data(), movingMean.data(), movingVar.data(),
                                                               m_eps),
                       "running the batch normalization");
            store(ctx, movingMean, m_mean);
            cuda::inverseStd(movingVar.data<float>(), static_cast<float>(m_eps), m_invStd.data<float>(), m_channels,
                             ctx.stream);
        }
        if (out.size() > 2) {
            store(ctx, m_mean, out[1]);
            store(ctx, m_invStd, out[2]);
        }
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        const Tensor gamma = m_fixGamma ? m_ones : asF32(ctx, in[1]);
        // The parameter gradients land in f32 scratch unless the wanted tensor is itself f32.
        const bool wantGamma = inGrad[1].defined() && !m_fixGamma;
        const bool wantBeta = inGrad[2].defined();
        const Tensor gammaGrad = wantGamma && inGrad[1].dtype() == DType::F32 ? inGrad[1] : m_gammaGrad;
        const Tensor betaGrad = wantBeta && inGrad[2].dtype() == DType::F32 ? inGrad[2] : m_betaGrad;
        if (m_usedBatch) {
            const Tensor dx = inGrad[0].defined() ? inGrad[0] : ctx.backend.allocate(in[0].shape(), in[0].dtype());
            cudnnCheck(cudnnBatchNormalizationBackward(ctx.cudnn, kMode, &kOne, &kZero, &kOne, &kZero, m_data,
                                                       in[0].data(), m_data, outGrad[0].data(), m_data, dx.data(),
                                                       m_stat, gamma.data(), gammaGrad.data(), betaGrad.data(), m_eps,
                                                       m_mean.data(), m_invStd.data()),
                       "running the batch normalization backward");
        } else {
            cuda::batchNormFrozenBackward(in[0].data(), outGrad[0].data(), inGrad[0].data(), in[0].dtype(),
                                          gamma.data<float>(), m_mean.data<float>(), m_invStd.data<float>(),
                                          wantGamma ? gammaGrad.data<float>() : nullptr,
                                          wantBeta ? betaGrad.data<float>() : nullptr, m_outer, m_channels, m_inner,
                                          ctx.stream);
        }
        if (inGrad[1].defined()) {
            if (m_fixGamma) {
                ctx.backend.fill(inGrad[1], 0.0f);
            } else {
                store(ctx, gammaGrad, inGrad[1]);
            }
        }
        if (wantBeta) {
            store(ctx, betaGrad, inGrad[2]);
        }
        // The moving statistics are auxiliary states: zero if a gradient is asked for.
        for (std::size_t i = 3; i < inGrad.size(); ++i) {
            if (inGrad[i].defined()) {
                ctx.backend.fill(inGrad[i], 0.0f);
            }
        }
    }

private:
    double m_eps = 1e-3;
    float m_momentum = 0.9f;
    bool m_fixGamma = true, m_globalStats = false, m_usedBatch = false;
    int64_t m_outer = 1, m_channels = 1, m_inner = 1;
    cudnn::TensorDesc m_data, m_stat;
    Tensor m_ones;
    // The mean and inverse standard deviation forward normalised with, for backward.
    Tensor m_mean, m_invStd;
    // cuDNN's batch statistics (the variance unbiased) and scratch for gradients nobody wants.
    Tensor m_batchMean, m_batchVar, m_gammaGrad, m_betaGrad;
};

}  // namespace

void addCudaBatchNormKernels(CudaKernelTable& table) {
    table.add("BatchNorm", [](const KernelSetup& setup, CudaBackend& backend) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<BatchNormKernel>(setup, backend);
    });
}

}  // namespace ampstudio
