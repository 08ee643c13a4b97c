// Shape ops (Flatten, Reshape, expand_dims, squeeze, transpose, SwapAxis, Concat, SliceChannel,
// slice_axis): forward against hand-computed values and shapes, backward against finite
// differences, and every op in f16 and bf16 against f32, where they are exact (op_check.h).
#include <numeric>

#include "op_check.h"
#include "ops/op_error.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

// "2,3,4" -> {2, 3, 4}
Shape parseShape(const QString& text) {
    Shape s;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
        s.push_back(part.trimmed().toLongLong());
    }
    return s;
}

// "2,3|4" -> {{2, 3}, {4}}
std::vector<Shape> parseShapes(const QString& text) {
    std::vector<Shape> shapes;
    for (const QString& part : text.split('|')) {
        shapes.push_back(parseShape(part));
    }
    return shapes;
}

// "shape=(2, -1);reverse=True" -> attributes
Attributes parseAttrs(const QString& text) {
    Attributes attrs;
    for (const QString& item : text.split(';', Qt::SkipEmptyParts)) {
        const auto eq = item.indexOf('=');
        attrs[item.left(eq).trimmed().toStdString()] = item.mid(eq + 1).trimmed().toStdString();
    }
    return attrs;
}

std::vector<float> iota(int64_t n, float start = 0.0f) {
    std::vector<float> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), start);
    return v;
}

Shape outputShape(const OpCase& c, std::size_t k = 0) {
    OpRunner runner(c, DType::F32, false);
    return runner.executor().outputs()[k].shape();
}

