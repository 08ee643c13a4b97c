// The training step's device code: the multi-tensor unscale-and-check pass and the optimizers, each
// computing what the CPU backend computes (cpu_backend.cpp), element for element.
#include <cmath>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/cuda_training_step_launchers.h"

namespace ampstudio::cuda {
namespace {

// Sums one double a thread over the block; thread 0 gets the total (a fixed order: the same bits
// every run).
__device__ double blockSum(double value) {
    __shared__ double sums[kThreads];
    sums[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
        __syncthreads();
    }
    return sums[0];
}

// The tensors of one multi-tensor launch, passed by value in the kernel's parameters (under 1 KiB
// of the 4 KiB allowed): block b works on the tensor t with firstBlock[t] <= b < firstBlock[t + 1].
constexpr int kUnscaleTensorsPerLaunch = 32;
struct UnscaleLaunch {
    const void* grad[kUnscaleTensorsPerLaunch];
    float* master[kUnscaleTensorsPerLaunch];
    int64_t n[kUnscaleTensorsPerLaunch];
    int32_t firstBlock[kUnscaleTensorsPerLaunch + 1];
    uint8_t gradType[kUnscaleTensorsPerLaunch];  // 0 f32, 1 f16, 2 bf16
    int count;
};

__device__ __forceinline__ float loadGradient(const void* p, uint8_t type, int64_t i) {
    switch (type) {
        case 1: return toFloat(static_cast<const __half*>(p)[i]);
        case 2: return toFloat(static_cast<const __nv_bfloat16*>(p)[i]);
        default: return static_cast<const float*>(p)[i];
    }
}

__global__ void unscaleKernel(UnscaleLaunch launch, const StepRecord* record, double divisor, double* partials) {
    int t = 0;
    while (t + 1 < launch.count && static_cast<int32_t>(blockIdx.x) >= launch.firstBlock[t + 1]) ++t;
    const int64_t block = blockIdx.x - launch.firstBlock[t];
    const int64_t blocks = launch.firstBlock[t + 1] - launch.firstBlock[t];
    const int64_t n = launch.n[t];
    const void* grad = launch.grad[t];
    const uint8_t type = launch.gradType[t];
    float* master = launch.master[t];
    // As the CPU computes it: in double, rounded once.
    const auto invScale = static_cast<float>(1.0 / (record->scaler.scale * divisor));
    double sum = 0.0;
    for (int64_t i = block * blockDim.x + threadIdx.x; i < n; i += blocks * blockDim.x) {
        const float v = loadGradient(grad, type, i) * invScale;
        master[i] = v;
        sum += static_cast<double>(v) * v;
    }
    const double total = blockSum(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

__global__ void finishGradientPassKernel(const double* partials, int64_t count, GradientPassSettings settings,
                                         StepRecord* record, float* lossScale) {
    double sum = 0.0;
    for (int64_t i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
    const double total = blockSum(sum);
    if (threadIdx.x == 0) {
        finishGradientPass(settings, total, *record);
        *lossScale = static_cast<float>(record->scaler.scale);
    }
}

template <typename Low>
__global__ void sgdKernel(float* w, const float* g, float* buf, Low* low, int64_t n, float lr, float mu, float wd,
                          bool nesterov, const StepRecord* record) {
    if (record->skipped) return;
    const float clip = record->clipFactor;
    AMS_GRID_STRIDE(i, n) {
        const float d = g[i] * clip + wd * w[i];
        float wi;
        if (buf == nullptr) {
            wi = w[i] - lr * d;
        } else {
            const float m = mu * buf[i] + d;
            buf[i] = m;
            wi = w[i] - lr * (nesterov ? d + mu * m : m);
        }
        w[i] = wi;
        if (low != nullptr) low[i] = fromFloat<Low>(wi);
    }
}

template <typename Low>
__global__ void adamKernel(float* w, const float* g, float* mm, float* vv, Low* low, int64_t n, float lr, float beta1,
                           float beta2, float epsilon, float wd, bool decoupled, const StepRecord* record) {
    if (record->skipped) return;
    // Bias corrections as the CPU backend computes them: in double, then rounded once; once a block.
    __shared__ float corrections[2];
    if (threadIdx.x == 0) {
        const auto t = static_cast<double>(record->appliedSteps);
        corrections[0] = static_cast<float>(1.0 - pow(static_cast<double>(beta1), t));
        corrections[1] = static_cast<float>(1.0 - pow(static_cast<double>(beta2), t));
    }
    __syncthreads();
    const float c1 = corrections[0], c2 = corrections[1];
    const float clip = record->clipFactor;
    AMS_GRID_STRIDE(i, n) {
        float gi = g[i] * clip;
        float wi = w[i];
        if (decoupled) {
            wi -= lr * wd * wi;
        } else {
            gi += wd * wi;
        }
        const float m = beta1 * mm[i] + (1.0f - beta1) * gi;
        const float v = beta2 * vv[i] + (1.0f - beta2) * gi * gi;
        mm[i] = m;
        vv[i] = v;
        wi -= lr * (m / c1) / (sqrtf(v / c2) + epsilon);
        w[i] = wi;
        if (low != nullptr) low[i] = fromFloat<Low>(wi);
    }
}

// Calls f with the C++ type of a low-precision copy (float, unused, when there is none).
template <typename F>
void dispatchLow(const void* low, DType type, F&& f) {
    if (low == nullptr) {
        f(float{});
        return;
    }
    dispatchFloat(type, f);
}

}  // namespace

namespace {

// Blocks for one tensor of the unscale pass: four elements a thread at least, at most 256 blocks:
// enough to fill the device, few partials.
int32_t unscaleBlocks(int64_t n) {
    const int64_t blocks = (n + 4 * kThreads - 1) / (4 * kThreads);
    return static_cast<int32_t>(std::clamp<int64_t>(blocks, 1, 256));
}

uint8_t gradientTypeCode(DType type) {
    switch (type) {
        case DType::F32: return 0;
        case DType::F16: return 1;
        case DType::BF16: return 2;
        default: unsupportedType(type);
    }
}

}  // namespace

int64_t unscalePartials(const UnscaleTensor* tensors, int count) {
    int64_t total = 0;
    for (int i = 0; i < count; ++i) total += unscaleBlocks(tensors[i].n);
    return total;
}

void unscaleGradients(const UnscaleTensor* tensors, int count, const GradientPassSettings& settings,
                      StepRecord* record, float* lossScale, double* partials, cudaStream_t stream) {
    int64_t written = 0;
    for (int first = 0; first < count; first += kUnscaleTensorsPerLaunch) {
        UnscaleLaunch launch{};
        launch.count = std::min(count - first, kUnscaleTensorsPerLaunch);
        int32_t blocks = 0;
        for (int k = 0; k < launch.count; ++k) {
            const UnscaleTensor& t = tensors[first + k];
            launch.grad[k] = t.grad;
            launch.master[k] = t.master;
            launch.n[k] = t.n;
            launch.gradType[k] = gradientTypeCode(t.gradType);
            launch.firstBlock[k] = blocks;
            blocks += unscaleBlocks(t.n);
        }
        launch.firstBlock[launch.count] = blocks;
        unscaleKernel<<<blocks, kThreads, 0, stream>>>(launch, record, settings.divisor, partials + written);
        checkLaunch("unscale gradients");
        written += blocks;
    }
    finishGradientPassKernel<<<1, kThreads, 0, stream>>>(partials, written, settings, record, lossScale);
    checkLaunch("check the gradients");
}

void sgdStep(float* w, const float* g, float* momentum, void* low, DType lowType, int64_t n, float learningRate,
             float mu, float weightDecay, bool nesterov, const StepRecord* record, cudaStream_t stream) {
    if (n == 0) return;
    dispatchLow(low, lowType, [&](auto value) {
        using Low = decltype(value);
        sgdKernel<Low><<<gridFor(n), kThreads, 0, stream>>>(w, g, mu == 0.0f ? nullptr : momentum,
                                                            static_cast<Low*>(low), n, learningRate, mu, weightDecay,
                                                            nesterov, record);
    });
    checkLaunch("SGD step");
}

void adamStep(float* w, const float* g, float* m, float* v, void* low, DType lowType, int64_t n, float learningRate,
              float beta1, float beta2, float epsilon, float weightDecay, bool decoupledWeightDecay,
              const StepRecord* record, cudaStream_t stream) {
    if (n == 0) return;
    dispatchLow(low, lowType, [&](auto value) {
        using Low = decltype(value);
        adamKernel<Low><<<gridFor(n), kThreads, 0, stream>>>(w, g, m, v, static_cast<Low*>(low), n, learningRate,
                                                             beta1, beta2, epsilon, weightDecay, decoupledWeightDecay,
                                                             record);
    });
    checkLaunch("Adam step");
}

}  // namespace ampstudio::cuda
