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
    if (!t.defined() || t.dtype() != DType::F32) {
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

void CpuBackend::fill(const Tensor& dst, const Tensor& scalar) {
    if (!scalar.defined() || scalar.dtype() != DType::F32 || scalar.size() != 1) {
        throw std::invalid_argument("fill: the value must be a one-element float32 tensor");
    }
    fill(dst, *scalar.data<float>());
}

namespace {

// The CPU's memory is the host's: a copy is done when it is queued.
class CpuReadback final : public HostReadback {
public:
    explicit CpuReadback(std::size_t bytes) : m_buffer(bytes) {}
    std::size_t bytes() const override { return m_buffer.size(); }
    void copy(const Tensor& src, std::size_t offset) override {
        if (offset > m_buffer.size() || src.bytes() > m_buffer.size() - offset) {
            throw std::invalid_argument("readback: " + std::to_string(src.bytes()) + " bytes at " +
                                        std::to_string(offset) + " do not fit in " + std::to_string(m_buffer.size()));
        }
        if (src.bytes() != 0) {
            std::memcpy(m_buffer.data() + offset, src.data(), src.bytes());
        }
    }
    const std::byte* wait() override { return m_buffer.data(); }

private:
    std::vector<std::byte> m_buffer;
};

const StepRecord& recordOf(const Tensor& record) {
    requireStepTensors(record, Tensor{});
    return *static_cast<const StepRecord*>(record.data());
}

}  // namespace

std::unique_ptr<HostReadback> CpuBackend::createReadback(std::size_t bytes) { return std::make_unique<CpuReadback>(bytes); }

void CpuBackend::unscaleGradients(std::span<const GradientBuffers> grads, const GradientPassSettings& settings,
                                  const Tensor& record, const Tensor& lossScale) {
    requireStepTensors(record, lossScale);
    StepRecord& r = *static_cast<StepRecord*>(record.data());
    const auto invScale = static_cast<float>(1.0 / (r.scaler.scale * settings.divisor));
    double sumOfSquares = 0.0;
    for (const GradientBuffers& b : grads) {
        requireF32(b.master, "gradients to unscale");
        if (b.grad.storage() != b.master.storage()) {
            convert(b.grad, b.master);
        }
        float* p = b.master.data<float>();
        sumOfSquares += parallelSum(b.master.size(), [p, invScale](int64_t begin, int64_t end) {
            double sum = 0.0;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = begin; i < end; ++i) {
                const float v = p[i] * invScale;
                p[i] = v;
                sum += static_cast<double>(v) * v;
            }
            return sum;
        });
    }
    finishGradientPass(settings, sumOfSquares, r);
    if (lossScale.defined()) {
        *lossScale.data<float>() = static_cast<float>(r.scaler.scale);
    }
}

// The optimizer loops copy their hyperparameters into locals: read through the params reference, every
// store to w[i] might change them, and the loop would neither vectorise nor hoist the loads.
void CpuBackend::sgdStep(const OptimizerBuffers& p, const SgdStepParams& params, const Tensor& record) {
    requireF32(p.weight, "SGD weights");
    requireF32(p.grad, "SGD gradients");
    if (params.momentum != 0.0f) {
        requireF32(p.state1, "SGD momentum");
    }
    requireOptimizerShapes(p);
    const StepRecord& r = recordOf(record);
    if (r.skipped) {
        return;
    }
    float* w = p.weight.data<float>();
    const float* g = p.grad.data<float>();
    const float clip = r.clipFactor;
    const float lr = params.learningRate;
    const float wd = params.weightDecay;
    if (params.momentum == 0.0f) {
        parallelFor(p.weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
            for (int64_t i = b; i < e; ++i) {
                w[i] -= lr * (g[i] * clip + wd * w[i]);
            }
        });
    } else {
        // PyTorch's formulation: buf = mu * buf + g; step = nesterov ? g + mu * buf : buf.
        float* buf = p.state1.data<float>();
        const float mu = params.momentum;
        const bool nesterov = params.nesterov;
        parallelFor(p.weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
            for (int64_t i = b; i < e; ++i) {
                const float d = g[i] * clip + wd * w[i];
                const float m = mu * buf[i] + d;
                buf[i] = m;
                w[i] -= lr * (nesterov ? d + mu * m : m);
            }
        });
    }
    if (p.lowPrecision.defined()) {
        cpuFromFloats(w, p.lowPrecision);
    }
}

void CpuBackend::adamStep(const OptimizerBuffers& p, const AdamStepParams& params, const Tensor& record) {
    requireF32(p.weight, "Adam weights");
    requireF32(p.grad, "Adam gradients");
    requireF32(p.state1, "Adam first moments");
    requireF32(p.state2, "Adam second moments");
    requireOptimizerShapes(p);
    const StepRecord& r = recordOf(record);
    if (r.skipped) {
        return;
    }
    float* w = p.weight.data<float>();
    const float* g = p.grad.data<float>();
    float* mm = p.state1.data<float>();
    float* vv = p.state2.data<float>();
    const auto t = static_cast<double>(r.appliedSteps);
    const auto c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(params.beta1), t));
    const auto c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(params.beta2), t));
    const float clip = r.clipFactor;
    const float lr = params.learningRate;
    const float wd = params.weightDecay;
    const float beta1 = params.beta1;
    const float beta2 = params.beta2;
    const float epsilon = params.epsilon;
    const bool decoupled = params.decoupledWeightDecay;
    parallelFor(p.weight.size(), [=](int64_t b, int64_t e) {
#pragma omp simd
        for (int64_t i = b; i < e; ++i) {
            float gi = g[i] * clip;
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
    if (p.lowPrecision.defined()) {
        cpuFromFloats(w, p.lowPrecision);
    }
}

}  // namespace ampstudio
