// Loss heads (their backward starts the gradient: MXNet's formulas times the loss scale) and the
// cast ops (amp_cast rounds where f16/bf16 would; their backward casts the gradient back).
#include "op_check.h"
#include "ops/op_error.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

// The loss head's input gradient with the given loss scale (head gradients are ignored by loss ops).
std::vector<float> lossGradient(const OpCase& c, float lossScale) {
    OpRunner runner(c, DType::F32, true);
    ExecContext ctx;
    ctx.training = true;
    ctx.lossScale = lossScale;
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        upload(runner.backend(), runner.executor().value("in" + std::to_string(i)), runner.input(i));
    }
    runner.executor().forward(ctx);
    runner.executor().backward(ctx);
    return download(runner.backend(), runner.executor().gradient("in0"));
}

std::vector<float> softmax(const std::vector<float>& x, std::size_t rows, std::size_t classes) {
    std::vector<float> p(x.size());
    for (std::size_t r = 0; r < rows; ++r) {
        double sum = 0;
        for (std::size_t c = 0; c < classes; ++c) sum += std::exp(double(x[r * classes + c]));
        for (std::size_t c = 0; c < classes; ++c) p[r * classes + c] = float(std::exp(double(x[r * classes + c])) / sum);
    }
    return p;
}

void compareClose(const std::vector<float>& a, const std::vector<float>& b, double tol) {
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QVERIFY2(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i])),
                 qPrintable(QString("element %1: %2 vs %3").arg(i).arg(a[i]).arg(b[i])));
    }
}

}  // namespace

class TestOpsLossCast : public QObject {
    Q_OBJECT

private slots:
    void softmaxOutputForwardAndGradient() {
        OpCase c{"SoftmaxOutput", {}, {{2, 3}, {2}}};
        c.inputValues = {{1, 2, 3, -1, 0, 4}, {2, 0}};
        c.noGrad = {1};
        const std::vector<float> p = softmax(c.inputValues[0], 2, 3);
        compareClose(runOp(c)[0], p, 1e-6);
        // (p - onehot(label)) x scale, no batch mean (MXNet leaves that to rescale_grad).
        std::vector<float> expected = p;
        expected[2] -= 1;
        expected[3] -= 1;
        for (float& v : expected) v *= 128;
        compareClose(lossGradient(c, 128), expected, 1e-5);
    }

    void softmaxOutputNormalizationAndIgnore() {
        OpCase c{"SoftmaxOutput", {{"normalization", "valid"}, {"use_ignore", "True"}, {"ignore_label", "1"}},
                 {{3, 2}, {3}}};
        c.inputValues = {{0, 0, 1, 1, 2, 0}, {0, 1, 1}};
        c.noGrad = {1};
        const auto g = lossGradient(c, 1);
        // Rows 1 and 2 are ignored (zero gradient); one valid label, so the norm is 1.
        QCOMPARE(g[2], 0.0f);
        QCOMPARE(g[5], 0.0f);
        QVERIFY(std::abs(g[0] - (0.5f - 1)) < 1e-6);
        OpCase batch{"SoftmaxOutput", {{"normalization", "batch"}}, {{4, 2}, {4}}};
        batch.inputValues = {{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0}};
        batch.noGrad = {1};
        QVERIFY(std::abs(lossGradient(batch, 1)[0] - (0.5f - 1) / 4) < 1e-6);
    }

    void softmaxOutputRejectsWrongLabel() {
        OpCase c{"SoftmaxOutput", {}, {{2, 3}, {5}}};
        c.noGrad = {1};
        QVERIFY_THROWS_EXCEPTION(OpError, OpRunner(c, DType::F32, true));
    }

    void regressionOutputs_data() {
        QTest::addColumn<QString>("op");
        QTest::newRow("linear") << "LinearRegressionOutput";
        QTest::newRow("logistic") << "LogisticRegressionOutput";
        QTest::newRow("mae") << "MAERegressionOutput";
    }
    void regressionOutputs() {
        QFETCH(QString, op);
        OpCase c{op.toStdString(), {{"grad_scale", "2"}}, {{2, 2}, {2, 2}}};
        c.inputValues = {{0.5f, -1, 2, 0}, {1, 0, 1, 1}};
        c.noGrad = {1};
        const auto out = runOp(c)[0];
        const auto g = lossGradient(c, 4);
        for (std::size_t i = 0; i < 4; ++i) {
            const float x = c.inputValues[0][i], y = c.inputValues[1][i];
            float pred = x, grad = 0;
            if (op == "LogisticRegressionOutput") pred = 1 / (1 + std::exp(-x));
            // MXNet: grad_scale / (label size / batch) x (pred - label), or its sign for MAE.
            const float d = pred - y;
            grad = op == "MAERegressionOutput" ? (d > 0 ? 1.f : d < 0 ? -1.f : 0.f) : d;
            QVERIFY(std::abs(out[i] - pred) < 1e-6);
            QVERIFY2(std::abs(g[i] - grad * 2 / 2 * 4) < 1e-5, qPrintable(QString("%1 vs %2").arg(g[i]).arg(grad * 4)));
        }
    }

    void makeLoss() {
        OpCase c{"MakeLoss", {{"grad_scale", "0.5"}, {"normalization", "batch"}}, {{4, 3}}};
        const auto g = lossGradient(c, 8);
        for (float v : g) QCOMPARE(v, 0.5f / 4 * 8);
        QCOMPARE(runOp(c)[0], roundTo(caseInputs(c)[0], DType::F32));
    }

