#pragma once
// CUDA runtime and cuBLAS status codes turned into exceptions that say what failed and why, so a
// device problem (out of memory, a lost device) reaches the user as a message, not a crash.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace ampstudio {

class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline void cudaCheck(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw CudaError(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
    }
}

}  // namespace ampstudio
