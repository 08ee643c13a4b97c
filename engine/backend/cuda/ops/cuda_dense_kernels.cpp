#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaDenseKernels(CudaKernelTable&) {}

}  // namespace ampstudio
