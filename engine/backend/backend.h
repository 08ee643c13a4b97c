#pragma once
// The interface between the executor/trainer and a device (DESIGN.md §5). A backend owns device
// memory, a queue of work (the CPU runs it at once; CUDA enqueues on its stream) and the kernels.
// Nothing here assumes the host can read device memory or that a kernel has finished when it
// returns: host code sees tensor contents only through copyToHost, which waits for the queue, and the
// only other calls that synchronise are the ones that return a host value (unscaleAndCheck).

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "graph/graph.h"
#include "tensor/tensor.h"

namespace ampstudio {

// How a backward pass delivers an input's gradient (MXNet's OpReqType): not at all, overwriting the
// gradient tensor, or adding to it (an entry read by several consumers).
enum class GradReq : uint8_t { Null, Write, Add };

struct ExecContext {
    bool training = false;   // Dropout drops, BatchNorm uses batch statistics and updates its moving ones
    float lossScale = 1.0f;  // loss heads multiply the gradient they start with this
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

// One pass over a set of gradients after the backward pass: unscaled in place and checked.
struct GradientCheck {
    bool finite = true;         // no inf/NaN anywhere
    double sumOfSquares = 0.0;  // of the unscaled gradients (the global norm is its square root)
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
    int64_t step = 1;                   // 1-based, for bias correction
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

    // Training primitives on f32 tensors (master weights and their gradients).
    // Multiplies every gradient by invScale in place and checks it, in one pass; synchronises.
    virtual GradientCheck unscaleAndCheck(std::span<const Tensor> grads, float invScale) = 0;
    virtual void scale(std::span<const Tensor> tensors, float factor) = 0;
    // momentum may be undefined when params.momentum is 0.
    virtual void sgdStep(const Tensor& weight, const Tensor& grad, const Tensor& momentum,
                         const SgdStepParams& params) = 0;
    virtual void adamStep(const Tensor& weight, const Tensor& grad, const Tensor& m, const Tensor& v,
                          const AdamStepParams& params) = 0;
};

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
