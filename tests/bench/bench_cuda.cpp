// Training throughput of the CUDA backend per precision mode, with the chip's measured GEMM rate per
// dtype in the same run, so that the step's efficiency is a ratio on the same machine (the CPU
// counterpart is bench_training.cpp).
//
//   bench_cuda [--windows N] [--window-steps N] [--models mlp256,mlp1024,cnn]
//              [--modes fp32,fp32-tf32,amp,fp16-master,bf16]
//
// (a) cublasGemmEx alone at 8192^3 and 4096^3: f16 and bf16 in and out with f32 accumulation, f32
//     with TF32 off and on. The 8192^3 figure per dtype is "the peak" the other tables divide by.
// (b) Training through the Trainer on the CUDA backend: the MLP 784-4096-4096-10 at batch 256 and
//     1024 and bench_training's small CNN (training_models.h, 1x28x28) at batch 256,
//     on random pixels and labels (throughput does not depend on the data); samples/s as the median
//     over --windows windows (default 5) of --window-steps steps (default 10) after 5 warm-up steps
//     (cuDNN's algorithm choice, the caching allocator filling up), and the ratio to fp32. fp32 runs
//     with TF32 off (the backend's default, the f32 reference); fp32-tf32 with it on.
// (c) The MLP step's GEMMs alone, as the FullyConnected kernels call them (row-major: Y = X W^T, the
//     weight gradient dY^T X, the data gradient dY W): TFLOP/s per dtype and the share of (a)'s peak,
//     and their sum against the measured step time of the mode that uses that dtype.
// Without a device it prints why and exits 0. A full run takes well under a minute on an H200.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "bench_stats.h"
#include "graph/graph.h"
#include "ops/mxnet_op_facts.h"
#include "platform/process_heap_policy.h"
#include "tensor/seeded_random.h"
#include "train/metrics_sink.h"
#include "train/trainer.h"
#include "training_models.h"

using namespace ampstudio;
using namespace ampstudio::bench;

namespace {

// ---- GEMMs through cuBLAS ------------------------------------------------------------------------------

struct GemmType {
    const char* name;
    DType storage;
    cudaDataType_t data;
    cublasComputeType_t compute;
};

const GemmType kF16{"f16", DType::F16, CUDA_R_16F, CUBLAS_COMPUTE_32F};
const GemmType kBf16{"bf16", DType::BF16, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
const GemmType kF32{"f32", DType::F32, CUDA_R_32F, CUBLAS_COMPUTE_32F};
const GemmType kTf32{"f32-tf32", DType::F32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};

// One column-major cuBLAS call: C (m x n) = op(A) op(B), k the inner size.
struct Gemm {
    std::string name;
    cublasOperation_t opA = CUBLAS_OP_N, opB = CUBLAS_OP_N;
    int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
    bool inStep = true;  // run by the training step (the data input gets no gradient)
    double flops() const {
        return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    }
};

Gemm square(int64_t s) {
    return {std::to_string(s) + "^3", CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, s, s, s, true};
}

// FullyConnected's three products for a layer K -> N at batch B, row-major tensors seen by cuBLAS as
// their column-major transposes (the usual trick, no copies):
//   forward     Y[B,N]  = X[B,K] W[N,K]^T   ->  Y^T  = op_T(W^T) X^T
//   weight grad dW[N,K] = dY[B,N]^T X[B,K]  ->  dW^T = X^T op_T(dY^T)
//   data grad   dX[B,K] = dY[B,N] W[N,K]    ->  dX^T = W^T dY^T
std::vector<Gemm> layerGemms(const std::string& layer, int64_t b, int64_t k, int64_t n, bool dataGradInStep) {
    return {{layer + " forward", CUBLAS_OP_T, CUBLAS_OP_N, n, b, k, k, k, n, true},
            {layer + " weight grad", CUBLAS_OP_N, CUBLAS_OP_T, k, n, b, k, n, k, true},
            {layer + " data grad", CUBLAS_OP_N, CUBLAS_OP_N, k, b, n, k, n, k, dataGradInStep}};
}

// Device buffers big enough for any operand here (8192^2 elements), random values per dtype: zeros
// would flatter the tensor cores (less switching power, so higher clocks).
class GemmBench {
public:
    explicit GemmBench(CudaBackend& backend) : m_backend(backend) {
        cublasCheckOrDie(cublasCreate(&m_handle));
        cublasCheckOrDie(cublasSetStream(m_handle, backend.stream()));
        cublasCheckOrDie(cublasSetMathMode(m_handle, CUBLAS_DEFAULT_MATH));
        m_workspace = backend.allocate(Shape{32 << 20}, DType::U8);
        cublasCheckOrDie(cublasSetWorkspace(m_handle, m_workspace.data(), m_workspace.bytes()));
        const Shape shape{kMaxSide * kMaxSide};
        std::vector<float> host(static_cast<std::size_t>(kMaxSide * kMaxSide));
        Tensor f32[3];
        for (int i = 0; i < 3; ++i) {
            uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1);
            for (float& v : host) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v = static_cast<float>(static_cast<double>(x >> 40) * 0x1p-24 * 2.0 - 1.0);
            }
            f32[i] = backend.allocate(shape, DType::F32);
            backend.copyFromHost(host.data(), host.size() * sizeof(float), f32[i]);
        }
        for (DType t : {DType::F16, DType::BF16}) {
            for (int i = 0; i < 3; ++i) {
                m_buffers[t][i] = backend.allocate(shape, t);
                backend.convert(f32[i], m_buffers[t][i]);
            }
        }
        for (int i = 0; i < 3; ++i)
            m_buffers[DType::F32][i] = f32[i];
        backend.synchronize();
    }
    ~GemmBench() { cublasDestroy(m_handle); }

