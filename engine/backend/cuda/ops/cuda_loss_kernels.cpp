#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaLossKernels(CudaKernelTable&) {}

}  // namespace ampstudio
