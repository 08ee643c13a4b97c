// Elemwise ops (activations, arithmetic, math, reductions, softmax, Dropout): forward against
// hand-computed values, backward against finite differences, and every op in f16 and bf16 against
// f32 (op_check.h). The unary ops share one table; each row is one op with its attributes, its
// formula and the input domain it is checked on (positive for log/sqrt/rsqrt/reciprocal, inputs
// at least 0.05 away from the kinks of relu, abs, clip and maximum/minimum).
#include <array>
#include <functional>

#include "op_check.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

struct UnaryRow {
    const char* name;
    std::string op;
    Attributes attrs;
    std::function<double(double)> f;
    bool positiveOnly = false;
};

double sigmoidRef(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const std::vector<UnaryRow>& unaryRows() {
    static const std::vector<UnaryRow> rows = {
        {"Activation relu", "Activation", {{"act_type", "relu"}}, [](double x) { return x > 0 ? x : 0.0; }},
        {"Activation sigmoid", "Activation", {{"act_type", "sigmoid"}}, sigmoidRef},
        {"Activation tanh", "Activation", {{"act_type", "tanh"}}, [](double x) { return std::tanh(x); }},
        {"Activation softrelu", "Activation", {{"act_type", "softrelu"}},
         [](double x) { return std::log(1.0 + std::exp(x)); }},
        {"Activation softsign", "Activation", {{"act_type", "softsign"}},
         [](double x) { return x / (1.0 + std::abs(x)); }},
        {"relu", "relu", {}, [](double x) { return x > 0 ? x : 0.0; }},
        {"sigmoid", "sigmoid", {}, sigmoidRef},
        {"tanh", "tanh", {}, [](double x) { return std::tanh(x); }},
        {"exp", "exp", {}, [](double x) { return std::exp(x); }},
        {"log", "log", {}, [](double x) { return std::log(x); }, true},
        {"sqrt", "sqrt", {}, [](double x) { return std::sqrt(x); }, true},
        {"square", "square", {}, [](double x) { return x * x; }},
        {"sin", "sin", {}, [](double x) { return std::sin(x); }},
        {"cos", "cos", {}, [](double x) { return std::cos(x); }},
        {"abs", "abs", {}, [](double x) { return std::abs(x); }},
        {"negative", "negative", {}, [](double x) { return -x; }},
        {"reciprocal", "reciprocal", {}, [](double x) { return 1.0 / x; }, true},
        {"rsqrt", "rsqrt", {}, [](double x) { return 1.0 / std::sqrt(x); }, true},
        {"_plus_scalar", "_plus_scalar", {{"scalar", "0.7"}}, [](double x) { return x + 0.7; }},
        {"_PlusScalar alias", "_PlusScalar", {{"scalar", "0.7"}}, [](double x) { return x + 0.7; }},
        {"_minus_scalar", "_minus_scalar", {{"scalar", "0.7"}}, [](double x) { return x - 0.7; }},
        {"_rminus_scalar", "_rminus_scalar", {{"scalar", "0.7"}}, [](double x) { return 0.7 - x; }},
        {"_mul_scalar", "_mul_scalar", {{"scalar", "-1.5"}}, [](double x) { return x * -1.5; }},
        {"_div_scalar", "_div_scalar", {{"scalar", "2.5"}}, [](double x) { return x / 2.5; }},
        {"_rdiv_scalar", "_rdiv_scalar", {{"scalar", "1.5"}}, [](double x) { return 1.5 / x; }, true},
        {"_power_scalar 1.5", "_power_scalar", {{"scalar", "1.5"}}, [](double x) { return std::pow(x, 1.5); }, true},
        {"_power_scalar 3", "_power_scalar", {{"scalar", "3"}}, [](double x) { return x * x * x; }},
        {"_rpower_scalar", "_rpower_scalar", {{"scalar", "2"}}, [](double x) { return std::pow(2.0, x); }},
        {"_maximum_scalar", "_maximum_scalar", {{"scalar", "0.5"}}, [](double x) { return std::max(x, 0.5); }},
        {"_minimum_scalar", "_minimum_scalar", {{"scalar", "0.5"}}, [](double x) { return std::min(x, 0.5); }},
        {"clip", "clip", {{"a_min", "-0.5"}, {"a_max", "1.0"}}, [](double x) { return std::clamp(x, -0.5, 1.0); }},
        {"LeakyReLU default", "LeakyReLU", {}, [](double x) { return x > 0 ? x : 0.25 * x; }},
        {"LeakyReLU leaky 0.1", "LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.1"}},
         [](double x) { return x > 0 ? x : 0.1 * x; }},
        {"LeakyReLU elu", "LeakyReLU", {{"act_type", "elu"}, {"slope", "0.7"}},
         [](double x) { return x > 0 ? x : 0.7 * (std::exp(x) - 1.0); }},
        {"LeakyReLU selu", "LeakyReLU", {{"act_type", "selu"}},
         [](double x) {
             const double alpha = 1.6732632423543772848170429916717, lambda = 1.0507009873554804934193349852946;
             return lambda * (x > 0 ? x : alpha * (std::exp(x) - 1.0));
         }},
        {"LeakyReLU gelu", "LeakyReLU", {{"act_type", "gelu"}},
         [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
    };
    return rows;
}

// Twelve inputs, as a (3, 4) tensor, at least 0.05 from 0, 0.5, -0.5 and 1 (the kinks above).
const std::vector<float> kAnyInputs = {-1.7f, -1.15f, -0.8f, -0.42f, -0.2f, 0.15f, 0.35f, 0.62f, 0.9f, 1.3f, 1.6f, 2.1f};
const std::vector<float> kPositiveInputs = {0.5f, 0.65f, 0.8f, 0.95f, 1.1f, 1.3f, 1.5f, 1.8f, 2.2f, 2.7f, 3.1f, 3.6f};

OpCase unaryCase(const UnaryRow& row) {
    OpCase c{row.op, row.attrs, {{3, 4}}};
    c.inputValues = {row.positiveOnly ? kPositiveInputs : kAnyInputs};
    return c;
}

// n values in +-[0.1, 1], away from the kinks at 0.
std::vector<float> awayFromZero(std::size_t n, uint64_t seed) {
    SeededRandom random(seed);
    std::vector<float> v(n);
    for (float& x : v) {
        const double magnitude = random.uniform(0.1, 1.0);
        x = static_cast<float>(random.uniform01() < 0.5 ? -magnitude : magnitude);
    }
    return v;
}

std::vector<float> positiveValues(std::size_t n, uint64_t seed) {
    SeededRandom random(seed);
    std::vector<float> v(n);
    for (float& x : v) {
        x = static_cast<float>(random.uniform(0.5, 2.0));
    }
    return v;
}

void addUnaryRows() {
    QTest::addColumn<int>("row");
    const auto& rows = unaryRows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QTest::newRow(rows[i].name) << static_cast<int>(i);
    }
}

