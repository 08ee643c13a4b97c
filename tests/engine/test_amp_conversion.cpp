// The AMP conversion pass, classic and typed, on the proposal's examples, the cases and
// real MXNet symbol files: which casts appear (by MXNet's names), where, and what the report says.
// Expected casts are hand-traced from the rules in DESIGN.md section 4.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include "graph_queries.h"
#include "amp/conversion.h"
#include "amp/param_casting.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"
#include "graph_builder.h"
#include "tensor/float_convert.h"

using namespace ampstudio;
using ampstudio::test::GraphBuilder;

namespace {

struct Case {
    Graph graph;
    AmpLists lists;
};

DType dtypeNamed(const QString& name) {
    return name == "bfloat16" ? DType::BF16 : DType::F16;
}
ConversionMode modeNamed(const QString& name) {
    return *conversionModeFromName(name.toStdString());
}

Graph loadModel(const char* file) {
    return readSymbolJsonFile(std::string(AMS_TESTDATA_DIR "/mxnet/") + file);
}

// The proposal's first example: cos, sin, exp, sqrt of data, summed left to right.
Graph proposalExample1() {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry c = b.addOp("cos", "cos0", {data});
    const NodeEntry s = b.addOp("sin", "sin0", {data});
    const NodeEntry p0 = b.addOp("elemwise_add", "_plus0", {c, s});
    const NodeEntry e = b.addOp("exp", "exp0", {data});
    const NodeEntry p1 = b.addOp("elemwise_add", "_plus1", {p0, e});
    const NodeEntry q = b.addOp("sqrt", "sqrt0", {data});
    const NodeEntry p2 = b.addOp("elemwise_add", "_plus2", {p1, q});
    return b.finish({p2});
}

// The proposal's second example: (exp + sin) + cos, then add_n with two more inputs.
Graph proposalExample2() {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry e = b.addOp("exp", "exp0", {data});
    const NodeEntry s = b.addOp("sin", "sin0", {data});
    const NodeEntry p0 = b.addOp("elemwise_add", "_plus0", {e, s});
    const NodeEntry c = b.addOp("cos", "cos0", {data});
    const NodeEntry p1 = b.addOp("elemwise_add", "_plus1", {p0, c});
    const NodeEntry d2 = b.addVariable("data2");
    const NodeEntry d3 = b.addVariable("data3");
    const NodeEntry sum = b.addOp("add_n", "add_n0", {p1, d2, d3}, {{"num_args", "3"}});
    return b.finish({sum});
}

// FullyConnected(x, y) + sin(y).
Graph fcPlusSin() {
    GraphBuilder b;
    const NodeEntry x = b.addVariable("x");
    const NodeEntry y = b.addVariable("y");
    const NodeEntry fc =
        b.addOp("FullyConnected", "fullyconnected0", {x, y}, {{"no_bias", "True"}, {"num_hidden", "10"}});
    const NodeEntry s = b.addOp("sin", "sin0", {y});
    const NodeEntry sum = b.addOp("elemwise_add", "_plus0", {fc, s});
    return b.finish({sum});
}

Case makeCase(const QString& name, DType target) {
    Case c{{}, AmpLists::defaults(target)};
    if (name == "example1") {
        c.graph = proposalExample1();
        c.lists.targetDtypeOps = {"sin", "cos"};
        c.lists.fp32Ops = {"exp", "sqrt"};
    } else if (name == "example2") {
        c.graph = proposalExample2();
        c.lists.targetDtypeOps = {"sin", "cos", "exp"};
        c.lists.fp32Ops = {"elemwise_add"};
        c.lists.widestDtypeOps = {"add_n"};
    } else if (name == "example3") {
        c.graph = fcPlusSin();
        c.lists.targetDtypeOps = {"FullyConnected"};
        c.lists.fp32Ops = {"sin"};
    } else if (name == "mlp") {
        c.graph = loadModel("mlp-symbol.json");
    } else if (name == "squeezenet") {
        c.graph = loadModel("squeezenet_v1.1-symbol.json");
    } else if (name == "lstm_ptb") {
        c.graph = loadModel("lstm_ptb-symbol.json");
    } else {
        qFatal("unknown case %s", qPrintable(name));
    }
    return c;
}

QStringList nodeNames(const Graph& g) {
    QStringList names;
    for (const Node& n : g.nodes) {
        names << QString::fromStdString(n.name);
    }
    return names;
}

const Node* findNode(const Graph& g, const std::string& name) {
    for (const Node& n : g.nodes) {
        if (n.name == name) {
            return &n;
        }
    }
    return nullptr;
}

const NodeDecision* findDecision(const ConversionReport& r, const std::string& name) {
    for (const NodeDecision& d : r.nodes) {
        if (d.name == name) {
            return &d;
        }
    }
    return nullptr;
}

QStringList sorted(QStringList l) {
    l.sort();
    return l;
}

// Every converted graph: valid, every amp_cast reads exactly one earlier entry and says a known
// float dtype, every multicast has as many outputs as inputs, and nothing hangs off the outputs.
void checkStructure(const Graph& g) {
    g.validate();
    const auto consumers = g.consumers();
    std::vector<char> isHead(g.size(), 0);
    for (const NodeEntry& h : g.heads) {
        isHead[h.node] = 1;
    }
    for (NodeId id = 0; id < g.size(); ++id) {
        const Node& n = g.nodes[id];
        if (n.op == "amp_cast") {
            QCOMPARE(n.inputs.size(), std::size_t(1));
            QVERIFY(n.inputs[0].node != id);
            QVERIFY(n.attr("dtype") != nullptr);
            QVERIFY(*n.attr("dtype") == "float32" || *n.attr("dtype") == "float16" ||
                    *n.attr("dtype") == "bfloat16");
            QCOMPARE(n.numOutputs, 1u);
        }
        if (n.op == "amp_multicast") {
            QVERIFY(!n.inputs.empty());
            QCOMPARE(n.numOutputs, uint32_t(n.inputs.size()));
            QCOMPARE(*n.attr("num_outputs"), std::to_string(n.inputs.size()));
        }
        // NNVM order keeps only what the outputs reach.
        QVERIFY2(!consumers[id].empty() || isHead[id], n.name.c_str());
    }
    // NNVM's DFS order is a fixed point.
    QCOMPARE(nodeNames(reachableInDfsOrder(g)), nodeNames(g));
}

// `valid`: whether MXNet could bind the result; every case is one of the two on purpose.
ConversionResult convert(const Case& c, ConversionMode mode, bool castOptionalParams = false,
                         std::set<std::string> dataNames = {"data"}, bool valid = true) {
    ConversionOptions options;
    options.lists = c.lists;
    options.mode = mode;
    options.castOptionalParams = castOptionalParams;
    options.dataNames = std::move(dataNames);
    ConversionResult r = convertGraph(c.graph, options);
    checkStructure(r.graph);
    if (r.report.dtypeCheck.passed != valid) {
        qWarning("dtype check: %s", r.report.dtypeCheck.passed ? "passed" : r.report.dtypeCheck.message.c_str());
    }
    [&] { QCOMPARE(r.report.dtypeCheck.passed, valid); }();
    return r;
}

// MXNet 1.9.1's stale-dtype case: fc1 casts relu0 to float16, flatten0 reads relu0 as it is. With
// `fc2`, flatten0 feeds a FullyConnected (invalid in MXNet); without it, only a graph output.
Case staleDtypeCase(bool fc2) {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry relu = b.addOp("relu", "relu0", {data});
    const Attributes fc{{"no_bias", "True"}, {"num_hidden", "4"}};
    const NodeEntry fc1 = b.addOp("FullyConnected", "fc1", {relu, b.addVariable("fc1_weight")}, fc);
    const NodeEntry flat = b.addOp("Flatten", "flatten0", {relu});
    const NodeEntry head = fc2 ? b.addOp("FullyConnected", "fc2", {flat, b.addVariable("fc2_weight")}, fc) : flat;
    return {b.finish({fc1, head}), AmpLists::defaults(DType::F16)};
}

QStringList castNames(const char* suffix, const QStringList& sources) {
    QStringList names;
    for (const QString& s : sources) {
        names << s + "_amp_cast_" + suffix;
    }
    return names;
}

}  // namespace

