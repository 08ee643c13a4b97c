#pragma once
// The CUDA backend's OpKernel: runs a CudaKernel and delivers its input gradients as GradReq asks.
// Write: the kernel writes the gradient tensor itself. Add (an entry read by several consumers): the
// kernel writes a scratch tensor of the same dtype, which is then added in, in f32 and rounded once,
// as the CPU adapter does.
#include <memory>
#include <vector>

#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

class CudaOpAdapter final : public OpKernel {
public:
    CudaOpAdapter(std::unique_ptr<CudaKernel> kernel, CudaBackend& backend);

    void forward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override;
    void backward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad,
                  std::span<const GradReq> req) override;

private:
    CudaContext context(const ExecContext& ctx) const;

    std::unique_ptr<CudaKernel> m_kernel;
    CudaBackend& m_backend;
    std::vector<Tensor> m_inGrad;   // what the kernel writes: the gradient itself, scratch, or nothing
    std::vector<Tensor> m_scratch;  // per input, kept between steps (the allocator would hand it back anyway)
};

}  // namespace ampstudio
