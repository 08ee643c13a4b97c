// The strict shape inference's fast path (formats/onnx_strict_inference.h) against libonnx's
// InferShapes: the same verdict on every Debian libonnx-testdata model, on its float16 and
// bfloat16 conversions and on broken variants of each (an input's dtype changed, a declared output
// dim changed), and on a repeated graph whose one bad node the memo must not hide.
#include <QtTest>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

#include "formats/onnx_strict_inference.h"
#include "onnx_conformance_models.h"
#include "onnx_test_models.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;
namespace fs = std::filesystem;

namespace {

bool checks(const onnx::ModelProto& model) {
    try {
        onnx::checker::check_model(model);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

// A chain of `blocks` MatMul -> Add -> Relu blocks over [1, 8] (the same three nodes again and again).
onnx::ModelProto chain(int blocks) {
    onnx::ModelProto model = emptyModelNamed("chain");
    onnx::GraphProto* g = model.mutable_graph();
    addValue(g->mutable_input(), "x", {1, 8});
    std::string h = "x";
    for (int b = 0; b < blocks; ++b) {
        const std::string k = std::to_string(b);
        for (const auto& [name, dims] : {std::pair{"w" + k, std::vector<int64_t>{8, 8}}, std::pair{"b" + k, std::vector<int64_t>{8}}}) {
            onnx::TensorProto* t = addFloatInitializer(g, name, dims);
            for (int64_t i = 0; i < elementCount(dims); ++i) t->add_float_data(0.01f * static_cast<float>(i));
        }
        addNode(g, "MatMul", "mm" + k, {h, "w" + k}, {"m" + k});
        addNode(g, "Add", "add" + k, {"m" + k, "b" + k}, {"a" + k});
        addNode(g, "Relu", "relu" + k, {"a" + k}, {"r" + k});
        h = "r" + k;
    }
    addValue(g->mutable_output(), h, {1, 8});
    return model;
}

}  // namespace

class TestOnnxStrictInference : public QObject {
    Q_OBJECT

    // Same verdict as InferShapes; counts the fast path and the failures seen.
    void agree(const onnx::ModelProto& model, const std::string& what, int& fast, int& failing, QStringList& differ) {
        if (!checks(model)) return;  // (inference runs only on a model the checker accepted)
        const std::string ours = strictInferenceFailure(model), theirs = strictInferenceFailureByInferShapes(model);
        if (ours.empty() != theirs.empty()) {
            differ << QString::fromStdString(what + ": fast path '" + ours + "', InferShapes '" + theirs + "'");
        }
        fast += strictInferenceHasFastPath(model) ? 1 : 0;
        failing += theirs.empty() ? 0 : 1;
    }

private slots:
    void theMemoDoesNotHideABadNode() {
        onnx::ModelProto good = chain(200);
        QVERIFY(strictInferenceHasFastPath(good));
        QCOMPARE(strictInferenceFailure(good), std::string());
        // Block 150's Add declared [1, 9]: every block before it infers the same, this one must fail.
        onnx::ModelProto bad = good;
        addValue(bad.mutable_graph()->mutable_value_info(), "a150", {1, 9});
        const std::string failure = strictInferenceFailure(bad);
        QVERIFY2(failure.find("add150") != std::string::npos, failure.c_str());
        QVERIFY(!strictInferenceFailureByInferShapes(bad).empty());
        // A float16 weight in block 120: its MatMul's inputs disagree in type.
        onnx::ModelProto mixed = good;
        onnx::TensorProto* w = mixed.mutable_graph()->mutable_initializer(2 * 120);
        QCOMPARE(w->name(), std::string("w120"));
        w->clear_float_data();
        w->set_data_type(onnx::TensorProto::FLOAT16);
        w->set_raw_data(std::string(8 * 8 * 2, '\0'));
        const std::string mixedFailure = strictInferenceFailure(mixed);
        QVERIFY2(mixedFailure.find("mm120") != std::string::npos, mixedFailure.c_str());
        QVERIFY(!strictInferenceFailureByInferShapes(mixed).empty());
    }

    // Two Reshapes of the same input by different shape constants: the same key but for the values
    // their inference function reads, so neither takes the other's result.
    void inputValuesTheFunctionReadsAreTheKeyToo() {
        onnx::ModelProto model;
        model.set_ir_version(8);
        model.add_opset_import()->set_version(17);
        onnx::GraphProto* g = model.mutable_graph();
        addValue(g->mutable_input(), "x", {2, 12});
        for (const auto& [name, shape] : {std::pair{"s1", std::vector<int64_t>{3, 8}}, std::pair{"s2", std::vector<int64_t>{4, 6}}}) {
            onnx::TensorProto* t = g->add_initializer();
            t->set_name(name);
            t->set_data_type(onnx::TensorProto::INT64);
            t->add_dims(2);
            for (const int64_t v : shape) t->add_int64_data(v);
        }
        addNode(g, "Reshape", "first", {"x", "s1"}, {"y1"});
        addNode(g, "Reshape", "second", {"x", "s2"}, {"y2"});
        addValue(g->mutable_output(), "y1", {3, 8});
        addValue(g->mutable_output(), "y2", {4, 6});
        QVERIFY(strictInferenceHasFastPath(model));
        QCOMPARE(strictInferenceFailure(model), std::string());
        QCOMPARE(strictInferenceFailureByInferShapes(model), std::string());
        onnx::ModelProto wrong = model;
        wrong.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(3);
        wrong.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(8);
        const std::string failure = strictInferenceFailure(wrong);
        QVERIFY2(failure.find("second") != std::string::npos, failure.c_str());
        QVERIFY(!strictInferenceFailureByInferShapes(wrong).empty());
    }

    void agreesWithInferShapesOnTheConformanceModels() {
        if (!fs::is_directory(kConformanceData)) QSKIP("libonnx-testdata is not installed");
        int fast = 0, failing = 0;
        QStringList differ;
        const int models = forEachConformanceModel([&](const onnx::ModelProto& model, const std::string& name, const fs::path& file) {
            agree(model, name, fast, failing, differ);
            // Broken: the first float input made int64, and the first output's first fixed dim + 1.
            onnx::ModelProto retyped = model;
            for (auto& v : *retyped.mutable_graph()->mutable_input()) {
                if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT) {
                    v.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
                    break;
                }
            }
            agree(retyped, name + " (input retyped)", fast, failing, differ);
            onnx::ModelProto resized = model;
            for (auto& v : *resized.mutable_graph()->mutable_output()) {
                if (!v.type().has_tensor_type()) continue;
                for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
                    if (d.has_dim_value()) {
                        d.set_dim_value(d.dim_value() + 1);
                        break;
                    }
                }
                break;
            }
            agree(resized, name + " (output resized)", fast, failing, differ);
            // Its conversions, as the pass validates them.
            forEachConversionOf(file, name, [&](const onnx::ModelProto& converted, const std::string& what) {
                agree(converted, what, fast, failing, differ);
            });
        });
        qInfo("%d models; %d checked variants on the fast path, %d failing strict inference", models, fast, failing);
        QVERIFY2(differ.isEmpty(), qPrintable(QString::number(differ.size()) + " differ:\n" + differ.mid(0, 10).join('\n')));
        QVERIFY(models > 1000);
        QVERIFY(fast > 3000);    // most of them take the fast path
        QVERIFY(failing > 300);  // and the broken ones do fail
    }
};

QTEST_APPLESS_MAIN(TestOnnxStrictInference)
#include "test_onnx_strict_inference.moc"
