// The precision debugger's engine: range statistics, the search metrics, each node's own error,
// and the search for the float32 set on a graph with one node made fragile on purpose.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/backend.h"
#include "exec/precision_search.h"
#include "graph_builder.h"
#include "tensor/seeded_random.h"
#include "train/calibration_inputs.h"
#include "exec/reused_values.h"
#include "formats/symbol_json.h"

using namespace ampstudio;
using ampstudio::test::GraphBuilder;

namespace {

std::map<std::string, HostArray> randomInput(const std::string& name, Shape shape, uint64_t seed) {
    HostArray a;
    a.shape = std::move(shape);
    a.values.resize(std::size_t(shapeSize(a.shape)));
    SeededRandom random(seed);
    for (float& v : a.values) v = float(random.uniform(0.0, 1.0));
    return {{name, std::move(a)}};
}

// Two outputs: exp0 on data + 10, and an MLP (fc0 → relu0 → fc1), whose float16 error is small.
// exp's input rounded to float16 (spacing 2^-7 near 10) changes exp's output by up to 0.4 %, an
// error exp0 creates itself, while everything else stays near float16's 0.05 %. (exp0 comes
// first: were fc0 visited first, MXNet 1.9.1's typed pass would believe data float16 once fc0 has
// its cast, and run shift0 and exp0 on the float32 original.)
Graph fragileExpGraph() {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry shifted = b.addOp("_plus_scalar", "shift0", {data}, {{"scalar", "10"}});
    const NodeEntry e = b.addOp("exp", "exp0", {shifted});
    const NodeEntry fc0 = b.addOp("FullyConnected", "fc0", {data, b.addVariable("fc0_weight"), b.addVariable("fc0_bias")},
                                  {{"num_hidden", "16"}});
    const NodeEntry relu = b.addOp("Activation", "relu0", {fc0}, {{"act_type", "relu"}});
    const NodeEntry fc1 = b.addOp("FullyConnected", "fc1", {relu, b.addVariable("fc1_weight"), b.addVariable("fc1_bias")},
                                  {{"num_hidden", "4"}});
    return b.finish({e, fc1});
}

PrecisionSearchOptions fragileOptions() {
    PrecisionSearchOptions o;
    o.conversion.lists = AmpLists::defaults(DType::F16);
    auto& fp32 = o.conversion.lists.fp32Ops;
    fp32.erase(std::remove(fp32.begin(), fp32.end(), "exp"), fp32.end());
    o.conversion.lists.targetDtypeOps.push_back("exp");
    o.metric = PrecisionMetric::MaxRel;
    o.tolerance = 2e-3;
    return o;
}

}  // namespace

class TestPrecisionSearch : public QObject {
    Q_OBJECT

private slots:
    void rangeStatsAgainstTheTargetDtype() {
        const float inf = std::numeric_limits<float>::infinity();
        const RangeStats s = rangeStats({1.0f, -70000.0f, 1e-6f, 0.0f, inf}, DType::F16);
        QCOMPARE(s.maxAbs, 70000.0);
        QCOMPARE(s.beyondMax, 0.25);    // one of the four finite values exceeds 65504
        QCOMPARE(s.belowNormal, 1.0 / 3.0);  // 1e-6 of the three non-zero ones
        QCOMPARE(s.nonFinite, int64_t{1});
        // bfloat16 holds both ends.
        const RangeStats b = rangeStats({-70000.0f, 1e-6f}, DType::BF16);
        QCOMPARE(b.beyondMax, 0.0);
        QCOMPARE(b.belowNormal, 0.0);
    }

