// CPU kernels of the cast ops. The adapter (cpu_op_adapter.cpp) already converts every input to f32
// and rounds every output to its dtype, so a cast is a copy here: the rounding to the target dtype
// happens when the adapter stores the output, and the backward's rounding of the gradient to the
// input's dtype when it stores the input gradient.
#include <algorithm>

#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

namespace {

std::unique_ptr<CpuKernel> makeCopyKernel(const KernelSetup&, CpuDnnl&) {
    return makeLambdaKernel(
        [](const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) {
            for (std::size_t i = 0; i < in.size(); ++i) {
                std::copy_n(in[i].data, in[i].size(), out[i].data);
            }
        },
        [](const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
           std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) {
            for (std::size_t i = 0; i < inGrad.size(); ++i) {
                if (inGrad[i].defined()) {
                    std::copy_n(outGrad[i].data, outGrad[i].size(), inGrad[i].data);
                }
            }
        });
}

}  // namespace

void addCpuCastKernels(CpuKernelTable& table) {
    table.add("Cast", makeCopyKernel);
    table.add("amp_cast", makeCopyKernel);
    table.add("amp_multicast", makeCopyKernel);
}

}  // namespace ampstudio