class TestAmpConversion : public QObject {
    Q_OBJECT
private slots:
    void castsInserted_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("castOptionalParams");
        QTest::addColumn<int>("castCount");
        QTest::addColumn<QStringList>("casts");  // empty: only the count is checked
        QTest::addColumn<int>("multicastCount");
        QTest::addColumn<QStringList>("multicasts");
        QTest::addColumn<int>("nodes");

        // 2 casts: data to float16 shared by cos and sin, data to float32 shared by exp and sqrt.
        QTest::newRow("example 1, classic")
            << "example1"
            << "classic"
            << "float16" << false << 2 << QStringList{"data_amp_cast_float16", "data_amp_cast_float32"} << 3
            << QStringList{"cos0_0_amp_multicast", "_plus0_output_amp_multicast",
                           "_plus1_output_amp_multicast"}
            << 13;
        // exp and sqrt read data (a variable) as it is; float16 + float32 sums cast the float16 side.
        QTest::newRow("example 1, typed")
            << "example1"
            << "typed"
            << "float16" << false << 2
            << QStringList{"data_amp_cast_float16", "_plus0_output_amp_cast_float32"} << 0 << QStringList{}
            << 10;
        QTest::newRow("example 2, classic")
            << "example2"
            << "classic"
            << "float16" << false << 5
            << QStringList{"data_amp_cast_float16", "exp0_0_amp_cast_float32", "sin0_0_amp_cast_float32",
                           "_plus0_output_amp_cast_float32", "cos0_0_amp_cast_float32"}
            << 1 << QStringList{"_plus1_output_amp_multicast"} << 15;
        // _plus0's output is known float32, so _plus1 needs no cast for it; add_n sees unknown
        // variables (multicast) and its output gets a trailing float32 cast.
        QTest::newRow("example 2, typed")
            << "example2"
            << "typed"
            << "float16" << false << 5
            << QStringList{"data_amp_cast_float16", "exp0_0_amp_cast_float32", "sin0_0_amp_cast_float32",
                           "cos0_0_amp_cast_float32", "add_n0_0_amp_cast_float32"}
            << 1 << QStringList{"_plus1_output_amp_multicast"} << 15;
        QTest::newRow("example 3, classic")
            << "example3"
            << "classic"
            << "float16" << false << 3
            << QStringList{"x_amp_cast_float16", "y_amp_cast_float16", "y_amp_cast_float32"} << 1
            << QStringList{"fullyconnected0_output_amp_multicast"} << 9;
        QTest::newRow("example 3, typed") << "example3"
                                          << "typed"
                                          << "float16" << false << 3
                                          << QStringList{"x_amp_cast_float16", "y_amp_cast_float16",
                                                         "fullyconnected0_output_amp_cast_float32"}
                                          << 0 << QStringList{} << 8;
        QTest::newRow("example 3, typed, bfloat16")
            << "example3"
            << "typed"
            << "bfloat16" << false << 3
            << QStringList{"x_amp_cast_bfloat16", "y_amp_cast_bfloat16",
                           "fullyconnected0_output_amp_cast_float32"}
            << 0 << QStringList{} << 8;

        const QStringList mlpParams{"fc1_weight", "fc1_bias",   "fc2_weight",
                                    "fc2_bias",   "fc3_weight", "fc3_bias"};
        QTest::newRow("mlp, classic")
            << "mlp"
            << "classic"
            << "float16" << false << 11
            << castNames("float16", QStringList{"data", "relu1_output", "relu2_output"} + mlpParams) +
                   castNames("float32", {"fc3_output", "softmax_label"})
            << 0 << QStringList{} << 25;
        QTest::newRow("mlp, typed") << "mlp"
                                    << "typed"
                                    << "float16" << false << 8
                                    << castNames("float16", QStringList{"data"} + mlpParams) +
                                           castNames("float32", {"fc3_output"})
                                    << 0 << QStringList{} << 22;
        QTest::newRow("mlp, typed, cast_optional_params")
            << "mlp"
            << "typed"
            << "float16" << true << 2 << QStringList{"data_amp_cast_float16", "fc3_output_amp_cast_float32"}
            << 0 << QStringList{} << 16;
        QTest::newRow("mlp, typed, bfloat16")
            << "mlp"
            << "typed"
            << "bfloat16" << false << 8
            << castNames("bfloat16", QStringList{"data"} + mlpParams) + castNames("float32", {"fc3_output"})
            << 0 << QStringList{} << 22;
        QTest::newRow("mlp, classic, bfloat16")
            << "mlp"
            << "classic"
            << "bfloat16" << false << 11
            << castNames("bfloat16", QStringList{"data", "relu1_output", "relu2_output"} + mlpParams) +
                   castNames("float32", {"fc3_output", "softmax_label"})
            << 0 << QStringList{} << 25;

