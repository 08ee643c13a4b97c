// compare's arithmetic and plumbing: the error measures on pinned arrays (non-finite values counted,
// not folded into the maxima), a model against itself is exact, an f16 conversion is close and a
// bf16 one less close (fewer mantissa bits), nodes are matched by name, and bad inputs are refused.
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "amp/conversion.h"
#include "backend/backend.h"
#include "exec/model_compare.h"
#include "graph_builder.h"
#include "tensor/seeded_random.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

// data(4x16) -> fc1(32) -> tanh -> fc2(10) -> softmax
Graph classifier() {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry fc1 = b.addOp("FullyConnected", "fc1", {data, b.addVariable("fc1_weight"), b.addVariable("fc1_bias")},
                                  {{"num_hidden", "32"}});
    const NodeEntry act = b.addOp("Activation", "act1", {fc1}, {{"act_type", "tanh"}});
    const NodeEntry fc2 = b.addOp("FullyConnected", "fc2", {act, b.addVariable("fc2_weight"), b.addVariable("fc2_bias")},
                                  {{"num_hidden", "10"}});
    return b.finish({b.addOp("softmax", "prob", {fc2})});
}

std::map<std::string, HostArray> inputs() {
    SeededRandom random(3);
    HostArray data{{4, 16}, std::vector<float>(64)};
    for (float& v : data.values) {
        v = static_cast<float>(random.uniform(-2.0, 2.0));
    }
    return {{"data", data}};
}

Graph converted(DType target) {
    ConversionOptions options;
    options.lists = AmpLists::defaults(target);
    return convertGraph(classifier(), options).graph;
}

const TensorDifference* node(const ModelComparison& c, const std::string& name) {
    for (const TensorDifference& d : c.nodes) {
        if (d.name == name) {
            return &d;
        }
    }
    return nullptr;
}

}  // namespace

class TestModelCompare : public QObject {
    Q_OBJECT

private slots:
    void measuresOnPinnedArrays() {
        const TensorDifference d = compareArrays({1.0f, 2.0f, -4.0f}, {1.0f, 2.5f, -4.0f});
        QCOMPARE(d.maxAbsError, 0.5);
        QCOMPARE(d.maxRelError, 0.125);  // relative to max |r| = 4, not to the element's 2
        QVERIFY(std::abs(d.cosine - 22.0 / std::sqrt(21.0 * 23.25)) < 1e-12);
        QCOMPARE(d.nonFinite, int64_t{0});

        const float inf = std::numeric_limits<float>::infinity();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const TensorDifference bad = compareArrays({1.0f, nan, 3.0f, 4.0f}, {1.0f, 2.0f, inf, 4.0f});
        QCOMPARE(bad.nonFinite, int64_t{1});
        QCOMPARE(bad.referenceNonFinite, int64_t{1});
        QCOMPARE(bad.maxAbsError, 0.0);  // the finite pairs agree

        QCOMPARE(bad.finitePairs, int64_t{2});
        QCOMPARE(bad.status(), std::string_view("reference not finite"));

        // An all-inf reference compares nothing: no figure may read as a perfect match.
        const TensorDifference none = compareArrays({inf, inf}, {inf, 1.0f});
        QCOMPARE(none.finitePairs, int64_t{0});
        QVERIFY(!none.referenceFinite());
        QVERIFY(std::isnan(none.cosine));
        QVERIFY(std::isnan(none.maxAbsError));
        QVERIFY(std::isnan(none.maxRelError));
        QCOMPARE(compareArrays({1.0f}, {inf}).status(), std::string_view("converted not finite"));
        QCOMPARE(compareArrays({1.0f}, {1.0f}).status(), std::string_view("ok"));

        const TensorDifference zeros = compareArrays({0.0f, 0.0f}, {0.0f, 0.0f});
        QCOMPARE(zeros.maxRelError, 0.0);
        QCOMPARE(zeros.cosine, 1.0);
        const TensorDifference fromZero = compareArrays({0.0f}, {1e-3f});
        QVERIFY(std::isinf(fromZero.maxRelError));
        QCOMPARE(fromZero.cosine, 0.0);

        // The reference's scale, and whether float16 can hold it at all (smallest normal 2^-14).
        QCOMPARE(d.referenceMaxAbs, 4.0);
        QVERIFY(!d.referenceBelowFloat16());
        const TensorDifference tiny = compareArrays({2e-11f, -3e-11f}, {0.0f, 0.0f});
        QCOMPARE(tiny.referenceMaxAbs, double(3e-11f));
        QVERIFY(tiny.referenceBelowFloat16());
        QVERIFY(!zeros.referenceBelowFloat16());
        QVERIFY(!compareArrays({6.2e-5f}, {6.2e-5f}).referenceBelowFloat16());
    }

    void aModelMatchesItself() {
        auto backend = makeCpuBackend();
        const ModelComparison c = compareModels(classifier(), classifier(), nullptr, inputs(), *backend, 1);
        QCOMPARE(c.outputs.size(), std::size_t{1});
        QCOMPARE(c.outputs[0].name, std::string("prob_output"));
        QCOMPARE(c.outputs[0].shape, (Shape{4, 10}));
        QCOMPARE(c.outputs[0].maxAbsError, 0.0);
        QCOMPARE(c.nodes.size(), std::size_t{4});  // fc1, act1, fc2, prob
        for (const TensorDifference& d : c.nodes) {
            QCOMPARE(d.maxAbsError, 0.0);
            QCOMPARE(d.convertedDtype, DType::F32);
        }
    }

