#include "backend/cuda/cuda_kernel.h"

#include <algorithm>
#include <string>

#include "ops/op_attrs.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio {

void CudaKernelTable::add(std::string op, CudaKernelFactory factory) {
    m_factories.insert_or_assign(std::move(op), std::move(factory));
}

const CudaKernelFactory* CudaKernelTable::find(std::string_view op) const {
    if (auto it = m_factories.find(std::string(op)); it != m_factories.end()) {
        return &it->second;
    }
    if (auto it = m_factories.find(std::string(MxnetOpFacts::instance().canonicalName(op))); it != m_factories.end()) {
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

void requireOneFloatType(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const DType type = !setup.inTypes.empty() ? setup.inTypes[0] : setup.outTypes[0];
    if (type != DType::F32 && type != DType::F16 && type != DType::BF16) {
        attrs.fail("the CUDA backend computes this op on float32, float16 or bfloat16, not " +
                   std::string(dtypeName(type)));
    }
    for (const auto* types : {&setup.inTypes, &setup.outTypes}) {
        for (DType t : *types) {
            if (t != type) {
                attrs.fail("the CUDA kernel needs every input and output in one dtype, got " +
                           std::string(dtypeName(type)) + " and " + std::string(dtypeName(t)));
            }
        }
    }
}

const CudaKernelTable& cudaKernels() {
    static const CudaKernelTable table = [] {
        CudaKernelTable t;
        addCudaDenseKernels(t);
        addCudaConvolutionKernels(t);
        addCudaBatchNormKernels(t);
        addCudaLayerNormKernels(t);
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
