// CUDA kernels of the cast ops: Cast, amp_cast and amp_multicast. Each output i is input i converted
// to the output's dtype (type inference chose it: the `dtype` attribute, or amp_multicast's widest
// or, with cast_narrow, narrowest input type); the gradient goes back converted to the input's
// dtype. cuda::convert goes through f32 and rounds to nearest even, as the CPU adapter's conversions
// do (cpu_cast_kernels.cpp), so the two backends agree bit for bit (float-to-int casts of values out
// of the int's range aside: undefined on the CPU, saturated here).
#include <string>

#include "backend/cuda/cuda_buffer_launchers.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_kernel.h"
#include "ops/op_attrs.h"

namespace ampstudio {

namespace {

bool isComputeFloat(DType t) {
    return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

// What cuda::convert (and the CPU adapter) can read and write.
bool isConvertible(DType t) {
    return isComputeFloat(t) || t == DType::F64 || t == DType::I32 || t == DType::I64 || t == DType::U8 ||
           t == DType::I8;
}

void convertTensor(const Tensor& src, const Tensor& dst, cudaStream_t stream) {
    if (src.dtype() == dst.dtype() && isComputeFloat(src.dtype())) {
        // The f32 round trip gives back every f32, f16 and bf16 value: a copy is the same, faster.
        // (f64 and wide ints do lose bits through f32, on the CPU too, so they take the conversion.)
        if (dst.bytes() != 0 && src.data() != dst.data()) {
            cudaCheck(cudaMemcpyAsync(dst.data(), src.data(), dst.bytes(), cudaMemcpyDeviceToDevice, stream),
                      "cast");
        }
        return;
    }
    cuda::convert(src.data(), src.dtype(), dst.data(), dst.dtype(), src.size(), stream);
}

std::unique_ptr<CudaKernel> makeConvertKernel(const KernelSetup& setup, CudaBackend&) {
    for (const auto* types : {&setup.inTypes, &setup.outTypes}) {
        for (DType t : *types) {
            if (!isConvertible(t)) {
                OpAttrs(setup.node)
                    .fail("the CUDA backend cannot cast " + std::string(dtypeName(t)) + " tensors");
            }
        }
    }
    return makeLambdaCudaKernel(
        [](const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) {
            for (std::size_t i = 0; i < in.size(); ++i) {
                convertTensor(in[i], out[i], ctx.stream);
            }
        },
        [](const CudaContext& ctx, std::span<const Tensor>, std::span<const Tensor>,
           std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) {
            for (std::size_t i = 0; i < inGrad.size(); ++i) {
                if (inGrad[i].defined()) {
                    convertTensor(outGrad[i], inGrad[i], ctx.stream);
                }
            }
        });
}

}  // namespace

void addCudaCastKernels(CudaKernelTable& table) {
    table.add("Cast", makeConvertKernel);
    table.add("amp_cast", makeConvertKernel);
    table.add("amp_multicast", makeConvertKernel);
}

}  // namespace ampstudio