    // Median TFLOP/s over `windows` windows of `reps` calls, after two untimed calls.
    double tflops(const GemmType& type, const Gemm& g, int windows = 5, int reps = 10) {
        const float alpha = 1.0f, beta = 0.0f;
        const std::array<Tensor, 3>& buf = m_buffers[type.storage];
        auto call = [&] {
            cublasCheckOrDie(cublasGemmEx(m_handle, g.opA, g.opB, static_cast<int>(g.m),
                                          static_cast<int>(g.n), static_cast<int>(g.k), &alpha, buf[0].data(),
                                          type.data, static_cast<int>(g.lda), buf[1].data(), type.data,
                                          static_cast<int>(g.ldb), &beta, buf[2].data(), type.data,
                                          static_cast<int>(g.ldc), type.compute, CUBLAS_GEMM_DEFAULT));
        };
        call();
        call();
        m_backend.synchronize();
        const double ms = medianMs(windows, [&] {
            for (int r = 0; r < reps; ++r)
                call();
            m_backend.synchronize();
        });
        return g.flops() * reps / (ms * 1e-3) / 1e12;
    }

private:
    static constexpr int64_t kMaxSide = 8192;

    static void cublasCheckOrDie(cublasStatus_t status) {
        if (status != CUBLAS_STATUS_SUCCESS) {
            std::fprintf(stderr, "bench_cuda: cuBLAS error %d\n", static_cast<int>(status));
            std::exit(1);
        }
    }

    CudaBackend& m_backend;
    cublasHandle_t m_handle = nullptr;
    Tensor m_workspace;
    std::map<DType, std::array<Tensor, 3>> m_buffers;
};

// ---- training through the Trainer ---------------------------------------------------------------------

constexpr int kHidden = 4096;

struct Throughput {
    double samplesPerSecond = 0.0;
    double stepMs = 0.0;
};

