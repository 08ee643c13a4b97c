// CPU kernels of the cast ops: input i to output i (amp_multicast has several), the gradient back,
// each in one pass on the tensors as stored (makeValueCopyKernel in cpu_kernel.h). The rounding
// happens where it did when the adapter converted around a plain copy: once, to the output's dtype
// forward and to the input's backward.
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

void addCpuCastKernels(CpuKernelTable& table) {
    for (const char* op : {"Cast", "amp_cast", "amp_multicast"}) {
        table.add(op, [](const KernelSetup&, CpuDnnl&) { return makeValueCopyKernel(); });
    }
}

}  // namespace ampstudio
