#pragma once
// The CUDA backend: device tensors from a caching allocator, one stream on which every copy and
// kernel is queued, and host synchronisation only where the host asks for a value (copyToHost,
// HostReadback::wait, synchronize). Uploads go through pinned staging buffers, so that they never
// wait for the stream either. Op kernels (cuda_kernel.h) come from a table like the
// CPU's; cuBLAS and cuDNN handles are bound to the stream once, here.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/cuda/cuda_allocator.h"

namespace ampstudio {

struct CudaBackendOptions {
    // f32 GEMMs and convolutions on tensor cores with TF32 inputs (10-bit mantissa): faster, but
    // not the f32 reference. Off by default, as in PyTorch for matmul.
    bool tf32 = false;
};

class CudaBackend final : public Backend {
public:
    // Throws CudaError when the device cannot be used.
    explicit CudaBackend(int device = 0, CudaBackendOptions options = {});
    ~CudaBackend() override;

    std::string name() const override { return m_name; }
    Device device() const override { return Device{DeviceKind::Cuda, m_device}; }

    Tensor allocate(const Shape& shape, DType dtype) override;
    void copyFromHost(const void* src, std::size_t bytes, const Tensor& dst) override;
    void copyToHost(const Tensor& src, void* dst, std::size_t bytes) override;
    void convert(const Tensor& src, const Tensor& dst) override;
    void fill(const Tensor& dst, float value) override;
    void synchronize() override;

    bool hasKernel(std::string_view op) const override;
    std::unique_ptr<OpKernel> createKernel(const KernelSetup& setup) override;

    void fill(const Tensor& dst, const Tensor& scalar) override;
    std::unique_ptr<HostReadback> createReadback(std::size_t bytes) override;

    void unscaleGradients(std::span<const GradientBuffers> grads, const GradientPassSettings& settings,
                          const Tensor& record, const Tensor& lossScale) override;
    void sgdStep(const OptimizerBuffers& p, const SgdStepParams& params, const Tensor& record) override;
    void adamStep(const OptimizerBuffers& p, const AdamStepParams& params, const Tensor& record) override;

    cudaStream_t stream() const { return m_stream; }
    cublasHandle_t cublas() const { return m_cublas; }
    cudnnHandle_t cudnn() const { return m_cudnn; }
    const CudaBackendOptions& options() const { return m_options; }
    CudaAllocator& allocator() { return *m_allocator; }
    // Scratch device memory of at least `bytes` for the kernel about to be queued (cuDNN's and
    // cuBLAS's workspaces). One buffer, grown when asked for more: every kernel runs on the one
    // stream, in order, so the next kernel's use cannot overlap the last one's.
    void* workspace(std::size_t bytes);
    std::size_t workspaceBytes() const { return m_workspace ? m_workspace.bytes() : 0; }

private:
    void requireOnThisDevice(const Tensor& t, const char* what) const;

    // Page-locked host memory an upload is copied through: cudaMemcpyAsync from pageable memory may
    // wait for the stream, which would stall the host behind the previous training step. A ring of
    // slots, each reused once the copy queued from it (an event) is done.
    struct StagingSlot {
        void* host = nullptr;
        std::size_t bytes = 0;
        cudaEvent_t done = nullptr;
    };
    static constexpr int kStagingSlots = 8;
    static constexpr std::size_t kMaxStagedBytes = std::size_t{16} << 20;  // larger uploads are not a step's
    StagingSlot m_staging[kStagingSlots];
    int m_nextStaging = 0;

    int m_device;
    CudaBackendOptions m_options;
    std::string m_name;
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_cublas = nullptr;
    cudnnHandle_t m_cudnn = nullptr;
    std::shared_ptr<CudaAllocator> m_allocator;
    Tensor m_workspace;
};

}  // namespace ampstudio
