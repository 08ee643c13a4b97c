#pragma once
// The interface between the executor/trainer and a device (DESIGN.md §5). A backend owns device
// memory, a queue of work (the CPU runs it at once; CUDA enqueues on its stream) and the kernels.
// Nothing here assumes the host can read device memory or that a kernel has finished when it
// returns: host code sees tensor contents only through copyToHost, which waits for the queue, and
// through a HostReadback, which does not. Nothing else synchronises: the training primitives keep
// their verdicts (found inf, the loss scale) in backend memory, where the next kernels read them.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/mixed_precision_step.h"
#include "graph/graph.h"
#include "tensor/tensor.h"

namespace ampstudio {

// How a backward pass delivers an input's gradient (MXNet's OpReqType): not at all, overwriting the
// gradient tensor, or adding to it (an entry read by several consumers).
enum class GradReq : uint8_t { Null, Write, Add };

struct ExecContext {
    bool training = false;   // Dropout drops, BatchNorm uses batch statistics and updates its moving ones
    float lossScale = 1.0f;  // loss heads multiply the gradient they start with this...
    Tensor lossScaleTensor;  // ...or, when defined, by this one-element float32 tensor on the backend,
                             // which the training step updates on the device (unscaleGradients)
    uint64_t seed = 0;       // randomness of the run (Dropout masks)...
    int64_t step = 0;        // ...differs per forward pass, reproducibly
};

// What a kernel is made for: one node with all shapes and dtypes known (the executor inferred them).
struct KernelSetup {
    const Node& node;
    std::span<const Shape> inShapes;
    std::span<const Shape> outShapes;
    std::span<const DType> inTypes;
    std::span<const DType> outTypes;
};

// One node's kernels on one backend, made once at bind time (so primitive creation, attribute
// parsing and workspace sizing happen once, not per step). State kept between forward and backward
// (a Dropout mask, BatchNorm's batch statistics) lives in the kernel object.
class OpKernel {
public:
    virtual ~OpKernel() = default;
    virtual void forward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) = 0;
    // outGrad: one per output, all defined (zeros for an output nobody reads). inGrad[i] is written
    // or added to as req[i] says; undefined where req[i] is Null.
    virtual void backward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                          std::span<const Tensor> outGrad, std::span<const Tensor> inGrad,
                          std::span<const GradReq> req) = 0;
};

// One parameter's gradient as the backward pass wrote it, and the float32 gradient the optimizer
// reads: the same tensor when the parameter is float32, its master gradient when it is f16/bf16.
struct GradientBuffers {
    Tensor grad;
    Tensor master;
};

// One parameter as the optimizer updates it: the float32 weight (the master copy where there is
// one), its float32 gradient, the optimizer's float32 state (momentum, or Adam's moments; undefined
// where unused), and the f16/bf16 copy the graph computes with, written in the same pass (undefined
// when the weight is float32 in the graph).
struct OptimizerBuffers {
    Tensor weight;
    Tensor grad;
    Tensor state1;
    Tensor state2;
    Tensor lowPrecision;
};

struct SgdStepParams {
    float learningRate = 0.01f;
    float momentum = 0.0f;
    float weightDecay = 0.0f;  // L2, added to the gradient
    bool nesterov = false;
};

struct AdamStepParams {
    float learningRate = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float epsilon = 1e-8f;
    float weightDecay = 0.0f;
    bool decoupledWeightDecay = false;  // AdamW: decay the weight directly instead of adding to the gradient
    // The bias correction counts the optimizer steps taken, StepRecord::appliedSteps.
};

// Host memory that backend results are copied into in queue order without waiting for them, so that
// the host reads one training step's loss and record while the next step runs (pinned memory and an
// event on CUDA; an immediate copy on the CPU).
class HostReadback {
public:
    virtual ~HostReadback() = default;
    virtual std::size_t bytes() const = 0;
    // Queues a copy of all of `src` to `offset` in the buffer and returns at once. Throws
    // std::invalid_argument when it does not fit.
    virtual void copy(const Tensor& src, std::size_t offset) = 0;
    // Waits for the copies queued so far; the buffer then holds them until the next copy().
    virtual const std::byte* wait() = 0;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;  // for logs and the GUI: "cpu (oneDNN, avx2)", "cuda:0 (NVIDIA H100)"
    virtual Device device() const = 0;

