#pragma once
// The CPU backend's OpKernel: runs a float32 CpuKernel on tensors of any dtype (cpu_kernel.h says
// how), with the conversions and gradient accumulation done here once for every op.

#include <memory>
#include <vector>

#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

class CpuOpAdapter final : public OpKernel {
public:
    CpuOpAdapter(std::unique_ptr<CpuKernel> kernel, const KernelSetup& setup, CpuDnnl& dnnl);

    void forward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override;
    void backward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad,
                  std::span<const GradReq> req) override;

private:
    // A float32 view of `t`: its own memory when it is f32 (or bf16 for a kernel that computes in
    // storage types), else `scratch` filled by conversion (when `load`) or left for the kernel to write.
    CpuArray view(const Tensor& t, std::vector<float>& scratch, bool load) const;

    std::unique_ptr<CpuKernel> m_kernel;
    CpuDnnl& m_dnnl;
    bool m_storageTypes = false;  // the kernel takes bfloat16 as stored (CpuKernel::computesInStorageTypes)
    std::vector<bool> m_mutableInput;
    std::vector<std::vector<float>> m_inScratch, m_outScratch, m_outGradScratch, m_inGradScratch;
    std::vector<CpuArray> m_in, m_out, m_outGrad, m_inGrad;
};

// Host-side conversions between a CPU tensor's storage and float32 (round to nearest even into
// f16/bf16; ints and f64 are converted as C++ converts them).
void cpuToFloats(const Tensor& src, float* dst);
void cpuFromFloats(const float* src, const Tensor& dst);

}  // namespace ampstudio
