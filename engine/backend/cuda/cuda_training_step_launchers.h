#pragma once
// Host-side launchers of the training step's passes over its gradients and weights
// (cuda_training_step_kernels.cu): the unscale-and-check pass and the optimizers, for the backend's
// unscaleGradients, sgdStep and adamStep (backend.h). Every launcher enqueues on `stream` and returns
// at once; none synchronises. C++17, because nvcc compiles it in the .cu: plain parameters and no
// engine header beyond dtype.h and mixed_precision_step.h.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "backend/mixed_precision_step.h"
#include "tensor/dtype.h"

namespace ampstudio::cuda {

// One parameter's gradients for the unscale pass: `grad` as the backward pass wrote it (f32, f16 or
// bf16), `master` the f32 buffer written (== grad when it is f32: in place).
struct UnscaleTensor {
    const void* grad = nullptr;
    DType gradType = DType::F32;
    float* master = nullptr;
    int64_t n = 0;
};

// How many per-block partial sums unscaleGradients needs for these tensors (its scratch, in doubles).
int64_t unscalePartials(const UnscaleTensor* tensors, int count);
// The gradient pass of backend.h's unscaleGradients: a multi-tensor pass (PyTorch's
// multi_tensor_apply: up to kUnscaleTensorsPerLaunch tensors per launch, described in the launch's
// parameters) that writes the unscaled f32 gradients and one partial sum of squares per block into
// `partials`, then one single-block kernel that sums them in a fixed order and runs
// finishGradientPass on `record`, writing the next scale to *lossScale.
void unscaleGradients(const UnscaleTensor* tensors, int count, const GradientPassSettings& settings,
                      StepRecord* record, float* lossScale, double* partials, cudaStream_t stream);

// The CPU backend's optimizer formulas (PyTorch's), element for element, reading the record on the
// device: no thread writes anything when it says skipped, gradients are multiplied by its clipFactor
// first, and Adam's bias correction counts its appliedSteps. `low` (of lowType, f16 or bf16; may be
// null) receives the updated weight rounded, in the same pass. momentum is null for plain SGD.
void sgdStep(float* w, const float* g, float* momentum, void* low, DType lowType, int64_t n, float learningRate,
             float mu, float weightDecay, bool nesterov, const StepRecord* record, cudaStream_t stream);
void adamStep(float* w, const float* g, float* m, float* v, void* low, DType lowType, int64_t n, float learningRate,
              float beta1, float beta2, float epsilon, float weightDecay, bool decoupledWeightDecay,
              const StepRecord* record, cudaStream_t stream);

}  // namespace ampstudio::cuda
