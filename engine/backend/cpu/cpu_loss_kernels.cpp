// CPU kernels of the loss heads, with MXNet 1.9.1's gradients (softmax_output-inl.h,
// regression_output-inl.h, make_loss-inl.h), each multiplied by the loss scale:
//   SoftmaxOutput      (p - onehot(label)) * grad_scale / norm; norm by `normalization`:
//                      null 1, batch N, valid the count of labels != ignore_label (use_ignore)
//   *RegressionOutput  grad_scale / (label size / N) * (out - label)   (MAE: sign(out - label))
//   MakeLoss           grad_scale / norm everywhere
// MXNet leaves the batch mean to the optimizer (rescale_grad = 1/batch_size); the trainer does too.
#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_kernel.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

class SoftmaxOutputKernel final : public CpuKernel {
public:
    explicit SoftmaxOutputKernel(const KernelSetup& setup) : m_p(softmaxOutputParams(setup)) {}

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto [outer, classes, inner] = m_p.layout;
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t s = 0; s < inner; ++s) {
                const float* x = in[0].data + o * classes * inner + s;
                float* y = out[0].data + o * classes * inner + s;
                float maxValue = -INFINITY;
                for (int64_t c = 0; c < classes; ++c) {
                    maxValue = std::max(maxValue, x[c * inner]);
                }
                float sum = 0.0f;
                for (int64_t c = 0; c < classes; ++c) {
                    y[c * inner] = std::exp(x[c * inner] - maxValue);
                    sum += y[c * inner];
                }
                for (int64_t c = 0; c < classes; ++c) {
                    y[c * inner] /= sum;
                }
            }
        }
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out,
                  std::span<const CpuArray>, std::span<const CpuArray> inGrad) override {
        if (!inGrad[0].defined()) {
            return;
        }
        const auto [outer, classes, inner] = m_p.layout;
        const float* p = out[0].data;
        const float* label = in[1].data;
        float* g = inGrad[0].data;
        int64_t valid = 0;
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t s = 0; s < inner; ++s) {
                const int64_t base = o * classes * inner + s;
                if (m_p.labelIsDistribution) {
                    for (int64_t c = 0; c < classes; ++c) {
                        g[base + c * inner] = p[base + c * inner] - label[base + c * inner];
                    }
                    ++valid;
                    continue;
                }
                const float l = label[o * inner + s];
                if (m_p.useIgnore && l == m_p.ignoreLabel) {
                    for (int64_t c = 0; c < classes; ++c) {
                        g[base + c * inner] = 0.0f;
                    }
                    continue;
                }
                ++valid;
                const auto k = static_cast<int64_t>(l);
                const float off = classes > 1 ? m_p.smoothAlpha / static_cast<float>(classes - 1) : 0.0f;
                for (int64_t c = 0; c < classes; ++c) {
                    const float target = c == k ? 1.0f - m_p.smoothAlpha : off;
                    g[base + c * inner] = p[base + c * inner] - target;
                }
            }
        }
        float norm = 1.0f;
        if (m_p.normalization == LossNormalization::Batch) {
            norm = static_cast<float>(m_p.batch);
        } else if (m_p.normalization == LossNormalization::Valid) {
            norm = static_cast<float>(std::max<int64_t>(valid, 1));
        }
        const float factor = m_p.gradScale / norm * ctx.lossScale();
        for (int64_t i = 0, n = inGrad[0].size(); i < n; ++i) {
            g[i] *= factor;
        }
    }

private:
    SoftmaxOutputParams m_p;
};

enum class Regression { Linear, Logistic, Mae };

std::unique_ptr<CpuKernel> makeRegressionKernel(const KernelSetup& setup, Regression kind) {
    const RegressionParams p = regressionParams(setup);
    const float gradScale = p.gradScale;
    const float numOutput = p.numOutput;
    return makeLambdaKernel(
        [kind](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            const float* x = in[0].data;
            float* y = out[0].data;
            for (int64_t i = 0, n = in[0].size(); i < n; ++i) {
                y[i] = kind == Regression::Logistic ? 1.0f / (1.0f + std::exp(-x[i])) : x[i];
            }
        },
        [kind, gradScale, numOutput](const CpuContext& ctx, std::span<const CpuArray> in,
                                     std::span<const CpuArray> out, std::span<const CpuArray>,
                                     std::span<const CpuArray> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            const float factor = gradScale / numOutput * ctx.lossScale();
            const float* y = out[0].data;
            const float* l = in[1].data;
            float* g = inGrad[0].data;
            for (int64_t i = 0, n = inGrad[0].size(); i < n; ++i) {
                const float d = y[i] - l[i];
                g[i] = factor * (kind == Regression::Mae ? static_cast<float>((d > 0.0f) - (d < 0.0f)) : d);
            }
        });
}

std::unique_ptr<CpuKernel> makeMakeLossKernel(const KernelSetup& setup, CpuDnnl&) {
    const MakeLossParams p = makeLossParams(setup);
    return makeLambdaKernel(
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            std::copy_n(in[0].data, in[0].size(), out[0].data);
        },
        [p](const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
            std::span<const CpuArray>, std::span<const CpuArray> inGrad) {
            if (!inGrad[0].defined()) {
                return;
            }
            float norm = 1.0f;
            if (p.normalization == LossNormalization::Batch) {
                norm = static_cast<float>(p.batch);
            } else if (p.normalization == LossNormalization::Valid) {
                const int64_t valid = std::count_if(in[0].data, in[0].data + in[0].size(),
                                                    [&](float v) { return v > p.validThresh; });
                norm = static_cast<float>(std::max<int64_t>(valid, 1));
            }
            std::fill_n(inGrad[0].data, inGrad[0].size(), p.gradScale / norm * ctx.lossScale());
        });
}

}  // namespace

void addCpuLossKernels(CpuKernelTable& table) {
    table.add("SoftmaxOutput", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<SoftmaxOutputKernel>(setup);
    });
    table.add("LinearRegressionOutput",
              [](const KernelSetup& s, CpuDnnl&) { return makeRegressionKernel(s, Regression::Linear); });
    table.add("LogisticRegressionOutput",
              [](const KernelSetup& s, CpuDnnl&) { return makeRegressionKernel(s, Regression::Logistic); });
    table.add("MAERegressionOutput",
              [](const KernelSetup& s, CpuDnnl&) { return makeRegressionKernel(s, Regression::Mae); });
    table.add("MakeLoss", makeMakeLossKernel);
}

}  // namespace ampstudio
