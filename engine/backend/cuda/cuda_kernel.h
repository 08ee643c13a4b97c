#pragma once
// How CUDA op kernels are written (the CPU's counterpart is backend/cpu/cpu_kernel.h). A kernel gets
// the node's tensors in their storage dtypes, on the device, and queues its work on the backend's
// stream; it never synchronises. f16/bf16 data is read into f32 registers, computed in f32 and
// rounded once on store, which is what the CPU reference does through its f32 scratch buffers, so
// the two backends differ only by summation order (DESIGN.md §5). GEMMs and cuDNN calls take
// f16/bf16 directly with f32 accumulation.
//
// GradReq is handled once for every op by CudaOpAdapter (cuda_op_adapter.h): a kernel's backward
// always overwrites the inGrad tensors it is given (undefined ones are not wanted), and the adapter
// adds them where an entry has several consumers. Inputs are written only where the op mutates them
// (BatchNorm's moving statistics, FMutateInputs).
//
// Kernels live in ops/, one family per file, named as the CPU's (backend/cpu/): the same op lives in
// cuda_X_kernels.cpp here and cpu_X_kernels.cpp there, and reads its attributes through
// backend/kernel_params.h as the CPU's does. cuda_dense_kernels.cpp uses cuBLAS, the convolution,
// batch norm, pooling and activation families cuDNN; our own device code lives in cuda_X_kernels.cu,
// declared for the host in cuda_X_launchers.h (C++17: nvcc compiles C++17 here; see CMakeLists.txt).
// .cuh headers hold device code only (cuda_device.cuh, ops/cuda_walk.cuh).
#include <cublas_v2.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backend/backend.h"

namespace ampstudio {

class CudaBackend;

// What every kernel call needs from its backend: the stream, the library handles bound to it, and
// scratch memory that lives until the stream has run the kernel (workspace()).
struct CudaContext {
    const ExecContext& exec;
    CudaBackend& backend;
    cudaStream_t stream;
    cublasHandle_t cublas;
    cudnnHandle_t cudnn;
};

class CudaKernel {
public:
    virtual ~CudaKernel() = default;
    virtual void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) = 0;
    // outGrad: one per output, all defined (zeros for outputs nobody reads), in the outputs' dtypes.
    // Overwrite each defined inGrad (in its input's dtype); leave undefined ones alone. Loss kernels
    // ignore outGrad and scale by the loss scale (ctx.exec.lossScaleTensor on the device when
    // defined, else ctx.exec.lossScale), as the CPU's do.
    virtual void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                          std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) = 0;
};

// Makes the kernel for one node; may throw OpError (through OpAttrs::fail) for setups it cannot run.
using CudaKernelFactory = std::function<std::unique_ptr<CudaKernel>(const KernelSetup& setup, CudaBackend& backend)>;

class CudaKernelTable {
public:
    void add(std::string op, CudaKernelFactory factory);
    const CudaKernelFactory* find(std::string_view op) const;  // canonical name or alias
    std::vector<std::string> ops() const;                       // for tests: what the table holds

private:
    std::unordered_map<std::string, CudaKernelFactory> m_factories;
};

const CudaKernelTable& cudaKernels();

void addCudaDenseKernels(CudaKernelTable& table);       // cuda_dense_kernels.cpp: FullyConnected, dot, batch_dot, Embedding
void addCudaConvolutionKernels(CudaKernelTable& table); // cuda_convolution_kernels.cpp: Convolution, Deconvolution
void addCudaBatchNormKernels(CudaKernelTable& table);   // cuda_batch_norm_kernels.cpp: BatchNorm
void addCudaLayerNormKernels(CudaKernelTable& table);   // cuda_layer_norm_kernels.cpp: LayerNorm
void addCudaPoolingKernels(CudaKernelTable& table);     // cuda_pooling_kernels.cpp: Pooling
void addCudaActivationKernels(CudaKernelTable& table);  // cuda_activation_kernels.cpp: Activation, softmax, log_softmax
void addCudaElemwiseKernels(CudaKernelTable& table);    // cuda_elemwise_kernels.cpp: unary, binary, LeakyReLU, sum, Dropout
void addCudaShapeKernels(CudaKernelTable& table);       // cuda_shape_kernels.cpp
void addCudaLossKernels(CudaKernelTable& table);        // cuda_loss_kernels.cpp
void addCudaCastKernels(CudaKernelTable& table);        // cuda_cast_kernels.cpp: Cast, amp_cast, amp_multicast

// Throws OpError unless every input and output of the node has one dtype, f32, f16 or bf16: what the
// element-wise kernels (and LayerNorm's) compute on.
void requireOneFloatType(const KernelSetup& setup);

// A kernel from two lambdas, for the many ops whose kernels need no state beyond their attributes.
template <typename Forward, typename Backward>
class LambdaCudaKernel final : public CudaKernel {
public:
    LambdaCudaKernel(Forward f, Backward b) : m_forward(std::move(f)), m_backward(std::move(b)) {}
    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        m_forward(ctx, in, out);
    }
    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        m_backward(ctx, in, out, outGrad, inGrad);
    }

private:
    Forward m_forward;
    Backward m_backward;
};

template <typename Forward, typename Backward>
std::unique_ptr<CudaKernel> makeLambdaCudaKernel(Forward f, Backward b) {
    return std::make_unique<LambdaCudaKernel<Forward, Backward>>(std::move(f), std::move(b));
}

}  // namespace ampstudio
