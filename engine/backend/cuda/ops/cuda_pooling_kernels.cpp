#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaPoolingKernels(CudaKernelTable&) {}

}  // namespace ampstudio
