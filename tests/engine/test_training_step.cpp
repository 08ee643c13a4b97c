// The training step's backend primitives on the CPU reference (backend.h, mixed_precision_step.h),
// which the Trainer runs unchanged on every backend: the gradient pass unscales, converts f16/bf16
// gradients into f32 masters, sums, decides and moves the loss scale into the record and the scale
// tensor; an overflow record makes every optimizer step a no-op, bit for bit; clipping and Adam's
// step count come from the record; loss heads and plain heads read the scale tensor; a readback
// lands copies at their offsets. test_cuda_backend holds the CUDA backend to the same results.
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/backend.h"
#include "backend_test_data.h"
#include "exec/executor.h"
#include "graph_builder.h"

using namespace ampstudio;

namespace {

Tensor upload(Backend& b, const std::vector<float>& values, DType dtype = DType::F32) {
    Tensor f32 = b.allocate(Shape{static_cast<int64_t>(values.size())}, DType::F32);
    b.copyFromHost(values.data(), values.size() * sizeof(float), f32);
    if (dtype == DType::F32) {
        return f32;
    }
    Tensor t = b.allocate(f32.shape(), dtype);
    b.convert(f32, t);
    return t;
}

std::vector<std::byte> bytes(Backend& b, const Tensor& t) {
    std::vector<std::byte> out(t.bytes());
    b.copyToHost(t, out.data(), out.size());
    return out;
}

StepRecord freshRecord(const LossScalerSettings& s) {
    StepRecord r;
    r.scaler = lossscale::initialState(s);
    return r;
}

}  // namespace

class TestTrainingStep : public QObject {
    Q_OBJECT

private slots:
    void gradientPassUnscalesConvertsAndDecides() {
        auto cpu = makeCpuBackend();
        // Values an f16 holds exactly, so the expected masters are exact too.
        const std::vector<float> a{1024.0f, -2048.0f, 512.0f}, b{4096.0f, 256.0f};
        Tensor f32 = upload(*cpu, a);
        Tensor f16 = upload(*cpu, b, DType::F16);
        Tensor master = cpu->allocate(f16.shape(), DType::F32);
        const std::vector<GradientBuffers> grads{{f32, f32}, {f16, master}};
        GradientPassSettings settings;
        settings.divisor = 4.0;
        settings.scaler.initScale = 256.0;
        settings.scaler.growthInterval = 2;
        Tensor record = recordTensor(*cpu, freshRecord(settings.scaler));
        Tensor scale = cpu->allocate(Shape{1}, DType::F32);

        cpu->unscaleGradients(grads, settings, record, scale);
        // x / (256 * 4)
        QCOMPARE(downloadFloats(*cpu, f32), (std::vector<float>{1.0f, -2.0f, 0.5f}));
        QCOMPARE(downloadFloats(*cpu, master), (std::vector<float>{4.0f, 0.25f}));
        StepRecord r = readRecord(*cpu, record);
        QCOMPARE(r.sumOfSquares, 1.0 + 4.0 + 0.25 + 16.0 + 0.0625);
        QCOMPARE(r.skipped, 0);
        QCOMPARE(r.usedScale, 256.0);
        QCOMPARE(r.scaler.scale, 256.0);  // one clean step of two
        QCOMPARE(r.scaler.counter, int64_t{1});
        QCOMPARE(r.appliedSteps, int64_t{1});
        QCOMPARE(r.clipFactor, 1.0f);
        QCOMPARE(downloadFloats(*cpu, scale), std::vector<float>{256.0f});

        cpu->convert(upload(*cpu, b), f16);  // the next backward pass
        cpu->unscaleGradients(grads, settings, record, scale);
        r = readRecord(*cpu, record);
        QCOMPARE(r.scaler.scale, 512.0);  // grown after the second
        QCOMPARE(r.scaler.steps, int64_t{2});
        QCOMPARE(r.appliedSteps, int64_t{2});
        QCOMPARE(downloadFloats(*cpu, scale), std::vector<float>{512.0f});
    }

