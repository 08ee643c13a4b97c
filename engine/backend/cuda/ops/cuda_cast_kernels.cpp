#include "backend/cuda/cuda_kernel.h"

namespace ampstudio {

void addCudaCastKernels(CudaKernelTable&) {}

}  // namespace ampstudio
