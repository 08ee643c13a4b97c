#pragma once
// Launchers of the loss heads' device code (cuda_loss_kernels.cu). Data, outputs and gradients are
// of `type` (f32, f16, bf16); labels of `labelType`, any dtype the backend holds, read as floats as
// the CPU reads them. The "valid" normalisations count on the device into a counter the gradient
// kernel reads, so nothing waits for the host. C++17 (nvcc compiles it in the .cu).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/dtype.h"

namespace ampstudio::cuda {

// Softmax rows of SoftmaxOutput: `outer` blocks of `classes` x `inner`; row (o, s) is the classes
// at o * classes * inner + s, inner apart.
struct SoftmaxRows {
    int64_t outer = 1;
    int64_t classes = 1;
    int64_t inner = 1;
};

void softmaxOutputForward(const void* x, void* y, DType type, const SoftmaxRows& rows, cudaStream_t stream);

// Counts how many of the n labels differ from ignoreLabel into *count (zeroed first).
void countUnignoredLabels(const void* label, DType labelType, int64_t n, float ignoreLabel,
                          unsigned long long* count, cudaStream_t stream);
// Counts how many of the n values are greater than threshold into *count (zeroed first).
void countAbove(const void* x, DType type, int64_t n, float threshold, unsigned long long* count,
                cudaStream_t stream);

// How SoftmaxOutput's gradient is formed and scaled: g = (p - target) * factor, where
// factor = gradScale / norm * lossScale and norm is max(*validCount, 1) when validCount is given,
// else `norm`. lossScale is *deviceLossScale when that is given (the training step's scale, which
// the host does not know when it queues the step).
struct SoftmaxOutputGrad {
    SoftmaxRows rows;
    bool labelIsDistribution = false;  // label has the data's shape: target = label
    bool useIgnore = false;            // rows whose label equals ignoreLabel get a zero gradient
    float ignoreLabel = -1.0f;
    float onTarget = 1.0f;   // target of the labelled class: 1 - smooth_alpha
    float offTarget = 0.0f;  // target of the others: smooth_alpha / (classes - 1)
    float gradScale = 1.0f;
    float lossScale = 1.0f;
    const float* deviceLossScale = nullptr;
    float norm = 1.0f;
    const unsigned long long* validCount = nullptr;
};

void softmaxOutputBackward(const void* p, const void* label, DType labelType, void* grad, DType type,
                           const SoftmaxOutputGrad& params, cudaStream_t stream);

enum class RegressionKind { Linear, Logistic, Mae };

// y = x (Linear, Mae) or sigmoid(x) (Logistic), n elements.
void regressionForward(const void* x, void* y, DType type, int64_t n, RegressionKind kind,
                       cudaStream_t stream);
// g = factor * (y - label), or factor * sign(y - label) for Mae; factor multiplied by
// *deviceLossScale first when that is given.
void regressionBackward(const void* y, const void* label, DType labelType, void* grad, DType type, int64_t n,
                        RegressionKind kind, float factor, const float* deviceLossScale, cudaStream_t stream);

// MakeLoss's gradient: every element gradScale / norm * lossScale, norm as in SoftmaxOutputGrad.
void fillLossGradient(void* grad, DType type, int64_t n, float gradScale, float lossScale,
                      const float* deviceLossScale, float norm, const unsigned long long* validCount,
                      cudaStream_t stream);

}  // namespace ampstudio::cuda
