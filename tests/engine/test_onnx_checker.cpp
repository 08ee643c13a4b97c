// The checker's fast path (formats/onnx_checker.h) against onnx::checker::check_model itself: the
// same verdict on every Debian libonnx-testdata model, on its float16 and bfloat16 conversions, and
// on variants of each broken the ways check_graph looks for (a read of a value nothing defines, a
// value defined twice, nodes out of order, a duplicate initializer, an unknown op, an attribute the
// schema does not have, a graph without a name, an input without its element type).
#include <QtTest>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "formats/onnx_checker.h"
#include "formats/onnx_model.h"
#include "onnx_conformance_models.h"
#include "onnx_test_models.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;
namespace fs = std::filesystem;

namespace {

// Ways to break a model that check_graph's own loop (the part the fast path runs itself) catches.
const std::vector<std::pair<std::string, std::function<void(onnx::ModelProto&)>>>& breakages() {
    static const std::vector<std::pair<std::string, std::function<void(onnx::ModelProto&)>>> all{
        {"reads an undefined value",
         [](onnx::ModelProto& m) {
             for (auto& n : *m.mutable_graph()->mutable_node()) {
                 for (auto& in : *n.mutable_input()) {
                     if (!in.empty()) {
                         in = "no_such_value";
                         return;
                     }
                 }
             }
         }},
        {"defines a value twice",
         [](onnx::ModelProto& m) {
             auto* g = m.mutable_graph();
             if (g->node_size() == 0) return;
             const std::string first = g->input_size() > 0 ? g->input(0).name() : g->node(0).output(0);
             auto* last = g->mutable_node(g->node_size() - 1);
             if (last->output_size() > 0 && last->output(0) != first) last->set_output(0, first);
         }},
        {"nodes reversed",
         [](onnx::ModelProto& m) {
             auto* nodes = m.mutable_graph()->mutable_node();
             std::reverse(nodes->begin(), nodes->end());
         }},
        {"an initializer twice",
         [](onnx::ModelProto& m) {
             auto* g = m.mutable_graph();
             if (g->initializer_size() > 0) *g->add_initializer() = g->initializer(0);
         }},
        {"an unknown op",
         [](onnx::ModelProto& m) {
             auto* g = m.mutable_graph();
             if (g->node_size() > 0) g->mutable_node(0)->set_op_type("NoSuchOp");
         }},
        {"an attribute the schema lacks",
         [](onnx::ModelProto& m) {
             auto* g = m.mutable_graph();
             if (g->node_size() == 0) return;
             auto* a = g->mutable_node(g->node_size() / 2)->add_attribute();
             a->set_name("no_such_attribute");
             a->set_type(onnx::AttributeProto::INT);
             a->set_i(1);
         }},
        {"no graph name", [](onnx::ModelProto& m) { m.mutable_graph()->clear_name(); }},
        {"an input without an element type",
         [](onnx::ModelProto& m) {
             auto* g = m.mutable_graph();
             if (g->input_size() > 0 && g->input(0).type().has_tensor_type()) {
                 g->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_elem_type();
             }
         }},
    };
    return all;
}

}  // namespace

class TestOnnxChecker : public QObject {
    Q_OBJECT

    // The same verdict (and so the same message) as check_model; counts the fast path and failures.
    void agree(const onnx::ModelProto& model, const std::string& what, int& fast, int& failing, QStringList& differ) {
        const std::string ours = checkerFailure(model), theirs = checkerFailureByLibonnx(model);
        if (ours != theirs) differ << QString::fromStdString(what + ": fast path '" + ours + "', check_model '" + theirs + "'");
        fast += checkerHasFastPath(model) ? 1 : 0;
        failing += theirs.empty() ? 0 : 1;
    }

private slots:
    // A long chain: passes; one value defined twice near its end: fails, as check_model says.
    void aLargeGraphAndItsOneFault() {
        onnx::ModelProto model = emptyModelNamed("chain");
        onnx::GraphProto* g = model.mutable_graph();
        addValue(g->mutable_input(), "x", {1, 8});
        std::string h = "x";
        for (int b = 0; b < 2000; ++b) {
            const std::string k = std::to_string(b);
            addNode(g, "Relu", "relu" + k, {h}, {"r" + k});
            h = "r" + k;
        }
        addValue(g->mutable_output(), h, {1, 8});
        QVERIFY(checkerHasFastPath(model));
        QCOMPARE(checkerFailure(model), std::string());
        g->mutable_node(1990)->set_output(0, "r17");
        const std::string failure = checkerFailure(model);
        QVERIFY(!failure.empty());
        QCOMPARE(failure, checkerFailureByLibonnx(model));
        QVERIFY2(failure.find("SSA") != std::string::npos, failure.c_str());
    }

    void agreesWithCheckModelOnTheConformanceModels() {
        if (!fs::is_directory(kConformanceData)) QSKIP("libonnx-testdata is not installed");
        int fast = 0, failing = 0;
        QStringList differ;
        const int models = forEachConformanceModel([&](const onnx::ModelProto& model, const std::string& name, const fs::path& file) {
            agree(model, name, fast, failing, differ);
            for (const auto& [how, breakModel] : breakages()) {
                onnx::ModelProto broken = model;
                breakModel(broken);
                agree(broken, name + " (" + how + ")", fast, failing, differ);
            }
            forEachConversionOf(file, name, [&](const onnx::ModelProto& converted, const std::string& what) {
                agree(converted, what, fast, failing, differ);
            });
        });
        qInfo("%d models; %d variants on the fast path, %d failing the checker", models, fast, failing);
        QVERIFY2(differ.isEmpty(), qPrintable(QString::number(differ.size()) + " differ:\n" + differ.mid(0, 10).join('\n')));
        QVERIFY(models > 1000);
        QVERIFY(fast > 9000);     // most of them take the fast path
        QVERIFY(failing > 5000);  // and the broken ones do fail
    }
};

QTEST_APPLESS_MAIN(TestOnnxChecker)
#include "test_onnx_checker.moc"