// The Trainer times each step on the host from when its results came back to when the next step's
// did (the queue holds one step ahead), so the sum over a window is its wall time.
Throughput trainThroughput(const Graph& model, const Dataset& data, int64_t batch, PrecisionMode mode,
                           Backend& backend, int windows, int windowSteps) {
    constexpr int kWarmup = 5;
    TrainerSettings s;
    s.precision = mode;
    s.batchSize = batch;
    s.epochs = 1'000'000;  // the data set is a few batches, reshuffled; maxSteps ends the run
    s.maxSteps = kWarmup + windows * windowSteps;
    s.schedule.baseLr = 0.01;
    s.scalerPreset = "static:1024";  // the same work every step: no skipped steps in the timing
    MetricsSink sink;
    Trainer trainer(model, nullptr, data, nullptr, s, backend, &sink);
    trainer.run();
    const std::vector<StepMetrics> steps = sink.takeNew().steps;
    std::vector<double> rates;
    for (int w = 0; w < windows; ++w) {
        double seconds = 0.0;
        for (int i = 0; i < windowSteps; ++i) {
            seconds += static_cast<double>(batch) /
                       steps[static_cast<std::size_t>(kWarmup + w * windowSteps + i)].samplesPerSecond;
        }
        rates.push_back(static_cast<double>(batch * windowSteps) / seconds);
    }
    std::sort(rates.begin(), rates.end());
    Throughput t;
    t.samplesPerSecond = rates[rates.size() / 2];
    t.stepMs = 1e3 * static_cast<double>(batch) / t.samplesPerSecond;
    return t;
}

struct ModelRun {
    std::string name;
    int64_t batch;
    bool isMlp;
};

// The GEMM dtype a mode's FullyConnected layers run in.
const GemmType& gemmTypeOf(const std::string& mode) {
    if (mode == "amp" || mode == "fp16-master")
        return kF16;
    if (mode == "bf16" || mode == "bf16-master")
        return kBf16;
    if (mode == "fp32-tf32")
        return kTf32;
    return kF32;
}

}  // namespace