    void ampCastRoundsAsTheTargetWould() {
        OpCase c{"amp_cast", {{"dtype", "float16"}}, {{4}}};
        c.inputValues = {{70000.f, 1e-8f, 1.0f / 3, -65504.f}};
        const auto out = runOp(c)[0];
        QVERIFY(std::isinf(out[0]));
        QCOMPARE(out[1], 0.0f);
        QCOMPARE(out[2], halfBitsToFloat(floatToHalfBits(1.0f / 3)));
        QCOMPARE(out[3], -65504.f);
        OpCase b{"amp_cast", {{"dtype", "bfloat16"}}, {{2}}};
        b.inputValues = {{70000.f, 1.0f / 3}};
        const auto bo = runOp(b)[0];
        QCOMPARE(bo[0], bfloat16BitsToFloat(floatToBfloat16Bits(70000.f)));  // bf16 has f32's range
        QCOMPARE(bo[1], bfloat16BitsToFloat(floatToBfloat16Bits(1.0f / 3)));
    }

    void castGradientsFlowBack() {
        OpCase cast{"amp_cast", {{"dtype", "float32"}}, {{3, 2}}};
        QVERIFY(gradientError(cast) < 1e-4);
        OpCase legacy{"Cast", {{"dtype", "float32"}}, {{5}}};
        QVERIFY(gradientError(legacy) < 1e-4);
        OpCase multi{"amp_multicast", {{"num_outputs", "2"}}, {{2, 2}, {3}}};
        QVERIFY(gradientError(multi) < 1e-4);
    }

    void ampCastGradientHasTheSourceDtype() {
        // f32 -> f16 cast: the f32 input's gradient is f32 even though the output's is f16.
        OpCase c{"amp_cast", {{"dtype", "float16"}}, {{3}}};
        OpRunner runner(c, DType::F32, true);
        QCOMPARE(runner.executor().outputs()[0].dtype(), DType::F16);
        QCOMPARE(runner.executor().gradient("in0").dtype(), DType::F32);
        const auto g = runner.backward({{1.0f, -2.0f, 0.5f}}, true);
        QCOMPARE(g[0], (std::vector<float>{1.0f, -2.0f, 0.5f}));
    }

    // Casts and reshapes take bfloat16 as stored and convert in one pass: every result is exactly
    // one rounding of the exact value, forward (to the output's dtype) and backward (to the input's).
    void bfloat16CastsAndReshapesAreExact() {
        const auto bf16 = [](float x) { return bfloat16BitsToFloat(floatToBfloat16Bits(x)); };
        const std::vector<float> values{1.0f / 3, -70000.5f, 1e-30f, 2.0f};
        const std::vector<float> grads{-1.0f / 7, 3.14159f, 65504.3f, -2e-20f};
        for (const char* to : {"float32", "bfloat16"}) {
            OpCase c{"amp_cast", {{"dtype", to}}, {{4}}};
            c.inputValues = {values};
            OpRunner runner(c, DType::BF16, true);  // the input stored in bfloat16
            QCOMPARE(runner.executor().value("in0").dtype(), DType::BF16);
            const auto out = runner.forward(true)[0];
            const auto g = runner.backward({grads}, true)[0];
            for (std::size_t i = 0; i < values.size(); ++i) {
                QCOMPARE(out[i], bf16(values[i]));  // widening is exact; bf16 -> bf16 is a copy
                QCOMPARE(g[i], bf16(to == std::string("float32") ? grads[i] : bf16(grads[i])));
            }
        }
        OpCase cast{"amp_cast", {{"dtype", "bfloat16"}}, {{4}}};  // float32 in, rounded once
        cast.inputValues = {values};
        OpRunner narrowing(cast, DType::F32, true);
        QCOMPARE(narrowing.executor().outputs()[0].dtype(), DType::BF16);
        const auto narrowed = narrowing.forward(true)[0];
        const auto widened = narrowing.backward({grads}, true)[0];  // its gradient back in float32
        for (std::size_t i = 0; i < values.size(); ++i) {
            QCOMPARE(narrowed[i], bf16(values[i]));
            QCOMPARE(widened[i], bf16(grads[i]));  // the output gradient was stored in bfloat16
        }
        OpCase flatten{"Flatten", {}, {{2, 2}}};
        flatten.inputValues = {values};
        OpRunner reshape(flatten, DType::BF16, true);
        const auto flat = reshape.forward(true)[0];
        const auto back = reshape.backward({grads}, true)[0];
        for (std::size_t i = 0; i < values.size(); ++i) {
            QCOMPARE(flat[i], bf16(values[i]));
            QCOMPARE(back[i], bf16(bf16(grads[i])));
        }
    }

    void multicastWidens() {
        OpCase c{"amp_multicast", {{"num_outputs", "2"}}, {{2}, {2}}};
        c.inputValues = {{1, 2}, {3, 4}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].dtype(), DType::F32);
        const auto out = runner.forward(false);
        QCOMPARE(out[0], (std::vector<float>{1, 2}));
        QCOMPARE(out[1], (std::vector<float>{3, 4}));
    }
};

QTEST_GUILESS_MAIN(TestOpsLossCast)
#include "test_ops_loss_cast.moc"
