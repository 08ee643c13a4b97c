// The precision debugger on ONNX models (exec/onnx/onnx_precision_search.h): an ONNX model with one
// node made fragile on purpose, each node's own error, the search keeping exactly that node, reuse of
// values by signature (exec/onnx/onnx_value_signatures.h) changing no figure.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "amp/onnx_conversion.h"
#include "exec/onnx/onnx_precision_search.h"
#include "exec/onnx/onnx_runner.h"
#include "exec/onnx/onnx_value_signatures.h"
#include "formats/model_file.h"
#include "formats/onnx_program.h"
#include "onnx_test_models.h"
#include "tensor/seeded_random.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;

namespace {

void addFloats(onnx::GraphProto* graph, const std::string& name, std::initializer_list<int64_t> dims, uint64_t seed,
               double scale) {
    SeededRandom random(seed);
    addSeededFloats(graph, name, dims, random, scale);
}

// Two outputs, as the MXNet suite's fragile graph: Exp of x + 10 (its input rounded to float16,
// spacing 2^-7 near 10, changes Exp's output by up to 0.4 %: an error Exp creates itself once it is
// moved to the target list), and a two-layer MLP (MatMul, Add, Relu, MatMul) whose float16 error
// stays near 0.05 %.
ModelDocument fragileExpModel() {
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto* set = model.add_opset_import();
    set->set_domain("");
    set->set_version(17);
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("fragile");
    addValue(g->mutable_input(), "x", {8, 8});
    addValue(g->mutable_output(), "e", {8, 8});
    addValue(g->mutable_output(), "y", {8, 4});
    onnx::TensorProto* ten = g->add_initializer();
    ten->set_name("ten");
    ten->set_data_type(onnx::TensorProto::FLOAT);
    ten->add_float_data(10.0f);
    addFloats(g, "w0", {8, 16}, 11, 1.0);
    addFloats(g, "b0", {16}, 12, 0.2);
    addFloats(g, "w1", {16, 4}, 13, 1.0);
    addNode(g, "Add", "shift0", {"x", "ten"}, {"shifted"});
    addNode(g, "Exp", "exp0", {"shifted"}, {"e"});
    addNode(g, "MatMul", "fc0", {"x", "w0"}, {"h0"});
    addNode(g, "Add", "bias0", {"h0", "b0"}, {"h1"});
    addNode(g, "Relu", "relu0", {"h1"}, {"h2"});
    addNode(g, "MatMul", "fc1", {"h2", "w1"}, {"y"});
    const std::string bytes = model.SerializeAsString();
    return parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "fragile.onnx");
}

std::map<std::string, HostTensor> randomX(uint64_t seed) {
    SeededRandom random(seed);
    std::vector<float> v(64);
    for (float& x : v) x = float(random.uniform01());
    return {{"x", HostTensor::fromFloats(v, {8, 8})}};
}

PrecisionSearchOptions fragileOptions() {
    PrecisionSearchOptions o;
    o.conversion.lists = AmpLists::defaults(DType::F16, OpSet::Onnx);
    auto& fp32 = o.conversion.lists.fp32Ops;
    fp32.erase(std::remove(fp32.begin(), fp32.end(), "Exp"), fp32.end());
    o.conversion.lists.targetDtypeOps.push_back("Exp");
    o.metric = PrecisionMetric::MaxRel;
    o.tolerance = 2e-3;
    return o;
}

}  // namespace

