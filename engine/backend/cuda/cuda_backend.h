#pragma once
// The CUDA backend: device tensors from a caching allocator, one stream on which every copy and
// kernel is queued, and host synchronisation only where the interface returns a host value
// (copyToHost, unscaleAndCheck, synchronize). This first part has the memory, the conversions and
// the training step's passes (unscale-and-check, SGD, Adam); op kernels through cuBLAS, cuDNN and
// our own come next, and hasKernel() says which exist, so the executor names an op it cannot run.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/cuda/cuda_allocator.h"

namespace ampstudio {

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int device = 0);  // throws CudaError when the device cannot be used
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

    GradientCheck unscaleAndCheck(std::span<const Tensor> grads, float invScale) override;
    void scale(std::span<const Tensor> tensors, float factor) override;
    void sgdStep(const Tensor& weight, const Tensor& grad, const Tensor& momentum,
                 const SgdStepParams& params) override;
    void adamStep(const Tensor& weight, const Tensor& grad, const Tensor& m, const Tensor& v,
                  const AdamStepParams& params) override;

    cudaStream_t stream() const { return m_stream; }
    CudaAllocator& allocator() { return *m_allocator; }

private:
    void requireOnThisDevice(const Tensor& t, const char* what) const;

    int m_device;
    std::string m_name;
    cudaStream_t m_stream = nullptr;
    std::shared_ptr<CudaAllocator> m_allocator;
};

}  // namespace ampstudio
