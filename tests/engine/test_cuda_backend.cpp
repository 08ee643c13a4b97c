// The CUDA backend against the CPU reference (label gpu; every case skips itself with "skipped: no
// CUDA device" where there is none): copies round-trip every dtype; conversions give the CPU's bits
// for every f16 and bf16 pattern and for floats around every rounding tie; the gradient pass unscales,
// converts and sums like the CPU, the same bits every run, and finds inf and NaN; the step record on
// the device makes the optimizer steps skip, bit for bit; SGD and Adam steps match the CPU's; a
// readback sees the work queued before it; the caching allocator reuses freed blocks.
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/backend.h"
#include "backend_test_data.h"
#include "tensor/float_convert.h"

#if AMPSTUDIO_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"
#endif

using namespace ampstudio;

namespace {

// scripts/gpu-check.sh sets AMPSTUDIO_REQUIRE_GPU=1: on the GPU machine a skip would hide a broken
// driver or build, so it fails instead.
#define REQUIRE_CUDA_DEVICE()                                                         \
    do {                                                                              \
        if (cudaDeviceCount() == 0) {                                                 \
            if (qEnvironmentVariableIntValue("AMPSTUDIO_REQUIRE_GPU")) QFAIL("no CUDA device"); \
            QSKIP("skipped: no CUDA device");                                         \
        }                                                                             \
    } while (0)

template <typename T>
Tensor upload(Backend& b, const std::vector<T>& values, DType dtype) {
    Tensor t = b.allocate(Shape{static_cast<int64_t>(values.size())}, dtype);
    b.copyFromHost(values.data(), values.size() * sizeof(T), t);
    return t;
}

template <typename T>
std::vector<T> download(Backend& b, const Tensor& t) {
    std::vector<T> out(static_cast<std::size_t>(t.size()));
    b.copyToHost(t, out.data(), out.size() * sizeof(T));
    return out;
}

bool close(float a, float b, float rtol = 1e-6f, float atol = 1e-7f) { return std::abs(a - b) <= atol + rtol * std::abs(b); }

}  // namespace