class TestOnnxPrecisionSearch : public QObject {
    Q_OBJECT

private slots:
    void fragileNodeIsKeptAlone() {
        const ModelDocument doc = fragileExpModel();
        std::vector<SearchAttempt> seen;
        PrecisionSearchOptions o = fragileOptions();
        o.progress = [&](const SearchAttempt& a) {
            seen.push_back(a);
            return true;
        };
        const PrecisionSearchResult r = searchOnnxFloat32Set(doc, randomX(3), o);
        for (const NodeErrorProfile& p : r.nodes) {
            qInfo("%s (%s): own %.3g, in model %.3g", p.name.c_str(), p.op.c_str(), p.own ? p.own->maxRelError : -1.0,
                  p.error.maxRelError);
        }
        QVERIFY(!r.attempts.front().meets);
        QCOMPARE(r.nodes.front().name, std::string("exp0"));
        QVERIFY(r.nodes.front().own.has_value());
        QVERIFY(r.nodes.front().own->maxRelError > 1e-3);
        QCOMPARE(r.fp32Nodes, std::vector<std::string>{"exp0"});
        QVERIFY(r.meets);
        QVERIFY(r.value <= o.tolerance);
        QCOMPARE(seen.size(), r.attempts.size());
        QVERIFY(r.conversion.report.dtypeCheck.passed);
        QVERIFY(r.conversion.source);
        // The outputs stay float32 (the converted model is a drop-in replacement) and are measured.
        QCOMPARE(r.outputs.size(), std::size_t(2));
        QCOMPARE(r.outputs[0].name, std::string("e"));
        QCOMPARE(r.outputs[0].convertedDtype, DType::F32);
        // The same inputs give the same set through the same attempts.
        const PrecisionSearchResult again = searchOnnxFloat32Set(doc, randomX(3), fragileOptions());
        QCOMPARE(again.fp32Nodes, r.fp32Nodes);
        QCOMPARE(again.attempts.size(), r.attempts.size());
        for (std::size_t i = 0; i < r.attempts.size(); ++i) QCOMPARE(again.attempts[i].value, r.attempts[i].value);
        // A loose tolerance keeps nothing in float32: the baseline meets it.
        o.tolerance = 0.1;
        const PrecisionSearchResult loose = searchOnnxFloat32Set(doc, randomX(3), o);
        QVERIFY(loose.meets);
        QVERIFY(loose.fp32Nodes.empty());
        QCOMPARE(loose.attempts.size(), std::size_t(1));
    }

    // What the error view shows before any search: every node both models have, those in float16
    // with their own error, those in float32 (Add's widest with a float32 input, the shift) without.
    void measureOnlyAndStop() {
        const ModelDocument doc = fragileExpModel();
        PrecisionSearchOptions o = fragileOptions();
        o.measureOnly = true;
        std::size_t total = 0, calls = 0;
        o.nodeProgress = [&](std::size_t, std::size_t all) {
            total = all;
            ++calls;
            return true;
        };
        const PrecisionSearchResult r = searchOnnxFloat32Set(doc, randomX(3), o);
        QCOMPARE(r.attempts.size(), std::size_t(1));
        QVERIFY(r.fp32Nodes.empty());
        QCOMPARE(total, std::size_t(6));
        QCOMPARE(calls, total);
        QCOMPARE(r.nodes.size() + r.float32Nodes.size(), total);
        for (const NodeErrorProfile& p : r.float32Nodes) QVERIFY(!p.own.has_value());
        const auto inTarget = [&](const char* name) {
            return std::any_of(r.nodes.begin(), r.nodes.end(), [&](const NodeErrorProfile& p) { return p.name == name; });
        };
        QVERIFY(inTarget("fc0"));
        QVERIFY(inTarget("fc1"));
        QVERIFY(inTarget("exp0"));
        QVERIFY(!inTarget("shift0"));  // widest: x is float32
        // A MatMul alone in float16 on exact inputs errs about as float16's rounding does.
        for (const NodeErrorProfile& p : r.nodes) {
            if (p.name == "fc0") QVERIFY2(p.own && p.own->maxRelError < 2e-3, qPrintable(QString::number(p.own->maxRelError)));
        }
        o.nodeProgress = [](std::size_t done, std::size_t) { return done < 2; };
        const PrecisionSearchResult cut = searchOnnxFloat32Set(doc, randomX(3), o);
        QVERIFY(cut.stopped);
        QCOMPARE(cut.nodes.size() + cut.float32Nodes.size(), std::size_t(2));
    }

