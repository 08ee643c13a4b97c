#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaConvolutionKernels(CudaKernelTable&) {}

}  // namespace ampstudio
