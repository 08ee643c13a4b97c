// The bundled examples (resources/examples/, File → Examples in the GUI): every file loads, the
// parameters match the graph, and the conversion does what DESIGN.md section 4 says to each, in both
// modes. Expected casts are hand-traced from the rules with MXNet 1.9.1's default float16 lists.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

#include "amp/conversion.h"
#include "amp/param_casting.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"
#include "graph_queries.h"
#include "ops/variable_roles.h"

using namespace ampstudio;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(AMS_SOURCE_DIR) / "resources" / "examples";

// Every bundled model: the symbol file's prefix and whether a -0000.params sibling comes with it.
struct Example {
    const char* prefix;
    bool hasParams;
};
constexpr Example kBundled[] = {
    {"mlp", false},
    {"proposal-example1", false},
    {"proposal-example2", false},
    {"small-cnn", true},
};

Graph loadExample(const QString& prefix) {
    return readSymbolJsonFile(kExamples / (prefix.toStdString() + "-symbol.json"));
}

// "name=op(input, input)" per node, inputs by node name ("name:i" for an output other than 0);
// variables are "name".
QStringList structure(const Graph& g) {
    QStringList lines;
    for (const Node& n : g.nodes) {
        QString line = QString::fromStdString(n.name);
        if (!n.isVariable()) {
            QStringList inputs;
            for (const NodeEntry& e : n.inputs) {
                QString input = QString::fromStdString(g.node(e).name);
                if (e.index != 0) {
                    input += ":" + QString::number(e.index);
                }
                inputs << input;
            }
            line += "=" + QString::fromStdString(n.op) + "(" + inputs.join(", ") + ")";
        }
        lines << line;
    }
    return lines;
}

QStringList sorted(QStringList l) {
    l.sort();
    return l;
}

// The AMP proposal's own lists for its two examples (as tests/engine/test_amp_conversion.cpp uses them).
AmpLists proposalLists(const QString& example) {
    AmpLists lists = AmpLists::defaults(DType::F16);
    if (example == "proposal-example1") {
        lists.targetDtypeOps = {"sin", "cos"};
        lists.fp32Ops = {"exp", "sqrt"};
    } else {
        lists.targetDtypeOps = {"sin", "cos", "exp"};
        lists.fp32Ops = {"elemwise_add"};
        lists.widestDtypeOps = {"add_n"};
    }
    return lists;
}

}  // namespace

