#pragma once
// How CPU kernels are written: in float32 only. The CPU backend (cpu_op_adapter.cpp) hands every
// kernel float32 views of its inputs and outputs; for an f16/bf16 tensor it converts into a
// per-node scratch buffer before the kernel and rounds the result back after it (DESIGN.md §5: an
// f16/bf16 op computes in f32 and rounds its output to the storage type, so overflow to inf and
// underflow to zero happen where they would on a GPU). It also handles GradReq: a kernel's backward
// always overwrites the inGrad arrays it is given, and the adapter adds them where an entry has
// several consumers. Integer inputs (labels, indices) arrive as floats, as MXNet passes them.
//
// Inputs are writable only where the op mutates them (BatchNorm's moving statistics, FMutateInputs);
// the adapter writes those back to their storage type after forward.
//
// Kernels are grouped in families, one file each, named as the CUDA backend's (cuda/ops/): the same op
// lives in cpu_X_kernels.cpp here and cuda_X_kernels.{cpp,cu} there. Attributes are read through
// backend/kernel_params.h, which both backends share.

#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backend/backend.h"
#include "backend/kernel_params.h"
#include "tensor/float_convert.h"
#include "ops/op_attrs.h"

namespace ampstudio {

// A float32 view of one tensor. Undefined (data == nullptr) for an inGrad that is not wanted.
// `dtype` is what `data` points at: float32, except for a kernel that computes in storage types
// (CpuKernel::computesInStorageTypes), which is handed bfloat16 tensors as they are stored.
struct CpuArray {
    float* data = nullptr;
    Shape shape;
    DType dtype = DType::F32;
    int64_t size() const { return shapeSize(shape); }
    bool defined() const { return data != nullptr; }
    std::span<float> span() const { return {data, static_cast<std::size_t>(size())}; }
};

// oneDNN's CPU engine and an in-order stream, shared by all kernels of one backend.
struct CpuDnnl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
};

struct CpuContext {
    const ExecContext& exec;
    CpuDnnl& dnnl;
    // The loss scale the loss heads apply: the training step's tensor (CPU memory) when it has one.
    float lossScale() const {
        return exec.lossScaleTensor.defined() ? *exec.lossScaleTensor.data<float>() : exec.lossScale;
    }
};

// Element i of a view as float32: a float32 view, or bfloat16 as stored (CpuArray::dtype).
inline float loadElement(const CpuArray& a, int64_t i) {
    return a.dtype == DType::BF16 ? bfloat16BitsToFloat(reinterpret_cast<const uint16_t*>(a.data)[i]) : a.data[i];
}
inline void storeElement(const CpuArray& a, int64_t i, float v) {
    if (a.dtype == DType::BF16) {
        reinterpret_cast<uint16_t*>(a.data)[i] = floatToBfloat16Bits(v);
    } else {
        a.data[i] = v;
    }
}


class CpuKernel {
public:
    virtual ~CpuKernel() = default;
    // True for a kernel that reads and writes bfloat16 tensors as stored, on oneDNN's native bf16
    // primitives (f32 accumulation, the output rounded once: the same rule as converting around an
    // f32 kernel, minus the passes). The adapter then converts nothing but an inGrad it must add to
    // (GradReq::Add), which it hands over as a float32 scratch (dtype F32) and sums in f32.
    virtual bool computesInStorageTypes() const { return false; }
    virtual void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) = 0;
    // outGrad: one per output, all defined (zeros for outputs nobody reads). Overwrite each defined
    // inGrad; leave undefined ones alone. Loss kernels ignore outGrad and scale by ctx.lossScale().
    virtual void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out,
                          std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) = 0;
};

// The kernel of the ops that only move values (casts: input i to output i; reshapes): it takes
// float32 and bfloat16 tensors as stored (computesInStorageTypes) and copies each in one pass,
// converting between those two dtypes, so a result is one rounding of the exact value, to the
// output's dtype forward and to the input's backward; the adapter widens float16 and any other dtype
// to a float32 scratch before and rounds after, as for every kernel.
std::unique_ptr<CpuKernel> makeValueCopyKernel();