    // The search finds the same set through the same attempts whether or not it reuses values, and
    // runs fewer nodes when it does.
    void reuseChangesNoFigure() {
        const ModelDocument doc = fragileExpModel();
        PrecisionSearchOptions o = fragileOptions();
        const PrecisionSearchResult reused = searchOnnxFloat32Set(doc, randomX(5), o);
        o.reuseValues = false;
        const PrecisionSearchResult whole = searchOnnxFloat32Set(doc, randomX(5), o);
        QCOMPARE(reused.attempts.size(), whole.attempts.size());
        for (std::size_t i = 0; i < whole.attempts.size(); ++i) {
            QCOMPARE(reused.attempts[i].fp32Nodes, whole.attempts[i].fp32Nodes);
            QCOMPARE(reused.attempts[i].value, whole.attempts[i].value);
        }
        QCOMPARE(reused.fp32Nodes, whole.fp32Nodes);
        QVERIFY(reused.searchNodes > 0);
        QVERIFY2(reused.searchNodesRun < whole.searchNodesRun,
                 qPrintable(QString("%1 of %2").arg(reused.searchNodesRun).arg(whole.searchNodesRun)));
        QCOMPARE(whole.searchNodesRun, whole.searchNodes);
    }

    // Signatures: values upstream of a change keep theirs, values downstream do not; a run reusing
    // them gives the outputs a whole run gives.
    void signaturesAndReusingRuns() {
        const ModelDocument doc = fragileExpModel();
        const auto original = onnxProgramOf(doc);
        ConversionOptions base = fragileOptions().conversion;
        const auto programFor = [&](const std::set<std::string>& excluded) {
            ConversionOptions o = base;
            o.excludedSymNames = excluded;
            const ConversionResult c = convertOnnxModel(*doc.source, o);
            return onnxProgramOf(ModelDocument{std::make_shared<Graph>(c.graph), nullptr, doc.origin, c.source});
        };
        const auto baseline = programFor({});
        const auto fc1Out = programFor({"fc1"});
        const OnnxSignatures so = onnxValueSignatures(*original), sb = onnxValueSignatures(*baseline),
                             s1 = onnxValueSignatures(*fc1Out);
        QCOMPARE(so.at("shifted"), sb.at("shifted"));  // float32 in both, the same inputs
        QVERIFY(so.at("e") != sb.at("e"));              // Exp in float16 in the conversion
        QCOMPARE(sb.at("h2"), s1.at("h2"));             // upstream of fc1
        QVERIFY(sb.at("y") != s1.at("y"));
        QVERIFY(so.at("w0") != sb.at("w0"));            // the weight converted offline

        const auto inputs = randomX(7);
        const OnnxRunner baseRunner(baseline);
        const OnnxRunResult b = baseRunner.run(inputs, true);
        OnnxReusableValues reusable;
        reusable.add(baseRunner.signatures(), b.values);
        const OnnxRunner runner(fc1Out);
        const OnnxRunResult reused = runner.run(inputs, false, &reusable);
        const OnnxRunResult whole = runner.run(inputs);
        QCOMPARE(reused.outputs.size(), whole.outputs.size());
        for (std::size_t i = 0; i < whole.outputs.size(); ++i) {
            QCOMPARE(reused.outputs[i].second.floats(), whole.outputs[i].second.floats());
        }
        QVERIFY(reused.nodesReused > 0);
        QVERIFY(reused.nodesRun < whole.nodesRun);
        // The baseline again is wholly reused.
        const OnnxRunResult same = baseRunner.run(inputs, false, &reusable);
        QCOMPARE(same.nodesRun, std::size_t(0));
        QCOMPARE(same.outputs[1].second.floats(), b.outputs[1].second.floats());
    }

    void noOnnxDocumentIsAnError() {
        ModelDocument none;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, searchOnnxFloat32Set(none, {}, fragileOptions()));
    }
};

QTEST_GUILESS_MAIN(TestOnnxPrecisionSearch)
#include "test_onnx_precision_search.moc"
