#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaBatchNormKernels(CudaKernelTable&) {}

}  // namespace ampstudio
