#include "backend/cpu/cpu_backend.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "backend/cpu/cpu_op_adapter.h"
#include "ops/op_error.h"
#include "tensor/parallel_for.h"

namespace ampstudio {

namespace {

class CpuStorage final : public Storage {
public:
    explicit CpuStorage(std::size_t bytes) : Storage(allocateAligned(bytes), bytes, Device{DeviceKind::Cpu, 0}) {}
    ~CpuStorage() override { std::free(data()); }

private:
    static void* allocateAligned(std::size_t bytes) {
        // 64 bytes: a cache line and an AVX-512 vector; rounded up as aligned_alloc requires.
        const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
        void* p = std::aligned_alloc(64, rounded);
        if (p == nullptr) {
            throw std::bad_alloc();
        }
        return p;
    }
};

void requireF32(const Tensor& t, const char* what) {
    if (t.dtype() != DType::F32) {
        throw std::invalid_argument(std::string(what) + " must be float32");
    }
}

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

CpuBackend::CpuBackend() = default;

std::string CpuBackend::dnnlIsa() {
    using dnnl::cpu_isa;
    switch (dnnl::get_effective_cpu_isa()) {
        case cpu_isa::sse41: return "sse41";
        case cpu_isa::avx: return "avx";
        case cpu_isa::avx2: return "avx2";
        case cpu_isa::avx2_vnni: return "avx2_vnni";
        case cpu_isa::avx512_mic: return "avx512_mic";
        case cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
        case cpu_isa::avx512_core: return "avx512_core";
        case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
        case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
        case cpu_isa::avx512_core_amx: return "avx512_core_amx";
        default: return "unknown";
    }
}

std::string cpuBackendName() { return "cpu (oneDNN " + CpuBackend::dnnlIsa() + ")"; }

std::string CpuBackend::name() const { return cpuBackendName(); }

Tensor CpuBackend::allocate(const Shape& shape, DType dtype) {
    if (dtypeSize(dtype) == 0) {
        throw std::invalid_argument("cannot allocate a tensor of unknown dtype");
    }
    const auto bytes = static_cast<std::size_t>(shapeSize(shape)) * dtypeSize(dtype);
    return Tensor(std::make_shared<CpuStorage>(bytes), shape, dtype);
}

void CpuBackend::copyFromHost(const void* src, std::size_t bytes, const Tensor& dst) {
    if (bytes != dst.bytes()) {
        throw std::invalid_argument("copyFromHost: " + std::to_string(bytes) + " bytes into a tensor of " +
                                    std::to_string(dst.bytes()));
    }
    if (bytes != 0) {
        std::memcpy(dst.data(), src, bytes);
    }
}

void CpuBackend::copyToHost(const Tensor& src, void* dst, std::size_t bytes) {
    if (bytes != src.bytes()) {
        throw std::invalid_argument("copyToHost: a tensor of " + std::to_string(src.bytes()) + " bytes into " +
                                    std::to_string(bytes));
    }
    if (bytes != 0) {
        std::memcpy(dst, src.data(), bytes);
    }
}

void CpuBackend::convert(const Tensor& src, const Tensor& dst) {
    if (src.size() != dst.size()) {
        throw std::invalid_argument("convert: " + shapeString(src.shape()) + " into " + shapeString(dst.shape()));
    }
    if (src.dtype() == dst.dtype()) {
        std::memcpy(dst.data(), src.data(), src.bytes());
        return;
    }
    if (src.dtype() == DType::F32) {
        cpuFromFloats(src.data<float>(), dst);
        return;
    }
    if (dst.dtype() == DType::F32) {
        cpuToFloats(src, dst.data<float>());
        return;
    }
    std::vector<float> tmp(static_cast<std::size_t>(src.size()));
    cpuToFloats(src, tmp.data());
    cpuFromFloats(tmp.data(), dst);
}

void CpuBackend::fill(const Tensor& dst, float value) {
    if (dst.dtype() == DType::F32) {
        float* p = dst.data<float>();
        std::fill(p, p + dst.size(), value);
        return;
    }
    std::vector<float> tmp(static_cast<std::size_t>(dst.size()), value);
    cpuFromFloats(tmp.data(), dst);
}

bool CpuBackend::hasKernel(std::string_view op) const { return cpuKernels().find(op) != nullptr; }

std::unique_ptr<OpKernel> CpuBackend::createKernel(const KernelSetup& setup) {
    const CpuKernelFactory* factory = cpuKernels().find(setup.node.op);
    if (factory == nullptr) {
        throw OpError(setup.node, "the CPU backend has no kernel for this op");
    }
    return std::make_unique<CpuOpAdapter>((*factory)(setup, m_dnnl), setup, m_dnnl);
}

GradientCheck CpuBackend::unscaleAndCheck(std::span<const Tensor> grads, float invScale) {
    GradientCheck check;
    for (const Tensor& g : grads) {
        requireF32(g, "gradients to unscale");
        float* p = g.data<float>();
        check.sumOfSquares += parallelSum(g.size(), [p, invScale](int64_t b, int64_t e) {
            double sum = 0.0;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = b; i < e; ++i) {
                const float v = p[i] * invScale;
                p[i] = v;
                sum += static_cast<double>(v) * v;
            }
            return sum;
        });
    }
    // inf * 0 is NaN and inf^2 is inf, so one finiteness test of the sum covers every element.
    check.finite = std::isfinite(check.sumOfSquares);
    return check;
}

void CpuBackend::scale(std::span<const Tensor> tensors, float factor) {
    for (const Tensor& t : tensors) {
        requireF32(t, "tensors to scale");
        float* p = t.data<float>();
        parallelFor(t.size(), [p, factor](int64_t b, int64_t e) {
#pragma omp simd
            for (int64_t i = b; i < e; ++i) {
                p[i] *= factor;
            }
        });
    }
}

// The optimizer loops copy their hyperparameters into locals: read through the params reference, every
// store to w[i] might change them, and the loop would neither vectorise nor hoist the loads.
void CpuBackend::sgdStep(const Tensor& weight, const Tensor& grad, const Tensor& momentum,
                         const SgdStepParams& params) {
    requireF32(weight, "SGD weights");
    requireF32(grad, "SGD gradients");
    float* w = weight.data<float>();
    const float* g = grad.data<float>();
    const float lr = params.learningRate;
    const float wd = params.weightDecay;
    if (params.momentum == 0.0f) {
        parallelFor(weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
            for (int64_t i = b; i < e; ++i) {
                w[i] -= lr * (g[i] + wd * w[i]);
            }
        });
        return;
    }
    requireF32(momentum, "SGD momentum");
    // PyTorch's formulation: buf = mu * buf + g; step = nesterov ? g + mu * buf : buf.
    float* buf = momentum.data<float>();
    const float mu = params.momentum;
    const bool nesterov = params.nesterov;
    parallelFor(weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) {
            const float d = g[i] + wd * w[i];
            const float m = mu * buf[i] + d;
            buf[i] = m;
            w[i] -= lr * (nesterov ? d + mu * m : m);
        }
    });
}