        // squeezenet 1.1 (121 nodes, 26 Convolution with bias, 8 fire modules whose two expand
        // convolutions read the same squeeze output): classic casts 18 distinct conv inputs + 52
        // parameters to float16 and the SoftmaxOutput's 2 inputs to float32, and multicasts each
        // Concat (widest in the float16 lists).
        QTest::newRow("squeezenet, classic, float16")
            << "squeezenet"
            << "classic"
            << "float16" << false << 72 << QStringList{} << 8 << QStringList{} << 201;
        // typed: float16 propagates through relu, Pooling, Concat and Dropout, so only data, the
        // 52 parameters and Flatten's output (into SoftmaxOutput) are cast.
        QTest::newRow("squeezenet, typed, float16")
            << "squeezenet"
            << "typed"
            << "float16" << false << 54 << QStringList{} << 0 << QStringList{} << 175;
        QTest::newRow("squeezenet, typed, float16, cast_optional_params")
            << "squeezenet"
            << "typed"
            << "float16" << true << 2 << QStringList{"data_amp_cast_float16", "flatten_0_amp_cast_float32"}
            << 0 << QStringList{} << 123;
        // bfloat16 lists: Concat is neutral; Dropout, Flatten are float32 ops. classic: 70 conv casts,
        // Dropout's and Flatten's inputs to float32, SoftmaxOutput's 2 inputs to float32.
        QTest::newRow("squeezenet, classic, bfloat16")
            << "squeezenet"
            << "classic"
            << "bfloat16" << false << 74 << QStringList{} << 0 << QStringList{} << 195;
        // typed: data + 52 parameters to bfloat16; drop9 casts its input to float32, conv10 casts
        // drop9's output back to bfloat16, flatten casts its input to float32; SoftmaxOutput then
        // reads flatten's known-float32 output as it is.
        QTest::newRow("squeezenet, typed, bfloat16")
            << "squeezenet"
            << "typed"
            << "bfloat16" << false << 56 << QStringList{} << 0 << QStringList{} << 177;
    }
    void castsInserted() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QString, dtype);
        QFETCH(bool, castOptionalParams);
        QFETCH(int, castCount);
        QFETCH(QStringList, casts);
        QFETCH(int, multicastCount);
        QFETCH(QStringList, multicasts);
        QFETCH(int, nodes);
        const Case c = makeCase(model, dtypeNamed(dtype));
        const ConversionResult r =
            convert(c, modeNamed(mode), castOptionalParams, {"data", "softmax_label", "prob_label"});
        const QStringList gotCasts = namesOfOp(r.graph, "amp_cast");
        const QStringList gotMulticasts = namesOfOp(r.graph, "amp_multicast");
        QCOMPARE(gotCasts.size(), castCount);
        if (!casts.isEmpty()) {
            QCOMPARE(gotCasts, sorted(casts));
        }
        QCOMPARE(gotMulticasts.size(), multicastCount);
        if (!multicasts.isEmpty()) {
            QCOMPARE(gotMulticasts, sorted(multicasts));
        }
        QCOMPARE(int(r.graph.size()), nodes);
        QCOMPARE(int(r.report.ampCastCount), castCount);
        QCOMPARE(int(r.report.ampMulticastCount), multicastCount);
        QCOMPARE(int(r.report.nodesAfter), nodes);
        QCOMPARE(r.report.nodesBefore, c.graph.size());
        QCOMPARE(r.graph.attrs, c.graph.attrs);
    }

    void multicastAttributes() {
        const ConversionResult r = convert(makeCase("example2", DType::F16), ConversionMode::Classic);
        const Node* mc = findNode(r.graph, "_plus1_output_amp_multicast");
        QVERIFY(mc != nullptr);
        QCOMPARE(*mc->attr("num_outputs"), std::string("3"));
        QCOMPARE(mc->attrs.size(), std::size_t(1));
        // input i of add_n is output i of the multicast
        const Node* sum = findNode(r.graph, "add_n0");
        QCOMPARE(sum->inputs.size(), std::size_t(3));
        for (uint32_t i = 0; i < 3; ++i) {
            QCOMPARE(r.graph.nodes[sum->inputs[i].node].name, mc->name);
            QCOMPARE(sum->inputs[i].index, i);
        }
        const std::vector<std::string> sources{"_plus1", "data2", "data3"};
        for (uint32_t i = 0; i < 3; ++i) {
            QCOMPARE(r.graph.nodes[mc->inputs[i].node].name, sources[i]);
        }
        const Node* cast = findNode(r.graph, "data_amp_cast_float16");
        QCOMPARE(cast->attrs, (Attributes{{"dtype", "float16"}}));
    }

    // The order MXNet's SaveJSON writes: NNVM's post-order DFS from the outputs, so each cast sits
    // right before its first reader.
    void nnvmOrder_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("order");
        QTest::newRow("example 1, classic") << "example1"
                                            << "classic"
                                            << QStringList{"data",
                                                           "data_amp_cast_float16",
                                                           "cos0",
                                                           "sin0",
                                                           "cos0_0_amp_multicast",
                                                           "_plus0",
                                                           "data_amp_cast_float32",
                                                           "exp0",
                                                           "_plus0_output_amp_multicast",
                                                           "_plus1",
                                                           "sqrt0",
                                                           "_plus1_output_amp_multicast",
                                                           "_plus2"};
        QTest::newRow("example 3, typed") << "example3"
                                          << "typed"
                                          << QStringList{"x",
                                                         "x_amp_cast_float16",
                                                         "y",
                                                         "y_amp_cast_float16",
                                                         "fullyconnected0",
                                                         "fullyconnected0_output_amp_cast_float32",
                                                         "sin0",
                                                         "_plus0"};
        QTest::newRow("mlp, typed") << "mlp"
                                    << "typed" << QStringList{"data",          "data_amp_cast_float16",
                                                              "fc1_weight",    "fc1_weight_amp_cast_float16",
                                                              "fc1_bias",      "fc1_bias_amp_cast_float16",
                                                              "fc1",           "relu1",
                                                              "fc2_weight",    "fc2_weight_amp_cast_float16",
                                                              "fc2_bias",      "fc2_bias_amp_cast_float16",
                                                              "fc2",           "relu2",
                                                              "fc3_weight",    "fc3_weight_amp_cast_float16",
                                                              "fc3_bias",      "fc3_bias_amp_cast_float16",
                                                              "fc3",           "fc3_output_amp_cast_float32",
                                                              "softmax_label", "softmax"};
    }
    void nnvmOrder() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QStringList, order);
        const ConversionResult r = convert(makeCase(model, DType::F16), modeNamed(mode));
        QCOMPARE(nodeNames(r.graph), order);
    }

    void conditionalFp32_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("values");  // the list entry's values for no_bias
        QTest::addColumn<QString>("attr");        // the node's no_bias; "-" for not set
        QTest::addColumn<QStringList>("casts");
        QTest::newRow("classic, True matches") << "classic" << QStringList{"True"} << "True"
                                               << QStringList{"x_amp_cast_float32", "y_amp_cast_float32"};
        QTest::newRow("classic, one of several values")
            << "classic" << QStringList{"False", "True"} << "True"
            << QStringList{"x_amp_cast_float32", "y_amp_cast_float32"};
        QTest::newRow("classic, False does not match")
            << "classic" << QStringList{"False"} << "True" << QStringList{};
        QTest::newRow("classic, unset attribute never matches")
            << "classic" << QStringList{"True"} << "-" << QStringList{};
        QTest::newRow("classic, comparison is exact")
            << "classic" << QStringList{"True"} << "true" << QStringList{};
        // typed: variables are cast too (unlike fp32_ops), and the output is then known float32.
        QTest::newRow("typed, True matches") << "typed" << QStringList{"True"} << "True"
                                             << QStringList{"x_amp_cast_float32", "y_amp_cast_float32"};
        // No match: the FC passes through; its output, of unknown dtype, gets the trailing cast.
        QTest::newRow("typed, False does not match")
            << "typed" << QStringList{"False"} << "True"
            << QStringList{"fullyconnected0_output_amp_cast_float32"};
    }
    void conditionalFp32() {
        QFETCH(QString, mode);
        QFETCH(QStringList, values);
        QFETCH(QString, attr);
        QFETCH(QStringList, casts);
        GraphBuilder b;
        const NodeEntry x = b.addVariable("x");
        const NodeEntry y = b.addVariable("y");
        Attributes attrs{{"num_hidden", "10"}};
        if (attr != "-") {
            attrs["no_bias"] = attr.toStdString();
        }
        const NodeEntry fc = b.addOp("FullyConnected", "fullyconnected0", {x, y}, attrs);
        Case c{b.finish({fc}), AmpLists::defaults(DType::F16)};
        c.lists.targetDtypeOps = {"Convolution"};
        ConditionalFp32Op entry{"FullyConnected", "no_bias", {}};
        for (const QString& v : values) {
            entry.values.push_back(v.toStdString());
        }
        c.lists.conditionalFp32Ops.push_back(entry);
        const ConversionResult r = convert(c, modeNamed(mode));
        QCOMPARE(namesOfOp(r.graph, "amp_cast"), sorted(casts));
        const NodeDecision* d = findDecision(r.report, "fullyconnected0");
        const bool matched = casts.contains("x_amp_cast_float32");
        QCOMPARE(d->precision, matched ? NodePrecision::Float32 : NodePrecision::Unchanged);
        if (matched) {
            QCOMPARE(QString::fromStdString(d->reason()), QString("conditional FP32: no_bias=True"));
        } else {
            QCOMPARE(QString::fromStdString(d->reason()), QString("not in any list; inputs pass through"));
        }
    }

    // Typed mode: a converted graph converts to itself. Classic may add casts again, but the graph
    // stays valid and no cast reads itself.
    void convertingTwice_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dtype");
        for (const char* model : {"example1", "example2", "example3", "mlp", "squeezenet", "lstm_ptb"}) {
            for (const char* dtype : {"float16", "bfloat16"}) {
                QTest::addRow("%s, %s", model, dtype) << model << dtype;
            }
        }
    }
    void convertingTwice() {
        QFETCH(QString, model);
        QFETCH(QString, dtype);
        Case c = makeCase(model, dtypeNamed(dtype));
        for (bool castOptionalParams : {false, true}) {
            const ConversionResult once = convert(c, ConversionMode::Typed, castOptionalParams);
            const Case again{once.graph, c.lists};
            const ConversionResult twice = convert(again, ConversionMode::Typed, castOptionalParams);
            QCOMPARE(nodeNames(twice.graph), nodeNames(once.graph));
            QCOMPARE(twice.report.ampCastCount + twice.report.ampMulticastCount, std::size_t(0));
        }
        const ConversionResult once = convert(c, ConversionMode::Classic);
        const ConversionResult twice = convert(Case{once.graph, c.lists}, ConversionMode::Classic);
        QVERIFY(twice.graph.size() >= once.graph.size());
    }

    // Typed: BatchNorm as a target op casts only its data; gamma and beta stay float32 (its dtype
    // inference wants them so) and the moving statistics are mutable, never cast. Classic casts all.
    void batchNormAsTargetOp_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("castOptionalParams");
        QTest::addColumn<QStringList>("castSources");  // sources of the casts into bn0
        QTest::newRow("typed") << "typed" << false << QStringList{"data"};
        QTest::newRow("typed, cast_optional_params") << "typed" << true << QStringList{"data"};
        QTest::newRow("classic") << "classic" << false
                                 << QStringList{"data", "bn_gamma", "bn_beta", "bn_moving_mean",
                                                "bn_moving_var"};
    }
    void batchNormAsTargetOp() {
        QFETCH(QString, mode);
        QFETCH(bool, castOptionalParams);
        QFETCH(QStringList, castSources);
        GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        std::vector<NodeEntry> inputs{data};
        for (const char* p : {"bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"}) {
            inputs.push_back(b.addVariable(p));
        }
        const NodeEntry bn = b.addOp("BatchNorm", "bn0", inputs, {{"fix_gamma", "False"}});
        const NodeEntry relu = b.addOp("relu", "relu0", {bn});
        Case c{b.finish({relu}), AmpLists::defaults(DType::F16)};
        c.lists.targetDtypeOps.push_back("BatchNorm");
        // Classic casts BatchNorm's float32 parameters to float16, which MXNet's BatchNorm refuses:
        // the dtype check says so (MXNet 1.6.0 writes the same graph and fails when it is bound).
        const bool valid = mode == "typed";
        const ConversionResult r = convert(c, modeNamed(mode), castOptionalParams, {"data"}, valid);
        if (!valid) {
            // Bound with its parameters float32 (their __dtype__: nothing after the pass types them),
            // every cast gives float16, which BatchNorm refuses for gamma and the statistics.
            QCOMPARE(r.report.dtypeCheck.node, std::string("bn0"));
            QCOMPARE(r.report.dtypeCheck.stage, std::string("binding"));
            QCOMPARE(r.report.dtypeCheck.inputs, std::vector<DType>(5, DType::F16));
        }
        const Node* node = findNode(r.graph, "bn0");
        QStringList got;
        const std::vector<std::string> names{"data", "bn_gamma", "bn_beta", "bn_moving_mean",
                                             "bn_moving_var"};
        for (std::size_t i = 0; i < node->inputs.size(); ++i) {
            const Node& in = r.graph.nodes[node->inputs[i].node];
            if (in.op == "amp_cast") {
                QCOMPARE(in.name, names[i] + "_amp_cast_float16");
                got << QString::fromStdString(names[i]);
            } else {
                QCOMPARE(in.name, names[i]);
            }
        }
        QCOMPARE(got, castSources);
        QVERIFY(r.storedInTargetDtype.empty());
        if (mode == "typed") {
            // relu's float16 output propagated; the graph output is cast back to float32.
            QCOMPARE(findDecision(r.report, "relu0")->dtype, DType::F16);
            QVERIFY(findNode(r.graph, "relu0_0_amp_cast_float32") != nullptr);
        }
    }

    void excludedNodes_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("excluded");
        QTest::addColumn<bool>("castOptionalParams");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("reason");
        // fc2 runs in float32: relu1's float16 output is cast up, its variables are read as they
        // are, float32 propagates through relu2, and fc3 casts relu2's output down.
        QTest::newRow("typed, excluded op")
            << "typed"
            << "fc2" << false << QStringList{"relu1_output_amp_cast_float32", "relu2_output_amp_cast_float16"}
            << QStringList{"fc2_weight_amp_cast_float16", "fc2_bias_amp_cast_float16",
                           "fc2_weight_amp_cast_float32"}
            << "float32"
            << "excluded by name; runs in float32";
        QTest::newRow("classic, excluded op")
            << "classic"
            << "fc2" << false << QStringList{"relu2_output_amp_cast_float16"}
            << QStringList{"fc2_weight_amp_cast_float16", "relu1_output_amp_cast_float16",
                           "relu1_output_amp_cast_float32"}
            << "unchanged"
            << "excluded by name; inputs pass through";
        // As in MXNet 1.9.1, an excluded parameter that only a target-dtype op reads is still stored
        // in the target dtype with cast_optional_params (the report warns).
        QTest::newRow("typed, excluded parameter")
            << "typed"
            << "fc1_weight" << true << QStringList{}
            << QStringList{"fc1_weight_amp_cast_float16", "fc1_bias_amp_cast_float16"} << "variable"
            << "excluded by name; its readers take it as float32 (with cast_optional_params MXNet may still store it narrower)";
    }
    void excludedNodes() {
        QFETCH(QString, mode);
        QFETCH(QString, excluded);
        QFETCH(bool, castOptionalParams);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        QFETCH(QString, precision);
        QFETCH(QString, reason);
        Case c = makeCase("mlp", DType::F16);
        ConversionOptions options;
        options.mode = modeNamed(mode);
        options.excludedSymNames = {excluded.toStdString()};
        options.castOptionalParams = castOptionalParams;
        options.dataNames = {"data", "softmax_label"};
        const ConversionResult r = convertGraph(c.graph, options);
        checkStructure(r.graph);
        for (const QString& name : present) {
            QVERIFY2(findNode(r.graph, name.toStdString()) != nullptr, qPrintable(name));
        }
        for (const QString& name : absent) {
            QVERIFY2(findNode(r.graph, name.toStdString()) == nullptr, qPrintable(name));
        }
        const NodeDecision* d = findDecision(r.report, excluded.toStdString());
        QCOMPARE(QString::fromStdString(d->precisionName()), precision);
        QCOMPARE(QString::fromStdString(d->reason()), reason);
        QCOMPARE(d->rule, DecisionRule::Excluded);
        QCOMPARE(r.storedInTargetDtype.count(excluded.toStdString()), std::size_t(castOptionalParams ? 1 : 0));
        if (castOptionalParams) {
            QCOMPARE(r.report.warnings.size(), std::size_t(1));
            QVERIFY(r.report.warnings.front().find("is excluded but stored in float16") != std::string::npos);
        }
    }

    // cast_optional_params stores a parameter in the target dtype only when no node reads it as
    // float32; otherwise (MXNet 1.9.1 would produce a graph failing dtype inference) it is cast.
    void castOptionalParams_data() {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QStringList>("stored");
        QTest::addColumn<QStringList>("casts");
        QTest::addColumn<QString>("warning");
        QTest::newRow("only a target op reads w")
            << "fc" << QStringList{"w"} << QStringList{"data_amp_cast_float16", "fc0_output_amp_cast_float32"}
            << "";
        // MXNet 1.9.1's result is valid (exp takes any float), so it is kept: w is stored in float16
        // and exp reads it so; the report warns.
        QTest::newRow("exp (float32) also reads w, after the FC")
            << "fc,exp" << QStringList{"w"} << QStringList{"data_amp_cast_float16", "fc0_output_amp_cast_float32"}
            << "'w' is stored in float16 as MXNet 1.9.1 stores it, although 'exp0' also reads it as it is";
        QTest::newRow("exp (float32) also reads w, before the FC")
            << "exp,fc" << QStringList{"w"} << QStringList{"data_amp_cast_float16", "fc0_output_amp_cast_float32"}
            << "'w' is stored in float16 as MXNet 1.9.1 stores it, although 'exp0' also reads it as it is";
        // An excluded FullyConnected (float32) also reads w: MXNet 1.9.1's result fails its dtype
        // check (w cannot be float16 for fc0 and float32 for fc1), so the repair treats w as data.
        QTest::newRow("an excluded FC also reads w: repaired")
            << "fc,fcx" << QStringList{}
            << QStringList{"data_amp_cast_float16", "w_amp_cast_float16", "fc0_output_amp_cast_float32"}
            << "'w' is also read as it is by 'fc1'";
        QTest::newRow("w is also a graph output: cast there, no conflict")
            << "fc,head" << QStringList{"w"}
            << QStringList{"data_amp_cast_float16", "fc0_output_amp_cast_float32", "w_amp_cast_float32"}
            << "";
    }
    void castOptionalParams() {
        QFETCH(QString, graph);
        QFETCH(QStringList, stored);
        QFETCH(QStringList, casts);
        QFETCH(QString, warning);
        GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        const NodeEntry w = b.addVariable("w");
        std::vector<NodeEntry> heads;
        for (const QString& part : graph.split(',')) {
            if (part == "fc") {
                heads.push_back(
                    b.addOp("FullyConnected", "fc0", {data, w}, {{"no_bias", "True"}, {"num_hidden", "4"}}));
            } else if (part == "exp") {
                heads.push_back(b.addOp("exp", "exp0", {w}));
            } else if (part == "fcx") {
                heads.push_back(
                    b.addOp("FullyConnected", "fc1", {data, w}, {{"no_bias", "True"}, {"num_hidden", "4"}}));
            } else {
                heads.push_back(w);
            }
        }
        Case c{b.finish(heads), AmpLists::defaults(DType::F16)};
        ConversionResult r;
        if (graph.contains("fcx")) {
            ConversionOptions options;
            options.lists = c.lists;
            options.castOptionalParams = true;
            options.excludedSymNames = {"fc1"};
            r = convertGraph(c.graph, options);
            QVERIFY(r.report.dtypeCheck.passed);
            QVERIFY(!r.report.mxnetFailure.empty());
        } else {
            r = convert(c, ConversionMode::Typed, true);
            QVERIFY(r.report.mxnetFailure.empty());
        }
        QStringList gotStored;
        for (const std::string& s : r.storedInTargetDtype) {
            gotStored << QString::fromStdString(s);
        }
        QCOMPARE(gotStored, stored);
        QCOMPARE(namesOfOp(r.graph, "amp_cast"), sorted(casts));
        const QString warnings = QString::fromStdString(
            std::accumulate(r.report.warnings.begin(), r.report.warnings.end(), std::string(),
                            [](std::string a, const std::string& w) { return a + w + "\n"; }));
        if (warning.isEmpty()) {
            QVERIFY2(warnings.isEmpty(), qPrintable(warnings));
        } else {
            QVERIFY2(warnings.contains(warning), qPrintable(warnings));
        }
        QCOMPARE(findDecision(r.report, "w")->dtype, stored.isEmpty() ? DType::Unknown : DType::F16);
    }

    void errors_data() {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("overlapping lists") << "overlap"
                                           << "typed"
                                           << "\"FullyConnected\" is in both target_dtype_ops and fp32_ops";
        QTest::newRow("widest op without inputs, typed") << "empty widest"
                                                         << "typed"
                                                         << "'empty_sum' (add_n)";
        QTest::newRow("widest op without inputs, classic") << "empty widest"
                                                           << "classic"
                                                           << "'empty_sum' (add_n)";
        QTest::newRow("widest op with mutable inputs") << "mutable widest"
                                                       << "typed"
                                                       << "'bn0' (BatchNorm)";
        QTest::newRow("invalid source graph") << "invalid"
                                              << "typed"
                                              << "invalid source graph";
        QTest::newRow("no outputs") << "no heads"
                                    << "classic"
                                    << "no outputs";
        QTest::newRow("float32 target") << "float32 target"
                                        << "typed"
                                        << "float16 or bfloat16";
    }
    void errors() {
        QFETCH(QString, problem);
        QFETCH(QString, mode);
        QFETCH(QString, fragment);
        ConversionOptions options;
        options.mode = modeNamed(mode);
        Graph g;
        GraphBuilder b;
        const NodeEntry x = b.addVariable("x");
        if (problem == "overlap") {
            options.lists.fp32Ops.push_back("FullyConnected");
            g = b.finish({x});
        } else if (problem == "empty widest") {
            g = b.finish({b.addOp("add_n", "empty_sum", {}, {{"num_args", "0"}})});
        } else if (problem == "mutable widest") {
            std::vector<NodeEntry> in{x};
            for (const char* p : {"g", "b", "m", "v"}) {
                in.push_back(b.addVariable(p));
            }
            options.lists.widestDtypeOps.push_back("BatchNorm");
            g = b.finish({b.addOp("BatchNorm", "bn0", in)});
        } else if (problem == "invalid") {
            g = b.finish({x});
            g.heads = {{5, 0, 0}};
        } else if (problem == "no heads") {
            g = b.finish({});
        } else {
            g = b.finish({x});
            options.lists.targetDtype = DType::F32;
        }
        try {
            convertGraph(g, options);
            QFAIL("conversion succeeded");
        } catch (const ConversionError& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }

    // The report's JSON against the converted graph it describes.
    void reportJson_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("dtype");
        for (const char* model : {"example2", "example3", "mlp", "squeezenet"}) {
            for (const char* mode : {"classic", "typed"}) {
                for (const char* dtype : {"float16", "bfloat16"}) {
                    QTest::addRow("%s, %s, %s", model, mode, dtype) << model << mode << dtype;
                }
            }
        }
    }
    void reportJson() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QString, dtype);
        const Case c = makeCase(model, dtypeNamed(dtype));
        const ConversionResult r = convert(c, modeNamed(mode));
        QJsonParseError error;
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(r.report.toJson()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject o = doc.object();
        for (const char* key : {"nodes_before", "nodes_after", "amp_cast", "amp_multicast", "target_dtype",
                                "mode", "nodes", "casts", "param_bytes_before", "param_bytes_after",
                                "params_known", "warnings", "compute_nodes", "compute_nodes_in_target",
                                "target_share", "unmatchable_list_entries", "stored_in_target_dtype"}) {
            QVERIFY2(o.contains(key), key);
        }
        QCOMPARE(o["mode"].toString(), mode);
        QCOMPARE(o["target_dtype"].toString(), dtype);
        QCOMPARE(o["nodes_before"].toInt(), int(c.graph.size()));
        QCOMPARE(o["nodes_after"].toInt(), int(r.graph.size()));
        QCOMPARE(o["amp_cast"].toInt(), int(namesOfOp(r.graph, "amp_cast").size()));
        QCOMPARE(o["amp_multicast"].toInt(), int(namesOfOp(r.graph, "amp_multicast").size()));
        QCOMPARE(o["nodes_before"].toInt() + o["amp_cast"].toInt() + o["amp_multicast"].toInt(),
                 o["nodes_after"].toInt());
        QCOMPARE(o["params_known"].toBool(), false);
        QCOMPARE(o["param_bytes_before"].toInt(), 0);
        QVERIFY(o["unmatchable_list_entries"].toArray().size() > 0);  // the default lists hold aliases
        const double share = o["target_share"].toDouble();
        QVERIFY(o["compute_nodes"].toInt() > 0);
        QCOMPARE(share, double(o["compute_nodes_in_target"].toInt()) / o["compute_nodes"].toInt());

        const QJsonArray nodes = o["nodes"].toArray();
        QCOMPARE(nodes.size(), qsizetype(c.graph.size()));
        for (qsizetype i = 0; i < nodes.size(); ++i) {
            const QJsonObject n = nodes[i].toObject();
            QCOMPARE(n["name"].toString().toStdString(), c.graph.nodes[i].name);
            QVERIFY(!n["reason"].toString().isEmpty());
            QVERIFY(!n["precision"].toString().isEmpty());
            if (c.graph.nodes[i].isVariable()) {
                QCOMPARE(n["op"].toString(), QString("null"));
                QCOMPARE(n["precision"].toString(), QString("variable"));
            }
        }

        // Every cast: in the graph, with the source and readers it claims.
        std::map<std::string, QStringList> readers;
        for (const Node& n : r.graph.nodes) {
            for (const NodeEntry& e : n.inputs) {
                QStringList& list = readers[r.graph.nodes[e.node].name];
                if (list.isEmpty() || list.back().toStdString() != n.name) {
                    list << QString::fromStdString(n.name);
                }
            }
        }
        const QJsonArray casts = o["casts"].toArray();
        QCOMPARE(casts.size(), qsizetype(o["amp_cast"].toInt() + o["amp_multicast"].toInt()));
        for (const QJsonValue& v : casts) {
            const QJsonObject cast = v.toObject();
            const Node* node = findNode(r.graph, cast["name"].toString().toStdString());
            QVERIFY(node != nullptr);
            QCOMPARE(QString::fromStdString(node->op), cast["op"].toString());
            const Node& source = r.graph.nodes[node->inputs[0].node];
            QCOMPARE(QString::fromStdString(source.name), cast["source"].toString());
            QCOMPARE(int(node->inputs[0].index), cast["source_output"].toInt());
            QCOMPARE(cast["sources"].toArray().size(), qsizetype(node->inputs.size()));
            if (node->op == "amp_cast") {
                QCOMPARE(QString::fromStdString(*node->attr("dtype")), cast["dtype"].toString());
            } else {
                QCOMPARE(cast["dtype"].toString(), QString("widest"));
            }
            QStringList consumers;
            for (const QJsonValue& name : cast["consumers"].toArray()) {
                consumers << name.toString();
            }
            QCOMPARE(sorted(consumers), sorted(readers[node->name]));
            const bool isHead =
                std::any_of(r.graph.heads.begin(), r.graph.heads.end(),
                            [&](const NodeEntry& h) { return &r.graph.nodes[h.node] == node; });
            QCOMPARE(cast["graph_output"].toBool(), isHead);
            QVERIFY(isHead || !consumers.isEmpty());
        }
    }

    void reportReasons_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("reason");
        QTest::newRow("target op") << "mlp"
                                   << "typed"
                                   << "fc1"
                                   << "float16"
                                   << "FullyConnected is in target_dtype_ops";
        QTest::newRow("fp32 op") << "mlp"
                                 << "typed"
                                 << "softmax"
                                 << "float32"
                                 << "SoftmaxOutput is in fp32_ops";
        QTest::newRow("variable") << "mlp"
                                  << "typed"
                                  << "fc1_weight"
                                  << "variable"
                                  << "variable";
        QTest::newRow("relu is in no list") << "mlp"
                                            << "typed"
                                            << "relu1"
                                            << "unchanged"
                                            << "not in any list; inputs pass through";
        QTest::newRow("neutral op") << "squeezenet"
                                    << "typed"
                                    << "pool1"
                                    << "unchanged"
                                    << "Pooling is in neutral_ops; runs in the dtype of its inputs";
        QTest::newRow("widest, resolved") << "example3"
                                          << "typed"
                                          << "_plus0"
                                          << "float32"
                                          << "widest-type op; inputs float16 and float32 → float32";
        QTest::newRow("widest, all target") << "squeezenet"
                                            << "typed"
                                            << "fire2_concat"
                                            << "float16"
                                            << "widest-type op; inputs float16 → float16";
        QTest::newRow("widest, unknown input")
            << "example2"
            << "typed"
            << "add_n0"
            << "widest"
            << "widest-type op; input dtypes not all known → amp_multicast";
        QTest::newRow("widest, classic")
            << "example3"
            << "classic"
            << "_plus0"
            << "widest"
            << "widest-type op; amp_multicast to the widest input dtype at run time";
    }
    void reportReasons() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QString, node);
        QFETCH(QString, precision);
        QFETCH(QString, reason);
        const ConversionResult r = convert(makeCase(model, DType::F16), modeNamed(mode));
        const NodeDecision* d = findDecision(r.report, node.toStdString());
        QVERIFY(d != nullptr);
        QCOMPARE(QString::fromStdString(d->precisionName()), precision);
        QCOMPARE(QString::fromStdString(d->reason()), reason);
    }

    // MXNet 1.9.1's stale-dtype bug, by hand: fc1 casts relu0's output to float16, so the pass
    // believes relu0 is float16 and types flatten0 (which reads relu0 as it is, float32) float16 too;
    // fc2 then reads flatten0 uncast next to its float16 weight, and MXNet's InferType refuses
    // (FullyConnected needs one dtype). The conversion says so and repairs exactly that read:
    // flatten0 reads MXNet's own cast of relu0.
    void staleDtypeIsRepaired() {
        const ConversionResult r = convert(staleDtypeCase(true), ConversionMode::Typed);
        const ConversionReport& report = r.report;
        QVERIFY(!report.mxnetFailure.empty());
        QVERIFY2(report.mxnetFailure.find("fc2") != std::string::npos, report.mxnetFailure.c_str());
        QCOMPARE(report.mxnetDifferences.size(), std::size_t(1));
        const MxnetDifference& d = report.mxnetDifferences[0];
        QCOMPARE(d.node, std::string("flatten0"));
        QCOMPARE(d.input, 0u);
        QCOMPARE(d.source, std::string("relu0_0"));
        QCOMPARE(d.sourceDtype, DType::F32);
        QCOMPARE(d.neededDtype, DType::F16);
        QCOMPARE(d.cast, std::string("relu0_0_amp_cast_float16"));
        // The graph: flatten0 reads the cast fc1 reads; fc2 reads flatten0 uncast (float16 now).
        const Node* flatten = findNode(r.graph, "flatten0");
        QCOMPARE(r.graph.nodes[flatten->inputs[0].node].name, std::string("relu0_0_amp_cast_float16"));
        const Node* fc2Node = findNode(r.graph, "fc2");
        QCOMPARE(r.graph.nodes[fc2Node->inputs[0].node].name, std::string("flatten0"));
        // No other cast than MXNet's: the repair reuses the one there is.
        QCOMPARE(report.ampCastCount, std::size_t(5));  // relu0, two weights, two output casts
        const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson())).object();
        QCOMPARE(json["dtype_check"].toObject()["passed"].toBool(), true);
        const QJsonObject mxnet = json["mxnet_1_9_1"].toObject();
        QCOMPARE(mxnet["result_valid"].toBool(), false);
        QCOMPARE(mxnet["differences"].toArray().size(), 1);
        QCOMPARE(mxnet["differences"].toArray()[0].toObject()["node"].toString(), QString("flatten0"));
    }

    // Where MXNet 1.9.1's own result is valid, nothing is repaired, even with a stale belief: the
    // believed-float16 flatten0 only feeds a graph output, which gets its float32 cast.
    void staleDtypeThatMxnetSurvivesIsKept() {
        const ConversionResult r = convert(staleDtypeCase(false), ConversionMode::Typed);
        QVERIFY(r.report.mxnetFailure.empty());
        QVERIFY(r.report.mxnetDifferences.empty());
        QCOMPARE(r.graph.nodes[findNode(r.graph, "flatten0")->inputs[0].node].name, std::string("relu0"));
    }

    // Ops MXNet 1.9.1 cannot type from input 0 (no FInferType: _contrib_AdaptiveAvgPooling2D; gives
    // up with an unknown second input: slice_like): their outputs have no known dtype, so the next
    // float16 consumer casts again, as MXNet does.
    void opsWithoutDtypeInference_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<bool>("secondInput");
        QTest::addColumn<bool>("castAgain");
        QTest::newRow("AdaptiveAvgPooling2D") << "_contrib_AdaptiveAvgPooling2D" << false << true;
        QTest::newRow("slice_like") << "slice_like" << true << true;
        QTest::newRow("Pooling (typed)") << "Pooling" << false << false;
    }
    void opsWithoutDtypeInference() {
        QFETCH(QString, op);
        QFETCH(bool, secondInput);
        QFETCH(bool, castAgain);
        GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        const NodeEntry w1 = b.addVariable("conv1_weight");
        const NodeEntry conv1 = b.addOp("Convolution", "conv1", {data, w1}, {{"kernel", "(1,1)"}, {"num_filter", "4"}, {"no_bias", "True"}});
        std::vector<NodeEntry> inputs{conv1};
        if (secondInput) {
            inputs.push_back(data);
        }
        Attributes attrs;
        if (op == "Pooling") {
            attrs = {{"kernel", "(1,1)"}, {"pool_type", "avg"}};
        }
        const NodeEntry mid = b.addOp(op.toStdString(), "mid", inputs, attrs);
        const NodeEntry w2 = b.addVariable("conv2_weight");
        const NodeEntry conv2 = b.addOp("Convolution", "conv2", {mid, w2}, {{"kernel", "(1,1)"}, {"num_filter", "4"}, {"no_bias", "True"}});
        const Case c{b.finish({conv2}), AmpLists::defaults(DType::F16)};
        const ConversionResult r = convert(c, ConversionMode::Typed);
        QCOMPARE(findNode(r.graph, "mid_0_amp_cast_float16") != nullptr || findNode(r.graph, "mid_output_amp_cast_float16") != nullptr,
                 castAgain);
        QVERIFY(r.report.mxnetFailure.empty());
    }

    void typedPropagatesDtypes() {
        const ConversionResult r = convert(makeCase("mlp", DType::F16), ConversionMode::Typed);
        QCOMPARE(findDecision(r.report, "relu1")->dtype, DType::F16);
        QCOMPARE(findDecision(r.report, "relu2")->dtype, DType::F16);
        // 3 FC + 2 relu of 6 compute nodes run in float16.
        QCOMPARE(r.report.computeNodes, std::size_t(6));
        QCOMPARE(r.report.computeNodesInTarget, std::size_t(5));
    }

    // The report's names are views into storage that its copies share: a copy stays whole after the
    // conversion it came from, graph and all, is gone (the GUI keeps reports longer than results).
    void reportCopiesOutliveTheConversion() {
        for (ConversionMode mode : {ConversionMode::Classic, ConversionMode::Typed}) {
            ConversionReport copy;
            std::string expected;
            {
                const ConversionResult r = convert(makeCase("lstm_ptb", DType::F16), mode);
                copy = r.report;
                expected = r.report.toJson();
            }
            QCOMPARE(copy.toJson(), expected);
            QVERIFY(copy.ampCastCount > 0);
            for (const CastRecord& c : copy.casts) {
                QVERIFY(c.name.starts_with(c.source.node));
                QCOMPARE(c.multicastSources.empty(), c.op == "amp_cast");
            }
        }
    }

    void unreachableNodesAreDropped() {
        GraphBuilder b;
        const NodeEntry x = b.addVariable("x");
        const NodeEntry w = b.addVariable("w");
        b.addOp("FullyConnected", "dead_fc", {x, w}, {{"no_bias", "True"}, {"num_hidden", "2"}});
        const NodeEntry r0 = b.addOp("relu", "relu0", {x});
        const Case c{b.finish({r0}), AmpLists::defaults(DType::F16)};
        for (ConversionMode mode : {ConversionMode::Classic, ConversionMode::Typed}) {
            const ConversionResult r = convert(c, mode, true);
            QVERIFY(findNode(r.graph, "dead_fc") == nullptr);
            QVERIFY(findNode(r.graph, "w_amp_cast_float16") == nullptr);
            QVERIFY(r.storedInTargetDtype.empty());
            QCOMPARE(findDecision(r.report, "dead_fc")->rule, DecisionRule::Unreachable);
        }
    }

    // Entries with a non-zero version (NNVM's mutation counter) are distinct sources of casts.
    void entryVersionsAreDistinct() {
        GraphBuilder b;
        const NodeEntry x = b.addVariable("x");
        const NodeEntry s0 = b.addOp("sin", "sin0", {x});
        const NodeEntry s1 = b.addOp("sin", "sin1", {NodeEntry{x.node, 0, 1}});
        const NodeEntry s2 = b.addOp("sin", "sin2", {x});
        Case c{b.finish({s0, s1, s2}), AmpLists::defaults(DType::F16)};
        c.lists.targetDtypeOps = {"sin"};
        const ConversionResult r = convert(c, ConversionMode::Classic);
        QCOMPARE(namesOfOp(r.graph, "amp_cast").size(), 2);  // one per version, shared by sin0 and sin2
        const Node* sin1 = findNode(r.graph, "sin1");
        QCOMPARE(r.graph.nodes[sin1->inputs[0].node].inputs[0].version, 1u);
    }

    void paramCasting_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("float16") << "float16";
        QTest::newRow("bfloat16") << "bfloat16";
    }
    void paramCasting() {
        QFETCH(QString, dtype);
        const DType target = dtypeNamed(dtype);
        NDArrayList params = readNDArrayListFile(AMS_TEST_FIXTURES_DIR "/ndarray_list/mxnet_mlp_f32.params");
        // an extra float64 array named like a parameter to store: left alone, with a warning
        NDArrayRecord f64;
        f64.name = "arg:fc2_weight";
        f64.dtype = DType::F64;
        f64.shape = {1};
        f64.data.resize(8);
        params.arrays.push_back(f64);
        const std::size_t before = params.payloadBytes();
        ConversionReport report;
        applyParamCasting(params, {"fc1_weight", "fc1_bias", "fc2_weight", "absent"}, target, report);
        QVERIFY(report.paramsKnown);
        QCOMPARE(report.paramBytesBefore, uint64_t(before));
        QCOMPARE(report.paramBytesAfter, uint64_t(before - 16 * 2));  // 12 + 4 floats halved
        QCOMPARE(report.paramBytesAfter, uint64_t(params.payloadBytes()));
        const NDArrayRecord& w = params.arrays[params.find("fc1_weight")];
        QCOMPARE(w.dtype, target);
        QCOMPARE(w.data.size(), std::size_t(12 * 2));
        for (int i = 0; i < 12; ++i) {  // arange(12) is exact in both formats
            uint16_t bits;
            std::memcpy(&bits, w.data.data() + 2 * i, 2);
            const float value = target == DType::F16 ? halfBitsToFloat(bits) : bfloat16BitsToFloat(bits);
            QCOMPARE(value, float(i));
        }
        QCOMPARE(params.arrays[params.find("bn_moving_mean")].dtype, DType::F32);
        QCOMPARE(params.arrays[params.find("fc2_weight")].dtype, DType::F64);
        QCOMPARE(report.warnings.size(), std::size_t(2));
        QVERIFY(QString::fromStdString(report.warnings[0]).contains("float64"));
        QVERIFY(QString::fromStdString(report.warnings[1]).contains("'absent'"));
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(report.toJson())).object();
        QCOMPARE(o["params_known"].toBool(), true);
        QCOMPARE(o["param_bytes_after"].toInt(), int(before - 32));
    }

    // cast_optional_params end to end: the MLP's six parameters, as the conversion decided.
    void mlpParametersStoredInFloat16() {
        const ConversionResult r =
            convert(makeCase("mlp", DType::F16), ConversionMode::Typed, true, {"data", "softmax_label"});
        const std::set<std::string> expected{"fc1_weight", "fc1_bias",   "fc2_weight",
                                             "fc2_bias",   "fc3_weight", "fc3_bias"};
        QCOMPARE(r.storedInTargetDtype, expected);
        QCOMPARE(r.report.storedInTargetDtype, std::vector<std::string>(expected.begin(), expected.end()));
        QCOMPARE(QString::fromStdString(findDecision(r.report, "fc1_weight")->reason()),
                 QString("variable; parameter stored in float16 (cast_optional_params)"));
        // Each FC reads its parameters directly.
        const Node* fc1 = findNode(r.graph, "fc1");
        QCOMPARE(r.graph.nodes[fc1->inputs[1].node].name, std::string("fc1_weight"));
    }

    // Classic mode with cast_optional_params: the pass casts every parameter as MXNet 1.6.0 does;
    // MXNet's AMPInferUnknown then stores each parameter that only float16 casts read in float16,
    // so those casts do nothing at run time.
    void classicCastOptionalParams() {
        const ConversionResult r = convert(makeCase("mlp", DType::F16), ConversionMode::Classic, true,
                                           {"data", "softmax_label"});
        const std::set<std::string> expected{"fc1_weight", "fc1_bias",   "fc2_weight",
                                             "fc2_bias",   "fc3_weight", "fc3_bias"};
        QCOMPARE(r.storedInTargetDtype, expected);
        QVERIFY(r.report.warnings.empty());
        QCOMPARE(namesOfOp(r.graph, "amp_cast").size(), 11);
        QCOMPARE(*findNode(r.graph, "fc1_weight")->attr("__dtype__"), std::string("2"));
    }

    // MXNet's convert_symbol marks every model parameter with the dtype its inference after the
    // pass gives it (float32 where nothing does); data inputs get no mark.
    void parametersCarryMxnetDtypeMarks() {
        const ConversionResult r = convert(makeCase("mlp", DType::F16), ConversionMode::Typed, false,
                                           {"data", "softmax_label"});
        QVERIFY(r.storedInTargetDtype.empty());
        QCOMPARE(*findNode(r.graph, "fc1_weight")->attr("__dtype__"), std::string("0"));
        QCOMPARE(findNode(r.graph, "data")->attr("__dtype__"), nullptr);
        QCOMPARE(findNode(r.graph, "softmax_label")->attr("__dtype__"), nullptr);
    }
};

QTEST_GUILESS_MAIN(TestAmpConversion)
#include "test_amp_conversion.moc"