    void metrics() {
        const std::vector<std::vector<float>> ref{{1.0f, 2.0f, 0.0f, 4.0f}};
        const std::vector<std::vector<float>> conv{{1.0f, 2.5f, 0.0f, 3.0f}};
        const std::vector<Shape> shapes{{2, 2}};
        QCOMPARE(precisionMetricValue(PrecisionMetric::MaxAbs, ref, conv, shapes), 1.0);
        QCOMPARE(precisionMetricValue(PrecisionMetric::MaxRel, ref, conv, shapes), 0.25);
        QVERIFY(precisionMetricValue(PrecisionMetric::Cosine, ref, conv, shapes) > 0.0);
        // Rows (1, 2) and (0, 4) / (0, 3): both argmaxes agree.
        QCOMPARE(precisionMetricValue(PrecisionMetric::Top1, ref, conv, shapes), 0.0);
        const std::vector<std::vector<float>> swapped{{2.0f, 1.0f, 0.0f, 4.0f}};
        QCOMPARE(precisionMetricValue(PrecisionMetric::Top1, ref, swapped, shapes), 0.5);
        // An undefined figure never meets a tolerance.
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(std::isinf(precisionMetricValue(PrecisionMetric::MaxRel, {{nan}}, {{1.0f}}, {{1}})));
        QCOMPARE(*precisionMetricFromName("top1"), PrecisionMetric::Top1);
        // allclose: |c - r| <= atol + rtol |r| element-wise, told as the smallest rtol that holds.
        QCOMPARE(*precisionMetricFromName("allclose"), PrecisionMetric::AllClose);
        QCOMPARE(precisionMetricValue(PrecisionMetric::AllClose, {{10.0f, 0.5f}}, {{10.2f, 0.5f}}, {{2}}), double(10.2f - 10.0f) / 10.0);
        QCOMPARE(precisionMetricValue(PrecisionMetric::AllClose, {{10.0f, 0.0f}}, {{10.0f, 1e-4f}}, {{2}}, 1e-3), 0.0);
        QVERIFY(std::isinf(precisionMetricValue(PrecisionMetric::AllClose, {{10.0f, 0.0f}}, {{10.0f, 1e-2f}}, {{2}}, 1e-3)));
        QCOMPARE(precisionMetricValue(PrecisionMetric::AllClose, {{4.0f}}, {{5.0f}}, {{1}}, 0.5), 0.125);
        QVERIFY(std::isinf(precisionMetricValue(PrecisionMetric::AllClose, {{1.0f}}, {{nan}}, {{1}})));
        QVERIFY(!precisionMetricFromName("rmse"));
    }

    // exp0 is made fragile on purpose (on the target list, inputs near 10): it has the worst own
    // error, and the search keeps exactly it in float32.
    void keepsExactlyTheFragileNode() {
        const Graph g = fragileExpGraph();
        auto backend = makeBackend(BackendChoice::Cpu);
        std::vector<SearchAttempt> seen;
        PrecisionSearchOptions o = fragileOptions();
        o.progress = [&](const SearchAttempt& a) {
            seen.push_back(a);
            return true;
        };
        const PrecisionSearchResult r = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        for (const NodeErrorProfile& p : r.nodes) {
            qInfo("%s: own %.3g, in model %.3g", p.name.c_str(), p.own ? p.own->maxRelError : -1.0,
                  p.error.maxRelError);
        }
        QVERIFY(!r.attempts.front().meets);  // the plain conversion misses the tolerance
        QVERIFY(!r.nodes.empty());
        QCOMPARE(r.nodes.front().name, std::string("exp0"));
        QVERIFY(r.nodes.front().own.has_value());
        QCOMPARE(r.fp32Nodes, std::vector<std::string>{"exp0"});
        QVERIFY(r.meets);
        QVERIFY(r.value <= o.tolerance);
        QVERIFY(r.conversion.report.dtypeCheck.passed);
        QCOMPARE(seen.size(), r.attempts.size());
        // The same inputs and seed give the same set.
        const PrecisionSearchResult again = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QCOMPARE(again.fp32Nodes, r.fp32Nodes);
    }

    // Met without any change: nothing is kept in float32. Stopping from progress() ends the search.
    void looseToleranceAndStop() {
        const Graph g = fragileExpGraph();
        auto backend = makeBackend(BackendChoice::Cpu);
        PrecisionSearchOptions o = fragileOptions();
        o.tolerance = 0.5;
        const PrecisionSearchResult loose = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QVERIFY(loose.meets);
        QVERIFY(loose.fp32Nodes.empty());
        QCOMPARE(loose.attempts.size(), std::size_t(1));

        o.tolerance = 2e-3;
        o.progress = [](const SearchAttempt&) { return false; };
        const PrecisionSearchResult stopped = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QVERIFY(stopped.stopped);
        QCOMPARE(stopped.attempts.size(), std::size_t(1));
    }