void CpuBackend::adamStep(const Tensor& weight, const Tensor& grad, const Tensor& m, const Tensor& v,
                          const AdamStepParams& params) {
    requireF32(weight, "Adam weights");
    requireF32(grad, "Adam gradients");
    requireF32(m, "Adam first moments");
    requireF32(v, "Adam second moments");
    float* w = weight.data<float>();
    const float* g = grad.data<float>();
    float* mm = m.data<float>();
    float* vv = v.data<float>();
    const double t = static_cast<double>(params.step);
    const float c1 = static_cast<float>(1.0 - std::pow(params.beta1, t));
    const float c2 = static_cast<float>(1.0 - std::pow(params.beta2, t));
    const float lr = params.learningRate;
    const float wd = params.weightDecay;
    const float beta1 = params.beta1;
    const float beta2 = params.beta2;
    const float epsilon = params.epsilon;
    const bool decoupled = params.decoupledWeightDecay;
    parallelFor(weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) {
            float gi = g[i];
            if (decoupled) {
                w[i] -= lr * wd * w[i];
            } else {
                gi += wd * w[i];
            }
            mm[i] = beta1 * mm[i] + (1.0f - beta1) * gi;
            vv[i] = beta2 * vv[i] + (1.0f - beta2) * gi * gi;
            const float mHat = mm[i] / c1;
            const float vHat = vv[i] / c2;
            w[i] -= lr * mHat / (std::sqrt(vHat) + epsilon);
        }
    });
}

}  // namespace ampstudio
