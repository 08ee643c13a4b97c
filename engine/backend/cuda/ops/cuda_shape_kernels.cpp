#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaShapeKernels(CudaKernelTable&) {}

}  // namespace ampstudio