// What the binary ops compute, for the reference results.
double binaryRef(const std::string& op, double a, double b) {
    const QString name = QString::fromStdString(op).toLower();
    if (name.contains("add") || name.contains("plus")) {
        return a + b;
    }
    if (name.contains("sub") || name.contains("minus")) {
        return a - b;
    }
    if (name.contains("mul")) {
        return a * b;
    }
    return a / b;
}

// Reference broadcasting: numpy's rule, the shorter shape padded with 1s on the left.
std::vector<float> broadcastRef(const std::string& op, const Shape& sa, const std::vector<float>& a, const Shape& sb,
                                const std::vector<float>& b, const Shape& out) {
    std::vector<float> result(static_cast<std::size_t>(shapeSize(out)));
    const std::size_t nd = out.size();
    auto offset = [&](const Shape& s, const std::vector<int64_t>& index) {
        int64_t off = 0;
        for (std::size_t k = 0; k < s.size(); ++k) {
            const int64_t i = index[k + nd - s.size()];
            off = off * s[k] + (s[k] == 1 ? 0 : i);
        }
        return off;
    };
    std::vector<int64_t> index(nd, 0);
    for (std::size_t flat = 0; flat < result.size(); ++flat) {
        auto rest = static_cast<int64_t>(flat);
        for (std::size_t k = nd; k-- > 0;) {
            index[k] = rest % out[k];
            rest /= out[k];
        }
        result[flat] = static_cast<float>(binaryRef(op, a[static_cast<std::size_t>(offset(sa, index))],
                                                    b[static_cast<std::size_t>(offset(sb, index))]));
    }
    return result;
}

