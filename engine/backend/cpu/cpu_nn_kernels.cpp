// CPU kernels of the nn ops (backend/cpu/cpu_kernel.h says how kernels are written).
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

void addCpuNnKernels(CpuKernelTable& table) { (void)table; }

}  // namespace ampstudio
