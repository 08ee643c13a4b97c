#pragma once
// CUDA runtime, cuBLAS and cuDNN status codes turned into exceptions that say what failed and why, so a
// device problem (out of memory, a lost device) reaches the user as a message, not a crash.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

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

inline void cublasCheck(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw CudaError(std::string("cuBLAS: ") + what + ": " + cublasGetStatusString(status));
    }
}

inline void cudnnCheck(cudnnStatus_t status, const char* what) {
    if (status != CUDNN_STATUS_SUCCESS) {
        throw CudaError(std::string("cuDNN: ") + what + ": " + cudnnGetErrorString(status));
    }
}

}  // namespace ampstudio
