// Dense ops (FullyConnected, dot, batch_dot, Embedding): forward against hand-computed values,
// backward against finite differences, and every op in f16 and bf16 against f32 (op_check.h).
#include "graph_builder.h"
#include "op_check.h"
#include "ops/op_error.h"

Q_DECLARE_METATYPE(ampstudio::Shape)

using namespace ampstudio;
using namespace ampstudio::test;
using ampstudio::test::GraphBuilder;

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

    // Where the CPU has native bfloat16 (AVX512_BF16, AMX), FullyConnected runs oneDNN's bf16 matmul
    // on the stored tensors; it must compute what the converting path computes (f32 accumulation,
    // one rounding): the same outputs and gradients up to a bf16 rounding step (accumulation order),
    // a weight read twice (its gradient added in f32 and rounded once) included.
    void fullyConnectedNativeBfloat16MatchesConverting() {
        if (!cpuNativeBfloat16()) QSKIP("no AVX512_BF16 or AMX here: bfloat16 converts around float32 kernels");
        OpCase c{"FullyConnected", {{"num_hidden", "33"}}, {{16, 70}, {33, 70}, {33}}};
        const double withBias = nativeBfloat16Difference(c);
        c.attrs["no_bias"] = "True";
        c.inputShapes.pop_back();
        const double withoutBias = nativeBfloat16Difference(c);
        qInfo("native against converting: %.3g with bias, %.3g without", withBias, withoutBias);
        QVERIFY2(withBias >= 0.0 && withBias <= 1.0 / 128, qPrintable(QString::number(withBias)));
        QVERIFY2(withoutBias >= 0.0 && withoutBias <= 1.0 / 128, qPrintable(QString::number(withoutBias)));
    }

    // A bfloat16 weight read by two FullyConnected nodes: its gradient is the f32 sum of both,
    // rounded once, on the native path (each handed an f32 scratch to add) as on the converting one.
    void fullyConnectedNativeBfloat16SharedWeight() {
        if (!cpuNativeBfloat16()) QSKIP("no AVX512_BF16 or AMX here: bfloat16 converts around float32 kernels");
        GraphBuilder b;
        const NodeEntry data = b.addVariable("data"), weight = b.addVariable("weight");
        const NodeEntry a = b.addOp("FullyConnected", "fa", {data, weight}, {{"num_hidden", "12"}, {"no_bias", "True"}});
        const NodeEntry c = b.addOp("FullyConnected", "fb", {data, weight}, {{"num_hidden", "12"}, {"no_bias", "True"}});
        const Graph g = b.finish({a, c});
        std::vector<std::vector<float>> weightGrads;
        for (bool native : {true, false}) {
            setCpuNativeBfloat16(native);
            auto backend = makeCpuBackend();
            BindOptions o;
            o.shapes = {{"data", {6, 20}}, {"weight", {12, 20}}};
            o.dtypes = {{"data", DType::BF16}, {"weight", DType::BF16}};
            Executor e(g, *backend, o);
            SeededRandom random(4);
            std::vector<float> x(120), w(240), head(72);
            for (auto* v : {&x, &w, &head}) {
                for (float& f : *v) f = float(random.uniform(-1.0, 1.0));
            }
            upload(*backend, e.value("data"), roundTo(x, DType::BF16));
            upload(*backend, e.value("weight"), roundTo(w, DType::BF16));
            ExecContext ctx;
            e.forward(ctx);
            std::vector<Tensor> heads;
            for (int k = 0; k < 2; ++k) {
                heads.push_back(backend->allocate({6, 12}, DType::F32));
                backend->copyFromHost(head.data(), head.size() * sizeof(float), heads.back());
            }
            e.backward(ctx, heads);
            weightGrads.push_back(download(*backend, e.gradient("weight")));
        }
        setCpuNativeBfloat16(true);
        QCOMPARE(weightGrads[0].size(), std::size_t(240));
        double worst = 0.0;
        for (std::size_t i = 0; i < 240; ++i) {
            worst = std::max(worst, std::abs(double(weightGrads[0][i]) - weightGrads[1][i]) / (1.0 + std::abs(double(weightGrads[1][i]))));
        }
        QVERIFY2(worst <= 1.0 / 128, qPrintable(QString::number(worst)));
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

    // --- dot -----------------------------------------------------------------------------------------
    void dotForward() {
        // (2, 3) x (3, 2)
        OpCase c{"dot", {}, {{2, 3}, {3, 2}}};
        c.inputValues = {{1, 2, 3, 4, 5, 6}, {1, 0, 0, 1, 1, 1}};
        QCOMPARE(runOp(c)[0], (std::vector<float>{4, 5, 10, 11}));
        // The same product with both operands stored transposed.
        OpCase t{"dot", {{"transpose_a", "True"}, {"transpose_b", "True"}}, {{3, 2}, {2, 3}}};
        t.inputValues = {{1, 4, 2, 5, 3, 6}, {1, 0, 1, 0, 1, 1}};
        QCOMPARE(runOp(t)[0], (std::vector<float>{4, 5, 10, 11}));
        // Two vectors: their inner product, shape (1,).
        OpCase v{"dot", {}, {{3}, {3}}};
        v.inputValues = {{1, 2, 3}, {4, 5, 6}};
        QCOMPARE(runOp(v)[0], (std::vector<float>{32}));
    }

    void dotTransposes_data() {
        QTest::addColumn<bool>("ta");
        QTest::addColumn<bool>("tb");
        QTest::newRow("a b") << false << false;
        QTest::newRow("a^T b") << true << false;
        QTest::newRow("a b^T") << false << true;
        QTest::newRow("a^T b^T") << true << true;
    }
    void dotTransposes() {
        // op(a) (2, 3) x op(b) (3, 4), against a loop over the stored layouts.
        QFETCH(bool, ta);
        QFETCH(bool, tb);
        const int64_t m = 2, k = 3, n = 4;
        OpCase c{"dot", {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}},
                 {ta ? Shape{k, m} : Shape{m, k}, tb ? Shape{n, k} : Shape{k, n}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{m, n}));
        const auto out = runner.forward(false)[0];
        const auto& a = runner.input(0);
        const auto& b = runner.input(1);
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                double sum = 0.0;
                for (int64_t p = 0; p < k; ++p) {
                    sum += double(a[static_cast<std::size_t>(ta ? p * m + i : i * k + p)]) *
                           b[static_cast<std::size_t>(tb ? j * k + p : p * n + j)];
                }
                QVERIFY(std::abs(out[static_cast<std::size_t>(i * n + j)] - sum) < 1e-5);
            }
        }
        QVERIFY2(gradientError(c) < 1e-3, "dot backward differs from finite differences");
    }

    void dotShapes_data() {
        QTest::addColumn<QString>("ta");
        QTest::addColumn<QString>("tb");
        QTest::addColumn<Shape>("lhs");
        QTest::addColumn<Shape>("rhs");
        QTest::addColumn<Shape>("out");
        // N-D: lhs read as (prod(all but last), last), rhs as (first, prod(rest)).
        QTest::newRow("3-D x 2-D") << "False" << "False" << Shape{2, 3, 4} << Shape{4, 5} << Shape{2, 3, 5};
        QTest::newRow("2-D x 3-D") << "False" << "False" << Shape{2, 4} << Shape{4, 3, 2} << Shape{2, 3, 2};
        QTest::newRow("3-D x 3-D") << "False" << "False" << Shape{2, 3, 4} << Shape{4, 2, 2} << Shape{2, 3, 2, 2};
        // transpose_a: lhs read as (first, prod(rest)) and transposed; transpose_b: rhs as
        // (prod(all but last), last) transposed.
        QTest::newRow("3-D^T x 2-D") << "True" << "False" << Shape{4, 2, 3} << Shape{4, 5} << Shape{2, 3, 5};
        QTest::newRow("2-D x 3-D^T") << "False" << "True" << Shape{2, 4} << Shape{3, 2, 4} << Shape{2, 3, 2};
        QTest::newRow("vector x matrix") << "False" << "False" << Shape{3} << Shape{3, 2} << Shape{2};
        QTest::newRow("matrix x vector") << "False" << "False" << Shape{2, 3} << Shape{3} << Shape{2};
        QTest::newRow("vector x vector") << "False" << "False" << Shape{3} << Shape{3} << Shape{1};
    }
    void dotShapes() {
        QFETCH(QString, ta);
        QFETCH(QString, tb);
        QFETCH(Shape, lhs);
        QFETCH(Shape, rhs);
        QFETCH(Shape, out);
        OpCase c{"dot", {{"transpose_a", ta.toStdString()}, {"transpose_b", tb.toStdString()}}, {lhs, rhs}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), out);
        QVERIFY2(gradientError(c) < 1e-3, "dot backward differs from finite differences");
    }

    void dotNdForward() {
        // (2, 1, 2) x (2, 3) is (2, 2) x (2, 3) reshaped to (2, 1, 3).
        OpCase c{"dot", {}, {{2, 1, 2}, {2, 3}}};
        c.inputValues = {{1, 2, 3, 4}, {1, 0, 1, 0, 1, 1}};
        QCOMPARE(runOp(c)[0], (std::vector<float>{1, 2, 3, 3, 4, 7}));
    }

    void dotRejects_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("ta");
        QTest::addColumn<Shape>("lhs");
        QTest::addColumn<Shape>("rhs");
        QTest::newRow("dot inner mismatch") << "dot" << "False" << Shape{2, 3} << Shape{4, 2};
        QTest::newRow("dot transposed vectors") << "dot" << "True" << Shape{3} << Shape{3};
        QTest::newRow("batch_dot 2-D") << "batch_dot" << "False" << Shape{2, 3} << Shape{3, 2};
        QTest::newRow("batch_dot rank mismatch") << "batch_dot" << "False" << Shape{2, 2, 3} << Shape{2, 2, 3, 2};
        QTest::newRow("batch_dot batch mismatch") << "batch_dot" << "False" << Shape{2, 2, 3} << Shape{3, 3, 2};
        QTest::newRow("batch_dot inner mismatch") << "batch_dot" << "True" << Shape{2, 2, 3} << Shape{2, 3, 2};
    }
    void dotRejects() {
        QFETCH(QString, op);
        QFETCH(QString, ta);
        QFETCH(Shape, lhs);
        QFETCH(Shape, rhs);
        OpCase c{op.toStdString(), {{"transpose_a", ta.toStdString()}}, {lhs, rhs}};
        try {
            OpRunner runner(c, DType::F32, false);
            QFAIL("bound a product of mismatched shapes");
        } catch (const OpError& e) {
            QVERIFY2(QString(e.what()).contains("'op'"), e.what());
        }
    }

    void dotLowPrecision() {
        OpCase c{"dot", {{"transpose_b", "True"}}, {{3, 2, 8}, {5, 8}}};
        QVERIFY(precisionError(c, DType::F16) < precisionTolerance(DType::F16));
        QVERIFY(precisionError(c, DType::BF16) < precisionTolerance(DType::BF16));
    }

    // --- batch_dot -----------------------------------------------------------------------------------
    void batchDotForward() {
        // Batch 0: [[1, 2]] x [[1], [1]] = [[3]]; batch 1: [[3, 4]] x [[2], [-1]] = [[2]].
        OpCase c{"batch_dot", {}, {{2, 1, 2}, {2, 2, 1}}};
        c.inputValues = {{1, 2, 3, 4}, {1, 1, 2, -1}};
        QCOMPARE(runOp(c)[0], (std::vector<float>{3, 2}));
    }

    void batchDotTransposes_data() {
        QTest::addColumn<bool>("ta");
        QTest::addColumn<bool>("tb");
        QTest::newRow("a b") << false << false;
        QTest::newRow("a^T b") << true << false;
        QTest::newRow("a b^T") << false << true;
        QTest::newRow("a^T b^T") << true << true;
    }
    void batchDotTransposes() {
        QFETCH(bool, ta);
        QFETCH(bool, tb);
        const int64_t batch = 3, m = 2, k = 4, n = 3;
        OpCase c{"batch_dot", {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}},
                 {ta ? Shape{batch, k, m} : Shape{batch, m, k}, tb ? Shape{batch, n, k} : Shape{batch, k, n}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{batch, m, n}));
        const auto out = runner.forward(false)[0];
        const auto& a = runner.input(0);
        const auto& b = runner.input(1);
        for (int64_t s = 0; s < batch; ++s) {
            const float* as = a.data() + s * m * k;
            const float* bs = b.data() + s * k * n;
            for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) {
                    double sum = 0.0;
                    for (int64_t p = 0; p < k; ++p) {
                        sum += double(as[ta ? p * m + i : i * k + p]) * bs[tb ? j * k + p : p * n + j];
                    }
                    QVERIFY(std::abs(out[static_cast<std::size_t>((s * m + i) * n + j)] - sum) < 1e-5);
                }
            }
        }
        QVERIFY2(gradientError(c) < 1e-3, "batch_dot backward differs from finite differences");
    }

    void batchDotNd() {
        // MXNet 1.9.1 also takes N-D batches (B0, B1, M, K) x (B0, B1, K, N).
        OpCase c{"batch_dot", {{"transpose_b", "True"}}, {{2, 2, 3, 4}, {2, 2, 5, 4}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{2, 2, 3, 5}));
        QVERIFY2(gradientError(c) < 1e-3, "batch_dot backward differs from finite differences");
    }

    void batchDotLowPrecision() {
        OpCase c{"batch_dot", {{"transpose_a", "True"}}, {{4, 8, 3}, {4, 8, 5}}};
        QVERIFY(precisionError(c, DType::F16) < precisionTolerance(DType::F16));
        QVERIFY(precisionError(c, DType::BF16) < precisionTolerance(DType::BF16));
    }

    // --- Embedding -----------------------------------------------------------------------------------
    void embeddingForward() {
        // Rows of a (4, 2) weight; -1 and 7 are clipped to rows 0 and 3, 1.7 truncates to 1.
        OpCase c{"Embedding", {{"input_dim", "4"}, {"output_dim", "2"}}, {{2, 3}, {}}};
        c.inputValues = {{0, 3, 1.7f, 2, -1, 7}, {0, 1, 10, 11, 20, 21, 30, 31}};
        c.noGrad = {0};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().value("in1").shape(), (Shape{4, 2}));
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{2, 3, 2}));
        QCOMPARE(runner.forward(false)[0], (std::vector<float>{0, 1, 30, 31, 10, 11, 20, 21, 0, 1, 30, 31}));
    }

    void embeddingBackwardAccumulatesRows() {
        OpCase c{"Embedding", {{"input_dim", "4"}, {"output_dim", "2"}}, {{4}, {4, 2}}};
        c.inputValues = {{1, 3, 1, 9}};
        c.noGrad = {0};
        OpRunner runner(c, DType::F32, true);
        const auto grads = runner.backward({{1, 2, 3, 4, 5, 6, 7, 8}}, true);
        // Row 1 is used twice (1+5, 2+6); index 9 clips to row 3 (3+7, 4+8); row 0 and 2 unused.
        QCOMPARE(grads[1], (std::vector<float>{0, 0, 6, 8, 0, 0, 10, 12}));
        QVERIFY(grads[0].empty());
    }

    void embeddingGradient() {
        OpCase c{"Embedding", {{"input_dim", "5"}, {"output_dim", "3"}}, {{2, 4}, {5, 3}}};
        c.inputValues = {{0, 4, 2, 2, 1, 4, 3, 0}};
        c.noGrad = {0};
        QVERIFY2(gradientError(c) < 1e-3, "Embedding backward differs from finite differences");
    }

    void embeddingLowPrecision_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("f16") << "float16";
        QTest::newRow("bf16") << "bfloat16";
    }
    void embeddingLowPrecision() {
        // The weight and output take the `dtype` attribute; a gather is exact in any dtype.
        QFETCH(QString, dtype);
        const DType t = dtype == "float16" ? DType::F16 : DType::BF16;
        OpCase c{"Embedding",
                 {{"input_dim", "6"}, {"output_dim", "4"}, {"dtype", dtype.toStdString()}},
                 {{3, 2}, {6, 4}}};
        c.inputValues = {{5, 0, 3, 3, 1, 2}};
        c.noGrad = {0};
        OpRunner low(c, t, false);
        QCOMPARE(low.executor().outputs()[0].dtype(), t);
        QCOMPARE(precisionError(c, t), 0.0);
    }

    void embeddingRejects() {
        OpCase c{"Embedding", {{"input_dim", "4"}, {"output_dim", "2"}}, {{3}, {5, 2}}};
        c.noGrad = {0};
        try {
            OpRunner runner(c, DType::F32, false);
            QFAIL("bound a weight of the wrong shape");
        } catch (const OpError& e) {
            QVERIFY2(QString(e.what()).contains("(4, 2)"), e.what());
        }
        OpCase noDim{"Embedding", {{"input_dim", "4"}}, {{3}, {}}};
        noDim.noGrad = {0};
        try {
            OpRunner runner(noDim, DType::F32, false);
            QFAIL("bound an Embedding without output_dim");
        } catch (const OpError& e) {
            QVERIFY2(QString(e.what()).contains("output_dim"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestOpsDense)
#include "test_ops_dense.moc"
