// The CUDA backend against the CPU reference (label gpu; every case skips itself with "skipped: no
// CUDA device" where there is none): copies round-trip every dtype; conversions give the CPU's bits
// for every f16 and bf16 pattern and for floats around every rounding tie; the unscale-and-check pass
// finds inf and NaN and sums like the CPU, the same bits every run; SGD and Adam steps match the CPU's;
// the caching allocator reuses freed blocks.
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/backend.h"
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

std::vector<float> randomFloats(std::size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
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

    void unscaleAndCheckMatchesTheCpu() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        auto cpu = makeCpuBackend();
        const std::vector<std::size_t> sizes{1, 255, 4096, 1'000'003};
        std::vector<Tensor> g, c;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const std::vector<float> v = randomFloats(sizes[i], 10 + static_cast<uint32_t>(i), 1000.0f);
            g.push_back(upload(*gpu, v, DType::F32));
            c.push_back(upload(*cpu, v, DType::F32));
        }
        const GradientCheck a = gpu->unscaleAndCheck(g, 1.0f / 1024);
        const GradientCheck b = cpu->unscaleAndCheck(c, 1.0f / 1024);
        QVERIFY(a.finite && b.finite);
        QVERIFY2(std::abs(a.sumOfSquares - b.sumOfSquares) <= 1e-9 * b.sumOfSquares,
                 qPrintable(QString("%1 vs %2").arg(a.sumOfSquares, 0, 'g', 17).arg(b.sumOfSquares, 0, 'g', 17)));
        for (std::size_t i = 0; i < sizes.size(); ++i) QCOMPARE(download<float>(*gpu, g[i]), download<float>(*cpu, c[i]));
        // The same bits every run.
        const GradientCheck again = gpu->unscaleAndCheck(g, 1.0f);
        const GradientCheck twice = gpu->unscaleAndCheck(g, 1.0f);
        QCOMPARE(again.sumOfSquares, twice.sumOfSquares);
        // inf in one tensor, NaN in another: not finite either way.
        for (float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
            std::vector<float> v = randomFloats(5000, 3);
            v[1234] = bad;
            std::vector<Tensor> mixed{upload(*gpu, randomFloats(100, 4), DType::F32), upload(*gpu, v, DType::F32)};
            QVERIFY(!gpu->unscaleAndCheck(mixed, 0.5f).finite);
        }
    }

    void optimizerStepsMatchTheCpu() {
        REQUIRE_CUDA_DEVICE();
        auto gpu = makeCudaBackend();
        auto cpu = makeCpuBackend();
        const std::size_t n = 100'001;
        const std::vector<float> w = randomFloats(n, 20), grad = randomFloats(n, 21), state = randomFloats(n, 22, 0.1f);
        auto compare = [&](const Tensor& gt, const Tensor& ct, const char* what) {
            const std::vector<float> a = download<float>(*gpu, gt), b = download<float>(*cpu, ct);
            for (std::size_t i = 0; i < n; ++i) {
                if (!close(a[i], b[i])) QFAIL(qPrintable(QString("%1[%2]: %3 vs %4").arg(what).arg(i).arg(a[i]).arg(b[i])));
            }
        };
        for (bool nesterov : {false, true}) {
            for (float mu : {0.0f, 0.9f}) {
                SgdStepParams p;
                p.learningRate = 0.05f;
                p.momentum = mu;
                p.weightDecay = 1e-4f;
                p.nesterov = nesterov;
                Tensor gw = upload(*gpu, w, DType::F32), gg = upload(*gpu, grad, DType::F32), gm = upload(*gpu, state, DType::F32);
                Tensor cw = upload(*cpu, w, DType::F32), cg = upload(*cpu, grad, DType::F32), cm = upload(*cpu, state, DType::F32);
                gpu->sgdStep(gw, gg, gm, p);
                cpu->sgdStep(cw, cg, cm, p);
                compare(gw, cw, "sgd weight");
                compare(gm, cm, "sgd momentum");
            }
        }
        for (bool decoupled : {false, true}) {
            AdamStepParams p;
            p.learningRate = 1e-3f;
            p.weightDecay = 0.01f;
            p.decoupledWeightDecay = decoupled;
            p.step = 7;
            std::vector<float> v(n);
            for (std::size_t i = 0; i < n; ++i) v[i] = std::abs(state[i]);
            Tensor gw = upload(*gpu, w, DType::F32), gg = upload(*gpu, grad, DType::F32);
            Tensor gm = upload(*gpu, state, DType::F32), gv = upload(*gpu, v, DType::F32);
            Tensor cw = upload(*cpu, w, DType::F32), cg = upload(*cpu, grad, DType::F32);
            Tensor cm = upload(*cpu, state, DType::F32), cv = upload(*cpu, v, DType::F32);
            gpu->adamStep(gw, gg, gm, gv, p);
            cpu->adamStep(cw, cg, cm, cv, p);
            compare(gw, cw, "adam weight");
            compare(gm, cm, "adam m");
            compare(gv, cv, "adam v");
        }
        // scale
        Tensor gs = upload(*gpu, w, DType::F32);
        Tensor cs = upload(*cpu, w, DType::F32);
        gpu->scale(std::vector<Tensor>{gs}, 0.125f);
        cpu->scale(std::vector<Tensor>{cs}, 0.125f);
        QCOMPARE(download<float>(*gpu, gs), download<float>(*cpu, cs));
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