// Makes the kernel for one node; may throw OpError (through OpAttrs::fail) for setups it cannot run.
using CpuKernelFactory = std::function<std::unique_ptr<CpuKernel>(const KernelSetup& setup, CpuDnnl& dnnl)>;

class CpuKernelTable {
public:
    void add(std::string op, CpuKernelFactory factory);
    const CpuKernelFactory* find(std::string_view op) const;  // canonical name or alias

private:
    std::unordered_map<std::string, CpuKernelFactory> m_factories;
};

const CpuKernelTable& cpuKernels();

// One per family; the comment names the file and its ops.
void addCpuDenseKernels(CpuKernelTable& table);        // cpu_dense: FullyConnected, dot, batch_dot, Embedding
void addCpuConvolutionKernels(CpuKernelTable& table);  // cpu_convolution: Convolution, Deconvolution
void addCpuBatchNormKernels(CpuKernelTable& table);    // cpu_batch_norm: BatchNorm
void addCpuLayerNormKernels(CpuKernelTable& table);    // cpu_layer_norm: LayerNorm
void addCpuPoolingKernels(CpuKernelTable& table);      // cpu_pooling: Pooling
void addCpuActivationKernels(CpuKernelTable& table);   // cpu_activation: Activation, softmax, log_softmax
void addCpuElemwiseKernels(CpuKernelTable& table);     // cpu_elemwise: unary, binary, LeakyReLU, sum, Dropout
void addCpuShapeKernels(CpuKernelTable& table);        // cpu_shape: Reshape, transpose, Concat, slice_axis
void addCpuLossKernels(CpuKernelTable& table);         // cpu_loss: SoftmaxOutput, *RegressionOutput, MakeLoss
void addCpuCastKernels(CpuKernelTable& table);         // cpu_cast: Cast, amp_cast, amp_multicast

// A kernel from two lambdas, for the many ops whose kernels need no state beyond their attributes.
template <typename Forward, typename Backward>
class LambdaCpuKernel final : public CpuKernel {
public:
    LambdaCpuKernel(Forward f, Backward b) : m_forward(std::move(f)), m_backward(std::move(b)) {}
    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        m_forward(ctx, in, out);
    }
    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        m_backward(ctx, in, out, outGrad, inGrad);
    }

private:
    Forward m_forward;
    Backward m_backward;
};

template <typename Forward, typename Backward>
std::unique_ptr<CpuKernel> makeLambdaKernel(Forward f, Backward b) {
    return std::make_unique<LambdaCpuKernel<Forward, Backward>>(std::move(f), std::move(b));
}

// Whether bfloat16 ops run on oneDNN's native bf16 primitives here: the CPU has AVX512_BF16 or AMX
// (oneDNN's ISA avx512_core_bf16 or avx512_core_amx), the environment does not say
// AMS_CPU_NATIVE_BF16=0, and setCpuNativeBfloat16(false) was not called.
// Elsewhere they convert around float32 kernels (cpu_op_adapter.h). Read when a kernel is made.
bool cpuNativeBfloat16();
// Tests and benchmarks run both paths on one machine; the product never turns it off.
void setCpuNativeBfloat16(bool enabled);
// How many kernels computing in storage types this process has made (the tests tell the paths apart).
std::size_t cpuStorageTypeKernelsMade();
void countStorageTypeKernel();  // the adapter's, once per such kernel

// oneDNN memory over a float32 view, plain row-major layout of its shape.
dnnl::memory dnnlMemory(const CpuArray& a, const dnnl::engine& engine);
dnnl::memory::desc dnnlDesc(const Shape& shape);
// The same, tagged NCHW, for the primitives that want a 4-D data layout (convolution, pooling).
dnnl::memory::desc nchwDesc(const Shape& shape, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
// A 2-D attribute (stride, pad, ...) as oneDNN's dims.
dnnl::memory::dims dnnlDims(const Pair& p);

// oneDNN refuses some geometries (a pooling window wholly in padding); that is the node's error.
[[noreturn]] void dnnlFailure(const Node& node, const dnnl::error& e);

}  // namespace ampstudio