    // Binary exponents two octaves a bin from 2^-64, zeros apart, the ends open.
    void magnitudeHistogram() {
        QCOMPARE(MagnitudeHistogram::binOf(-64), 0);
        QCOMPARE(MagnitudeHistogram::binOf(-63), 0);
        QCOMPARE(MagnitudeHistogram::binOf(-62), 1);
        QCOMPARE(MagnitudeHistogram::binOf(-200), 0);
        QCOMPARE(MagnitudeHistogram::binOf(0), 32);
        QCOMPARE(MagnitudeHistogram::binOf(63), 63);
        QCOMPARE(MagnitudeHistogram::binOf(500), 63);
        QCOMPARE(MagnitudeHistogram::lowerExponent(32), 0);
        // 1.0 and 3.9 are 2^0 and 2^1.96: bin 32; 4.0 is 2^2: bin 33; 0.5 is 2^-1: bin 31.
        const RangeStats s = rangeStats({1.0f, 3.9f, 4.0f, 0.5f, 0.0f, -1.0f}, DType::F16);
        QCOMPARE(s.histogram.bins[32], int64_t{3});
        QCOMPARE(s.histogram.bins[33], int64_t{1});
        QCOMPARE(s.histogram.bins[31], int64_t{1});
        QCOMPARE(s.histogram.zeros, int64_t{1});
        QCOMPARE(s.count, int64_t{6});
    }

    // What the error view shows before any search: every shared compute node measured (the
    // target-dtype ones with their own error, the float32 ones with inherited error only), the
    // baseline's figure, and no further attempt. Stopping from nodeProgress keeps what was measured.
    void measureOnly() {
        const Graph g = fragileExpGraph();
        auto backend = makeBackend(BackendChoice::Cpu);
        PrecisionSearchOptions o = fragileOptions();
        o.measureOnly = true;
        std::vector<std::size_t> progress;
        std::size_t total = 0;
        o.nodeProgress = [&](std::size_t done, std::size_t all) {
            progress.push_back(done);
            total = all;
            return true;
        };
        const PrecisionSearchResult r = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QCOMPARE(r.attempts.size(), std::size_t(1));
        QVERIFY(!r.meets);
        QVERIFY(r.fp32Nodes.empty());
        QCOMPARE(r.nodes.front().name, std::string("exp0"));
        // shift0, exp0, fc0, relu0, fc1 are shared compute nodes; all five are measured once each.
        QCOMPARE(total, std::size_t(5));
        QCOMPARE(progress.size(), total);
        QCOMPARE(progress.back(), total);
        QCOMPARE(r.nodes.size() + r.float32Nodes.size(), total);
        for (const NodeErrorProfile& p : r.float32Nodes) {
            QVERIFY(!p.own.has_value());
        }
        QVERIFY(r.conversion.report.dtypeCheck.passed);

        o.nodeProgress = [](std::size_t done, std::size_t) { return done < 2; };
        const PrecisionSearchResult cut = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QVERIFY(cut.stopped);
        QCOMPARE(cut.nodes.size() + cut.float32Nodes.size(), std::size_t(2));
    }