    void overflowRecordSkipsTheOptimizer_data() {
        QTest::addColumn<float>("bad");
        QTest::addColumn<int>("dtype");
        for (DType type : {DType::F32, DType::F16, DType::BF16}) {
            const QString name = QString::fromLatin1(dtypeName(type).data(), int(dtypeName(type).size()));
            QTest::newRow(qPrintable("inf " + name)) << std::numeric_limits<float>::infinity() << int(type);
            QTest::newRow(qPrintable("nan " + name)) << std::nanf("") << int(type);
        }
    }
    void overflowRecordSkipsTheOptimizer() {
        QFETCH(float, bad);
        QFETCH(int, dtype);
        auto cpu = makeCpuBackend();
        std::vector<float> v = randomFloats(1000, 1);
        v[777] = bad;
        Tensor grad = upload(*cpu, v, static_cast<DType>(dtype));
        Tensor master = grad.dtype() == DType::F32 ? grad : cpu->allocate(grad.shape(), DType::F32);
        Tensor clean = upload(*cpu, randomFloats(10, 2));
        GradientPassSettings settings;  // PyTorch's rule: halve on overflow
        Tensor record = recordTensor(*cpu, freshRecord(settings.scaler));
        Tensor scale = cpu->allocate(Shape{1}, DType::F32);
        cpu->unscaleGradients(std::vector<GradientBuffers>{{clean, clean}, {grad, master}}, settings, record, scale);
        const StepRecord r = readRecord(*cpu, record);
        QCOMPARE(r.skipped, 1);
        QVERIFY(!std::isfinite(r.sumOfSquares));
        QCOMPARE(r.usedScale, 65536.0);
        QCOMPARE(r.scaler.scale, 32768.0);
        QCOMPARE(r.scaler.skipped, int64_t{1});
        QCOMPARE(r.appliedSteps, int64_t{0});
        QCOMPARE(downloadFloats(*cpu, scale), std::vector<float>{32768.0f});

        OptimizerBuffers p;
        p.weight = upload(*cpu, randomFloats(1000, 3));
        p.grad = master;
        p.state1 = upload(*cpu, randomFloats(1000, 4));
        p.state2 = upload(*cpu, std::vector<float>(1000, 0.5f));
        p.lowPrecision = upload(*cpu, std::vector<float>(1000, 0.25f), DType::F16);
        const auto before = {bytes(*cpu, p.weight), bytes(*cpu, p.state1), bytes(*cpu, p.state2),
                             bytes(*cpu, p.lowPrecision)};
        SgdStepParams sgd;
        sgd.momentum = 0.9f;
        cpu->sgdStep(p, sgd, record);
        cpu->adamStep(p, AdamStepParams{}, record);
        const auto after = {bytes(*cpu, p.weight), bytes(*cpu, p.state1), bytes(*cpu, p.state2),
                            bytes(*cpu, p.lowPrecision)};
        QVERIFY(std::equal(before.begin(), before.end(), after.begin()));
    }

    // Clipping multiplies the step, not the stored gradient; the f16 copy is the new weight rounded.
    void clippingAndTheLowPrecisionCopy() {
        auto cpu = makeCpuBackend();
        Tensor g = upload(*cpu, {3.0f, 4.0f});  // norm 5
        GradientPassSettings settings;
        settings.scaler.initScale = 1.0;
        settings.clipNorm = 1.0;
        Tensor record = recordTensor(*cpu, freshRecord(settings.scaler));
        cpu->unscaleGradients(std::vector<GradientBuffers>{{g, g}}, settings, record, Tensor{});
        QCOMPARE(readRecord(*cpu, record).clipFactor, 0.2f);
        OptimizerBuffers p;
        p.weight = upload(*cpu, {1.0f, 1.0f});
        p.grad = g;
        p.lowPrecision = cpu->allocate(Shape{2}, DType::F16);
        SgdStepParams sgd;
        sgd.learningRate = 1.0f;
        sgd.momentum = 0.0f;
        cpu->sgdStep(p, sgd, record);
        const std::vector<float> w = downloadFloats(*cpu, p.weight);
        QCOMPARE(w[0], 1.0f - 3.0f * 0.2f);
        QCOMPARE(w[1], 1.0f - 4.0f * 0.2f);
        QCOMPARE(downloadFloats(*cpu, g), (std::vector<float>{3.0f, 4.0f}));
        const std::vector<float> low = downloadFloats(*cpu, p.lowPrecision);
        QCOMPARE(low[0], 0.39990234375f);  // 0.4 in f16
        QCOMPARE(low[1], 0.199951171875f);
    }

