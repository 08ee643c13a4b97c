#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaElemwiseKernels(CudaKernelTable&) {}

}  // namespace ampstudio