void verifyClose(const std::vector<float>& actual, const std::vector<double>& expected, double tolerance = 1e-5) {
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double error = std::abs(actual[i] - expected[i]) / (1.0 + std::abs(expected[i]));
        QVERIFY2(error < tolerance, qPrintable(QString("element %1: %2, expected %3").arg(i).arg(actual[i]).arg(expected[i])));
    }
}

void verifyClose(const std::vector<float>& actual, const std::vector<float>& expected, double tolerance = 1e-5) {
    verifyClose(actual, std::vector<double>(expected.begin(), expected.end()), tolerance);
}

// The message of the OpError binding the case throws; fails the test when it binds.
QString bindError(const OpCase& c) {
    try {
        OpRunner runner(c, DType::F32, false);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

void verifyLowPrecision(const OpCase& c) {
    for (DType t : {DType::F16, DType::BF16}) {
        const double error = precisionError(c, t);
        QVERIFY2(error < precisionTolerance(t),
                 qPrintable(QString("%1: error %2").arg(dtypeName(t).data()).arg(error)));
    }
}

std::vector<float> downloadOutput(OpRunner& runner, std::size_t k) {
    return download(runner.backend(), runner.executor().outputs()[k]);
}

}  // namespace

class TestOpsElemwise : public QObject {
    Q_OBJECT

private slots:
    // ---- unary ops (Activation, math, scalar ops, clip, LeakyReLU without parameters) ----

    void unaryForward_data() { addUnaryRows(); }
    void unaryForward() {
        QFETCH(int, row);
        const UnaryRow& r = unaryRows()[static_cast<std::size_t>(row)];
        const OpCase c = unaryCase(r);
        std::vector<double> expected;
        for (float x : c.inputValues[0]) {
            expected.push_back(r.f(x));
        }
        const auto out = runOp(c);
        QCOMPARE(out.size(), std::size_t{1});
        verifyClose(out[0], expected);
    }

    void unaryGradient_data() { addUnaryRows(); }
    void unaryGradient() {
        QFETCH(int, row);
        const double error = gradientError(unaryCase(unaryRows()[static_cast<std::size_t>(row)]));
        QVERIFY2(error < 1e-3, qPrintable(QString("gradient error %1").arg(error)));
    }

    void unaryLowPrecision_data() { addUnaryRows(); }
    void unaryLowPrecision() {
        QFETCH(int, row);
        verifyLowPrecision(unaryCase(unaryRows()[static_cast<std::size_t>(row)]));
    }

    // Activations read bfloat16 as stored and round each output once inside their loop: the same
    // bits as converting to f32, computing, and rounding (the converting path's rule), both ways.
    void activationBfloat16RoundsOncePerElement() {
        for (const char* act : {"relu", "sigmoid", "tanh"}) {
            OpCase c{"Activation", {{"act_type", act}}, {{5, 37}}};
            OpRunner runner(c, DType::BF16, true);
            const std::vector<float>& x = runner.input(0);  // already bf16 values
            const auto y = runner.forward(true)[0];
            std::vector<float> weights(y.size());
            SeededRandom random(5);
            for (float& w : weights) w = roundTo({float(random.uniform(-1.0, 1.0))}, DType::BF16)[0];
            const auto g = runner.backward({weights}, true)[0];
            for (std::size_t i = 0; i < x.size(); ++i) {
                const std::string a = act;
                const float f = a == "relu" ? std::max(x[i], 0.0f) : a == "sigmoid" ? 1.0f / (1.0f + std::exp(-x[i])) : std::tanh(x[i]);
                QCOMPARE(y[i], roundTo({f}, DType::BF16)[0]);
                const float yi = y[i];
                const float df = a == "relu" ? (x[i] > 0.0f ? 1.0f : 0.0f) : a == "sigmoid" ? yi * (1.0f - yi) : 1.0f - yi * yi;
                QCOMPARE(g[i], roundTo({weights[i] * df}, DType::BF16)[0]);
            }
        }
    }

    void activationHandValues() {
        // relu, sigmoid(0) = 0.5, tanh(0) = 0, softrelu(0) = log 2, softsign(1) = 0.5.
        OpCase relu{"Activation", {{"act_type", "relu"}}, {{4}}};
        relu.inputValues = {{-2, -0.5f, 0.5f, 3}};
        QCOMPARE(runOp(relu)[0], (std::vector<float>{0, 0, 0.5f, 3}));
        OpCase s{"Activation", {{"act_type", "sigmoid"}}, {{1}}};
        s.inputValues = {{0}};
        QCOMPARE(runOp(s)[0][0], 0.5f);
        OpCase sr{"Activation", {{"act_type", "softrelu"}}, {{2}}};
        sr.inputValues = {{0, 30}};
        verifyClose(runOp(sr)[0], std::vector<double>{std::log(2.0), 30.0});
        OpCase ss{"Activation", {{"act_type", "softsign"}}, {{2}}};
        ss.inputValues = {{1, -3}};
        verifyClose(runOp(ss)[0], std::vector<double>{0.5, -0.75});
    }

    void activationGradientOnRandomShapes() {
        // A 4-d tensor like a convolution's output, the relu inputs kept away from the kink.
        OpCase c{"Activation", {{"act_type", "relu"}}, {{2, 3, 2, 2}}};
        c.inputValues = {awayFromZero(24, 5)};
        QVERIFY(gradientError(c) < 1e-3);
    }

    void activationRejectsBadType() {
        const QString missing = bindError(OpCase{"Activation", {}, {{2}}});
        QVERIFY2(missing.contains("act_type"), qPrintable(missing));
        const QString bad = bindError(OpCase{"Activation", {{"act_type", "swish"}}, {{2}}});
        QVERIFY2(bad.contains("act_type") && bad.contains("softsign"), qPrintable(bad));
    }

    void clipRequiresBounds() {
        const QString e = bindError(OpCase{"clip", {{"a_min", "0"}}, {{2}}});
        QVERIFY2(e.contains("a_max"), qPrintable(e));
        const QString order = bindError(OpCase{"clip", {{"a_min", "1"}, {"a_max", "0"}}, {{2}}});
        QVERIFY2(order.contains("a_min"), qPrintable(order));
    }

    // ---- LeakyReLU prelu, rrelu ----

    void preluForward() {
        // gamma one slope per channel (axis 1), inferred as (C,).
        OpCase c{"LeakyReLU", {{"act_type", "prelu"}}, {{2, 2}, {}}};
        c.inputValues = {{1, -2, -3, 4}, {0.5f, 0.1f}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().value("in1").shape(), (Shape{2}));
        QCOMPARE(runner.forward(false)[0], (std::vector<float>{1, -0.2f, -1.5f, 4}));
    }

    void preluGradient() {
        OpCase c{"LeakyReLU", {{"act_type", "prelu"}}, {{2, 3, 4}, {3}}};
        c.inputValues = {awayFromZero(24, 3), {0.2f, 0.5f, 0.8f}};
        QVERIFY(gradientError(c) < 1e-3);
        OpCase shared{"LeakyReLU", {{"act_type", "prelu"}}, {{2, 3, 4}, {1}}};
        shared.inputValues = {awayFromZero(24, 4), {0.3f}};
        QVERIFY(gradientError(shared) < 1e-3);
        verifyLowPrecision(c);
    }

    void leakyReluRejectsRrelu() {
        const QString e = bindError(OpCase{"LeakyReLU", {{"act_type", "rrelu"}}, {{2, 3}}});
        QVERIFY2(e.contains("rrelu") && e.contains("not supported"), qPrintable(e));
        const QString bad = bindError(OpCase{"LeakyReLU", {{"act_type", "swish"}}, {{2, 3}}});
        QVERIFY2(bad.contains("act_type"), qPrintable(bad));
    }

    // ---- elemwise binary ops and their aliases ----

    void elemwiseBinary_data() {
        QTest::addColumn<QString>("op");
        for (const char* op : {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_plus", "_Plus",
                               "_add", "_minus", "_sub", "_mul", "_Mul", "_div", "_Div"}) {
            QTest::newRow(op) << QString(op);
        }
    }
    void elemwiseBinary() {
        QFETCH(QString, op);
        OpCase c{op.toStdString(), {}, {{2, 3}, {2, 3}}};
        c.inputValues = {{1, -2, 3, 0.5f, -1.5f, 2}, {0.5f, 2, -1.25f, 0.8f, 1.6f, -0.7f}};
        std::vector<double> expected;
        for (std::size_t i = 0; i < 6; ++i) {
            expected.push_back(binaryRef(c.op, c.inputValues[0][i], c.inputValues[1][i]));
        }
        verifyClose(runOp(c)[0], expected);
        QVERIFY(gradientError(c) < 1e-3);
        verifyLowPrecision(c);
    }

    void elemwiseBinaryRejectsShapeMismatch() {
        const QString e = bindError(OpCase{"elemwise_add", {}, {{2, 3}, {3, 2}}});
        QVERIFY2(e.contains("(2, 3)") || e.contains("(3, 2)"), qPrintable(e));
    }

    // ---- broadcast ops ----

    void broadcast_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("lhs");
        QTest::addColumn<QString>("rhs");
        QTest::addColumn<QString>("out");
        const std::vector<std::array<const char*, 3>> shapes = {
            {"2,3,4", "1,3,1", "2,3,4"},  // per-channel, like a bias
            {"2,3,4", "4", "2,3,4"},      // numpy rank extension on the left
            {"3,1", "1,4", "3,4"},        // both operands broadcast
            {"2,1,4", "2,3,1", "2,3,4"},
            {"2,3", "2,3", "2,3"},  // no broadcasting at all
            {"1", "2,3", "2,3"},
        };
        for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_plus",
                               "broadcast_minus"}) {
            for (const auto& s : shapes) {
                QTest::newRow(qPrintable(QString("%1 (%2)x(%3)").arg(op, s[0], s[1]))) << op << s[0] << s[1] << s[2];
            }
        }
    }
    void broadcast() {
        QFETCH(QString, op);
        QFETCH(QString, lhs);
        QFETCH(QString, rhs);
        QFETCH(QString, out);
        auto parse = [](const QString& s) {
            Shape shape;
            for (const QString& d : s.split(',')) {
                shape.push_back(d.toLongLong());
            }
            return shape;
        };
        const Shape sa = parse(lhs), sb = parse(rhs), so = parse(out);
        OpCase c{op.toStdString(), {}, {sa, sb}};
        // Divisors away from 0 so that the quotient and its gradient stay moderate.
        c.inputValues = {awayFromZero(static_cast<std::size_t>(shapeSize(sa)), 11),
                         positiveValues(static_cast<std::size_t>(shapeSize(sb)), 12)};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), so);
        verifyClose(runner.forward(false)[0], broadcastRef(c.op, sa, c.inputValues[0], sb, c.inputValues[1], so));
        const double error = gradientError(c);
        QVERIFY2(error < 1e-3, qPrintable(QString("gradient error %1").arg(error)));
        verifyLowPrecision(c);
    }

    void broadcastRejectsIncompatibleShapes_data() {
        QTest::addColumn<QString>("op");
        QTest::newRow("add") << "broadcast_add";
        QTest::newRow("mul") << "broadcast_mul";
    }
    void broadcastRejectsIncompatibleShapes() {
        QFETCH(QString, op);
        const QString e = bindError(OpCase{op.toStdString(), {}, {{2, 3}, {4}}});
        QVERIFY2(e.contains("cannot be broadcast") && e.contains("(2, 3)") && e.contains("(4)"), qPrintable(e));
        const QString e2 = bindError(OpCase{op.toStdString(), {}, {{2, 3, 4}, {3, 2, 4}}});
        QVERIFY2(e2.contains("cannot be broadcast"), qPrintable(e2));
    }

    // ---- add_n ----

    void addN_data() {
        QTest::addColumn<QString>("op");
        QTest::newRow("add_n") << "add_n";
        QTest::newRow("ElementWiseSum") << "ElementWiseSum";
    }
    void addN() {
        QFETCH(QString, op);
        OpCase c{op.toStdString(), {{"num_args", "3"}}, {{2, 2}, {2, 2}, {2, 2}}};
        c.inputValues = {{1, 2, 3, 4}, {10, 20, 30, 40}, {-1, 0.5f, 0, 2}};
        QCOMPARE(runOp(c)[0], (std::vector<float>{10, 22.5f, 33, 46}));
        OpCase random{op.toStdString(), {{"num_args", "3"}}, {{3, 4}, {3, 4}, {3, 4}}};
        QVERIFY(gradientError(random) < 1e-3);
        verifyLowPrecision(random);
    }

    void addNChecksInputs() {
        const QString count = bindError(OpCase{"add_n", {{"num_args", "3"}}, {{2}, {2}}});
        QVERIFY2(count.contains("expected 3"), qPrintable(count));
        const QString shapes = bindError(OpCase{"add_n", {{"num_args", "2"}}, {{2}, {3}}});
        QVERIFY2(shapes.contains("(2)") || shapes.contains("(3)"), qPrintable(shapes));
    }

    // ---- softmax, log_softmax ----

    void softmaxForward() {
        OpCase c{"softmax", {}, {{2, 3}}};
        c.inputValues = {{1, 2, 3, 5, 5, 5}};
        const double s = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
        verifyClose(runOp(c)[0],
                    std::vector<double>{std::exp(1.0) / s, std::exp(2.0) / s, std::exp(3.0) / s, 1 / 3.0, 1 / 3.0, 1 / 3.0});
        OpCase log{"log_softmax", {}, {{2, 3}}};
        log.inputValues = c.inputValues;
        verifyClose(runOp(log)[0], std::vector<double>{1 - std::log(s), 2 - std::log(s), 3 - std::log(s),
                                                       -std::log(3.0), -std::log(3.0), -std::log(3.0)});
        // axis 0: columns; temperature 2 halves the logits.
        OpCase columns{"softmax", {{"axis", "0"}}, {{2, 2}}};
        columns.inputValues = {{0, 1, std::log(3.0f), 1}};
        verifyClose(runOp(columns)[0], std::vector<double>{0.25, 0.5, 0.75, 0.5});
        OpCase warm{"softmax", {{"temperature", "2"}}, {{2}}};
        warm.inputValues = {{0, 2}};
        verifyClose(runOp(warm)[0], std::vector<double>{1 / (1 + std::exp(1.0)), std::exp(1.0) / (1 + std::exp(1.0))});
    }

    void softmaxGradient_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("axis");
        QTest::addColumn<QString>("temperature");
        for (const char* op : {"softmax", "log_softmax"}) {
            QTest::newRow(qPrintable(QString(op) + " last")) << op << "-1" << "None";
            QTest::newRow(qPrintable(QString(op) + " axis 0")) << op << "0" << "None";
            QTest::newRow(qPrintable(QString(op) + " axis 1")) << op << "1" << "None";
            QTest::newRow(qPrintable(QString(op) + " temperature")) << op << "2" << "0.5";
        }
    }
    void softmaxGradient() {
        QFETCH(QString, op);
        QFETCH(QString, axis);
        QFETCH(QString, temperature);
        OpCase c{op.toStdString(), {{"axis", axis.toStdString()}, {"temperature", temperature.toStdString()}},
                 {{2, 3, 4}}};
        QVERIFY(gradientError(c) < 1e-3);
        verifyLowPrecision(c);
    }

    void softmaxRejectsBadAxis() {
        const QString e = bindError(OpCase{"softmax", {{"axis", "2"}}, {{2, 3}}});
        QVERIFY2(e.contains("axis"), qPrintable(e));
    }

    // ---- sum, mean ----

    void reduceForward_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("axis");
        QTest::addColumn<QString>("keepdims");
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("values");
        // data (2, 3) = [[1, 2, 3], [4, 5, 6]]
        QTest::newRow("sum all") << "sum" << "" << "False" << "False" << "1" << "21";
        QTest::newRow("sum all keepdims") << "sum" << "" << "True" << "False" << "1,1" << "21";
        QTest::newRow("sum axis 0") << "sum" << "0" << "False" << "False" << "3" << "5,7,9";
        QTest::newRow("sum axis -1 keepdims") << "sum" << "-1" << "True" << "False" << "2,1" << "6,15";
        QTest::newRow("sum exclude 0") << "sum" << "(0,)" << "False" << "True" << "2" << "6,15";
        QTest::newRow("sum axis (0,1)") << "sum" << "(0, 1)" << "False" << "False" << "1" << "21";
        QTest::newRow("sum_axis alias") << "sum_axis" << "1" << "False" << "False" << "2" << "6,15";
        QTest::newRow("mean all") << "mean" << "" << "False" << "False" << "1" << "3.5";
        QTest::newRow("mean axis 0") << "mean" << "0" << "False" << "False" << "3" << "2.5,3.5,4.5";
        QTest::newRow("mean axis 1 keepdims") << "mean" << "1" << "True" << "False" << "2,1" << "2,5";
    }
    void reduceForward() {
        QFETCH(QString, op);
        QFETCH(QString, axis);
        QFETCH(QString, keepdims);
        QFETCH(QString, exclude);
        QFETCH(QString, shape);
        QFETCH(QString, values);
        Attributes attrs{{"keepdims", keepdims.toStdString()}, {"exclude", exclude.toStdString()}};
        if (!axis.isEmpty()) {
            attrs["axis"] = axis.toStdString();
        }
        OpCase c{op.toStdString(), attrs, {{2, 3}}};
        c.inputValues = {{1, 2, 3, 4, 5, 6}};
        OpRunner runner(c, DType::F32, false);
        Shape expectedShape;
        for (const QString& d : shape.split(',')) {
            expectedShape.push_back(d.toLongLong());
        }
        QCOMPARE(runner.executor().outputs()[0].shape(), expectedShape);
        std::vector<double> expected;
        for (const QString& v : values.split(',')) {
            expected.push_back(v.toDouble());
        }
        verifyClose(runner.forward(false)[0], expected);
    }

    void reduceGradient_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("axis");
        QTest::addColumn<QString>("keepdims");
        QTest::addColumn<QString>("exclude");
        for (const char* op : {"sum", "mean"}) {
            QTest::newRow(qPrintable(QString(op) + " all")) << op << "" << "False" << "False";
            QTest::newRow(qPrintable(QString(op) + " (0, 2)")) << op << "(0, 2)" << "False" << "False";
            QTest::newRow(qPrintable(QString(op) + " 1 keepdims")) << op << "1" << "True" << "False";
            QTest::newRow(qPrintable(QString(op) + " exclude 1")) << op << "1" << "False" << "True";
        }
    }
    void reduceGradient() {
        QFETCH(QString, op);
        QFETCH(QString, axis);
        QFETCH(QString, keepdims);
        QFETCH(QString, exclude);
        Attributes attrs{{"keepdims", keepdims.toStdString()}, {"exclude", exclude.toStdString()}};
        if (!axis.isEmpty()) {
            attrs["axis"] = axis.toStdString();
        }
        OpCase c{op.toStdString(), attrs, {{2, 3, 4}}};
        QVERIFY(gradientError(c) < 1e-3);
        verifyLowPrecision(c);
    }

    void reduceRejectsBadAxes() {
        const QString range = bindError(OpCase{"sum", {{"axis", "2"}}, {{2, 3}}});
        QVERIFY2(range.contains("axis 2") && range.contains("out of range"), qPrintable(range));
        const QString twice = bindError(OpCase{"mean", {{"axis", "(1, -1)"}}, {{2, 3}}});
        QVERIFY2(twice.contains("twice"), qPrintable(twice));
    }

    // ---- Dropout ----

    void dropoutHasOutputAndMask() {
        OpCase c{"Dropout", {{"p", "0.5"}}, {{3, 4}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs().size(), std::size_t{2});
        QCOMPARE(runner.executor().outputs()[1].shape(), (Shape{3, 4}));
    }

    void dropoutIsIdentityInInference() {
        OpCase c{"Dropout", {{"p", "0.5"}}, {{3, 4}}};
        c.training = false;
        OpRunner runner(c, DType::F32, false);
        const auto out = runner.forward(false);
        QCOMPARE(out[0], runner.input(0));
        QCOMPARE(out[1], std::vector<float>(12, 1.0f));
    }

    void dropoutAlwaysDropsInInference() {
        OpCase c{"Dropout", {{"p", "0.5"}, {"mode", "always"}}, {{100}}};
        c.inputValues = {std::vector<float>(100, 1.0f)};
        const auto out = runOp(c);  // a training pass
        OpRunner runner(c, DType::F32, false);
        const auto inference = runner.forward(false);
        QVERIFY(std::count(inference[0].begin(), inference[0].end(), 0.0f) > 20);
        QCOMPARE(out[0], inference[0]);
    }

    void dropoutMaskIsReproducible() {
        OpCase c{"Dropout", {{"p", "0.5"}}, {{1000}}};
        OpRunner runner(c, DType::F32, true);
        runner.forward(true);  // uploads the inputs
        auto maskAt = [&](uint64_t seed, int64_t step) {
            ExecContext ctx;
            ctx.training = true;
            ctx.seed = seed;
            ctx.step = step;
            runner.executor().forward(ctx);
            return downloadOutput(runner, 1);
        };
        const auto a = maskAt(7, 3);
        QCOMPARE(maskAt(7, 3), a);
        QVERIFY(maskAt(7, 4) != a);
        QVERIFY(maskAt(8, 3) != a);
        // Kept elements are scaled by 1 / (1 - p), and the output is data * mask.
        for (float m : a) {
            QVERIFY(m == 0.0f || m == 2.0f);
        }
        maskAt(7, 3);
        const auto y = downloadOutput(runner, 0);
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(y[i], runner.input(0)[i] * a[i]);
        }
    }

    void dropoutFractionNearP_data() {
        QTest::addColumn<double>("p");
        QTest::newRow("0.1") << 0.1;
        QTest::newRow("0.3") << 0.3;
        QTest::newRow("0.5") << 0.5;
        QTest::newRow("0.9") << 0.9;
    }
    void dropoutFractionNearP() {
        QFETCH(double, p);
        OpCase c{"Dropout", {{"p", QString::number(p).toStdString()}}, {{100, 100}}};
        c.inputValues = {std::vector<float>(10000, 1.0f)};
        const auto out = runOp(c);
        const auto dropped = std::count(out[0].begin(), out[0].end(), 0.0f);
        // 4 standard deviations of a binomial(10000, p) fraction is at most 0.02.
        QVERIFY2(std::abs(static_cast<double>(dropped) / 10000.0 - p) < 0.02, qPrintable(QString::number(dropped)));
        const auto kept = std::find_if(out[0].begin(), out[0].end(), [](float v) { return v != 0.0f; });
        QVERIFY(kept != out[0].end());
        QCOMPARE(*kept, static_cast<float>(1.0 / (1.0 - p)));
    }

    void dropoutGradient() {
        OpCase c{"Dropout", {{"p", "0.4"}}, {{4, 5}}};
        c.gradOutputs = 1;  // the mask carries no gradient
        QVERIFY(gradientError(c) < 1e-3);
        c.training = false;
        QVERIFY(gradientError(c) < 1e-3);
    }

    void dropoutLowPrecision() {
        OpCase c{"Dropout", {{"p", "0.5"}}, {{4, 5}}};
        verifyLowPrecision(c);
    }

    void dropoutRejectsBadAttributes() {
        const QString p = bindError(OpCase{"Dropout", {{"p", "1.5"}}, {{4}}});
        QVERIFY2(p.contains("p must be"), qPrintable(p));
        const QString mode = bindError(OpCase{"Dropout", {{"mode", "sometimes"}}, {{4}}});
        QVERIFY2(mode.contains("mode"), qPrintable(mode));
        const QString axes = bindError(OpCase{"Dropout", {{"axes", "(1,)"}}, {{4, 2}}});
        QVERIFY2(axes.contains("axes"), qPrintable(axes));
    }
};

QTEST_GUILESS_MAIN(TestOpsElemwise)
#include "test_ops_elemwise.moc"
