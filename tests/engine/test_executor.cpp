// The executor: binding (shape inference back to parameters, as simple_bind does; unsupported ops
// named before anything runs), MXNet-convention initialisation, and backward's gradient plumbing.
#include <QtTest/QtTest>

#include <cmath>

#include "backend/backend.h"
#include "exec/executor.h"
#include "exec/param_init.h"
#include "formats/symbol_json.h"
#include "graph_builder.h"
#include "ops/op_error.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

std::vector<float> download(Backend& b, const Tensor& t) {
    std::vector<float> v(static_cast<std::size_t>(t.size()));
    b.copyToHost(t, v.data(), v.size() * sizeof(float));
    return v;
}

void upload(Backend& b, const Tensor& t, const std::vector<float>& v) { b.copyFromHost(v.data(), v.size() * 4, t); }

}  // namespace

class TestExecutor : public QObject {
    Q_OBJECT

private slots:
    void bindsTheMlpFromTheDataShape() {
        const Graph g = readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json");
        auto backend = makeCpuBackend();
        BindOptions o;
        o.shapes["data"] = {32, 784};
        Executor e(g, *backend, o);
        QCOMPARE(e.value("fc1_weight").shape(), (Shape{128, 784}));
        QCOMPARE(e.value("fc2_weight").shape(), (Shape{64, 128}));
        QCOMPARE(e.value("fc3_bias").shape(), (Shape{10}));
        QCOMPARE(e.value("softmax_label").shape(), (Shape{32}));
        QCOMPARE(e.outputs()[0].shape(), (Shape{32, 10}));
        QCOMPARE(e.inputNames(), (std::vector<std::string>{"data", "softmax_label"}));
        QCOMPARE(e.parameterNames().size(), std::size_t{6});
        QVERIFY(e.gradient("fc1_weight").defined());
        QVERIFY(!e.gradient("data").defined());
        QVERIFY(!e.gradient("softmax_label").defined());
    }

    void missingShapeNamesTheVariable() {
        const Graph g = readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json");
        auto backend = makeCpuBackend();
        try {
            Executor e(g, *backend, BindOptions{});
            QFAIL("bound without a data shape");
        } catch (const OpError& err) {
            QVERIFY2(QString(err.what()).contains("data"), err.what());
        }
    }

    void unsupportedOpsAreListedBeforeAnythingRuns() {
        GraphBuilder b;
        const NodeEntry x = b.addVariable("data");
        const NodeEntry r1 = b.addOp("RNN", "lstm", {x, b.addVariable("p"), b.addVariable("s")},
                                     {{"state_size", "8"}, {"num_layers", "1"}, {"mode", "lstm"}});
        const NodeEntry z = b.addOp("_contrib_quantize_v2", "q", {r1});
        auto backend = makeCpuBackend();
        try {
            BindOptions o;
            o.shapes["data"] = {2, 2, 2};
            Executor e(b.finish({z}), *backend, o);
            QFAIL("bound an unsupported op");
        } catch (const OpError& err) {
            const QString m = err.what();
            QVERIFY2(m.contains("unsupported") && m.contains("RNN") && m.contains("lstm") && m.contains("quantize"),
                     err.what());
        }
    }

    void sharedWeightGradientsAdd() {
        // Two FullyConnected nodes read one weight: its gradient is the sum of both contributions.
        GraphBuilder b;
        const NodeEntry x = b.addVariable("data");
        const NodeEntry w = b.addVariable("shared_weight");
        const NodeEntry a = b.addOp("FullyConnected", "a", {x, w}, {{"num_hidden", "2"}, {"no_bias", "True"}});
        const NodeEntry c = b.addOp("FullyConnected", "c", {x, w}, {{"num_hidden", "2"}, {"no_bias", "True"}});
        auto backend = makeCpuBackend();
        BindOptions o;
        o.shapes["data"] = {1, 3};
        Executor e(b.finish({a, c}), *backend, o);
        upload(*backend, e.value("data"), {1, 2, 3});
        upload(*backend, e.value("shared_weight"), {0, 0, 0, 0, 0, 0});
        ExecContext ctx;
        ctx.training = true;
        e.forward(ctx);
        Tensor ga = backend->allocate({1, 2}, DType::F32), gc = backend->allocate({1, 2}, DType::F32);
        upload(*backend, ga, {1, 0});
        upload(*backend, gc, {0.5f, 2});
        const Tensor heads[] = {ga, gc};
        e.backward(ctx, heads);
        // dW = (ga + gc)^T x data
        QCOMPARE(download(*backend, e.gradient("shared_weight")), (std::vector<float>{1.5f, 3, 4.5f, 2, 4, 6}));
        // Backward twice gives the same (gradients are written, not accumulated across calls).
        e.backward(ctx, heads);
        QCOMPARE(download(*backend, e.gradient("shared_weight")), (std::vector<float>{1.5f, 3, 4.5f, 2, 4, 6}));
        // Without head gradients a non-loss head gets lossScale everywhere.
        ctx.lossScale = 2;
        e.backward(ctx);
        QCOMPARE(download(*backend, e.gradient("shared_weight")), (std::vector<float>{4, 8, 12, 4, 8, 12}));
    }