// The message of the OpError binding `c` throws, or a null string when it binds.
QString bindError(const OpCase& c) {
    try {
        OpRunner runner(c, DType::F32, false);
    } catch (const OpError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestOpsShape : public QObject {
    Q_OBJECT

private slots:
    // --- Reshape codes, the examples of MXNet's Reshape documentation and a few more ---------------
    void reshapeShapes_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << "2,3,4" << "shape=(4, 6)" << "4,6";
        QTest::newRow("0 copies") << "2,3,4" << "shape=(4,0,2)" << "4,3,2";
        QTest::newRow("0 0") << "2,3,4" << "shape=(2,0,0)" << "2,3,4";
        QTest::newRow("-1 last") << "2,3,4" << "shape=(6,1,-1)" << "6,1,4";
        QTest::newRow("-1 middle") << "2,3,4" << "shape=(3,-1,8)" << "3,1,8";
        QTest::newRow("-1 alone") << "2,3,4" << "shape=(-1,)" << "24";
        QTest::newRow("2 -1") << "2,3,4" << "shape=(2,-1)" << "2,12";
        QTest::newRow("-2 alone") << "2,3,4" << "shape=(-2,)" << "2,3,4";
        QTest::newRow("2 -2") << "2,3,4" << "shape=(2,-2)" << "2,3,4";
        QTest::newRow("-2 1 1") << "2,3,4" << "shape=(-2,1,1)" << "2,3,4,1,1";
        QTest::newRow("-3 4") << "2,3,4" << "shape=(-3,4)" << "6,4";
        QTest::newRow("-3 -3") << "2,3,4,5" << "shape=(-3,-3)" << "6,20";
        QTest::newRow("0 -3") << "2,3,4" << "shape=(0,-3)" << "2,12";
        QTest::newRow("-3 -2") << "2,3,4" << "shape=(-3,-2)" << "6,4";
        QTest::newRow("-4 1 2 -2") << "2,3,4" << "shape=(-4,1,2,-2)" << "1,2,3,4";
        QTest::newRow("2 -4 -1 3 -2") << "2,3,4" << "shape=(2,-4,-1,3,-2)" << "2,1,3,4";
        QTest::newRow("-4 -1 first") << "6,4" << "shape=(-4,-1,2,0)" << "3,2,4";
        QTest::newRow("-1 0") << "10,5,4" << "shape=(-1,0)" << "40,5";
        QTest::newRow("-1 0 reverse") << "10,5,4" << "shape=(-1,0);reverse=True" << "50,4";
        QTest::newRow("-2 reverse") << "2,3,4" << "shape=(1,-2);reverse=True" << "1,2,3,4";
        QTest::newRow("list syntax") << "2,3,4" << "shape=[4, -1]" << "4,6";
        QTest::newRow("alias reshape") << "2,3,4" << "shape=(-1,4)" << "6,4";
        QTest::newRow("legacy target_shape") << "2,3,4" << "target_shape=(0,4)" << "6,4";
        QTest::newRow("legacy keep_highest") << "2,3,4" << "target_shape=(7,0);keep_highest=True" << "2,12";
    }
    void reshapeShapes() {
        QFETCH(QString, input);
        QFETCH(QString, attrs);
        QFETCH(QString, expected);
        const std::string op = QString(QTest::currentDataTag()) == "alias reshape" ? "reshape" : "Reshape";
        OpCase c{op, parseAttrs(attrs), {parseShape(input)}};
        c.inputValues = {iota(shapeSize(c.inputShapes[0]))};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), parseShape(expected));
        // Row-major order is kept: the data is the same sequence of numbers.
        QCOMPARE(runner.forward(false)[0], c.inputValues[0]);
    }

    void reshapeRejects_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("message");
        QTest::newRow("size mismatch") << "2,3,4" << "shape=(5,5)" << "elements";
        QTest::newRow("two -1") << "2,3,4" << "shape=(-1,-1)" << "only one";
        QTest::newRow("-1 does not divide") << "2,3,4" << "shape=(5,-1)" << "divide";
        QTest::newRow("0 past the input") << "2,3" << "shape=(0,0,0)" << "no input dimension";
        QTest::newRow("-3 at the end") << "2,3,4" << "shape=(0,0,-3)" << "-3";
        QTest::newRow("-4 bad split") << "2,3,4" << "shape=(-4,5,-1,-2)" << "split";
        QTest::newRow("-4 both -1") << "2,3,4" << "shape=(-4,-1,-1,-2)" << "both";
        QTest::newRow("-4 too short") << "2,3,4" << "shape=(-4,2)" << "followed";
        QTest::newRow("-4 reverse") << "2,3,4" << "shape=(-4,1,2,-2);reverse=True" << "reverse";
        QTest::newRow("unknown code") << "2,3,4" << "shape=(-5,4)" << "unknown code";
        QTest::newRow("no shape") << "2,3,4" << "" << "required";
        QTest::newRow("not a tuple") << "2,3,4" << "shape=(a,b)" << "tuple";
        QTest::newRow("legacy mismatch") << "2,3,4" << "target_shape=(5,5)" << "target_shape";
    }
    void reshapeRejects() {
        QFETCH(QString, input);
        QFETCH(QString, attrs);
        QFETCH(QString, message);
        const QString error = bindError({"Reshape", parseAttrs(attrs), {parseShape(input)}});
        QVERIFY2(!error.isNull(), "bound a bad Reshape");
        QVERIFY2(error.contains("'op'") && error.contains(message), qPrintable(error));
    }

    // --- Flatten, expand_dims, squeeze --------------------------------------------------------------
    void viewShapes_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("Flatten 3-D") << "Flatten" << "" << "2,3,4" << "2,12";
        QTest::newRow("Flatten 1-D") << "Flatten" << "" << "5" << "5,1";
        QTest::newRow("flatten alias") << "flatten" << "" << "2,3,2,2" << "2,12";
        QTest::newRow("expand_dims 0") << "expand_dims" << "axis=0" << "2,3" << "1,2,3";
        QTest::newRow("expand_dims 1") << "expand_dims" << "axis=1" << "2,3" << "2,1,3";
        QTest::newRow("expand_dims end") << "expand_dims" << "axis=2" << "2,3" << "2,3,1";
        QTest::newRow("expand_dims -1") << "expand_dims" << "axis=-1" << "2,3" << "2,3,1";
        QTest::newRow("expand_dims -3") << "expand_dims" << "axis=-3" << "2,3" << "1,2,3";
        QTest::newRow("squeeze all") << "squeeze" << "" << "1,3,1,2" << "3,2";
        QTest::newRow("squeeze None") << "squeeze" << "axis=None" << "1,3,1,2" << "3,2";
        QTest::newRow("squeeze axis") << "squeeze" << "axis=2" << "1,3,1,2" << "1,3,2";
        QTest::newRow("squeeze axes") << "squeeze" << "axis=(0, -2)" << "1,3,1,2" << "3,2";
        QTest::newRow("squeeze to (1,)") << "squeeze" << "" << "1,1" << "1";
    }
    void viewShapes() {
        QFETCH(QString, op);
        QFETCH(QString, attrs);
        QFETCH(QString, input);
        QFETCH(QString, expected);
        OpCase c{op.toStdString(), parseAttrs(attrs), {parseShape(input)}};
        c.inputValues = {iota(shapeSize(c.inputShapes[0]), 1.0f)};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), parseShape(expected));
        QCOMPARE(runner.forward(false)[0], c.inputValues[0]);
    }

    void badAttributes_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<QString>("message");
        QTest::newRow("expand_dims too far") << "expand_dims" << "axis=3" << "2,3" << "out of range";
        QTest::newRow("expand_dims no axis") << "expand_dims" << "" << "2,3" << "required";
        QTest::newRow("squeeze size 3") << "squeeze" << "axis=1" << "1,3,1" << "not 1";
        QTest::newRow("squeeze axis twice") << "squeeze" << "axis=(0,0)" << "1,3" << "twice";
        QTest::newRow("transpose not a permutation") << "transpose" << "axes=(0,0,1)" << "2,3,4" << "permutation";
        QTest::newRow("transpose too few axes") << "transpose" << "axes=(1,0)" << "2,3,4" << "one entry";
        QTest::newRow("transpose axis too big") << "transpose" << "axes=(0,3,1)" << "2,3,4" << "out of range";
        QTest::newRow("SwapAxis out of range") << "SwapAxis" << "dim1=0;dim2=3" << "2,3,4" << "out of range";
        QTest::newRow("Concat mismatch") << "Concat" << "num_args=2;dim=1" << "2,3|3,3" << "does not match";
        QTest::newRow("Concat rank mismatch") << "Concat" << "num_args=2" << "2,3|2,3,1" << "does not match";
        QTest::newRow("Concat dim out of range") << "Concat" << "num_args=2;dim=2" << "2,3|2,3" << "out of range";
        QTest::newRow("Concat input count") << "Concat" << "num_args=3" << "2,3|2,3" << "expected 3";
        QTest::newRow("Concat no num_args") << "Concat" << "" << "2,3|2,3" << "num_args";
        QTest::newRow("split not divisible") << "SliceChannel" << "num_outputs=2" << "2,3" << "equal parts";
        QTest::newRow("split squeeze too long") << "SliceChannel" << "num_outputs=2;axis=0;squeeze_axis=True"
                                                << "4,3" << "squeeze_axis";
        QTest::newRow("split axis out of range") << "SliceChannel" << "num_outputs=1;axis=2" << "4,3"
                                                 << "out of range";
        QTest::newRow("split no num_outputs") << "SliceChannel" << "" << "4,4" << "num_outputs";
        QTest::newRow("slice_axis empty") << "slice_axis" << "axis=1;begin=2;end=2" << "3,4" << "empty";
        QTest::newRow("slice_axis past end") << "slice_axis" << "axis=1;begin=0;end=5" << "3,4" << "outside";
        QTest::newRow("slice_axis no begin") << "slice_axis" << "axis=1;end=2" << "3,4" << "begin";
    }
    void badAttributes() {
        QFETCH(QString, op);
        QFETCH(QString, attrs);
        QFETCH(QString, inputs);
        QFETCH(QString, message);
        const QString error = bindError({op.toStdString(), parseAttrs(attrs), parseShapes(inputs)});
        QVERIFY2(!error.isNull(), "bound bad attributes");
        QVERIFY2(error.contains("'op'") && error.contains(message), qPrintable(error));
    }

    // --- transpose, SwapAxis ------------------------------------------------------------------------
    void transposeForward() {
        OpCase c{"transpose", {}, {{2, 3}}};
        c.inputValues = {iota(6)};
        QCOMPARE(outputShape(c), (Shape{3, 2}));
        QCOMPARE(runOp(c)[0], (std::vector<float>{0, 3, 1, 4, 2, 5}));

        // (2, 3, 2) with axes (1, 0, 2): out[j][i][k] = x[i][j][k] = 6i + 2j + k
        OpCase a{"transpose", {{"axes", "(1, 0, 2)"}}, {{2, 3, 2}}};
        a.inputValues = {iota(12)};
        QCOMPARE(outputShape(a), (Shape{3, 2, 2}));
        QCOMPARE(runOp(a)[0], (std::vector<float>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));

        // Negative axes count from the end: (-1, 0, 1) on (2, 3, 2) is (2, 0, 1): out[k][i][j].
        OpCase n{"transpose", {{"axes", "(-1, 0, 1)"}}, {{2, 3, 2}}};
        n.inputValues = {iota(12)};
        QCOMPARE(outputShape(n), (Shape{2, 2, 3}));
        QCOMPARE(runOp(n)[0], (std::vector<float>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
    }

    void transposeReversesByDefault() {
        // (2, 3, 4) reversed: out[k][j][i] = x[i][j][k] = 12i + 4j + k.
        OpCase c{"transpose", {{"axes", "()"}}, {{2, 3, 4}}};
        c.inputValues = {iota(24)};
        QCOMPARE(outputShape(c), (Shape{4, 3, 2}));
        const auto out = runOp(c)[0];
        for (int k = 0; k < 4; ++k) {
            for (int j = 0; j < 3; ++j) {
                for (int i = 0; i < 2; ++i) {
                    QCOMPARE(out[static_cast<std::size_t>(k * 6 + j * 2 + i)], static_cast<float>(12 * i + 4 * j + k));
                }
            }
        }
    }

    void swapAxisForward() {
        // dim1=0, dim2=2 on (2, 3, 2): out[k][j][i] = x[i][j][k] = 6i + 2j + k.
        OpCase c{"SwapAxis", {{"dim1", "0"}, {"dim2", "2"}}, {{2, 3, 2}}};
        c.inputValues = {iota(12)};
        QCOMPARE(outputShape(c), (Shape{2, 3, 2}));
        QCOMPARE(runOp(c)[0], (std::vector<float>{0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11}));
        OpCase alias{"swapaxes", {{"dim1", "1"}, {"dim2", "-1"}}, {{2, 3, 2}}};
        QCOMPARE(outputShape(alias), (Shape{2, 2, 3}));
    }

    // --- Concat, SliceChannel, slice_axis ------------------------------------------------------------
    void concatForward() {
        OpCase c{"Concat", {{"num_args", "2"}}, {{2, 2}, {2, 1}}};
        c.inputValues = {{1, 2, 3, 4}, {10, 20}};
        QCOMPARE(outputShape(c), (Shape{2, 3}));
        QCOMPARE(runOp(c)[0], (std::vector<float>{1, 2, 10, 3, 4, 20}));

        OpCase rows{"concat", {{"num_args", "3"}, {"dim", "0"}}, {{1, 2}, {2, 2}, {1, 2}}};
        rows.inputValues = {{1, 2}, {3, 4, 5, 6}, {7, 8}};
        QCOMPARE(outputShape(rows), (Shape{4, 2}));
        QCOMPARE(runOp(rows)[0], (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

        OpCase last{"Concat", {{"num_args", "2"}, {"dim", "-1"}}, {{2, 1, 1}, {2, 1, 2}}};
        last.inputValues = {{1, 2}, {10, 11, 20, 21}};
        QCOMPARE(outputShape(last), (Shape{2, 1, 3}));
        QCOMPARE(runOp(last)[0], (std::vector<float>{1, 10, 11, 2, 20, 21}));
    }

    void concatBackwardSplitsTheGradient() {
        OpCase c{"Concat", {{"num_args", "2"}}, {{2, 2}, {2, 1}}};
        OpRunner runner(c, DType::F32, true);
        const auto grads = runner.backward({{1, 2, 3, 4, 5, 6}}, true);
        QCOMPARE(grads[0], (std::vector<float>{1, 2, 4, 5}));
        QCOMPARE(grads[1], (std::vector<float>{3, 6}));
    }

    void sliceChannelForward() {
        OpCase c{"SliceChannel", {{"num_outputs", "2"}}, {{2, 4}}};
        c.inputValues = {iota(8)};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs().size(), std::size_t{2});
        QCOMPARE(runner.executor().outputs()[1].shape(), (Shape{2, 2}));
        const auto out = runner.forward(false);
        QCOMPARE(out[0], (std::vector<float>{0, 1, 4, 5}));
        QCOMPARE(out[1], (std::vector<float>{2, 3, 6, 7}));

        OpCase s{"split", {{"num_outputs", "3"}, {"axis", "0"}, {"squeeze_axis", "True"}}, {{3, 2}}};
        s.inputValues = {iota(6)};
        QCOMPARE(outputShape(s, 2), (Shape{2}));
        const auto parts = runOp(s);
        QCOMPARE(parts.size(), std::size_t{3});
        QCOMPARE(parts[0], (std::vector<float>{0, 1}));
        QCOMPARE(parts[2], (std::vector<float>{4, 5}));

        OpCase neg{"SliceChannel", {{"num_outputs", "2"}, {"axis", "-1"}}, {{2, 1, 2}}};
        neg.inputValues = {iota(4)};
        const auto halves = runOp(neg);
        QCOMPARE(halves[0], (std::vector<float>{0, 2}));
        QCOMPARE(halves[1], (std::vector<float>{1, 3}));
    }

    void sliceChannelBackwardJoinsTheGradients() {
        OpCase c{"SliceChannel", {{"num_outputs", "2"}}, {{2, 4}}};
        OpRunner runner(c, DType::F32, true);
        const auto grads = runner.backward({{1, 2, 3, 4}, {5, 6, 7, 8}}, true);
        QCOMPARE(grads[0], (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
    }

    void sliceAxisForward() {
        OpCase c{"slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}}, {{2, 4}}};
        c.inputValues = {iota(8)};
        QCOMPARE(outputShape(c), (Shape{2, 3}));
        QCOMPARE(runOp(c)[0], (std::vector<float>{1, 2, 3, 5, 6, 7}));

        OpCase n{"slice_axis", {{"axis", "-2"}, {"begin", "-2"}, {"end", "-1"}}, {{3, 2}}};
        n.inputValues = {iota(6)};
        QCOMPARE(outputShape(n), (Shape{1, 2}));
        QCOMPARE(runOp(n)[0], (std::vector<float>{2, 3}));

        OpRunner runner(c, DType::F32, true);
        const auto grads = runner.backward({{1, 2, 3, 4, 5, 6}}, true);
        QCOMPARE(grads[0], (std::vector<float>{0, 1, 2, 3, 0, 4, 5, 6}));
    }

    // --- every op: backward against finite differences, f16 and bf16 exact ------------------------
    void everyOp_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("inputs");
        QTest::newRow("Flatten") << "Flatten" << "" << "2,3,2";
        QTest::newRow("Reshape") << "Reshape" << "shape=(-4,1,2,-2)" << "2,3,2";
        QTest::newRow("Reshape reverse") << "Reshape" << "shape=(-1,0);reverse=True" << "2,3,2";
        QTest::newRow("expand_dims") << "expand_dims" << "axis=1" << "2,3";
        QTest::newRow("squeeze") << "squeeze" << "" << "2,1,3";
        QTest::newRow("transpose") << "transpose" << "" << "2,3,4";
        QTest::newRow("transpose axes") << "transpose" << "axes=(2,0,1,3)" << "2,3,2,2";
        QTest::newRow("SwapAxis") << "SwapAxis" << "dim1=1;dim2=2" << "2,3,4";
        QTest::newRow("Concat dim 1") << "Concat" << "num_args=3" << "2,1,2|2,3,2|2,2,2";
        QTest::newRow("Concat dim 0") << "Concat" << "num_args=2;dim=0" << "1,3|2,3";
        QTest::newRow("Concat one input") << "Concat" << "num_args=1" << "2,3";
        QTest::newRow("SliceChannel") << "SliceChannel" << "num_outputs=3" << "2,6";
        QTest::newRow("SliceChannel squeeze") << "SliceChannel" << "num_outputs=2;axis=0;squeeze_axis=1"
                                              << "2,3,2";
        QTest::newRow("slice_axis") << "slice_axis" << "axis=0;begin=1;end=3" << "4,3";
    }
    void everyOp() {
        QFETCH(QString, op);
        QFETCH(QString, attrs);
        QFETCH(QString, inputs);
        const OpCase c{op.toStdString(), parseAttrs(attrs), parseShapes(inputs)};
        const double gradient = gradientError(c);
        QVERIFY2(gradient < 1e-3, qPrintable(QString("gradient error %1").arg(gradient)));
        // Moving numbers around is exact in any dtype.
        QCOMPARE(precisionError(c, DType::F16), 0.0);
        QCOMPARE(precisionError(c, DType::BF16), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestOpsShape)
#include "test_ops_shape.moc"
