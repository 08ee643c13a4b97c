#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaActivationKernels(CudaKernelTable&) {}

}  // namespace ampstudio