    // Uninitialised storage of shape x dtype.
    virtual Tensor allocate(const Shape& shape, DType dtype) = 0;
    // `bytes` must equal dst.bytes(); src may be reused as soon as the call returns.
    virtual void copyFromHost(const void* src, std::size_t bytes, const Tensor& dst) = 0;
    // Waits for the queued work, then copies; `bytes` must equal src.bytes().
    virtual void copyToHost(const Tensor& src, void* dst, std::size_t bytes) = 0;
    // Same element count; converts between f32, f16 and bf16 (round to nearest even) and from ints.
    virtual void convert(const Tensor& src, const Tensor& dst) = 0;
    virtual void fill(const Tensor& dst, float value) = 0;
    virtual void synchronize() = 0;

    // True when this backend has kernels for the op (canonical name or alias).
    virtual bool hasKernel(std::string_view op) const = 0;
    // Throws OpError for an op without kernels or a setup the kernel cannot run.
    virtual std::unique_ptr<OpKernel> createKernel(const KernelSetup& setup) = 0;

    // Every element of dst set to the one float32 value in `scalar` (a tensor on this backend).
    virtual void fill(const Tensor& dst, const Tensor& scalar) = 0;
    virtual std::unique_ptr<HostReadback> createReadback(std::size_t bytes) = 0;

    // The training step's primitives; they queue work and wait for nothing. `record` is a U8 tensor of
    // sizeof(StepRecord) bytes on this backend, written by unscaleGradients and read by the optimizer
    // steps after it, so that an overflow skips the step without the host looking.
    //
    // The gradient pass, one per step: every master = grad / (record's scale x settings.divisor) (f16
    // and bf16 gradients converted on the way; in place when grad is master), their sum of squares in a
    // fixed order (the same bits every run, so clipping is reproducible), then finishGradientPass: the
    // verdict, the clipping factor, the loss scale's update, and the next scale written to `lossScale`
    // (a one-element float32 tensor, the ExecContext::lossScaleTensor of the next step).
    virtual void unscaleGradients(std::span<const GradientBuffers> grads, const GradientPassSettings& settings,
                                  const Tensor& record, const Tensor& lossScale) = 0;
    // PyTorch's formulas on float32 buffers, the gradient multiplied by the record's clipFactor first;
    // nothing is written when the record says skipped. p.state1 (momentum) may be undefined when
    // params.momentum is 0; Adam needs both moments.
    virtual void sgdStep(const OptimizerBuffers& p, const SgdStepParams& params, const Tensor& record) = 0;
    virtual void adamStep(const OptimizerBuffers& p, const AdamStepParams& params, const Tensor& record) = 0;
};

// A float tensor's values on the host as float32 (f16/bf16 are widened on the backend first); waits for
// the queued work that writes it.
std::vector<float> downloadFloats(Backend& backend, const Tensor& t);

// Throws std::invalid_argument unless `record` can hold a StepRecord and `lossScale` one float32 (the
// backends' check of the training primitives' arguments).
void requireStepTensors(const Tensor& record, const Tensor& lossScale);
// Throws std::invalid_argument unless every defined buffer has the weight's size and the copy is f16/bf16.
void requireOptimizerShapes(const OptimizerBuffers& p);

// The CPU reference backend (backend/cpu/), always available.
std::unique_ptr<Backend> makeCpuBackend();
// Its name() without making one: "cpu (oneDNN avx2)".
std::string cpuBackendName();

// Whether this build has the CUDA backend (backend/cuda/), and how many devices it can use (0
// without it, without a driver or without a device).
bool cudaBackendBuilt();
int cudaDeviceCount();
// The CUDA backend on `device`. Throws std::runtime_error saying why when there is none.
std::unique_ptr<Backend> makeCudaBackend(int device = 0);

// What the CLI's --backend and the GUI's selector name.
enum class BackendChoice { Auto, Cpu, Cuda };
BackendChoice parseBackendChoice(std::string_view text);  // "auto", "cpu", "cuda"; throws std::invalid_argument
// Auto: CUDA when a device is present and the backend has kernels for every op of `model` (when
// given), else the CPU. Cuda: the CUDA backend or an exception saying why not.
std::unique_ptr<Backend> makeBackend(BackendChoice choice, const Graph* model = nullptr);

}  // namespace ampstudio
