// CUDA kernels of the loss heads, the CPU's (cpu_loss_kernels.cpp) on the device, with MXNet 1.9.1's
// gradients, each multiplied by the loss scale:
//   SoftmaxOutput      (p - onehot(label)) * grad_scale / norm; norm by `normalization`:
//                      null 1, batch N, valid the count of labels != ignore_label (use_ignore)
//   *RegressionOutput  grad_scale / (label size / N) * (out - label)   (MAE: sign(out - label))
//   MakeLoss           grad_scale / norm everywhere
// They ignore outGrad. A "valid" count that depends on the data is made on the device, in the
// backend's workspace, and read there by the gradient kernel: the host never waits for it.
#include <algorithm>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_loss_launchers.h"
#include "backend/kernel_params.h"
#include "ops/op_attrs.h"

namespace ampstudio {

namespace {

// The data, the output and so the gradient share one dtype the kernels compute on; labels may be of
// any dtype the backend holds.
void requireFloatData(const KernelSetup& setup) {
    const DType type = setup.inTypes[0];
    if (type != DType::F32 && type != DType::F16 && type != DType::BF16) {
        OpAttrs(setup.node)
            .fail("the CUDA backend computes loss heads on float32, float16 and bfloat16 data, not " +
                  std::string(dtypeName(type)));
    }
    if (setup.outTypes[0] != type) {
        OpAttrs(setup.node)
            .fail("output dtype " + std::string(dtypeName(setup.outTypes[0])) + " differs from the data's " +
                  std::string(dtypeName(type)));
    }
}

// The training step's loss scale on the device, when the step has one (else ctx.exec.lossScale holds it).
const float* deviceLossScale(const CudaContext& ctx) {
    const Tensor& t = ctx.exec.lossScaleTensor;
    return t.defined() ? t.data<float>() : nullptr;
}

unsigned long long* validCounter(const CudaContext& ctx) {
    return static_cast<unsigned long long*>(ctx.backend.workspace(sizeof(unsigned long long)));
}

class SoftmaxOutputKernel final : public CudaKernel {
public:
    explicit SoftmaxOutputKernel(const KernelSetup& setup) : m_p(softmaxOutputParams(setup)) {
        requireFloatData(setup);
        m_rows = {m_p.layout.outer, m_p.layout.classes, m_p.layout.inner};
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        cuda::softmaxOutputForward(in[0].data(), out[0].data(), in[0].dtype(), m_rows, ctx.stream);
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor>, std::span<const Tensor> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const int64_t rows = m_rows.outer * m_rows.inner;
        cuda::SoftmaxOutputGrad params;
        params.rows = m_rows;
        params.labelIsDistribution = m_p.labelIsDistribution;
        params.useIgnore = m_p.useIgnore;
        params.ignoreLabel = m_p.ignoreLabel;
        params.onTarget = 1.0f - m_p.smoothAlpha;
        params.offTarget = m_rows.classes > 1 ? m_p.smoothAlpha / static_cast<float>(m_rows.classes - 1) : 0.0f;
        params.gradScale = m_p.gradScale;
        params.lossScale = ctx.exec.lossScale;
        params.deviceLossScale = deviceLossScale(ctx);
        if (m_p.normalization == LossNormalization::Batch) {
            params.norm = static_cast<float>(m_p.batch);
        } else if (m_p.normalization == LossNormalization::Valid) {
            // Every row counts unless labels may be ignored; only then does the count need the labels.
            if (m_p.useIgnore && !m_p.labelIsDistribution) {
                unsigned long long* count = validCounter(ctx);
                cuda::countUnignoredLabels(in[1].data(), in[1].dtype(), rows, m_p.ignoreLabel, count,
                                           ctx.stream);
                params.validCount = count;
            } else {
                params.norm = static_cast<float>(std::max<int64_t>(rows, 1));
            }
        }
        cuda::softmaxOutputBackward(out[0].data(), in[1].data(), in[1].dtype(), inGrad[0].data(),
                                    inGrad[0].dtype(), params, ctx.stream);
    }

private:
    cuda::SoftmaxRows m_rows;
    SoftmaxOutputParams m_p;
};

std::unique_ptr<CudaKernel> makeRegressionKernel(const KernelSetup& setup, cuda::RegressionKind kind) {
    requireFloatData(setup);
    const RegressionParams p = regressionParams(setup);
    const float gradScale = p.gradScale;
    const float numOutput = p.numOutput;
    return makeLambdaCudaKernel(
        [kind](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            cuda::regressionForward(in[0].data(), out[0].data(), in[0].dtype(), in[0].size(), kind,
                                    ctx.stream);
        },
        [kind, gradScale, numOutput](const CudaContext& ctx, std::span<const Tensor> in,
                                     std::span<const Tensor> out, std::span<const Tensor>,
                                     std::span<const Tensor> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            const float* onDevice = deviceLossScale(ctx);
            const float factor = onDevice != nullptr ? gradScale / numOutput : gradScale / numOutput * ctx.exec.lossScale;
            cuda::regressionBackward(out[0].data(), in[1].data(), in[1].dtype(), inGrad[0].data(),
                                     inGrad[0].dtype(), inGrad[0].size(), kind, factor, onDevice, ctx.stream);
        });
}

std::unique_ptr<CudaKernel> makeMakeLossKernel(const KernelSetup& setup, CudaBackend&) {
    requireFloatData(setup);
    const MakeLossParams p = makeLossParams(setup);
    return makeLambdaCudaKernel(
        [](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            if (out[0].bytes() != 0 && out[0].data() != in[0].data()) {
                cudaCheck(cudaMemcpyAsync(out[0].data(), in[0].data(), out[0].bytes(),
                                          cudaMemcpyDeviceToDevice, ctx.stream),
                          "MakeLoss forward");
            }
        },
        [p](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
            std::span<const Tensor>, std::span<const Tensor> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            float norm = 1.0f;
            const unsigned long long* count = nullptr;
            if (p.normalization == LossNormalization::Batch) {
                norm = static_cast<float>(p.batch);
            } else if (p.normalization == LossNormalization::Valid) {
                unsigned long long* counter = validCounter(ctx);
                cuda::countAbove(in[0].data(), in[0].dtype(), in[0].size(), p.validThresh, counter, ctx.stream);
                count = counter;
            }
            cuda::fillLossGradient(inGrad[0].data(), inGrad[0].dtype(), inGrad[0].size(), p.gradScale,
                                   ctx.exec.lossScale, deviceLossScale(ctx), norm, count, ctx.stream);
        });
}

}  // namespace

void addCudaLossKernels(CudaKernelTable& table) {
    table.add("SoftmaxOutput", [](const KernelSetup& setup, CudaBackend&) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<SoftmaxOutputKernel>(setup);
    });
    table.add("LinearRegressionOutput", [](const KernelSetup& s, CudaBackend&) {
        return makeRegressionKernel(s, cuda::RegressionKind::Linear);
    });
    table.add("LogisticRegressionOutput", [](const KernelSetup& s, CudaBackend&) {
        return makeRegressionKernel(s, cuda::RegressionKind::Logistic);
    });
    table.add("MAERegressionOutput", [](const KernelSetup& s, CudaBackend&) {
        return makeRegressionKernel(s, cuda::RegressionKind::Mae);
    });
    table.add("MakeLoss", makeMakeLossKernel);
}

}  // namespace ampstudio