    // Adam's bias correction counts the applied steps the record holds, not the calls.
    void adamCountsAppliedSteps() {
        auto cpu = makeCpuBackend();
        for (int64_t t : {1, 3}) {
            StepRecord r;
            r.appliedSteps = t;
            Tensor record = recordTensor(*cpu, r);
            OptimizerBuffers p;
            p.weight = upload(*cpu, {0.0f});
            p.grad = upload(*cpu, {0.5f});
            p.state1 = upload(*cpu, {0.0f});
            p.state2 = upload(*cpu, {0.0f});
            AdamStepParams adam;
            adam.learningRate = 0.1f;
            cpu->adamStep(p, adam, record);
            const float m = (1.0f - 0.9f) * 0.5f, v = (1.0f - 0.999f) * 0.5f * 0.5f;
            const auto c1 = static_cast<float>(1.0 - std::pow(double(0.9f), double(t)));
            const auto c2 = static_cast<float>(1.0 - std::pow(double(0.999f), double(t)));
            const float expected = 0.0f - 0.1f * (m / c1) / (std::sqrt(v / c2) + 1e-8f);
            const float w = downloadFloats(*cpu, p.weight)[0];
            QVERIFY2(std::abs(w - expected) <= 1e-6f * std::abs(expected),
                     qPrintable(QString("t %1: %2 vs %3").arg(t).arg(w).arg(expected)));
        }
    }

    // The scale a loss head and a plain head start the backward pass with may live in a tensor.
    void headsReadTheScaleTensor() {
        test::GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        const NodeEntry fc = b.addOp("FullyConnected", "fc", {data, b.addVariable("fc_weight"), b.addVariable("fc_bias")},
                                     {{"num_hidden", "3"}});
        const NodeEntry softmax = b.addOp("SoftmaxOutput", "softmax", {fc, b.addVariable("softmax_label")});
        const NodeEntry side = b.addOp("tanh", "side", {fc});
        const Graph graph = b.finish({softmax, side});
        auto cpu = makeCpuBackend();
        BindOptions o;
        o.shapes["data"] = {4, 5};
        o.forTraining = true;
        Executor e(graph, *cpu, o);
        cpu->copyFromHost(randomFloats(20, 7).data(), 80, e.value("data"));
        cpu->copyFromHost(randomFloats(15, 8).data(), 60, e.value("fc_weight"));
        cpu->fill(e.value("fc_bias"), 0.1f);
        const std::vector<float> labels{0, 1, 2, 1};
        cpu->copyFromHost(labels.data(), 16, e.value("softmax_label"));
        ExecContext ctx;
        ctx.training = true;
        e.forward(ctx);
        auto gradientWith = [&](float value, const Tensor& tensor) {
            ExecContext c = ctx;
            c.lossScale = value;
            c.lossScaleTensor = tensor;
            e.backward(c);
            return downloadFloats(*cpu, e.gradient("fc_weight"));
        };
        const std::vector<float> byValue = gradientWith(8.0f, Tensor{});
        Tensor eight = upload(*cpu, {8.0f});
        QCOMPARE(gradientWith(1.0f, eight), byValue);
        QVERIFY(gradientWith(1.0f, Tensor{}) != byValue);
    }

    void readbackLandsAtOffsets() {
        auto cpu = makeCpuBackend();
        std::unique_ptr<HostReadback> r = cpu->createReadback(16);
        QCOMPARE(r->bytes(), std::size_t{16});
        r->copy(upload(*cpu, {1.0f, 2.0f}), 0);
        r->copy(upload(*cpu, {3.0f}), 12);
        const std::byte* host = r->wait();
        float v[4];
        std::memcpy(v, host, sizeof v);
        QCOMPARE(v[0], 1.0f);
        QCOMPARE(v[1], 2.0f);
        QCOMPARE(v[3], 3.0f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r->copy(upload(*cpu, {1.0f, 2.0f}), 12));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r->copy(upload(*cpu, {1.0f}), 17));
    }

    void badStepTensorsAreRefused() {
        auto cpu = makeCpuBackend();
        Tensor g = upload(*cpu, {1.0f});
        Tensor wrong = cpu->allocate(Shape{3}, DType::U8);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpu->unscaleGradients(std::vector<GradientBuffers>{{g, g}},
                                                                                GradientPassSettings{}, wrong, Tensor{}));
        Tensor record = recordTensor(*cpu, StepRecord{});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 cpu->unscaleGradients(std::vector<GradientBuffers>{{g, g}}, GradientPassSettings{},
                                                       record, cpu->allocate(Shape{2}, DType::F32)));
        OptimizerBuffers p;
        p.weight = upload(*cpu, {1.0f});
        p.grad = g;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpu->adamStep(p, AdamStepParams{}, record));  // no moments
        p.grad = upload(*cpu, {1.0f, 2.0f});
        SgdStepParams plain;
        plain.momentum = 0.0f;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpu->sgdStep(p, plain, record));  // sizes differ
    }
};

QTEST_GUILESS_MAIN(TestTrainingStep)
#include "test_training_step.moc"
