#include "backend/cuda/cuda_kernel.h"

#include <algorithm>

#include "ops/op_registry.h"

namespace ampstudio {

void CudaKernelTable::add(std::string op, CudaKernelFactory factory) {
    m_factories.insert_or_assign(std::move(op), std::move(factory));
}

const CudaKernelFactory* CudaKernelTable::find(std::string_view op) const {
    if (auto it = m_factories.find(std::string(op)); it != m_factories.end()) {
        return &it->second;
    }
    if (auto it = m_factories.find(std::string(OpRegistry::instance().canonicalName(op))); it != m_factories.end()) {
        return &it->second;
    }
    return nullptr;
}

std::vector<std::string> CudaKernelTable::ops() const {
    std::vector<std::string> names;
    for (const auto& [name, factory] : m_factories) {
        names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

const CudaKernelTable& cudaKernels() {
    static const CudaKernelTable table = [] {
        CudaKernelTable t;
        addCudaDenseKernels(t);
        addCudaConvolutionKernels(t);
        addCudaBatchNormKernels(t);
        addCudaPoolingKernels(t);
        addCudaActivationKernels(t);
        addCudaElemwiseKernels(t);
        addCudaShapeKernels(t);
        addCudaLossKernels(t);
        addCudaCastKernels(t);
        return t;
    }();
    return table;
}

}  // namespace ampstudio
