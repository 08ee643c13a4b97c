// Training throughput of the CPU engine per precision mode, with the matmul rate per dtype measured
// in the same run (so the step's efficiency is a ratio on the same machine state) and the ISA oneDNN
// dispatched to.
//
//   bench_training [--steps N] [--rounds N] [--models mlp,cnn] [--modes fp32,amp,fp16-master,bf16,bf16-master]
//                  [--python PATH | --python none] [--native-bf16 on|off]
//
// PyTorch (issue 22): when tests/differential/.venv-torch (or --python) has torch, its CPU step time
// for the same model, batch and mode (tests/bench/pytorch_cpu_reference.py: fp32, CPU autocast to
// float16 for amp and fp16-master, to bfloat16 for bf16 and bf16-master) is measured right after
// ours in every round, and the table adds torch_ms and vs_torch (PyTorch's time / ours: above 1 we
// are faster). `--native-bf16 off` runs bfloat16 on the converting path where the CPU has native
// bf16 (setCpuNativeBfloat16), to compare the two paths on one machine.
//
// Models (issue 5): the MLP 784-1024-1024-10 at batch 256, and a small CNN (two conv 3x3 + BN + relu
// + max-pool 2 blocks of 32 and 64 channels, FC head) at batch 64, on 28x28 inputs with random
// pixels and labels (throughput does not depend on the data). Each figure is the median over
// --rounds rounds (default 3; a round measures the matmul rate and every mode once) of the median step
// time after 3 warm-up steps.
// Targets: the MLP's f32 step at >= 70 % of the f32 matmul rate; bf16 >= 2.5x fp32 where the CPU
// has AMX; emulated f16 <= 1.5x the f32 step time.
#include <dnnl.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_kernel.h"
#include "bench_stats.h"
#include "graph/graph.h"
#include "ops/mxnet_op_facts.h"
#include "platform/process_heap_policy.h"
#include "tensor/seeded_random.h"
#include "train/trainer.h"
#include "reference_child.h"
#include "training_models.h"

using namespace ampstudio;
using namespace ampstudio::bench;

