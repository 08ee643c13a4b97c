// CPU kernels of the elemwise ops (backend/cpu/cpu_kernel.h says how kernels are written).
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

void addCpuElemwiseKernels(CpuKernelTable& table) { (void)table; }

}  // namespace ampstudio
