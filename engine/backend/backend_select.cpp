// Which backend runs a model: the CPU reference always exists; the CUDA backend when the build has
// it and the machine has a device.
#include <stdexcept>
#include <string>

#include "backend/backend.h"

#if AMPSTUDIO_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_backend.h"
#endif

namespace ampstudio {

bool cudaBackendBuilt() {
#if AMPSTUDIO_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

int cudaDeviceCount() {
#if AMPSTUDIO_HAVE_CUDA
    int count = 0;
    // No driver, no device, a driver too old: all mean "none here", not an error.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
#else
    return 0;
#endif
}

std::unique_ptr<Backend> makeCudaBackend(int device) {
#if AMPSTUDIO_HAVE_CUDA
    const int count = cudaDeviceCount();
    if (device < 0 || device >= count) {
        throw std::runtime_error(count == 0 ? "no CUDA device is present"
                                            : "there is no CUDA device " + std::to_string(device) + " (" +
                                                  std::to_string(count) + " present)");
    }
    return std::make_unique<CudaBackend>(device);
#else
    (void)device;
    throw std::runtime_error("this build has no CUDA backend (configure with -DAMPSTUDIO_CUDA=ON)");
#endif
}

BackendChoice parseBackendChoice(std::string_view text) {
    if (text == "auto") return BackendChoice::Auto;
    if (text == "cpu") return BackendChoice::Cpu;
    if (text == "cuda") return BackendChoice::Cuda;
    throw std::invalid_argument("unknown backend '" + std::string(text) + "' (accepted: auto, cpu, cuda)");
}

std::unique_ptr<Backend> makeBackend(BackendChoice choice, const Graph* model) {
    switch (choice) {
        case BackendChoice::Cpu: return makeCpuBackend();
        case BackendChoice::Cuda: return makeCudaBackend();
        case BackendChoice::Auto: break;
    }
    if (cudaDeviceCount() > 0) {
        auto cuda = makeCudaBackend();
        bool complete = true;
        if (model != nullptr) {
            for (const Node& node : model->nodes) {
                if (!node.isVariable() && !cuda->hasKernel(node.op)) {
                    complete = false;
                    break;
                }
            }
        }
        if (complete) return cuda;
    }
    return makeCpuBackend();
}

}  // namespace ampstudio