    void backwardNeedsATrainingBind() {
        const Graph g = readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json");
        auto backend = makeCpuBackend();
        BindOptions o;
        o.shapes["data"] = {2, 784};
        o.forTraining = false;
        Executor e(g, *backend, o);
        ExecContext ctx;
        e.forward(ctx);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, e.backward(ctx));
    }

    void initialisationFollowsMxnetNames() {
        const auto w = initialParameterValues("fc1_weight", {128, 784}, 7);
        const double bound = std::sqrt(3.0 / ((784.0 + 128.0) / 2.0));
        double sum = 0;
        for (float v : w) {
            QVERIFY(std::abs(v) <= bound);
            sum += std::abs(v);
        }
        QVERIFY(std::abs(sum / double(w.size()) - bound / 2) < 0.01 * bound);  // uniform: mean |v| = a/2
        QCOMPARE(initialParameterValues("fc1_weight", {128, 784}, 7), w);
        QVERIFY(initialParameterValues("fc1_weight", {128, 784}, 8) != w);
        QVERIFY(initialParameterValues("fc2_weight", {128, 784}, 7) != w);
    }

    // One row per rule of MXNet 1.9.1's initializer (python/mxnet/initializer.py) and Gluon's
    // parameter defaults; the `__init__` attribute wins over the name.
    void initialisationRules_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("init");  // the variable's __init__ attribute, empty for none
        QTest::addColumn<QString>("expected");  // "xavier", or the constant
        QTest::newRow("weight") << "conv0_weight" << "" << "xavier";
        QTest::newRow("bias") << "conv0_bias" << "" << "0";
        QTest::newRow("gamma") << "bn0_gamma" << "" << "1";
        QTest::newRow("beta") << "bn0_beta" << "" << "0";
        QTest::newRow("moving_mean") << "bn0_moving_mean" << "" << "0";
        QTest::newRow("moving_var") << "bn0_moving_var" << "" << "1";
        QTest::newRow("Gluon running_mean") << "resnetv10_batchnorm0_running_mean" << "" << "0";
        QTest::newRow("Gluon running_var") << "resnetv10_batchnorm0_running_var" << "" << "1";
        QTest::newRow("moving_inv_var") << "bn0_moving_inv_var" << "" << "0";
        QTest::newRow("moving_avg") << "sparse0_moving_avg" << "" << "0";
        QTest::newRow("min") << "quantize0_min" << "" << "0";
        QTest::newRow("max") << "quantize0_max" << "" << "1";
        QTest::newRow("weight_quantize") << "fc0_weight_quantize" << "" << "xavier";
        QTest::newRow("bias_quantize") << "fc0_bias_quantize" << "" << "0";
        QTest::newRow("RNN parameters") << "lstm0_parameters" << "" << "xavier";
        QTest::newRow("unknown name: zeros") << "something" << "" << "0";
        QTest::newRow("__init__ one (BatchNorm's moving var)") << "aux0" << R"(["one", {}])" << "1";
        QTest::newRow("__init__ zero beats the weight suffix") << "x_weight" << R"(["zero", {}])" << "0";
        QTest::newRow("__init__ ones (Gluon string)") << "v" << "ones" << "1";
        QTest::newRow("__init__ constant") << "v" << R"(["constant", {"value": 2.5}])" << "2.5";
        QTest::newRow("__init__ constant as text") << "v" << R"(["constant", {"value": "0.5"}])" << "0.5";
        QTest::newRow("__init__ normal: random") << "v_bias" << R"(["normal", {"sigma": 0.01}])" << "xavier";
    }
    void initialisationRules() {
        QFETCH(QString, name);
        QFETCH(QString, init);
        QFETCH(QString, expected);
        const std::string attr = init.toStdString();
        const auto values = initialParameterValues(name.toStdString(), {4, 6}, 3, init.isEmpty() ? nullptr : &attr);
        if (expected == "xavier") {
            const double bound = std::sqrt(3.0 / 5.0);
            QVERIFY(std::any_of(values.begin(), values.end(), [](float v) { return v != 0.0f; }));
            for (float v : values) QVERIFY(std::abs(v) <= bound);
        } else {
            for (float v : values) QCOMPARE(v, expected.toFloat());
        }
    }

    void f16GraphStoresF16() {
        // A parameter fixed to f16 makes the FullyConnected (and its output) f16 by dtype inference.
        GraphBuilder b;
        const NodeEntry x = b.addVariable("data");
        const NodeEntry fc = b.addOp("FullyConnected", "fc", {x, b.addVariable("fc_weight")},
                                     {{"num_hidden", "2"}, {"no_bias", "True"}});
        auto backend = makeCpuBackend();
        BindOptions o;
        o.shapes["data"] = {1, 2};
        o.dtypes["fc_weight"] = DType::F16;
        o.dtypes["data"] = DType::F16;
        Executor e(b.finish({fc}), *backend, o);
        QCOMPARE(e.outputs()[0].dtype(), DType::F16);
        QCOMPARE(e.gradient("fc_weight").dtype(), DType::F16);
    }
};

QTEST_GUILESS_MAIN(TestExecutor)
#include "test_executor.moc"
