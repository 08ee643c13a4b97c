#include "backend/cuda/cuda_op_adapter.h"

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_buffer_launchers.h"

namespace ampstudio {

CudaOpAdapter::CudaOpAdapter(std::unique_ptr<CudaKernel> kernel, CudaBackend& backend)
    : m_kernel(std::move(kernel)), m_backend(backend) {}

CudaContext CudaOpAdapter::context(const ExecContext& ctx) const {
    return CudaContext{ctx, m_backend, m_backend.stream(), m_backend.cublas(), m_backend.cudnn()};
}

void CudaOpAdapter::forward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
    m_kernel->forward(context(ctx), in, out);
}

void CudaOpAdapter::backward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                             std::span<const Tensor> outGrad, std::span<const Tensor> inGrad,
                             std::span<const GradReq> req) {
    m_inGrad.resize(in.size());
    m_scratch.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        m_inGrad[i] = Tensor{};
        if (req[i] == GradReq::Write) {
            m_inGrad[i] = inGrad[i];
        } else if (req[i] == GradReq::Add) {
            Tensor& s = m_scratch[i];
            if (!s.defined() || s.shape() != inGrad[i].shape() || s.dtype() != inGrad[i].dtype()) {
                s = m_backend.allocate(inGrad[i].shape(), inGrad[i].dtype());
            }
            m_inGrad[i] = s;
        }
    }
    m_kernel->backward(context(ctx), in, out, outGrad, m_inGrad);
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (req[i] == GradReq::Add) {
            cuda::addInto(inGrad[i].data(), m_scratch[i].data(), inGrad[i].dtype(), inGrad[i].size(), m_backend.stream());
        }
    }
}

}  // namespace ampstudio