class TestExamples : public QObject {
    Q_OBJECT
private slots:
    // A file added to resources/examples/ without a row here fails, so every bundled model is tested.
    void everyFileIsListed() {
        std::set<std::string> listed;
        for (const Example& e : kBundled) {
            listed.insert(std::string(e.prefix) + "-symbol.json");
            if (e.hasParams) {
                listed.insert(std::string(e.prefix) + "-0000.params");
            }
        }
        std::set<std::string> found;
        for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
            const std::string name = entry.path().filename().string();
            if (name.ends_with("-symbol.json") || name.ends_with(".params")) {
                found.insert(name);
            }
        }
        QCOMPARE(found, listed);
    }

    void loads_data() {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<bool>("hasParams");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("variables");
        QTest::addColumn<int>("mxnetVersion");
        QTest::newRow("mlp") << "mlp" << false << 14 << 8 << 10400;
        QTest::newRow("proposal example 1") << "proposal-example1" << false << 8 << 1 << 10901;
        QTest::newRow("proposal example 2") << "proposal-example2" << false << 9 << 3 << 10901;
        // data, softmax_label, 2 x (conv weight, bias), 2 x (gamma, beta, moving mean, moving var),
        // 2 x (fc weight, bias); 13 operators.
        QTest::newRow("small cnn") << "small-cnn" << true << 31 << 18 << 10901;
    }
    void loads() {
        QFETCH(QString, prefix);
        QFETCH(bool, hasParams);
        QFETCH(int, nodes);
        QFETCH(int, variables);
        QFETCH(int, mxnetVersion);
        const Graph g = loadExample(prefix);
        g.validate();
        QCOMPARE(int(g.size()), nodes);
        QCOMPARE(int(g.argNodes().size()), variables);
        QCOMPARE(QString::fromStdString(g.attrs.at("mxnet_version")),
                 QString("[\"int\",%1]").arg(mxnetVersion));
        // Saving and loading again changes nothing.
        const Graph again = parseSymbolJson(serializeSymbolJson(g), "round trip");
        QCOMPARE(structure(again), structure(g));

        const std::filesystem::path params = kExamples / (prefix.toStdString() + "-0000.params");
        QCOMPARE(std::filesystem::exists(params), hasParams);
    }

    // The checkpoint holds exactly the graph's parameters (arg:) and auxiliary states (aux:), float32,
    // with non-empty shapes whose sizes match the payloads.
    void paramsMatchGraph() {
        for (const Example& e : kBundled) {
            if (!e.hasParams) {
                continue;
            }
            const Graph g = loadExample(e.prefix);
            const NDArrayList params =
                readNDArrayListFile(kExamples / (std::string(e.prefix) + "-0000.params"));
            QVERIFY(params.named);
            const std::vector<VariableRole> roles = classifyVariables(g);
            std::set<std::string> expected;
            for (NodeId id : g.argNodes()) {
                const std::string& name = g.nodes[id].name;
                if (roles[id] == VariableRole::Parameter) {
                    expected.insert("arg:" + name);
                } else if (roles[id] == VariableRole::AuxiliaryState) {
                    expected.insert("aux:" + name);
                }
            }
            std::set<std::string> stored;
            for (const NDArrayRecord& r : params.arrays) {
                QVERIFY2(stored.insert(r.name).second, r.name.c_str());
                QVERIFY2(r.name.starts_with("arg:") || r.name.starts_with("aux:"), r.name.c_str());
                QVERIFY2(!r.isNone && !r.shape.empty(), r.name.c_str());
                QVERIFY2(std::all_of(r.shape.begin(), r.shape.end(), [](int64_t d) { return d > 0; }),
                         r.name.c_str());
                QCOMPARE(r.dtype, DType::F32);
                QCOMPARE(r.data.size(), std::size_t(r.elementCount()) * dtypeSize(r.dtype));
                const auto variable = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) {
                    return n.isVariable() && n.name == r.bareName();
                });
                QVERIFY2(variable != g.nodes.end(), r.name.c_str());
            }
            QCOMPARE(stored, expected);
        }
    }

    void smallCnnShapes() {
        const NDArrayList params = readNDArrayListFile(kExamples / "small-cnn-0000.params");
        auto shape = [&](const char* name) {
            const int i = params.find(name);
            return i < 0 ? std::vector<int64_t>{} : params.arrays[std::size_t(i)].shape;
        };
        QCOMPARE(shape("conv1_weight"), (std::vector<int64_t>{20, 1, 5, 5}));
        QCOMPARE(shape("conv2_weight"), (std::vector<int64_t>{50, 20, 5, 5}));
        QCOMPARE(shape("bn2_moving_var"), (std::vector<int64_t>{50}));
        // 28 -conv5-> 24 -pool2-> 12 -conv5-> 8 -pool2-> 4: 50 x 4 x 4 = 800 inputs to fc1.
        QCOMPARE(shape("fc1_weight"), (std::vector<int64_t>{500, 800}));
        QCOMPARE(shape("fc2_weight"), (std::vector<int64_t>{10, 500}));
        QCOMPARE(params.payloadBytes(), std::size_t(431360 * 4));
    }

    // The generated proposal graphs are node for node proposalExample1() / proposalExample2() of
    // test_amp_conversion.cpp.
    void proposalStructure_data() {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QStringList>("nodes");
        QTest::newRow("example 1") << "proposal-example1"
                                   << QStringList{"data",
                                                  "cos0=cos(data)",
                                                  "sin0=sin(data)",
                                                  "_plus0=elemwise_add(cos0, sin0)",
                                                  "exp0=exp(data)",
                                                  "_plus1=elemwise_add(_plus0, exp0)",
                                                  "sqrt0=sqrt(data)",
                                                  "_plus2=elemwise_add(_plus1, sqrt0)"};
        QTest::newRow("example 2") << "proposal-example2"
                                   << QStringList{"data",
                                                  "exp0=exp(data)",
                                                  "sin0=sin(data)",
                                                  "_plus0=elemwise_add(exp0, sin0)",
                                                  "cos0=cos(data)",
                                                  "_plus1=elemwise_add(_plus0, cos0)",
                                                  "data2",
                                                  "data3",
                                                  "add_n0=add_n(_plus1, data2, data3)"};
    }
    void proposalStructure() {
        QFETCH(QString, prefix);
        QFETCH(QStringList, nodes);
        const Graph g = loadExample(prefix);
        QCOMPARE(structure(g), nodes);
        QCOMPARE(g.heads.size(), std::size_t(1));
        QCOMPARE(g.heads[0].node, NodeId(g.size() - 1));
    }

    // Default float16 lists of MXNet 1.9.1: sin, cos, sqrt, BatchNorm, Pooling, Flatten are neutral;
    // exp and SoftmaxOutput are FP32 ops; elemwise_add and add_n widest; Convolution and
    // FullyConnected target ops; Activation is conditional FP32 only for act_type=softrelu.
    void convert_data() {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("lists");  // "default" (MXNet 1.9.1 float16) or "proposal"
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("casts");
        QTest::addColumn<QStringList>("multicasts");
        QTest::addColumn<int>("nodesAfter");

        // Example 1, classic: no rule for cos/sin/sqrt (neutral, copied); exp casts data to float32
        // (rule 1, variables too); each of the three sums gets its multicast (rule 3).
        const QStringList example1Multicasts{"cos0_0_amp_multicast", "_plus0_output_amp_multicast",
                                             "_plus1_output_amp_multicast"};
        QTest::newRow("example 1, classic")
            << "proposal-example1"
            << "default"
            << "classic" << QStringList{"data_amp_cast_float32"} << example1Multicasts << 12;
        // Typed: exp reads the variable as it is (assumed float32); cos/sin/sqrt of an unknown
        // variable stay unknown, so every sum still needs a multicast; the output, not known float32,
        // gets the trailing cast.
        QTest::newRow("example 1, typed")
            << "proposal-example1"
            << "default"
            << "typed" << QStringList{"_plus2_output_amp_cast_float32"} << example1Multicasts << 12;
        // Example 2, classic: exp casts data to float32; the two sums and add_n multicast.
        const QStringList example2Multicasts{"exp0_0_amp_multicast", "_plus0_output_amp_multicast",
                                             "_plus1_output_amp_multicast"};
        QTest::newRow("example 2, classic")
            << "proposal-example2"
            << "default"
            << "classic" << QStringList{"data_amp_cast_float32"} << example2Multicasts << 13;
        // Typed: exp0 is known float32 but sin0 is not, so _plus0 multicasts, and the unknown dtype
        // propagates to _plus1 and add_n (whose variables are unknown anyway); add_n's output (it
        // names no outputs: suffix _0) gets the trailing cast.
        QTest::newRow("example 2, typed")
            << "proposal-example2"
            << "default"
            << "typed" << QStringList{"add_n0_0_amp_cast_float32"} << example2Multicasts << 13;

        // Cross-check with the proposal's own lists: the same counts test_amp_conversion.cpp expects
        // of the graphs it builds by hand.
        QTest::newRow("example 1, classic, proposal lists")
            << "proposal-example1"
            << "proposal"
            << "classic" << QStringList{"data_amp_cast_float16", "data_amp_cast_float32"}
            << example1Multicasts << 13;
        QTest::newRow("example 1, typed, proposal lists")
            << "proposal-example1"
            << "proposal"
            << "typed" << QStringList{"data_amp_cast_float16", "_plus0_output_amp_cast_float32"}
            << QStringList{} << 10;
        QTest::newRow("example 2, classic, proposal lists")
            << "proposal-example2"
            << "proposal"
            << "classic"
            << QStringList{"data_amp_cast_float16", "exp0_0_amp_cast_float32", "sin0_0_amp_cast_float32",
                           "_plus0_output_amp_cast_float32", "cos0_0_amp_cast_float32"}
            << QStringList{"_plus1_output_amp_multicast"} << 15;
        QTest::newRow("example 2, typed, proposal lists")
            << "proposal-example2"
            << "proposal"
            << "typed"
            << QStringList{"data_amp_cast_float16", "exp0_0_amp_cast_float32", "sin0_0_amp_cast_float32",
                           "cos0_0_amp_cast_float32", "add_n0_0_amp_cast_float32"}
            << QStringList{"_plus1_output_amp_multicast"} << 15;

        // Small CNN, classic: each Convolution/FullyConnected casts its three inputs to float16 (4 x 3;
        // only conv1's data input is a variable), SoftmaxOutput its two to float32. 31 + 14 nodes.
        QTest::newRow("small cnn, classic")
            << "small-cnn"
            << "default"
            << "classic" << QStringList{"data_amp_cast_float16",         "conv1_weight_amp_cast_float16",
                                        "conv1_bias_amp_cast_float16",   "pool1_output_amp_cast_float16",
                                        "conv2_weight_amp_cast_float16", "conv2_bias_amp_cast_float16",
                                        "flatten_0_amp_cast_float16",    "fc1_weight_amp_cast_float16",
                                        "fc1_bias_amp_cast_float16",     "relu3_output_amp_cast_float16",
                                        "fc2_weight_amp_cast_float16",   "fc2_bias_amp_cast_float16",
                                        "fc2_output_amp_cast_float32",   "softmax_label_amp_cast_float32"}
            << QStringList{} << 45;
        // Typed: float16 propagates through BatchNorm, relu, Pooling and Flatten, so only data, the 8
        // weights and biases, and fc2's output (into SoftmaxOutput) are cast; the label is read as it is
        // and the output is known float32. 31 + 10 nodes.
        QTest::newRow("small cnn, typed")
            << "small-cnn"
            << "default"
            << "typed" << QStringList{"data_amp_cast_float16",       "conv1_weight_amp_cast_float16",
                                      "conv1_bias_amp_cast_float16", "conv2_weight_amp_cast_float16",
                                      "conv2_bias_amp_cast_float16", "fc1_weight_amp_cast_float16",
                                      "fc1_bias_amp_cast_float16",   "fc2_weight_amp_cast_float16",
                                      "fc2_bias_amp_cast_float16",   "fc2_output_amp_cast_float32"}
            << QStringList{} << 41;

        // The MLP: the counts of test_amp_conversion.cpp.
        QTest::newRow("mlp, classic")
            << "mlp"
            << "default"
            << "classic" << QStringList{"data_amp_cast_float16",         "fc1_weight_amp_cast_float16",
                                        "fc1_bias_amp_cast_float16",     "relu1_output_amp_cast_float16",
                                        "fc2_weight_amp_cast_float16",   "fc2_bias_amp_cast_float16",
                                        "relu2_output_amp_cast_float16", "fc3_weight_amp_cast_float16",
                                        "fc3_bias_amp_cast_float16",     "fc3_output_amp_cast_float32",
                                        "softmax_label_amp_cast_float32"}
            << QStringList{} << 25;
        QTest::newRow("mlp, typed") << "mlp"
                                    << "default"
                                    << "typed"
                                    << QStringList{"data_amp_cast_float16",     "fc1_weight_amp_cast_float16",
                                                   "fc1_bias_amp_cast_float16", "fc2_weight_amp_cast_float16",
                                                   "fc2_bias_amp_cast_float16", "fc3_weight_amp_cast_float16",
                                                   "fc3_bias_amp_cast_float16", "fc3_output_amp_cast_float32"}
                                    << QStringList{} << 22;
    }
    void convert() {
        QFETCH(QString, prefix);
        QFETCH(QString, lists);
        QFETCH(QString, mode);
        QFETCH(QStringList, casts);
        QFETCH(QStringList, multicasts);
        QFETCH(int, nodesAfter);
        const Graph source = loadExample(prefix);
        ConversionOptions options;
        if (lists == "proposal") {
            options.lists = proposalLists(prefix);
        }
        options.mode = *conversionModeFromName(mode.toStdString());
        const ConversionResult r = convertGraph(source, options);
        r.graph.validate();
        QCOMPARE(namesOfOp(r.graph, "amp_cast"), sorted(casts));
        QCOMPARE(namesOfOp(r.graph, "amp_multicast"), sorted(multicasts));
        QCOMPARE(int(r.graph.size()), nodesAfter);
        QCOMPARE(int(r.report.ampCastCount), int(casts.size()));
        QCOMPARE(int(r.report.ampMulticastCount), int(multicasts.size()));
        QCOMPARE(int(r.report.nodesBefore), int(source.size()));
        QCOMPARE(r.report.nodes.size(), source.size());
        QCOMPARE(r.report.casts.size(), std::size_t(casts.size() + multicasts.size()));
        QVERIFY(r.report.warnings.empty());
        // The converted file loads back as it was saved.
        const Graph again =
            parseSymbolJson(serializeSymbolJson(r.graph), "converted " + prefix.toStdString());
        QCOMPARE(structure(again), structure(r.graph));
    }

    // cast_optional_params on the CNN with its checkpoint: the 8 convolution and fully-connected
    // weights and biases (431,080 of the 431,360 values) are stored in float16; BatchNorm's 280
    // float32 values are untouched. Only data and fc2's output are still cast at run time.
    void smallCnnCastOptionalParams() {
        const Graph source = loadExample("small-cnn");
        NDArrayList params = readNDArrayListFile(kExamples / "small-cnn-0000.params");
        ConversionOptions options;
        options.castOptionalParams = true;
        ConversionResult r = convertGraph(source, options);
        QCOMPARE(namesOfOp(r.graph, "amp_cast"),
                 sorted({"data_amp_cast_float16", "fc2_output_amp_cast_float32"}));
        QCOMPARE(r.storedInTargetDtype,
                 (std::set<std::string>{"conv1_bias", "conv1_weight", "conv2_bias", "conv2_weight",
                                        "fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"}));
        applyParamCasting(params, r.storedInTargetDtype, DType::F16, r.report);
        QVERIFY(r.report.paramsKnown);
        QCOMPARE(r.report.paramBytesBefore, uint64_t(431360 * 4));
        QCOMPARE(r.report.paramBytesAfter, uint64_t(431080 * 2 + 280 * 4));
        QVERIFY(r.report.warnings.empty());
        QCOMPARE(params.arrays[std::size_t(params.find("fc1_weight"))].dtype, DType::F16);
        QCOMPARE(params.arrays[std::size_t(params.find("bn1_gamma"))].dtype, DType::F32);
    }
};

QTEST_GUILESS_MAIN(TestExamples)
#include "test_examples.moc"
