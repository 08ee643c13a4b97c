// CPU kernels of the shape ops (backend/cpu/cpu_kernel.h says how kernels are written).
#include "backend/cpu/cpu_kernel.h"

namespace ampstudio {

void addCpuShapeKernels(CpuKernelTable& table) { (void)table; }

}  // namespace ampstudio
