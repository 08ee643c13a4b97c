// CPU kernels of the cast ops: input i to output i (amp_multicast has several), the gradient back.
// They take float32 and bfloat16 tensors as stored (computesInStorageTypes) and convert in one pass
// (convertArray); the adapter widens float16 (and any other dtype) to a float32 scratch before and
// rounds after, as for every kernel. Rounding happens where it did when the adapter converted around
// a copy: once, to the output's dtype (forward) or to the input's (backward), so the results are the
// same bits, in one pass instead of two or three (a bfloat16 -> float32 cast used to widen into a
// scratch, copy it, and copy again).
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

namespace {

class CastKernel final : public CpuKernel {
public:
    bool computesInStorageTypes() const override { return true; }
    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        for (std::size_t i = 0; i < in.size(); ++i) convertArray(in[i], out[i]);
    }
    void backward(const CpuContext&, std::span<const CpuArray>, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        for (std::size_t i = 0; i < inGrad.size(); ++i) {
            if (inGrad[i].defined()) convertArray(outGrad[i], inGrad[i]);
        }
    }
};

std::unique_ptr<CpuKernel> makeCopyKernel(const KernelSetup&, CpuDnnl&) { return std::make_unique<CastKernel>(); }

}  // namespace

void addCpuCastKernels(CpuKernelTable& table) {
    table.add("Cast", makeCopyKernel);
    table.add("amp_cast", makeCopyKernel);
    table.add("amp_multicast", makeCopyKernel);
}

}  // namespace ampstudio
