#include "backend/cpu/cpu_kernel.h"

#include <cstring>
#include <stdexcept>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {

namespace {

// `from` into `to`, float32 or bfloat16 either way.
void convertArray(const CpuArray& from, const CpuArray& to) {
    const auto n = static_cast<std::size_t>(from.size());
    if (from.dtype == to.dtype) {
        std::memcpy(to.data, from.data, n * dtypeSize(from.dtype));
    } else if (from.dtype == DType::BF16 && to.dtype == DType::F32) {
        bfloat16ToFloats({reinterpret_cast<const uint16_t*>(from.data), n}, {to.data, n});
    } else if (from.dtype == DType::F32 && to.dtype == DType::BF16) {
        floatsToBfloat16({from.data, n}, {reinterpret_cast<uint16_t*>(to.data), n});
    } else {
        throw std::logic_error("convertArray: a storage-typed view is float32 or bfloat16");
    }
}

class ValueCopyKernel final : public CpuKernel {
public:
    bool computesInStorageTypes() const override { return true; }
    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        for (std::size_t i = 0; i < std::min(in.size(), out.size()); ++i) convertArray(in[i], out[i]);
    }
    void backward(const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        for (std::size_t i = 0; i < std::min(inGrad.size(), outGrad.size()); ++i) {
            if (inGrad[i].defined()) convertArray(outGrad[i], inGrad[i]);
        }
    }
};

}  // namespace

std::unique_ptr<CpuKernel> makeValueCopyKernel() { return std::make_unique<ValueCopyKernel>(); }

void CpuKernelTable::add(std::string op, CpuKernelFactory factory) {
    m_factories.insert_or_assign(std::move(op), std::move(factory));
}

const CpuKernelFactory* CpuKernelTable::find(std::string_view op) const {
    if (auto it = m_factories.find(std::string(op)); it != m_factories.end()) {
        return &it->second;
    }
    if (auto it = m_factories.find(std::string(MxnetOpFacts::instance().canonicalName(op))); it != m_factories.end()) {
        return &it->second;
    }
    return nullptr;
}

const CpuKernelTable& cpuKernels() {
    static const CpuKernelTable table = [] {
        CpuKernelTable t;
        addCpuDenseKernels(t);
        addCpuConvolutionKernels(t);
        addCpuBatchNormKernels(t);
        addCpuLayerNormKernels(t);
        addCpuPoolingKernels(t);
        addCpuActivationKernels(t);
        addCpuElemwiseKernels(t);
        addCpuShapeKernels(t);
        addCpuLossKernels(t);
        addCpuCastKernels(t);
        return t;
    }();
    return table;
}

dnnl::memory::desc dnnlDesc(const Shape& shape) {
    dnnl::memory::dims dims(shape.begin(), shape.end());
    // Dense row-major: the strides of a C array of this shape.
    dnnl::memory::dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * dims[i];
    }
    return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory dnnlMemory(const CpuArray& a, const dnnl::engine& engine) {
    return dnnl::memory(dnnlDesc(a.shape), engine, a.data);
}

dnnl::memory::desc nchwDesc(const Shape& shape, dnnl::memory::data_type type) {
    return dnnl::memory::desc(dnnl::memory::dims(shape.begin(), shape.end()), type, dnnl::memory::format_tag::nchw);
}

dnnl::memory::dims dnnlDims(const Pair& p) { return {p[0], p[1]}; }

void dnnlFailure(const Node& node, const dnnl::error& e) {
    throw OpError(node, std::string("oneDNN cannot run this setup: ") + e.what());
}

namespace {

std::atomic<bool> g_nativeBfloat16{true};
std::atomic<std::size_t> g_storageTypeKernels{0};

}  // namespace

bool cpuNativeBfloat16() {
    // AMS_CPU_NATIVE_BF16=0 runs a whole process (a test suite) on the converting path.
    static const bool hardware = [] {
        const char* env = std::getenv("AMS_CPU_NATIVE_BF16");
        if (env != nullptr && std::string_view(env) == "0") return false;
        const auto isa = dnnl::get_effective_cpu_isa();
        return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
    }();
    return hardware && g_nativeBfloat16.load();
}

void setCpuNativeBfloat16(bool enabled) { g_nativeBfloat16.store(enabled); }

std::size_t cpuStorageTypeKernelsMade() { return g_storageTypeKernels.load(); }

void countStorageTypeKernel() { g_storageTypeKernels.fetch_add(1); }

}  // namespace ampstudio