int main(int argc, char** argv) {
    ampstudio::applyLargeModelHeapPolicy();
    int windows = 5;
    int windowSteps = 10;
    std::vector<std::string> models{"mlp256", "mlp1024", "cnn"};
    std::vector<std::string> modes{"fp32", "fp32-tf32", "amp", "fp16-master", "bf16"};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--windows") == 0)
            windows = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--window-steps") == 0)
            windowSteps = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--models") == 0)
            models = splitNames(argv[i + 1]);
        if (std::strcmp(argv[i], "--modes") == 0)
            modes = splitNames(argv[i + 1]);
    }
    if (cudaDeviceCount() == 0) {
        std::printf("# bench_cuda: no CUDA device (or no driver); nothing to measure\n");
        return 0;
    }
    CudaBackend backend;
    CudaBackendOptions tf32Options;
    tf32Options.tf32 = true;
    CudaBackend tf32Backend(0, tf32Options);
    std::printf("# backend: %s; medians of %d windows\n", backend.name().c_str(), windows);

    // (a) the peak per dtype.
    GemmBench gemms(backend);
    std::map<std::string, double> peak;
    std::printf("# (a) cublasGemmEx, C = A B, column-major, f32 accumulation\n");
    std::printf("# %-9s %6s %10s\n", "dtype", "size", "TFLOP/s");
    for (int64_t size : {8192, 4096}) {
        for (const GemmType* t : {&kF16, &kBf16, &kF32, &kTf32}) {
            const double rate = gemms.tflops(*t, square(size));
            if (size == 8192)
                peak[t->name] = rate;
            std::printf("  %-9s %6lld %10.1f\n", t->name, static_cast<long long>(size), rate);
        }
    }

    // (b) training throughput.
    std::vector<ModelRun> runs;
    for (const std::string& m : models) {
        if (m == "mlp256")
            runs.push_back({"mlp", 256, true});
        if (m == "mlp1024")
            runs.push_back({"mlp", 1024, true});
        if (m == "cnn")
            runs.push_back({"cnn", 256, false});
    }
    const Graph mlpGraph = mlpModel(kHidden);
    const Graph cnnGraph = cnnModel();  // bench_training's and pytorch_reference.py's CNN
    std::map<std::pair<int64_t, std::string>, double> mlpStepMs;  // (batch, mode) -> step ms
    std::printf("# (b) training through the Trainer: %d warm-up steps, then %d windows of %d steps\n", 5,
                windows, windowSteps);
    std::printf("# %-9s %5s %-12s %12s %10s %9s\n", "model", "batch", "mode", "samples/s", "step_ms",
                "vs_fp32");
    for (const ModelRun& run : runs) {
        const Dataset data = randomImages(run.batch * 4, 1);
        double fp32Rate = 0.0;
        for (const std::string& mode : modes) {
            const bool tf32 = mode == "fp32-tf32";
            const PrecisionMode precision = parsePrecisionMode(tf32 ? "fp32" : mode);
            const Throughput t =
                trainThroughput(run.isMlp ? mlpGraph : cnnGraph, data, run.batch, precision,
                                tf32 ? static_cast<Backend&>(tf32Backend) : backend, windows, windowSteps);
            if (mode == "fp32")
                fp32Rate = t.samplesPerSecond;
            if (run.isMlp)
                mlpStepMs[{run.batch, mode}] = t.stepMs;
            std::printf("  %-9s %5lld %-12s %12.0f %10.3f %8.2fx\n", run.name.c_str(),
                        static_cast<long long>(run.batch), mode.c_str(), t.samplesPerSecond, t.stepMs,
                        fp32Rate > 0 ? t.samplesPerSecond / fp32Rate : 0.0);
        }
    }

    // (c) the MLP step's GEMMs alone.
    std::printf("# (c) the MLP step's GEMMs alone (cuBLAS column-major m n k; share = of the 8192^3 rate)\n");
    std::printf("# %5s %-18s %6s %6s %6s %5s %9s %6s %9s %6s %9s %6s\n", "batch", "gemm", "m", "n", "k",
                "step", "f16", "share", "bf16", "share", "f32", "share");
    for (int64_t batch : {int64_t{256}, int64_t{1024}}) {
        std::vector<Gemm> all;
        for (const Gemm& g : layerGemms("fc1", batch, 784, kHidden, false))
            all.push_back(g);
        for (const Gemm& g : layerGemms("fc2", batch, kHidden, kHidden, true))
            all.push_back(g);
        for (const Gemm& g : layerGemms("fc3", batch, kHidden, 10, true))
            all.push_back(g);
        std::map<std::string, double> stepGemmMs;
        for (const Gemm& g : all) {
            std::printf("  %5lld %-18s %6lld %6lld %6lld %5s", static_cast<long long>(batch), g.name.c_str(),
                        static_cast<long long>(g.m), static_cast<long long>(g.n), static_cast<long long>(g.k),
                        g.inStep ? "yes" : "no");
            for (const GemmType* t : {&kF16, &kBf16, &kF32}) {
                const double rate = gemms.tflops(*t, g);
                if (g.inStep)
                    stepGemmMs[t->name] += g.flops() / (rate * 1e9);
                std::printf(" %9.1f %5.0f%%", rate, 100.0 * rate / peak[t->name]);
            }
            std::printf("\n");
        }
        for (const char* mode : {"fp32", "amp", "bf16"}) {
            const GemmType& t = gemmTypeOf(mode);
            const auto step = mlpStepMs.find({batch, mode});
            if (step == mlpStepMs.end())
                continue;
            std::printf(
                "# batch %lld %s: the step's 8 GEMMs alone %.3f ms in %s, the step %.3f ms (%.0f %%)\n",
                static_cast<long long>(batch), mode, stepGemmMs[t.name], t.name, step->second,
                100.0 * stepGemmMs[t.name] / step->second);
        }
    }
    return 0;
}