namespace {


// Median TFLOP/s of an M x K x N oneDNN matmul in `type` (f32 or bf16 in, f32 out); 0 when oneDNN
// has no such kernel for this CPU.
double matmulTflops(dnnl::memory::data_type type, int64_t m, int64_t k, int64_t n, int repeats) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const memory::desc a({m, k}, type, memory::format_tag::ab), bw({k, n}, type, memory::format_tag::ab),
        c({m, n}, memory::data_type::f32, memory::format_tag::ab);
    matmul::primitive_desc pd;
    try {
        pd = matmul::primitive_desc({a, bw, c}, eng);
    } catch (const dnnl::error&) {
        return 0.0;
    }
    matmul prim(pd);
    memory ma(a, eng), mb(bw, eng), mc(c, eng);
    std::memset(ma.get_data_handle(), 0, a.get_size());
    std::memset(mb.get_data_handle(), 0, bw.get_size());
    auto run = [&] {
        prim.execute(s, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
        s.wait();
    };
    run();
    const double ms = medianMs(repeats, run);
    return 2.0 * static_cast<double>(m * k * n) / (ms * 1e-3) / 1e12;
}

struct ModeResult {
    double samplesPerSecond = 0.0;
    double stepMs = 0.0;
};

ModeResult trainThroughput(const Graph& model, int64_t batch, PrecisionMode mode, int steps) {
    const Dataset data = randomImages(batch * (steps + 3), 1);
    auto backend = makeCpuBackend();
    TrainerSettings s;
    s.precision = mode;
    s.batchSize = batch;
    s.epochs = 0;
    s.maxSteps = steps + 3;
    s.schedule.baseLr = 0.01;
    s.scalerPreset = "static:1024";  // the same work every step: no skipped steps in the timing
    MetricsSink sink;
    Trainer trainer(model, nullptr, data, nullptr, s, *backend, &sink);
    trainer.run();
    std::vector<double> sps;
    for (const StepMetrics& m : sink.takeNew().steps) {
        if (m.step >= 3) sps.push_back(m.samplesPerSecond);
    }
    std::sort(sps.begin(), sps.end());
    ModeResult r;
    r.samplesPerSecond = sps[sps.size() / 2];
    r.stepMs = 1e3 * static_cast<double>(batch) / r.samplesPerSecond;
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    int steps = 20;
    int rounds = 3;
    std::vector<std::string> models{"mlp", "cnn"};
    std::vector<std::string> modes = precisionModeNames();
    std::string python;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--python") == 0) python = argv[i + 1];
        if (std::strcmp(argv[i], "--native-bf16") == 0) setCpuNativeBfloat16(std::strcmp(argv[i + 1], "off") != 0);
        if (std::strcmp(argv[i], "--steps") == 0) steps = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--models") == 0) models = splitNames(argv[i + 1]);
        if (std::strcmp(argv[i], "--modes") == 0) modes = splitNames(argv[i + 1]);
    }
    auto backend = makeCpuBackend();
    std::printf("# backend: %s, native bf16 %s; %d rounds, modes interleaved, medians\n", backend->name().c_str(),
                cpuNativeBfloat16() ? "on" : "off", rounds);
    const std::filesystem::path source = std::filesystem::path(__FILE__).parent_path();
    if (python.empty()) python = referencePython(source, {".venv-torch"});
    ReferenceChild torch;
    const bool withTorch = python != "none" && !python.empty() &&
                           torch.start({python, (source / "pytorch_cpu_reference.py").string()});
    std::printf("# PyTorch: %s\n", withTorch ? torch.version().c_str() : "not run (no venv with torch)");
    // Both sides' worker threads spin a while after their work (libgomp, PyTorch's OpenMP): a pause
    // before each measurement keeps one from sharing the cores with the other's spinning.
    const auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); };
    // MLP step flops: the matmuls the step runs. Forward and the weight gradient for every layer, the
    // data gradient for all but the first (the executor computes no gradient for the data input).
    const double mlpFlops = 2.0 * 256.0 * (2.0 * 784 * 1024 + 3.0 * (1024.0 * 1024 + 1024.0 * 10));
    // Every round measures the matmul rate and then each mode once, so that a slow spell of a noisy
    // machine spreads over all modes instead of landing on one.
    std::vector<double> f32Rates, bf16Rates, mlpMatmulMs;
    std::vector<std::vector<std::vector<double>>> stepMs(models.size(), std::vector<std::vector<double>>(modes.size()));
    auto torchMs = stepMs;
    for (int r = 0; r < rounds; ++r) {
        f32Rates.push_back(matmulTflops(dnnl::memory::data_type::f32, 1024, 1024, 1024, 15));
        bf16Rates.push_back(matmulTflops(dnnl::memory::data_type::bf16, 1024, 1024, 1024, 15));
        // The MLP step's own matmul shapes (M, K, N) alone, plain layouts: how fast oneDNN is on them,
        // apart from everything else a step does.
        double ms = 0.0;
        for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{
                 {256, 784, 1024}, {256, 1024, 1024}, {256, 1024, 10},   // forward
                 {1024, 256, 784}, {1024, 256, 1024}, {10, 256, 1024},   // weight gradients
                 {256, 1024, 1024}, {256, 10, 1024}}) {                   // data gradients
            ms += 2.0 * static_cast<double>(m * k * n) / (matmulTflops(dnnl::memory::data_type::f32, m, k, n, 15) * 1e9);
        }
        mlpMatmulMs.push_back(ms);
        for (std::size_t m = 0; m < models.size(); ++m) {
            const bool isMlp = models[m] == "mlp";
            const Graph model = isMlp ? mlpModel(1024) : cnnModel();
            for (std::size_t k = 0; k < modes.size(); ++k) {
                settle();
                stepMs[m][k].push_back(trainThroughput(model, isMlp ? 256 : 64, parsePrecisionMode(modes[k]), steps).stepMs);
                if (withTorch) {
                    settle();
                    torchMs[m][k].push_back(torch.ask(models[m] + " " + modes[k] + " " + std::to_string(steps)));
                }
            }
        }
    }
    const double f32Rate = median(f32Rates);
    const double bf16Rate = median(bf16Rates);
    std::printf("# matmul 1024^3 (oneDNN): f32 %.3f TFLOP/s, bf16 %s\n", f32Rate,
                bf16Rate > 0 ? (std::to_string(bf16Rate) + " TFLOP/s").c_str() : "no kernel on this ISA");
    if (std::find(models.begin(), models.end(), "mlp") != models.end()) {
        const double ms = median(mlpMatmulMs);
        std::printf("# MLP step's matmuls alone (f32): %.2f ms, %.0f %% of the 1024^3 rate\n", ms,
                    100.0 * mlpFlops / (ms * 1e-3) / 1e12 / f32Rate);
    }
    std::printf("# %-6s %-12s %12s %10s %12s %14s %10s %9s\n", "model", "mode", "samples/s", "step_ms", "vs_fp32",
                "matmul_share", "torch_ms", "vs_torch");
    for (std::size_t m = 0; m < models.size(); ++m) {
        const bool isMlp = models[m] == "mlp";
        const double batch = isMlp ? 256.0 : 64.0;
        double fp32Ms = 0.0;
        for (std::size_t k = 0; k < modes.size(); ++k) {
            const PrecisionMode mode = parsePrecisionMode(modes[k]);
            const double ms = median(stepMs[m][k]);
            if (mode == PrecisionMode::Fp32) fp32Ms = ms;
            const double share = isMlp && mode == PrecisionMode::Fp32 ? mlpFlops / (ms * 1e-3) / 1e12 / f32Rate : 0.0;
            const double theirs = withTorch ? median(torchMs[m][k]) : 0.0;
            char torchColumns[64] = "         -         -";
            if (theirs > 0) std::snprintf(torchColumns, sizeof torchColumns, " %10.2f %8.2fx", theirs, theirs / ms);
            std::printf("  %-6s %-12s %12.0f %10.2f %11.2fx %13s%s\n", models[m].c_str(), modes[k].c_str(),
                        batch / (ms * 1e-3), ms, fp32Ms > 0 ? fp32Ms / ms : 0.0,
                        share > 0 ? (std::to_string(static_cast<int>(100 * share + 0.5)) + " %").c_str() : "-",
                        torchColumns);
        }
    }
    return 0;
}
