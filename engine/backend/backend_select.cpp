// Which backend runs a model: the CPU reference always exists; the CUDA backend when the build has
// it and the machine has a device. And the argument checks every backend shares.
#include <stdexcept>
#include <string>

#include "backend/backend.h"

#if AMPSTUDIO_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_backend.h"
#endif

namespace ampstudio {

void requireStepTensors(const Tensor& record, const Tensor& lossScale) {
    if (!record.defined() || record.dtype() != DType::U8 || record.bytes() != sizeof(StepRecord)) {
        throw std::invalid_argument("the step record must be a U8 tensor of " + std::to_string(sizeof(StepRecord)) +
                                    " bytes");
    }
    if (lossScale.defined() && (lossScale.dtype() != DType::F32 || lossScale.size() != 1)) {
        throw std::invalid_argument("the loss scale must be a one-element float32 tensor");
    }
}

std::vector<float> downloadFloats(Backend& backend, const Tensor& t) {
    std::vector<float> out(static_cast<std::size_t>(t.size()));
    Tensor f32 = t;
    if (t.dtype() != DType::F32) {
        f32 = backend.allocate(t.shape(), DType::F32);
        backend.convert(t, f32);
    }
    backend.copyToHost(f32, out.data(), out.size() * sizeof(float));
    return out;
}

void requireOptimizerShapes(const OptimizerBuffers& p) {
    for (const Tensor* t : {&p.grad, &p.state1, &p.state2, &p.lowPrecision}) {
        if (t->defined() && t->size() != p.weight.size()) {
            throw std::invalid_argument("optimizer step: a buffer of " + std::to_string(t->size()) +
                                        " elements for a weight of " + std::to_string(p.weight.size()));
        }
    }
    if (p.lowPrecision.defined() && p.lowPrecision.dtype() != DType::F16 && p.lowPrecision.dtype() != DType::BF16) {
        throw std::invalid_argument("optimizer step: the weight's copy must be float16 or bfloat16");
    }
}

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