    // ModelOpt-style range warnings: values beyond float16's largest, activations past 512, values
    // below the smallest normal, and a deep reduction, each with its reason.
    void rangeWarnings() {
        GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        const NodeEntry big = b.addOp("_mul_scalar", "big0", {data}, {{"scalar", "1000"}});
        const NodeEntry huge = b.addOp("_mul_scalar", "huge0", {data}, {{"scalar", "100000"}});
        const NodeEntry tiny = b.addOp("_mul_scalar", "tiny0", {data}, {{"scalar", "1e-7"}});
        const NodeEntry total = b.addOp("sum", "sum0", {data}, {{"axis", "1"}});
        const Graph g = b.finish({big, huge, tiny, total});
        auto backend = makeBackend(BackendChoice::Cpu);
        PrecisionSearchOptions o;
        o.conversion.lists = AmpLists::defaults(DType::F16);
        for (auto* list : {&o.conversion.lists.fp32Ops, &o.conversion.lists.widestDtypeOps}) {
            list->erase(std::remove_if(list->begin(), list->end(),
                                       [](const std::string& op) { return op == "_mul_scalar" || op == "sum"; }),
                        list->end());
        }
        o.conversion.lists.targetDtypeOps.insert(o.conversion.lists.targetDtypeOps.end(), {"_mul_scalar", "sum"});
        o.measureOnly = true;
        const PrecisionSearchResult r = searchFloat32Set(g, nullptr, randomInput("data", {2, 5000}, 7), *backend, o);
        auto warningsOf = [&](const std::string& name) {
            for (const NodeErrorProfile& p : r.nodes) {
                if (p.name == name) return p.warnings;
            }
            return std::vector<std::string>{"not measured"};
        };
        auto has = [](const std::vector<std::string>& w, const char* text) {
            return std::any_of(w.begin(), w.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
        };
        QVERIFY(has(warningsOf("big0"), "ModelOpt"));
        QVERIFY(has(warningsOf("huge0"), "become inf"));
        QVERIFY(has(warningsOf("tiny0"), "smallest normal"));
        QVERIFY(has(warningsOf("sum0"), "reduction over 5000"));
    }

    // The form's first suggestion follows the data input's first consumer and its parameters, and
    // calibrationInputs() reads it back as the shape it names.
    void suggestsAnInputThatFits() {
        const Graph graph = fragileExpGraph();  // data's first consumer is _plus_scalar: no suggestion
        QCOMPARE(suggestedRandomInput(graph, nullptr), std::string());

        GraphBuilder fc;
        const NodeEntry x = fc.addVariable("x");
        const Graph fcGraph = fc.finish({fc.addOp("FullyConnected", "fc", {x, fc.addVariable("fc_weight"), fc.addVariable("fc_bias")},
                                                  {{"num_hidden", "10"}})});
        QCOMPARE(suggestedRandomInput(fcGraph, nullptr), std::string());  // the width needs the weight
        NDArrayList params;
        params.arrays.push_back({.name = "arg:fc_weight", .shape = {10, 784}});
        QCOMPARE(suggestedRandomInput(fcGraph, &params, 4), std::string("x=4,784"));
        const auto inputs = calibrationInputs(fcGraph, {.randomInputs = {suggestedRandomInput(fcGraph, &params, 4)}});
        QCOMPARE(inputs.at("x").shape, (Shape{4, 784}));

        GraphBuilder conv;
        const NodeEntry d = conv.addVariable("data");
        const Graph convGraph = conv.finish({conv.addOp("Convolution", "conv0", {d, conv.addVariable("conv0_weight")},
                                                        {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"num_group", "2"},
                                                         {"no_bias", "True"}})});
        QCOMPARE(suggestedRandomInput(convGraph, nullptr), std::string("data=8,3,224,224"));
        NDArrayList convParams;
        convParams.arrays.push_back({.name = "arg:conv0_weight", .shape = {8, 1, 3, 3}});
        QCOMPARE(suggestedRandomInput(convGraph, &convParams), std::string("data=8,2,224,224"));
        // One channel reads as Fashion-MNIST's 28x28.
        convParams.arrays[0].shape = {8, 1, 3, 3};
        GraphBuilder gray;
        const NodeEntry g = gray.addVariable("data");
        const Graph grayGraph = gray.finish({gray.addOp("Convolution", "conv0", {g, gray.addVariable("conv0_weight")},
                                                        {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"no_bias", "True"}})});
        QCOMPARE(suggestedRandomInput(grayGraph, &convParams, 2), std::string("data=2,1,28,28"));
    }

    // A conversion that keeps one node more in float32 than the baseline computes only what lies
    // downstream of it; the outputs are bit for bit those of running the whole model.
    void reusingRunEqualsTheWholeRun() {
        const Graph source = readSymbolJsonFile(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json");
        const auto inputs = randomInput("data", {4, 784}, 5);
        auto backend = makeBackend(BackendChoice::Cpu);
        ExecContext ctx;
        ctx.training = false;
        ctx.seed = 9;
        ConversionOptions o;
        o.lists = AmpLists::defaults(DType::F16);
        const Graph baseline = convertGraph(source, o).graph;
        o.excludedSymNames = {"fc2"};
        const Graph attempt = convertGraph(source, o).graph;

        auto whole = [&](const Graph& g) {
            auto e = bindForInference(g, inputs, *backend);
            loadValues(*e, nullptr, inputs, *backend, ctx.seed);
            e->forward(ctx);
            return e;
        };
        const auto reference = whole(source);
        const auto base = whole(baseline);
        const auto full = whole(attempt);
        ReusableValues reusable;
        reusable.add(*reference);
        reusable.add(*base);
        const ReusingRun r = runReusing(attempt, reusable, nullptr, inputs, *backend, ctx);
        QCOMPARE(r.outputs.size(), std::size_t(1));
        QCOMPARE(r.outputs[0], downloadFloats(*backend, full->entryValue(attempt.heads[0])));
        // fc1 and its casts come from the baseline; fc2 onwards runs (fc2, relu2, the casts for fc3, fc3 ...).
        std::size_t ops = 0;
        for (const Node& n : attempt.nodes) ops += n.isVariable() ? 0 : 1;
        QVERIFY2(r.nodesRun > 0 && r.nodesRun < ops, qPrintable(QString::number(r.nodesRun)));
        QVERIFY(r.nodesReused > 0);
        // A reusing run's values are reusable in turn, under the signatures of the graph it stood for.
        o.excludedSymNames = {"fc2", "fc3"};
        const Graph later = convertGraph(source, o).graph;
        ReusableValues chained;
        chained.add(*reference);
        chained.add(r);
        const ReusingRun r2 = runReusing(later, chained, nullptr, inputs, *backend, ctx);
        QCOMPARE(r2.outputs[0], downloadFloats(*backend, whole(later)->entryValue(later.heads[0])));
        QVERIFY(r2.nodesRun < r.nodesRun);
        // The baseline itself is wholly reused: nothing runs.
        const ReusingRun same = runReusing(baseline, reusable, nullptr, inputs, *backend, ctx);
        QCOMPARE(same.nodesRun, std::size_t(0));
        QCOMPARE(same.outputs[0], downloadFloats(*backend, base->entryValue(baseline.heads[0])));
        // Signatures tell an attribute apart.
        Graph changed = attempt;
        for (Node& n : changed.nodes) {
            if (n.name == "fc3") n.attrs.insert_or_assign("num_hidden", "11");
        }
        QVERIFY(entrySignatures(changed).back() != entrySignatures(attempt).back());
    }

    // The search finds the same set through the same attempts whether or not it reuses values.
    void reuseChangesNoFigure() {
        const Graph g = fragileExpGraph();
        auto backend = makeBackend(BackendChoice::Cpu);
        PrecisionSearchOptions o = fragileOptions();
        const PrecisionSearchResult reused = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        o.reuseValues = false;
        const PrecisionSearchResult whole = searchFloat32Set(g, nullptr, randomInput("data", {8, 8}, 3), *backend, o);
        QCOMPARE(reused.attempts.size(), whole.attempts.size());
        for (std::size_t i = 0; i < whole.attempts.size(); ++i) {
            QCOMPARE(reused.attempts[i].fp32Nodes, whole.attempts[i].fp32Nodes);
            QCOMPARE(reused.attempts[i].value, whole.attempts[i].value);
        }
        QCOMPARE(reused.fp32Nodes, whole.fp32Nodes);
        QVERIFY(reused.searchNodesRun < whole.searchNodesRun);
        QCOMPARE(whole.searchNodesRun, whole.searchNodes);
    }
};

QTEST_GUILESS_MAIN(TestPrecisionSearch)
#include "test_precision_search.moc"
