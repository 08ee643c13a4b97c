#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernels.h"
#include "backend/cuda/cuda_op_adapter.h"
#include "ops/op_error.h"

namespace ampstudio {

CudaBackend::CudaBackend(int device, CudaBackendOptions options)
    : m_device(device), m_options(options), m_allocator(std::make_shared<CudaAllocator>(device)) {
    cudaCheck(cudaSetDevice(device), "select the device");
    cudaDeviceProp props{};
    cudaCheck(cudaGetDeviceProperties(&props, device), "read the device's properties");
    m_name = "cuda:" + std::to_string(device) + " (" + props.name + ")";
    // Non-blocking: our stream never waits for work another library queued on the legacy stream.
    cudaCheck(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "create a stream");
    cublasCheck(cublasCreate(&m_cublas), "create a handle");
    cublasCheck(cublasSetStream(m_cublas, m_stream), "bind the handle to the stream");
    // Kernels pass alpha and beta from the host.
    cublasCheck(cublasSetPointerMode(m_cublas, CUBLAS_POINTER_MODE_HOST), "set the pointer mode");
    cublasCheck(cublasSetMathMode(m_cublas, m_options.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                "set the math mode");
    cudnnCheck(cudnnCreate(&m_cudnn), "create a handle");
    cudnnCheck(cudnnSetStream(m_cudnn, m_stream), "bind the handle to the stream");
}

CudaBackend::~CudaBackend() {
    if (m_stream != nullptr) {
        (void)cudaStreamSynchronize(m_stream);
    }
    m_workspace = Tensor{};
    if (m_cudnn != nullptr) (void)cudnnDestroy(m_cudnn);
    if (m_cublas != nullptr) (void)cublasDestroy(m_cublas);
    if (m_stream != nullptr) (void)cudaStreamDestroy(m_stream);
}

void* CudaBackend::workspace(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if (!m_workspace || m_workspace.bytes() < bytes) {
        // Grown by half again so a run of slightly larger requests does not reallocate each time.
        const auto size = static_cast<int64_t>(std::max(bytes, workspaceBytes() + workspaceBytes() / 2));
        m_workspace = allocate(Shape{size}, DType::U8);
    }
    return m_workspace.data();
}

void CudaBackend::requireOnThisDevice(const Tensor& t, const char* what) const {
    if (!t.defined() || t.device() != device()) {
        throw std::invalid_argument(std::string(what) + ": the tensor is not on " + m_name);
    }
}

Tensor CudaBackend::allocate(const Shape& shape, DType dtype) {
    const std::size_t bytes = static_cast<std::size_t>(shapeSize(shape)) * dtypeSize(dtype);
    return Tensor(m_allocator->allocate(bytes), shape, dtype);
}

void CudaBackend::copyFromHost(const void* src, std::size_t bytes, const Tensor& dst) {
    requireOnThisDevice(dst, "copyFromHost");
    if (bytes != dst.bytes()) throw std::invalid_argument("copyFromHost: byte count does not match the tensor");
    if (bytes == 0) return;
    // From pageable memory the call returns once the driver has staged `src`: the caller may reuse it.
    cudaCheck(cudaMemcpyAsync(dst.data(), src, bytes, cudaMemcpyHostToDevice, m_stream), "copy to the device");
}

void CudaBackend::copyToHost(const Tensor& src, void* dst, std::size_t bytes) {
    requireOnThisDevice(src, "copyToHost");
    if (bytes != src.bytes()) throw std::invalid_argument("copyToHost: byte count does not match the tensor");
    if (bytes == 0) return;
    cudaCheck(cudaMemcpyAsync(dst, src.data(), bytes, cudaMemcpyDeviceToHost, m_stream), "copy from the device");
    cudaCheck(cudaStreamSynchronize(m_stream), "wait for the copy from the device");
}

void CudaBackend::convert(const Tensor& src, const Tensor& dst) {
    requireOnThisDevice(src, "convert");
    requireOnThisDevice(dst, "convert");
    if (src.size() != dst.size()) {
        throw std::invalid_argument("convert: " + shapeString(src.shape()) + " into " + shapeString(dst.shape()));
    }
    if (src.dtype() == dst.dtype()) {
        if (src.data() != dst.data() && src.bytes() > 0) {
            cudaCheck(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice, m_stream), "copy");
        }
        return;
    }
    cuda::convert(src.data(), src.dtype(), dst.data(), dst.dtype(), src.size(), m_stream);
}

void CudaBackend::fill(const Tensor& dst, float value) {
    requireOnThisDevice(dst, "fill");
    cuda::fill(dst.data(), dst.dtype(), value, dst.size(), m_stream);
}

void CudaBackend::synchronize() { cudaCheck(cudaStreamSynchronize(m_stream), "wait for the device"); }

bool CudaBackend::hasKernel(std::string_view op) const { return cudaKernels().find(op) != nullptr; }

std::unique_ptr<OpKernel> CudaBackend::createKernel(const KernelSetup& setup) {
    const CudaKernelFactory* factory = cudaKernels().find(setup.node.op);
    if (factory == nullptr) {
        throw OpError(setup.node, "the CUDA backend has no kernel for this op");
    }
    return std::make_unique<CudaOpAdapter>((*factory)(setup, *this), *this);
}

GradientCheck CudaBackend::unscaleAndCheck(std::span<const Tensor> grads, float invScale) {
    // One partial sum per block of every tensor, then one fixed-order reduction and a single read
    // back: the same bits every run (atomics would make the global norm, and so clipping, vary).
    int total = 0;
    std::vector<int> offsets;
    for (const Tensor& g : grads) {
        requireOnThisDevice(g, "gradients to unscale");
        if (g.dtype() != DType::F32) throw std::invalid_argument("gradients to unscale must be float32");
        offsets.push_back(total);
        total += cuda::unscaleBlocks(g.size());
    }
    GradientCheck check;
    if (grads.empty()) return check;
    Tensor partials = allocate(Shape{total + 1}, DType::F64);
    double* p = partials.data<double>();
    for (std::size_t i = 0; i < grads.size(); ++i) {
        cuda::unscaleAndSumSquares(grads[i].data<float>(), grads[i].size(), invScale, p + offsets[i], m_stream);
    }
    cuda::sumPartials(p, total, p + total, m_stream);
    cudaCheck(cudaMemcpyAsync(&check.sumOfSquares, p + total, sizeof(double), cudaMemcpyDeviceToHost, m_stream),
              "read the gradient check");
    cudaCheck(cudaStreamSynchronize(m_stream), "wait for the gradient check");
    // inf * 0 is NaN and inf^2 is inf, so one finiteness test of the sum covers every element.
    check.finite = std::isfinite(check.sumOfSquares);
    return check;
}

void CudaBackend::scale(std::span<const Tensor> tensors, float factor) {
    for (const Tensor& t : tensors) {
        requireOnThisDevice(t, "tensors to scale");
        if (t.dtype() != DType::F32) throw std::invalid_argument("tensors to scale must be float32");
        cuda::scale(t.data<float>(), t.size(), factor, m_stream);
    }
}

void CudaBackend::sgdStep(const Tensor& weight, const Tensor& grad, const Tensor& momentum, const SgdStepParams& params) {
    requireOnThisDevice(weight, "SGD weights");
    requireOnThisDevice(grad, "SGD gradients");
    if (weight.dtype() != DType::F32 || grad.dtype() != DType::F32) throw std::invalid_argument("SGD works on float32");
    if (params.momentum != 0.0f) requireOnThisDevice(momentum, "SGD momentum");
    cuda::sgdStep(weight.data<float>(), grad.data<float>(), momentum ? momentum.data<float>() : nullptr, weight.size(),
                  params.learningRate, params.momentum, params.weightDecay, params.nesterov, m_stream);
}

void CudaBackend::adamStep(const Tensor& weight, const Tensor& grad, const Tensor& m, const Tensor& v,
                           const AdamStepParams& params) {
    for (const Tensor* t : {&weight, &grad, &m, &v}) {
        requireOnThisDevice(*t, "Adam tensors");
        if (t->dtype() != DType::F32) throw std::invalid_argument("Adam works on float32");
    }
    cuda::adamStep(weight.data<float>(), grad.data<float>(), m.data<float>(), v.data<float>(), weight.size(),
                   params.learningRate, params.beta1, params.beta2, params.epsilon, params.weightDecay,
                   params.decoupledWeightDecay, params.step, m_stream);
}

}  // namespace ampstudio