class TestCudaBackend : public QObject {
    Q_OBJECT

private slots:
    void choosesABackend() {
        // Without a device, auto is the CPU and cuda says why not; with one, cuda names it.
        QCOMPARE(makeBackend(BackendChoice::Cpu)->device().kind, DeviceKind::Cpu);
        QCOMPARE(parseBackendChoice("auto"), BackendChoice::Auto);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseBackendChoice("tpu"));
        if (cudaDeviceCount() == 0) {
            QCOMPARE(makeBackend(BackendChoice::Auto)->device().kind, DeviceKind::Cpu);
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, makeBackend(BackendChoice::Cuda));
        }
        REQUIRE_CUDA_DEVICE();
        auto cuda = makeBackend(BackendChoice::Cuda);
        QCOMPARE(cuda->device().kind, DeviceKind::Cuda);
        QVERIFY2(QString::fromStdString(cuda->name()).startsWith(QStringLiteral("cuda:0 (")), cuda->name().c_str());
    }

    void copiesRoundTrip() {
        REQUIRE_CUDA_DEVICE();
        auto b = makeCudaBackend();
        const std::vector<float> f = randomFloats(100'003, 1);
        QCOMPARE(download<float>(*b, upload(*b, f, DType::F32)), f);
        std::vector<uint16_t> h(65536);
        for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i);
        QCOMPARE(download<uint16_t>(*b, upload(*b, h, DType::F16)), h);
        const std::vector<int64_t> ids{0, -1, std::numeric_limits<int64_t>::max(), 42};
        QCOMPARE(download<int64_t>(*b, upload(*b, ids, DType::I64)), ids);
        Tensor empty = b->allocate(Shape{0}, DType::F32);
        b->copyFromHost(nullptr, 0, empty);
        QCOMPARE(download<float>(*b, empty).size(), std::size_t{0});
    }

    void conversionsMatchTheCpuBitForBit() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        auto cpu = makeCpuBackend();
        // Every f16 and bf16 pattern to f32 and back.
        std::vector<uint16_t> all(65536);
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
        for (DType low : {DType::F16, DType::BF16}) {
            Tensor src = upload(*gpu, all, low);
            Tensor f32 = gpu->allocate(src.shape(), DType::F32);
            gpu->convert(src, f32);
            const std::vector<float> got = download<float>(*gpu, f32);
            for (std::size_t i = 0; i < all.size(); ++i) {
                const float want = low == DType::F16 ? halfBitsToFloat(all[i]) : bfloat16BitsToFloat(all[i]);
                uint32_t a, w;
                std::memcpy(&a, &got[i], 4);
                std::memcpy(&w, &want, 4);
                if (std::isnan(want)) {
                    QVERIFY(std::isnan(got[i]));
                } else if (a != w) {
                    QFAIL(qPrintable(QString("%1 pattern %2: %3 vs %4").arg(dtypeName(low).data()).arg(i).arg(got[i]).arg(want)));
                }
            }
        }
        // Floats at and around every rounding tie of both formats, plus overflow, underflow, inf, NaN.
        std::vector<float> floats{0.0f, -0.0f, 70000.0f, -70000.0f, 65504.0f, 65520.0f, 1e-8f, 5.96e-8f, 3e38f,
                                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
        for (uint32_t hi = 0; hi < 65536; hi += 7) {
            for (uint32_t lo : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0x1000u, 0x0FFFu, 0x2000u}) {
                const uint32_t bits = (hi << 16) | lo;
                float v;
                std::memcpy(&v, &bits, 4);
                if (!std::isnan(v)) floats.push_back(v);
            }
        }
        Tensor src = upload(*gpu, floats, DType::F32);
        Tensor cpuSrc = upload(*cpu, floats, DType::F32);
        for (DType low : {DType::F16, DType::BF16}) {
            Tensor g = gpu->allocate(src.shape(), low);
            Tensor c = cpu->allocate(src.shape(), low);
            gpu->convert(src, g);
            cpu->convert(cpuSrc, c);
            QCOMPARE(download<uint16_t>(*gpu, g), download<uint16_t>(*cpu, c));
        }
        // Integers (labels) to floats.
        const std::vector<int32_t> labels{0, 3, 9, -2, 1 << 24};
        Tensor l = upload(*gpu, labels, DType::I32);
        Tensor lf = gpu->allocate(l.shape(), DType::F32);
        gpu->convert(l, lf);
        QCOMPARE(download<float>(*gpu, lf), (std::vector<float>{0, 3, 9, -2, 16777216.0f}));
    }

    void fillsEveryFloatType() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        Tensor f = gpu->allocate(Shape{1000}, DType::F32);
        gpu->fill(f, 2.5f);
        QCOMPARE(download<float>(*gpu, f), std::vector<float>(1000, 2.5f));
        Tensor h = gpu->allocate(Shape{7}, DType::F16);
        gpu->fill(h, 70000.0f);  // beyond float16: inf
        QCOMPARE(download<uint16_t>(*gpu, h), std::vector<uint16_t>(7, 0x7C00));
        Tensor bf = gpu->allocate(Shape{3}, DType::BF16);
        gpu->fill(bf, 1.0f);
        QCOMPARE(download<uint16_t>(*gpu, bf), std::vector<uint16_t>(3, 0x3F80));
    }

    // The gradient pass on both backends from the same record: f32 gradients in place and f16/bf16
    // ones into f32 masters, every tensor size a launch shape can get wrong (one block, a partial
    // block, 256 blocks with a tail), more tensors than one multi-tensor launch takes; the same
    // masters, sum and record, and the same bits every run.
    void gradientPassMatchesTheCpu() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        auto cpu = makeCpuBackend();
        std::vector<std::size_t> sizes{1, 255, 4096, 1'000'003};
        for (int i = 0; i < 40; ++i) sizes.push_back(17 + 31 * static_cast<std::size_t>(i));
        std::vector<std::vector<float>> values;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            values.push_back(randomFloats(sizes[i], 10 + static_cast<uint32_t>(i), 1000.0f));
        // f32, f16 and bf16 gradients in turn (f32 unscaled in place, the others into f32 masters).
        auto gradients = [&](Backend& b) {
            std::vector<GradientBuffers> out;
            for (std::size_t i = 0; i < values.size(); ++i) {
                const DType type = i % 3 == 0 ? DType::F32 : i % 3 == 1 ? DType::F16 : DType::BF16;
                Tensor f32 = upload(b, values[i], DType::F32);
                if (type == DType::F32) {
                    out.push_back({f32, f32});
                } else {
                    Tensor low = b.allocate(f32.shape(), type);
                    b.convert(f32, low);
                    out.push_back({low, b.allocate(f32.shape(), DType::F32)});
                }
            }
            return out;
        };
        GradientPassSettings settings;
        settings.divisor = 64.0;
        settings.clipNorm = 1.0;             // the norm is far larger: a clipping factor below 1
        settings.scaler.growthInterval = 1;  // a clean step doubles the scale
        StepRecord initial;
        initial.scaler = lossscale::initialState(settings.scaler);
        auto pass = [&](Backend& b, const std::vector<GradientBuffers>& grads, Tensor& scale) {
            Tensor record = recordTensor(b, initial);
            scale = b.allocate(Shape{1}, DType::F32);
            b.unscaleGradients(grads, settings, record, scale);
            return readRecord(b, record);
        };
        const std::vector<GradientBuffers> g = gradients(*gpu), c = gradients(*cpu);
        Tensor gs, cs;
        const StepRecord a = pass(*gpu, g, gs), b = pass(*cpu, c, cs);
        QVERIFY(!a.skipped && !b.skipped);
        QVERIFY2(std::abs(a.sumOfSquares - b.sumOfSquares) <= 1e-9 * b.sumOfSquares,
                 qPrintable(QString("%1 vs %2").arg(a.sumOfSquares, 0, 'g', 17).arg(b.sumOfSquares, 0, 'g', 17)));
        QVERIFY(close(a.clipFactor, b.clipFactor, 1e-6f, 0.0f));
        QVERIFY(a.clipFactor < 1.0f);
        QCOMPARE(a.usedScale, 65536.0);
        QCOMPARE(a.scaler.scale, 131072.0);
        QCOMPARE(a.appliedSteps, int64_t{1});
        QCOMPARE(download<float>(*gpu, gs), std::vector<float>{131072.0f});
        QCOMPARE(download<float>(*cpu, cs), std::vector<float>{131072.0f});
        for (std::size_t i = 0; i < sizes.size(); ++i)
            QCOMPARE(download<float>(*gpu, g[i].master), download<float>(*cpu, c[i].master));
        // The same bits every run.
        for (int run = 0; run < 3; ++run) {
            Tensor scale;
            QCOMPARE(pass(*gpu, gradients(*gpu), scale).sumOfSquares, a.sumOfSquares);
        }
    }

    // inf in one tensor or NaN in another, f32 or f16: the record says skipped, the scale backs off on
    // the device, and the optimizer steps that read the record leave weights, state and the f16 copy
    // bit-identical.
    void overflowSkipsOnTheDevice() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        for (float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
            for (DType type : {DType::F32, DType::F16}) {
                std::vector<float> v = randomFloats(5000, 3);
                v[1234] = bad;
                Tensor good = upload(*gpu, randomFloats(100, 4), DType::F32);
                Tensor badF32 = upload(*gpu, v, DType::F32), grad = badF32, master = badF32;
                if (type == DType::F16) {
                    grad = gpu->allocate(badF32.shape(), DType::F16);
                    gpu->convert(badF32, grad);
                    master = gpu->allocate(badF32.shape(), DType::F32);
                }
                const std::vector<GradientBuffers> grads{{good, good}, {grad, master}};
                GradientPassSettings settings;
                StepRecord initial;
                initial.scaler = lossscale::initialState(settings.scaler);
                Tensor record = recordTensor(*gpu, initial);
                Tensor scale = gpu->allocate(Shape{1}, DType::F32);
                gpu->unscaleGradients(grads, settings, record, scale);
                const StepRecord r = readRecord(*gpu, record);
                QCOMPARE(r.skipped, 1);
                QCOMPARE(r.scaler.scale, 32768.0);
                QCOMPARE(r.scaler.skipped, int64_t{1});
                QCOMPARE(r.appliedSteps, int64_t{0});
                QCOMPARE(download<float>(*gpu, scale), std::vector<float>{32768.0f});

                const std::vector<float> w = randomFloats(5000, 5), s1 = randomFloats(5000, 6), s2(5000, 0.25f);
                OptimizerBuffers p;
                p.weight = upload(*gpu, w, DType::F32);
                p.grad = master;
                p.state1 = upload(*gpu, s1, DType::F32);
                p.state2 = upload(*gpu, s2, DType::F32);
                p.lowPrecision = gpu->allocate(p.weight.shape(), DType::F16);
                gpu->fill(p.lowPrecision, 0.5f);
                SgdStepParams sgd;
                sgd.momentum = 0.9f;
                gpu->sgdStep(p, sgd, record);
                gpu->adamStep(p, AdamStepParams{}, record);
                QCOMPARE(download<float>(*gpu, p.weight), w);
                QCOMPARE(download<float>(*gpu, p.state1), s1);
                QCOMPARE(download<float>(*gpu, p.state2), s2);
                QCOMPARE(download<uint16_t>(*gpu, p.lowPrecision), std::vector<uint16_t>(5000, 0x3800));
            }
        }
    }

    // SGD (plain, momentum, Nesterov) and Adam/AdamW after a clean gradient pass: the same f32
    // weights, state and f16 copies as the CPU's, clipping and Adam's step count read from the record.
    void optimizerStepsMatchTheCpu() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        auto cpu = makeCpuBackend();
        const std::size_t n = 100'001;
        const std::vector<float> w = randomFloats(n, 20), grad = randomFloats(n, 21), state = randomFloats(n, 22, 0.1f);
        std::vector<float> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = std::abs(state[i]);
        auto compare = [&](const Tensor& gt, const Tensor& ct, const char* what) {
            const std::vector<float> a = download<float>(*gpu, gt), b = download<float>(*cpu, ct);
            for (std::size_t i = 0; i < n; ++i) {
                if (!close(a[i], b[i])) QFAIL(qPrintable(QString("%1[%2]: %3 vs %4").arg(what).arg(i).arg(a[i]).arg(b[i])));
            }
        };
        StepRecord clean;
        clean.clipFactor = 0.75f;
        clean.appliedSteps = 7;
        Tensor gr = recordTensor(*gpu, clean);
        Tensor cr = recordTensor(*cpu, clean);
        auto buffers = [&](Backend& b) {
            OptimizerBuffers p;
            p.weight = upload(b, w, DType::F32);
            p.grad = upload(b, grad, DType::F32);
            p.state1 = upload(b, state, DType::F32);
            p.state2 = upload(b, v, DType::F32);
            p.lowPrecision = b.allocate(p.weight.shape(), DType::F16);
            return p;
        };
        for (bool nesterov : {false, true}) {
            for (float mu : {0.0f, 0.9f}) {
                SgdStepParams p;
                p.learningRate = 0.05f;
                p.momentum = mu;
                p.weightDecay = 1e-4f;
                p.nesterov = nesterov;
                OptimizerBuffers gb = buffers(*gpu), cb = buffers(*cpu);
                gpu->sgdStep(gb, p, gr);
                cpu->sgdStep(cb, p, cr);
                compare(gb.weight, cb.weight, "sgd weight");
                compare(gb.state1, cb.state1, "sgd momentum");
                const std::vector<uint16_t> gl = download<uint16_t>(*gpu, gb.lowPrecision);
                const std::vector<uint16_t> cl = download<uint16_t>(*cpu, cb.lowPrecision);
                int apart = 0;  // an f32 an ulp apart may round to the neighbouring f16
                for (std::size_t i = 0; i < n; ++i) apart += std::abs(int(gl[i]) - int(cl[i])) > 1 ? 1 : 0;
                QCOMPARE(apart, 0);
            }
        }
        for (bool decoupled : {false, true}) {
            AdamStepParams p;
            p.learningRate = 1e-3f;
            p.weightDecay = 0.01f;
            p.decoupledWeightDecay = decoupled;
            OptimizerBuffers gb = buffers(*gpu), cb = buffers(*cpu);
            gpu->adamStep(gb, p, gr);
            cpu->adamStep(cb, p, cr);
            compare(gb.weight, cb.weight, "adam weight");
            compare(gb.state1, cb.state1, "adam m");
            compare(gb.state2, cb.state2, "adam v");
        }
    }

    // A readback queued behind device work holds that work's result after wait(), with no other
    // synchronisation; copies land at their offsets.
    void readbackSeesQueuedWork() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        std::unique_ptr<HostReadback> readback = gpu->createReadback(64 + 4 * 1'000'000);
        Tensor t = gpu->allocate(Shape{1'000'000}, DType::F32);
        Tensor scalar = gpu->allocate(Shape{1}, DType::F32);
        for (float value : {1.0f, -3.5f, 1e30f}) {
            gpu->fill(scalar, value);
            gpu->fill(t, scalar);
            readback->copy(scalar, 0);
            readback->copy(t, 64);
            const std::byte* host = readback->wait();
            float first = 0, last = 0, head = 0;
            std::memcpy(&head, host, 4);
            std::memcpy(&first, host + 64, 4);
            std::memcpy(&last, host + 64 + 4 * 999'999, 4);
            QCOMPARE(head, value);
            QCOMPARE(first, value);
            QCOMPARE(last, value);
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, readback->copy(t, 65));
    }

    void allocatorReusesFreedBlocks() {
        REQUIRE_CUDA_DEVICE();
#if AMPSTUDIO_HAVE_CUDA
        CudaBackend gpu;
        void* first = nullptr;
        {
            Tensor t = gpu.allocate(Shape{1000}, DType::F32);
            first = t.data();
        }
        const std::size_t mallocs = gpu.allocator().cudaMallocCalls();
        QVERIFY(gpu.allocator().cachedBytes() >= 4000);
        Tensor again = gpu.allocate(Shape{900}, DType::F32);  // fits the freed block
        QCOMPARE(again.data(), first);
        QCOMPARE(gpu.allocator().cudaMallocCalls(), mallocs);
        Tensor bigger = gpu.allocate(Shape{100000}, DType::F32);  // does not
        QCOMPARE(gpu.allocator().cudaMallocCalls(), mallocs + 1);
        // A tensor may outlive its backend: the allocator stays until the last block is back.
        Tensor survivor;
        {
            CudaBackend shortLived;
            survivor = shortLived.allocate(Shape{10}, DType::F32);
        }
        QVERIFY(survivor.defined());
#endif
    }
};

QTEST_GUILESS_MAIN(TestCudaBackend)
#include "test_cuda_backend.moc"
