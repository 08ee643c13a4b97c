#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_op_adapter.h"
#include "backend/cuda/cuda_training_step_launchers.h"
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
    for (StagingSlot& slot : m_staging) {
        if (slot.done != nullptr) (void)cudaEventDestroy(slot.done);
        if (slot.host != nullptr) (void)cudaFreeHost(slot.host);
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
    if (bytes > kMaxStagedBytes) {
        // Parameters at bind time, not a step's batch: the driver stages pageable memory itself (and
        // returns once `src` may be reused), perhaps waiting for the stream, which costs nothing then.
        cudaCheck(cudaMemcpyAsync(dst.data(), src, bytes, cudaMemcpyHostToDevice, m_stream), "copy to the device");
        return;
    }
    StagingSlot& slot = m_staging[m_nextStaging];
    m_nextStaging = (m_nextStaging + 1) % kStagingSlots;
    if (slot.done == nullptr) {
        cudaCheck(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming), "create an event");
    } else {
        // Its last copy was queued kStagingSlots uploads ago: in a training step, two steps back.
        cudaCheck(cudaEventSynchronize(slot.done), "wait for an earlier upload");
    }
    if (slot.bytes < bytes) {
        if (slot.host != nullptr) {
            cudaCheck(cudaFreeHost(slot.host), "free pinned memory");
            slot.host = nullptr;
            slot.bytes = 0;
        }
        cudaCheck(cudaMallocHost(&slot.host, bytes), "allocate pinned memory");
        slot.bytes = bytes;
    }
    std::memcpy(slot.host, src, bytes);
    cudaCheck(cudaMemcpyAsync(dst.data(), slot.host, bytes, cudaMemcpyHostToDevice, m_stream), "copy to the device");
    cudaCheck(cudaEventRecord(slot.done, m_stream), "record an upload");
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

void CudaBackend::fill(const Tensor& dst, const Tensor& scalar) {
    requireOnThisDevice(dst, "fill");
    requireOnThisDevice(scalar, "fill value");
    if (scalar.dtype() != DType::F32 || scalar.size() != 1) {
        throw std::invalid_argument("fill: the value must be a one-element float32 tensor");
    }
    cuda::fillFromDevice(dst.data(), dst.dtype(), scalar.data<float>(), dst.size(), m_stream);
}

namespace {

// Page-locked memory the copies land in, and an event recorded after them.
class CudaReadback final : public HostReadback {
public:
    CudaReadback(std::size_t bytes, cudaStream_t stream) : m_bytes(bytes), m_stream(stream) {
        cudaCheck(cudaMallocHost(&m_host, std::max<std::size_t>(bytes, 1)), "allocate pinned memory");
        cudaCheck(cudaEventCreateWithFlags(&m_done, cudaEventDisableTiming), "create an event");
    }
    ~CudaReadback() override {
        (void)cudaEventSynchronize(m_done);
        (void)cudaEventDestroy(m_done);
        (void)cudaFreeHost(m_host);
    }
    std::size_t bytes() const override { return m_bytes; }
    void copy(const Tensor& src, std::size_t offset) override {
        if (offset > m_bytes || src.bytes() > m_bytes - offset) {
            throw std::invalid_argument("readback: " + std::to_string(src.bytes()) + " bytes at " +
                                        std::to_string(offset) + " do not fit in " + std::to_string(m_bytes));
        }
        if (src.bytes() == 0) return;
        cudaCheck(cudaMemcpyAsync(static_cast<std::byte*>(m_host) + offset, src.data(), src.bytes(),
                                  cudaMemcpyDeviceToHost, m_stream),
                  "copy from the device");
        cudaCheck(cudaEventRecord(m_done, m_stream), "record a readback");
    }
    const std::byte* wait() override {
        cudaCheck(cudaEventSynchronize(m_done), "wait for a readback");
        return static_cast<const std::byte*>(m_host);
    }

private:
    std::size_t m_bytes;
    cudaStream_t m_stream;
    void* m_host = nullptr;
    cudaEvent_t m_done = nullptr;
};

}  // namespace