    void halfIsCloseAndBfloat16LessSo() {
        auto backend = makeCpuBackend();
        const ModelComparison f16 = compareModels(classifier(), converted(DType::F16), nullptr, inputs(), *backend, 1);
        const ModelComparison bf16 =
            compareModels(classifier(), converted(DType::BF16), nullptr, inputs(), *backend, 1);
        const TensorDifference* fc1 = node(f16, "fc1_output");
        QVERIFY(fc1 != nullptr);
        QCOMPARE(fc1->convertedDtype, DType::F16);  // FullyConnected is on the target-dtype list
        QVERIFY2(fc1->maxRelError > 0.0 && fc1->maxRelError < 5e-3, qPrintable(QString::number(fc1->maxRelError)));
        QCOMPARE(node(bf16, "fc1_output")->convertedDtype, DType::BF16);
        QVERIFY2(node(bf16, "fc1_output")->maxRelError > 2 * fc1->maxRelError,
                 qPrintable(QString("bf16 %1 vs f16 %2").arg(node(bf16, "fc1_output")->maxRelError).arg(fc1->maxRelError)));
        QVERIFY(f16.outputs[0].maxRelError < 1e-2);
        QVERIFY(f16.outputs[0].cosine > 0.9999);
        QVERIFY(bf16.outputs[0].maxRelError < 5e-2);
        // The inserted casts have no counterpart in the original and are not listed.
        for (const TensorDifference& d : f16.nodes) {
            QVERIFY2(d.name.find("amp_cast") == std::string::npos, d.name.c_str());
        }
    }

    // A Gluon-exported ResNet-style stack (GluonCV names: batchnormN_running_mean/_running_var),
    // seeded: every BatchNorm divides by sqrt(running_var + eps), so running_var must start at one
    // (it used to start at zero and overflowed to inf in float32). The float32 reference is finite
    // and its float16 conversion is close.
    void seededGluonBatchNormNetworkIsFiniteAndClose() {
        GraphBuilder b;
        NodeEntry x = b.addVariable("data");
        for (int i = 0; i < 6; ++i) {
            const std::string p = "resnetv10_";
            const std::string conv = p + "conv" + std::to_string(i);
            const std::string bn = p + "batchnorm" + std::to_string(i);
            x = b.addOp("Convolution", conv + "_fwd", {x, b.addVariable(conv + "_weight")},
                        {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "8"}, {"no_bias", "True"}});
            x = b.addOp("BatchNorm", bn + "_fwd",
                        {x, b.addVariable(bn + "_gamma"), b.addVariable(bn + "_beta"), b.addVariable(bn + "_running_mean"),
                         b.addVariable(bn + "_running_var")},
                        {{"eps", "1e-05"}, {"fix_gamma", "False"}, {"use_global_stats", "False"}});
            x = b.addOp("Activation", p + "relu" + std::to_string(i) + "_fwd", {x}, {{"act_type", "relu"}});
        }
        x = b.addOp("Flatten", "resnetv10_flatten0", {x});
        x = b.addOp("FullyConnected", "resnetv10_dense0_fwd",
                    {x, b.addVariable("resnetv10_dense0_weight"), b.addVariable("resnetv10_dense0_bias")},
                    {{"num_hidden", "10"}});
        const Graph net = b.finish({x});
        SeededRandom random(5);
        HostArray data{{2, 3, 8, 8}, std::vector<float>(2 * 3 * 8 * 8)};
        for (float& v : data.values) {
            v = static_cast<float>(random.uniform(0.0, 1.0));
        }
        ConversionOptions options;
        options.lists = AmpLists::defaults(DType::F16);
        const ConversionResult conversion = convertGraph(net, options);
        QVERIFY(conversion.report.dtypeCheck.passed);
        auto backend = makeCpuBackend();
        const ModelComparison c = compareModels(net, conversion.graph, nullptr, {{"data", data}}, *backend, 11);
        const TensorDifference& out = c.outputs[0];
        QVERIFY(out.referenceFinite());
        QCOMPARE(out.nonFinite, int64_t{0});
        QCOMPARE(out.status(), std::string_view("ok"));
        QCOMPARE(out.finitePairs, int64_t{20});
        QVERIFY2(out.maxRelError > 0.0 && out.maxRelError < 2e-2, qPrintable(QString::number(out.maxRelError)));
        QVERIFY(out.cosine > 0.999);
    }

    void parametersComeFromTheFile() {
        auto backend = makeCpuBackend();
        NDArrayList params;
        NDArrayRecord zero;
        zero.name = "arg:fc2_weight";
        zero.shape = {10, 32};
        zero.data.assign(320 * sizeof(float), std::byte{0});
        params.arrays.push_back(zero);
        const ModelComparison c = compareModels(classifier(), classifier(), &params, inputs(), *backend, 1);
        // fc2's weight is zero, so its output is its (initialised zero) bias: a uniform softmax.
        QVERIFY(node(c, "fc2_output") != nullptr);
        QCOMPARE(node(c, "fc2_output")->cosine, 1.0);

        params.arrays[0].shape = {10, 31};
        params.arrays[0].data.resize(310 * sizeof(float));
        try {
            compareModels(classifier(), classifier(), &params, inputs(), *backend, 1);
            QFAIL("a wrongly shaped parameter was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("fc2_weight"), e.what());
        }
    }

    void badInputsAreRefused() {
        auto backend = makeCpuBackend();
        auto in = inputs();
        in["data"].values.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 compareModels(classifier(), classifier(), nullptr, in, *backend, 1));
        GraphBuilder b;
        const NodeEntry x = b.addVariable("data");
        const Graph twoHeads = b.finish({b.addOp("relu", "r", {x}), b.addOp("tanh", "t", {x})});
        try {
            compareModels(classifier(), twoHeads, nullptr, inputs(), *backend, 1);
            QFAIL("different head counts accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("different numbers of outputs"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestModelCompare)
#include "test_model_compare.moc"
