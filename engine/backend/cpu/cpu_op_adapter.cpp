#include "backend/cpu/cpu_op_adapter.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ops/mxnet_op_facts.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

template <typename T>
void castLoop(const T* src, float* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        dst[i] = static_cast<float>(src[i]);
    }
}

template <typename T>
void castBackLoop(const float* src, T* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        dst[i] = static_cast<T>(src[i]);
    }
}

}  // namespace

void cpuToFloats(const Tensor& src, float* dst) {
    const int64_t n = src.size();
    const auto count = static_cast<std::size_t>(n);
    switch (src.dtype()) {
        case DType::F32: std::memcpy(dst, src.data(), count * sizeof(float)); return;
        case DType::F16: halfToFloats({src.data<const uint16_t>(), count}, {dst, count}); return;
        case DType::BF16: bfloat16ToFloats({src.data<const uint16_t>(), count}, {dst, count}); return;
        case DType::F64: castLoop(src.data<const double>(), dst, n); return;
        case DType::I32: castLoop(src.data<const int32_t>(), dst, n); return;
        case DType::I64: castLoop(src.data<const int64_t>(), dst, n); return;
        case DType::U8: castLoop(src.data<const uint8_t>(), dst, n); return;
        case DType::I8: castLoop(src.data<const int8_t>(), dst, n); return;
        default: break;
    }
    throw std::invalid_argument("the CPU backend cannot compute on " + std::string(dtypeName(src.dtype())) + " tensors");
}

void cpuFromFloats(const float* src, const Tensor& dst) {
    const int64_t n = dst.size();
    const auto count = static_cast<std::size_t>(n);
    switch (dst.dtype()) {
        case DType::F32: std::memcpy(dst.data(), src, count * sizeof(float)); return;
        case DType::F16: floatsToHalf({src, count}, {dst.data<uint16_t>(), count}); return;
        case DType::BF16: floatsToBfloat16({src, count}, {dst.data<uint16_t>(), count}); return;
        case DType::F64: castBackLoop(src, dst.data<double>(), n); return;
        case DType::I32: castBackLoop(src, dst.data<int32_t>(), n); return;
        case DType::I64: castBackLoop(src, dst.data<int64_t>(), n); return;
        case DType::U8: castBackLoop(src, dst.data<uint8_t>(), n); return;
        case DType::I8: castBackLoop(src, dst.data<int8_t>(), n); return;
        default: break;
    }
    throw std::invalid_argument("the CPU backend cannot compute on " + std::string(dtypeName(dst.dtype())) + " tensors");
}

CpuOpAdapter::CpuOpAdapter(std::unique_ptr<CpuKernel> kernel, const KernelSetup& setup, CpuDnnl& dnnl)
    : m_kernel(std::move(kernel)), m_dnnl(dnnl), m_storageTypes(m_kernel->computesInStorageTypes()) {
    if (m_storageTypes) countStorageTypeKernel();
    const std::size_t nIn = setup.inShapes.size();
    const std::size_t nOut = setup.outShapes.size();
    m_mutableInput.assign(nIn, false);
    for (uint32_t i : MxnetOpFacts::instance().mutableInputs(setup.node)) {
        if (i < nIn) {
            m_mutableInput[i] = true;
        }
    }
    m_inScratch.resize(nIn);
    m_inGradScratch.resize(nIn);
    m_outScratch.resize(nOut);
    m_outGradScratch.resize(nOut);
    m_in.resize(nIn);
    m_inGrad.resize(nIn);
    m_out.resize(nOut);
    m_outGrad.resize(nOut);
}

CpuArray CpuOpAdapter::view(const Tensor& t, std::vector<float>& scratch, bool load) const {
    CpuArray a;
    a.shape = t.shape();
    if (t.dtype() == DType::F32 || (m_storageTypes && t.dtype() == DType::BF16)) {
        a.data = static_cast<float*>(t.data());
        a.dtype = t.dtype();
        return a;
    }
    scratch.resize(static_cast<std::size_t>(t.size()));
    a.data = scratch.data();
    if (load) {
        cpuToFloats(t, a.data);
    }
    return a;
}

void CpuOpAdapter::forward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        m_in[i] = view(in[i], m_inScratch[i], true);
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        m_out[i] = view(out[i], m_outScratch[i], false);
    }
    m_kernel->forward(CpuContext{ctx, m_dnnl}, m_in, m_out);
    // Only a scratch view is converted back; a view of the tensor itself was written in place.
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (m_out[i].data != out[i].data()) {
            cpuFromFloats(m_out[i].data, out[i]);
        }
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (m_mutableInput[i] && m_in[i].data != in[i].data()) {
            cpuFromFloats(m_in[i].data, in[i]);
        }
    }
}

void CpuOpAdapter::backward(const ExecContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out,
                            std::span<const Tensor> outGrad, std::span<const Tensor> inGrad,
                            std::span<const GradReq> req) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        m_in[i] = view(in[i], m_inScratch[i], true);
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        m_out[i] = view(out[i], m_outScratch[i], true);
        m_outGrad[i] = view(outGrad[i], m_outGradScratch[i], true);
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        m_inGrad[i] = CpuArray{};
        if (req[i] == GradReq::Null) {
            continue;
        }
        if (req[i] == GradReq::Write) {
            m_inGrad[i] = view(inGrad[i], m_inGradScratch[i], false);
            continue;
        }
        m_inGrad[i].shape = inGrad[i].shape();
        m_inGrad[i].dtype = DType::F32;
        m_inGradScratch[i].resize(static_cast<std::size_t>(inGrad[i].size()));
        m_inGrad[i].data = m_inGradScratch[i].data();
    }
    m_kernel->backward(CpuContext{ctx, m_dnnl}, m_in, m_out, m_outGrad, m_inGrad);
    std::vector<float> sum;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (req[i] == GradReq::Null || m_inGrad[i].data == inGrad[i].data()) {
            continue;  // written in place
        }
        const float* g = m_inGrad[i].data;
        if (req[i] == GradReq::Add) {
            // Accumulate in f32 and round the sum once, as a GPU's f16 add computes in f32.
            sum.resize(static_cast<std::size_t>(inGrad[i].size()));
            cpuToFloats(inGrad[i], sum.data());
            for (std::size_t k = 0; k < sum.size(); ++k) {
                sum[k] += g[k];
            }
            g = sum.data();
        }
        cpuFromFloats(g, inGrad[i]);
    }
}

}  // namespace ampstudio