std::unique_ptr<HostReadback> CudaBackend::createReadback(std::size_t bytes) {
    cudaCheck(cudaSetDevice(m_device), "select the device");
    return std::make_unique<CudaReadback>(bytes, m_stream);
}

void CudaBackend::unscaleGradients(std::span<const GradientBuffers> grads, const GradientPassSettings& settings,
                                   const Tensor& record, const Tensor& lossScale) {
    requireStepTensors(record, lossScale);
    requireOnThisDevice(record, "step record");
    requireOnThisDevice(lossScale, "loss scale");
    std::vector<cuda::UnscaleTensor> tensors;
    tensors.reserve(grads.size());
    for (const GradientBuffers& b : grads) {
        requireOnThisDevice(b.grad, "gradients to unscale");
        requireOnThisDevice(b.master, "gradients to unscale");
        if (b.master.dtype() != DType::F32 || b.master.size() != b.grad.size()) {
            throw std::invalid_argument("unscale: the master gradient must be float32, of the gradient's size");
        }
        tensors.push_back({b.grad.data(), b.grad.dtype(), b.master.data<float>(), b.master.size()});
    }
    const int count = static_cast<int>(tensors.size());
    // One partial sum per block, summed in a fixed order on the device: the same bits every run
    // (atomics would make the global norm, and so clipping, vary). Freed at once: the caching
    // allocator hands the block out again only to work queued after this, on this stream.
    const int64_t partials = std::max<int64_t>(cuda::unscalePartials(tensors.data(), count), 1);
    Tensor scratch = allocate(Shape{partials}, DType::F64);
    cuda::unscaleGradients(tensors.data(), count, settings, static_cast<StepRecord*>(record.data()),
                           lossScale.data<float>(), scratch.data<double>(), m_stream);
}

namespace {

void requireF32(const Tensor& t, const char* what) {
    if (!t.defined() || t.dtype() != DType::F32) throw std::invalid_argument(std::string(what) + " must be float32");
}

}  // namespace

void CudaBackend::sgdStep(const OptimizerBuffers& p, const SgdStepParams& params, const Tensor& record) {
    requireStepTensors(record, Tensor{});
    requireOnThisDevice(record, "step record");
    requireOnThisDevice(p.weight, "SGD weights");
    requireOnThisDevice(p.grad, "SGD gradients");
    requireF32(p.weight, "SGD weights");
    requireF32(p.grad, "SGD gradients");
    if (params.momentum != 0.0f) {
        requireOnThisDevice(p.state1, "SGD momentum");
        requireF32(p.state1, "SGD momentum");
    }
    if (p.lowPrecision.defined()) requireOnThisDevice(p.lowPrecision, "SGD weights' copy");
    requireOptimizerShapes(p);
    cuda::sgdStep(p.weight.data<float>(), p.grad.data<float>(), p.state1 ? p.state1.data<float>() : nullptr,
                  p.lowPrecision.data(), p.lowPrecision.dtype(), p.weight.size(), params.learningRate, params.momentum,
                  params.weightDecay, params.nesterov, static_cast<const StepRecord*>(record.data()), m_stream);
}

void CudaBackend::adamStep(const OptimizerBuffers& p, const AdamStepParams& params, const Tensor& record) {
    requireStepTensors(record, Tensor{});
    requireOnThisDevice(record, "step record");
    for (const Tensor* t : {&p.weight, &p.grad, &p.state1, &p.state2}) {
        requireOnThisDevice(*t, "Adam tensors");
        requireF32(*t, "Adam tensors");
    }
    if (p.lowPrecision.defined()) requireOnThisDevice(p.lowPrecision, "Adam weights' copy");
    requireOptimizerShapes(p);
    cuda::adamStep(p.weight.data<float>(), p.grad.data<float>(), p.state1.data<float>(), p.state2.data<float>(),
                   p.lowPrecision.data(), p.lowPrecision.dtype(), p.weight.size(), params.learningRate, params.beta1,
                   params.beta2, params.epsilon, params.weightDecay, params.decoupledWeightDecay,
                   static_cast<const StepRecord*>(record.data()), m_stream);
}

}  // namespace ampstudio
