// Dense ops (FullyConnected, dot, batch_dot, Embedding): forward against hand-computed values,
// backward against finite differences, and every op in f16 and bf16 against f32 (op_check.h).
#include "op_check.h"

using namespace ampstudio;
using namespace ampstudio::test;

class TestOpsDense : public QObject {
    Q_OBJECT

private slots:
    void fullyConnectedForward() {
        OpCase c{"FullyConnected", {{"num_hidden", "2"}}, {{2, 3}, {2, 3}, {2}}};
        c.inputValues = {{1, 2, 3, 4, 5, 6}, {1, 0, -1, 0.5f, 0.5f, 0.5f}, {10, 20}};
        const auto out = runOp(c);
        QCOMPARE(out[0], (std::vector<float>{1 - 3 + 10.0f, 3 + 20.0f, 4 - 6 + 10.0f, 7.5f + 20.0f}));
    }

    void fullyConnectedFlattensOrNot() {
        // flatten=True: (2, 2, 3) is read as (2, 6); flatten=False: the last axis only.
        OpCase flat{"FullyConnected", {{"num_hidden", "4"}, {"no_bias", "True"}}, {{2, 2, 3}, {}}};
        OpRunner a(flat, DType::F32, false);
        QCOMPARE(a.executor().value("in1").shape(), (Shape{4, 6}));
        QCOMPARE(a.executor().outputs()[0].shape(), (Shape{2, 4}));
        OpCase last{"FullyConnected", {{"num_hidden", "4"}, {"no_bias", "True"}, {"flatten", "False"}}, {{2, 2, 3}, {}}};
        OpRunner b(last, DType::F32, false);
        QCOMPARE(b.executor().value("in1").shape(), (Shape{4, 3}));
        QCOMPARE(b.executor().outputs()[0].shape(), (Shape{2, 2, 4}));
    }

    void fullyConnectedGradient_data() {
        QTest::addColumn<QString>("noBias");
        QTest::addColumn<QString>("flatten");
        QTest::newRow("bias") << "False" << "True";
        QTest::newRow("no bias") << "True" << "True";
        QTest::newRow("no flatten") << "False" << "False";
    }
    void fullyConnectedGradient() {
        QFETCH(QString, noBias);
        QFETCH(QString, flatten);
        const bool bias = noBias == "False";
        OpCase c{"FullyConnected",
                 {{"num_hidden", "5"}, {"no_bias", noBias.toStdString()}, {"flatten", flatten.toStdString()}},
                 {{3, 2, 4}}};
        c.inputShapes.push_back(flatten == "True" ? Shape{5, 8} : Shape{5, 4});
        if (bias) {
            c.inputShapes.push_back({5});
        }
        QVERIFY2(gradientError(c) < 1e-3, "FullyConnected backward differs from finite differences");
    }

    void fullyConnectedLowPrecision() {
        OpCase c{"FullyConnected", {{"num_hidden", "7"}}, {{4, 9}, {7, 9}, {7}}};
        QVERIFY(precisionError(c, DType::F16) < precisionTolerance(DType::F16));
        QVERIFY(precisionError(c, DType::BF16) < precisionTolerance(DType::BF16));
    }

    void fullyConnectedF16OverflowsToInf() {
        // An f16 op computes in f32 and rounds its output: 70000 does not fit in f16.
        OpCase c{"FullyConnected", {{"num_hidden", "1"}, {"no_bias", "True"}}, {{1, 2}, {1, 2}}};
        c.inputValues = {{300, 300}, {120, 120}};
        QVERIFY(std::isinf(runOp(c, DType::F16)[0][0]));
        QCOMPARE(runOp(c, DType::F32)[0][0], 72000.0f);
    }

    void fullyConnectedRejectsWrongWeight() {
        OpCase c{"FullyConnected", {{"num_hidden", "3"}, {"no_bias", "True"}}, {{2, 4}, {3, 5}}};
        try {
            OpRunner runner(c, DType::F32, false);
            QFAIL("bound a weight of the wrong shape");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains("op"), e.what());
            QVERIFY2(QString(e.what()).contains("(3,4)") || QString(e.what()).contains("(3, 4)"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestOpsDense)
#include "test_ops_dense.moc"
