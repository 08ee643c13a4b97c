#pragma once
// The CPU reference backend: 64-byte aligned host memory, a queue that runs work at once, oneDNN for
// matrix products, convolutions, BatchNorm and pooling, and plain loops for the rest.

#include <string>

#include "backend/backend.h"
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

class CpuBackend final : public Backend {
public:
    CpuBackend();

    std::string name() const override;
    Device device() const override { return Device{DeviceKind::Cpu, 0}; }

    Tensor allocate(const Shape& shape, DType dtype) override;
    void copyFromHost(const void* src, std::size_t bytes, const Tensor& dst) override;
    void copyToHost(const Tensor& src, void* dst, std::size_t bytes) override;
    void convert(const Tensor& src, const Tensor& dst) override;
    void fill(const Tensor& dst, float value) override;
    void synchronize() override {}

    bool hasKernel(std::string_view op) const override;
    std::unique_ptr<OpKernel> createKernel(const KernelSetup& setup) override;

    void fill(const Tensor& dst, const Tensor& scalar) override;
    std::unique_ptr<HostReadback> createReadback(std::size_t bytes) override;

    void unscaleGradients(std::span<const GradientBuffers> grads, const GradientPassSettings& settings,
                          const Tensor& record, const Tensor& lossScale) override;
    void sgdStep(const OptimizerBuffers& p, const SgdStepParams& params, const Tensor& record) override;
    void adamStep(const OptimizerBuffers& p, const AdamStepParams& params, const Tensor& record) override;

    // The instruction set oneDNN dispatches to on this CPU ("avx2", "avx512_core_amx", ...).
    static std::string dnnlIsa();

private:
    CpuDnnl m_dnnl;
};

}  // namespace ampstudio
