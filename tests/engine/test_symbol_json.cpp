// MXNet symbol JSON: the real files load as MXNet loads them, saving reproduces MXNet's bytes, legacy
// files upgrade as MXNet's own test (test_load_000800) expects, load -> save -> load is the identity,
// and hostile input is a LoadError naming the place, never a crash, a hang or a huge allocation.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "formats/load_error.h"
#include "formats/symbol_json.h"

using namespace ampstudio;

namespace {

const std::filesystem::path kMxnet = std::filesystem::path(AMS_TESTDATA_DIR) / "mxnet";
const std::filesystem::path kFixtures = std::filesystem::path(AMS_TEST_FIXTURES_DIR) / "symbol_json";

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Graph loadMxnet(const QString& file) {
    return readSymbolJsonFile(kMxnet / file.toStdString());
}

const Node* find(const Graph& g, std::string_view name) {
    for (const Node& n : g.nodes) {
        if (n.name == name) {
            return &n;
        }
    }
    return nullptr;
}

NodeId idOf(const Graph& g, std::string_view name) {
    for (NodeId id = 0; id < g.size(); ++id) {
        if (g.nodes[id].name == name) {
            return id;
        }
    }
    return ~NodeId{0};
}

// "Activation 2, FullyConnected 3, null 8": op names sorted, as a readable comparison.
QString opCounts(const Graph& g) {
    std::map<std::string, int> counts;
    for (const Node& n : g.nodes) {
        ++counts[n.isVariable() ? "null" : n.op];
    }
    QStringList parts;
    for (const auto& [op, count] : counts) {
        parts << q(op) + " " + QString::number(count);
    }
    return parts.join(", ");
}

// Everything the IR holds about a node, so that a mismatch prints the whole node.
QString describe(const Node& n) {
    QString s = q(n.op) + " '" + q(n.name) + "' outputs=" + QString::number(n.numOutputs) + " attrs={";
    for (const auto& [k, v] : n.attrs) {
        s += q(k) + "=" + q(v) + ";";
    }
    s += "} inputs=[";
    for (const NodeEntry& e : n.inputs) {
        s += QString("(%1,%2,%3)").arg(e.node).arg(e.index).arg(e.version);
    }
    s += "] deps=[";
    for (NodeId d : n.controlDeps) {
        s += QString::number(d) + ",";
    }
    s += "] subgraphs=[";
    for (const std::string& sub : n.subgraphs) {
        s += q(sub) + ",";
    }
    return s + "]";
}

// Identity of two loads: nodes, inputs, heads, output counts and graph attributes. The version is
// left out: it records what the file declared, and a saved file declares 1.9.1.
void compareGraphs(const Graph& a, const Graph& b) {
    QCOMPARE(a.size(), b.size());
    for (NodeId id = 0; id < a.size(); ++id) {
        QCOMPARE(describe(a.nodes[id]), describe(b.nodes[id]));
    }
    QCOMPARE(a.heads, b.heads);
    auto withoutVersion = [](std::map<std::string, std::string> attrs) {
        attrs.erase("mxnet_version");
        return attrs;
    };
    QCOMPARE(withoutVersion(a.attrs), withoutVersion(b.attrs));
}

// A small current-format document.
std::string doc(const std::string& nodes, const std::string& heads, const std::string& extra = "") {
    return R"({"nodes": )" + nodes + R"(, "arg_nodes": [], "heads": )" + heads + extra + "}";
}

const char* kTwoNodes = R"([{"op": "null", "name": "a", "inputs": []},
                           {"op": "relu", "name": "b", "inputs": [[0, 0, 0]]}])";

QStringList mxnetFiles() {
    return {"mlp-symbol.json", "lstm_ptb-symbol.json", "squeezenet_v1.1-symbol.json",
            "legacy-save_000800.json"};
}

}  // namespace

class TestSymbolJson : public QObject {
    Q_OBJECT
private slots:
    // Node and op counts of SOURCES.md; the 0.8.0 file gains batchnorm0's two auxiliary states.
    void loadsRealFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QString>("ops");
        QTest::addColumn<int>("version");
        QTest::newRow("mlp") << "mlp-symbol.json" << 14
                             << "Activation 2, FullyConnected 3, SoftmaxOutput 1, null 8" << 10400;
        QTest::newRow("lstm_ptb")
            << "lstm_ptb-symbol.json" << 14
            << "Embedding 1, FullyConnected 1, RNN 1, Reshape 2, SoftmaxOutput 1, _zeros 2, null 6" << 1100;
        QTest::newRow("squeezenet")
            << "squeezenet_v1.1-symbol.json" << 121
            << "Activation 26, Concat 8, Convolution 26, Dropout 1, Flatten 1, Pooling 4, "
               "SoftmaxOutput 1, null 54"
            << 800;
        QTest::newRow("legacy 0.8.0")
            << "legacy-save_000800.json" << 17 + 2
            << "Activation 2, BatchNorm 1, FullyConnected 3, SoftmaxOutput 1, null 12" << 800;
    }
    void loadsRealFiles() {
        QFETCH(QString, file);
        QFETCH(int, nodes);
        QFETCH(QString, ops);
        QFETCH(int, version);
        const Graph g = loadMxnet(file);
        g.validate();
        QCOMPARE(int(g.size()), nodes);
        QCOMPARE(opCounts(g), ops);
        QCOMPARE(q(g.attrs.at("mxnet_version")), QString("[\"int\",%1]").arg(version));
    }

    void roundTripIsIdentity_data() {
        QTest::addColumn<QString>("file");
        for (const QString& f : mxnetFiles()) {
            QTest::newRow(qPrintable(f)) << f;
        }
    }
    void roundTripIsIdentity() {
        QFETCH(QString, file);
        const Graph first = loadMxnet(file);
        const Graph second = parseSymbolJson(serializeSymbolJson(first), "saved");
        compareGraphs(first, second);
        QCOMPARE(q(second.attrs.at("mxnet_version")), QString("[\"int\",10901]"));
    }

    void saveIsFixedPoint_data() { roundTripIsIdentity_data(); }
    void saveIsFixedPoint() {
        QFETCH(QString, file);
        const std::string saved = serializeSymbolJson(loadMxnet(file));
        QCOMPARE(q(serializeSymbolJson(parseSymbolJson(saved, "saved"))), q(saved));
    }

    // mlp-symbol.json is MXNet's own output: ours is byte-identical except for the version.
    void mlpSavesAsMxnetDoes() {
        std::string expected = readText(kMxnet / "mlp-symbol.json");
        const auto at = expected.find(R"(["int", 10400])");
        QVERIFY(at != std::string::npos);
        expected.replace(at, 14, R"(["int", 10901])");
        QCOMPARE(q(serializeSymbolJson(loadMxnet("mlp-symbol.json"))), q(expected));
    }

    // Pre-0.9: `param`, 2-element entries, no node_row_ptr. Output counts come from the registry
    // (MKLDNN build): a max Pooling has its workspace output, Dropout its mask.
    void squeezenetCountsOutputsFromRegistry() {
        const std::string text = readText(kMxnet / "squeezenet_v1.1-symbol.json");
        QVERIFY(text.find("node_row_ptr") == std::string::npos);
        const Graph g = loadMxnet("squeezenet_v1.1-symbol.json");
        for (const char* maxPool : {"pool1", "pool3", "pool5"}) {
            QCOMPARE(find(g, maxPool)->numOutputs, 2u);
        }
        QCOMPARE(find(g, "pool10")->numOutputs, 1u);  // avg
        QCOMPARE(find(g, "drop9")->numOutputs, 2u);
        QCOMPARE(find(g, "conv1")->numOutputs, 1u);
        QCOMPARE(g.nodeRowPtr().back(), 121u + 3 + 1);
        QCOMPARE(q(*find(g, "conv1")->attr("kernel")), QString("(3,3)"));
        QVERIFY(find(g, "conv1")->attr("backward_source_id") == nullptr);
        QCOMPARE(find(g, "conv1")->inputs[1], (NodeEntry{idOf(g, "conv1_weight"), 0, 0}));
        const std::string saved = serializeSymbolJson(g);
        QVERIFY(saved.find(
                    "\"node_row_ptr\": [\n    0, \n    1, \n    2, \n    3, \n    4, \n    5, \n    7, ") !=
                std::string::npos);
    }

    // 0.11: the `attr` node key; JSON text inside an attribute value stays a string.
    void lstmKeepsAttrKeyValues() {
        const Graph g = loadMxnet("lstm_ptb-symbol.json");
        QCOMPARE(
            q(*find(g, "lstm_parameters")->attr("__init__")),
            QString(R"(["fusedrnn", {"num_hidden": 200, "init": null, "mode": "lstm", "forget_bias": 1.0, )"
                    R"("num_layers": 2, "bidirectional": false}])"));
        QCOMPARE(q(*find(g, "lstm_begin_state_0")->attr("__layout__")), QString("LNC"));
        QCOMPARE(q(*find(g, "lstm_begin_state_1")->attr("shape")), QString("(2, 0, 200)"));
        QCOMPARE(q(*find(g, "reshape9")->attr("shape")), QString("(-1,)"));
        QVERIFY(find(g, "softmax")->attrs.empty());
    }

    // MXNet's test_load_000800 builds this symbol with the current API and asserts that each of its
    // `__key__` attributes is in the upgraded file with the same value. The table is that symbol's
    // hidden attributes: AttrScope ctx_group on everything; Variable(lr_mult=) on data and fc1_weight;
    // FullyConnected(wd_mult=0.3) on fc1 and fc2(lr_mult=0.01), copied onto the variables Compose creates
    // (fc1_bias, fc2_weight, fc2_bias); BatchNorm's FSetInputVarAttrOnCompose initialisers.
    void legacyUpgradeMatchesMxnetTest_data() {
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        const struct {
            const char* node;
            const char* key;
            const char* value;
        } rows[] = {
            {"data", "__ctx_group__", "stage1"},
            {"data", "__lr_mult__", "0.2"},
            {"fc1_weight", "__ctx_group__", "stage1"},
            {"fc1_weight", "__lr_mult__", "1.2"},
            {"fc1_bias", "__ctx_group__", "stage1"},
            {"fc1_bias", "__wd_mult__", "0.3"},
            {"fc1", "__ctx_group__", "stage1"},
            {"fc1", "__wd_mult__", "0.3"},
            {"relu1", "__ctx_group__", "stage1"},
            {"fc2_weight", "__ctx_group__", "stage2"},
            {"fc2_weight", "__lr_mult__", "0.01"},
            {"fc2_bias", "__ctx_group__", "stage2"},
            {"fc2_bias", "__lr_mult__", "0.01"},
            {"fc2", "__ctx_group__", "stage2"},
            {"fc2", "__lr_mult__", "0.01"},
            {"relu2", "__ctx_group__", "stage2"},
            {"fc3_weight", "__ctx_group__", "stage2"},
            {"fc3_bias", "__ctx_group__", "stage2"},
            {"fc3", "__ctx_group__", "stage2"},
            {"batchnorm0_gamma", "__ctx_group__", "stage2"},
            {"batchnorm0_beta", "__ctx_group__", "stage2"},
            {"batchnorm0_moving_mean", "__ctx_group__", "stage2"},
            {"batchnorm0_moving_mean", "__init__", R"(["zero", {}])"},
            {"batchnorm0_moving_var", "__ctx_group__", "stage2"},
            {"batchnorm0_moving_var", "__init__", R"(["one", {}])"},
            {"batchnorm0", "__ctx_group__", "stage2"},
            {"softmax_label", "__ctx_group__", "stage2"},
            {"softmax", "__ctx_group__", "stage2"},
        };
        for (const auto& r : rows) {
            QTest::addRow("%s %s", r.node, r.key) << r.node << r.key << r.value;
        }
    }
    void legacyUpgradeMatchesMxnetTest() {
        QFETCH(QString, node);
        QFETCH(QString, key);
        QFETCH(QString, value);
        const Graph g = loadMxnet("legacy-save_000800.json");
        const Node* n = find(g, node.toStdString());
        QVERIFY(n != nullptr);
        const std::string* actual = n->attr(key.toStdString());
        QVERIFY2(actual != nullptr, qPrintable(describe(*n)));
        QCOMPARE(q(*actual), value);
    }

    // What the upgrade leaves and where the new variables go.
    void legacyUpgradeDetails() {
        const Graph g = loadMxnet("legacy-save_000800.json");
        // A variable's own "<arg>_lr_mult" stays (MXNet only resolves it on ops); the op's moved.
        QCOMPARE(q(*find(g, "fc1_weight")->attr("weight_lr_mult")), QString("1.2"));
        QVERIFY(find(g, "fc1")->attr("weight_lr_mult") == nullptr);
        QCOMPARE(q(*find(g, "fc1_weight")->attr("__wd_mult__")), QString("0.3"));
        for (const Node& n : g.nodes) {
            for (const char* plain : {"ctx_group", "lr_mult", "wd_mult"}) {
                QVERIFY2(n.attr(plain) == nullptr, qPrintable(describe(n)));
            }
        }
        // The auxiliary states: inputs 3 and 4, placed just before batchnorm0 as MXNet saves them,
        // carrying a copy of batchnorm0's attributes; BatchNorm has 3 outputs.
        const NodeId bn = idOf(g, "batchnorm0");
        const Node& batchnorm = g.nodes[bn];
        QCOMPARE(batchnorm.inputs.size(), std::size_t(5));
        QCOMPARE(batchnorm.inputs[3], (NodeEntry{bn - 2, 0, 0}));
        QCOMPARE(batchnorm.inputs[4], (NodeEntry{bn - 1, 0, 0}));
        QCOMPARE(q(g.nodes[bn - 2].name), QString("batchnorm0_moving_mean"));
        QCOMPARE(q(g.nodes[bn - 1].name), QString("batchnorm0_moving_var"));
        QVERIFY(g.nodes[bn - 2].isVariable());
        QCOMPARE(q(*g.nodes[bn - 2].attr("momentum")), QString("0.9"));
        QCOMPARE(q(*g.nodes[bn - 1].attr("fix_gamma")), QString("True"));
        QCOMPARE(batchnorm.numOutputs, 3u);
        QVERIFY(find(g, "batchnorm0_gamma")->attr("__init__") == nullptr);
        // `param` merged into the attributes.
        QCOMPARE(q(*find(g, "softmax")->attr("normalization")), QString("null"));
        QCOMPARE(g.argNodes().size(), std::size_t(12));
    }

    // UpgradeJSON_FixParsing, case by case, on files that claim 1.9.0 (no other step applies).
    void hiddenKeyRules_data() {
        QTest::addColumn<QString>("nodeAttrs");  // attrs of node "fc" (FullyConnected)
        QTest::addColumn<int>("version");
        QTest::addColumn<QString>("fcAfter");
        QTest::addColumn<QString>("weightAfter");
        QTest::addColumn<QString>("dataAfter");
        QTest::newRow("exact key") << R"("lr_mult": "2")" << 10900 << "__lr_mult__=2;"
                                   << ""
                                   << "";
        QTest::newRow("all five keys")
            << R"("ctx_group": "g", "force_mirroring": "1", "mirror_stage": "2", "wd_mult": "3")" << 10900
            << "__ctx_group__=g;__force_mirroring__=1;__mirror_stage__=2;__wd_mult__=3;"
            << ""
            << "";
        QTest::newRow("input variable") << R"("weight_lr_mult": "2")" << 10900 << ""
                                        << "__lr_mult__=2;"
                                        << "";
        QTest::newRow("input is an op") << R"("data_lr_mult": "2")" << 10900 << "data_lr_mult=2;"
                                        << ""
                                        << "";
        QTest::newRow("no such input") << R"("gamma_wd_mult": "2")" << 10900 << "gamma_wd_mult=2;"
                                       << ""
                                       << "";
        QTest::newRow("input absent (no_bias)")
            << R"("bias_lr_mult": "2", "no_bias": "True")" << 10900 << "bias_lr_mult=2;no_bias=True;"
            << ""
            << "";
        QTest::newRow("suffix at position 1") << R"("_lr_mult": "2")" << 10900 << "_lr_mult=2;"
                                              << ""
                                              << "";
        QTest::newRow("prefix only") << R"("lr_mult_x": "2")" << 10900 << "lr_mult_x=2;"
                                     << ""
                                     << "";
        QTest::newRow("not hidden-like") << R"("lr_mult_lr_multx": "2")" << 10900 << "lr_mult_lr_multx=2;"
                                         << ""
                                         << "";
        QTest::newRow("overwrites __key__")
            << R"("__lr_mult__": "1", "lr_mult": "2")" << 10900 << "__lr_mult__=2;"
            << ""
            << "";
        QTest::newRow("current file: untouched")
            << R"("lr_mult": "2", "weight_lr_mult": "3")" << 10901 << "lr_mult=2;weight_lr_mult=3;"
            << ""
            << "";
    }
    void hiddenKeyRules() {
        QFETCH(QString, nodeAttrs);
        QFETCH(int, version);
        QFETCH(QString, fcAfter);
        QFETCH(QString, weightAfter);
        QFETCH(QString, dataAfter);
        const std::string text =
            doc(R"([{"op": "null", "name": "x", "inputs": []},
              {"op": "relu", "name": "data", "inputs": [[0, 0, 0]]},
              {"op": "null", "name": "weight", "attrs": {"weight_lr_mult": "9"}, "inputs": []},
              {"op": "FullyConnected", "name": "fc", "attrs": {)" +
                    nodeAttrs.toStdString() + R"(}, "inputs": [[1, 0, 0], [2, 0, 0]]}])",
                "[[3, 0, 0]]", R"(, "attrs": {"mxnet_version": ["int", )" + std::to_string(version) + "]}");
        const Graph g = parseSymbolJson(text, "test");
        auto attrsOf = [&](const char* name, std::initializer_list<const char*> skip) {
            QString s;
            for (const auto& [k, v] : find(g, name)->attrs) {
                if (std::find_if(skip.begin(), skip.end(), [&](const char* x) { return k == x; }) ==
                    skip.end()) {
                    s += q(k) + "=" + q(v) + ";";
                }
            }
            return s;
        };
        QCOMPARE(attrsOf("fc", {}), fcAfter);
        QCOMPARE(attrsOf("weight", {"weight_lr_mult"}), weightAfter);
        QCOMPARE(attrsOf("data", {}), dataAfter);
    }

    void readerFollowsDmlc_data();
    void readerFollowsDmlc() {
        QFETCH(QString, node);
        QFETCH(QString, attrs);
        const std::string text = doc(R"([{"op": "null", "name": "a", "inputs": []},
             {"op": "relu", "name": "b", "inputs": [[0, 0]], )" +
                                         node.toStdString() + "}]",
                                     "[[1, 0]]", R"(, "attrs": {"mxnet_version": ["int", 10901]})");
        const Graph g = parseSymbolJson(text, "test");
        QString actual;
        for (const auto& [k, v] : g.nodes[1].attrs) {
            actual += q(k) + "=" + q(v) + ";";
        }
        QCOMPARE(actual, attrs);
        compareGraphs(g, parseSymbolJson(serializeSymbolJson(g), "saved"));
    }

    // NNVM keeps what the heads reach, in post-order DFS; op aliases become canonical names; names
    // may repeat; entry versions are kept.
    void graphSemantics() {
        const std::string text = doc(R"([{"op": "null", "name": "x", "inputs": []},
              {"op": "null", "name": "unused", "inputs": []},
              {"op": "null", "name": "x", "inputs": []},
              {"op": "_Plus", "name": "add", "inputs": [[2, 0, 7], [0, 0]]}])",
                                     "[[3, 0, 1]]");
        const Graph g = parseSymbolJson(text, "test");
        QCOMPARE(g.size(), std::size_t(3));
        QCOMPARE(q(g.nodes[2].op), QString("elemwise_add"));
        QCOMPARE(q(g.nodes[0].name), QString("x"));
        QCOMPARE(q(g.nodes[1].name), QString("x"));
        QCOMPARE(g.nodes[2].inputs[0], (NodeEntry{0, 0, 7}));
        QCOMPARE(g.nodes[2].inputs[1], (NodeEntry{1, 0, 0}));
        QCOMPARE(g.heads[0], (NodeEntry{2, 0, 1}));
        QCOMPARE(q(g.attrs.at("mxnet_version")), QString("[\"int\",800]"));
    }

    // Without node_row_ptr: the registry's count, raised to what the file reads (unknown ops).
    void outputCountsWithoutRowPtr() {
        const std::string text = doc(R"([{"op": "null", "name": "x", "inputs": []},
              {"op": "MyCustomSplit", "name": "s", "inputs": [[0, 0]]},
              {"op": "SliceChannel", "name": "sc", "attrs": {"num_outputs": "4"}, "inputs": [[0, 0]]},
              {"op": "elemwise_add", "name": "add", "inputs": [[1, 2], [2, 1]]}])",
                                     "[[3, 0], [1, 1]]");
        const Graph g = parseSymbolJson(text, "test");
        QCOMPARE(find(g, "s")->numOutputs, 3u);
        QCOMPARE(find(g, "sc")->numOutputs, 4u);
        QCOMPARE(find(g, "add")->numOutputs, 1u);
    }

    // The node_row_ptr of a file wins over the registry (an MKLDNN-less build's max Pooling spans 1).
    void rowPtrIsTheTruth() {
        const std::string text = doc(R"J([{"op": "null", "name": "x", "inputs": []},
              {"op": "Pooling", "name": "p", "attrs": {"kernel": "(2, 2)", "pool_type": "max"}, "inputs": [[0, 0, 0]]}])J",
                                     "[[1, 0, 0]]", R"(, "node_row_ptr": [0, 1, 2])");
        const Graph g = parseSymbolJson(text, "test");
        QCOMPARE(g.nodes[1].numOutputs, 1u);
        QVERIFY(serializeSymbolJson(g).find(R"("node_row_ptr": [0, 1, 2])") != std::string::npos);
    }

    // dmlc's layout rules beyond what mlp shows: multi-line arrays past 10 elements, control_deps,
    // nested subgraphs (indented as part of the document), escapes, other graph attributes.
    void writerLayout();

    // A subgraph in a file is read as NNVM reads it (pruned, canonical) and kept as compact text.
    void subgraphsAreCanonical() {
        const std::string text = doc(R"([{"op": "null", "name": "x", "inputs": []},
              {"op": "_foreach", "name": "loop", "inputs": [[0, 0]], "subgraphs": [
                 {"nodes": [{"op": "null", "name": "dead", "inputs": []}, {"op": "null", "name": "i", "attr": {"k": "v"}, "inputs": []},
                            {"op": "relu", "name": "r", "inputs": [[1, 0]]}],
                  "heads": [[2, 0]], "attrs": {"ignored": ["int", 1]}}]}])",
                                     "[[1, 0]]");
        const Graph g = parseSymbolJson(text, "test");
        QCOMPARE(g.nodes[1].subgraphs.size(), std::size_t(1));
        QCOMPARE(
            q(g.nodes[1].subgraphs[0]),
            QString(R"({"nodes":[{"op":"null","name":"i","attrs":{"k":"v"},"inputs":[]},)"
                    R"({"op":"relu","name":"r","inputs":[[0,0,0]]}],"arg_nodes":[0],"node_row_ptr":[0,1,2],)"
                    R"("heads":[[1,0,0]]})"));
        compareGraphs(g, parseSymbolJson(serializeSymbolJson(g), "saved"));
    }

    // Subgraphs within subgraphs: each level is read once, written back in place; past the nesting
    // limit the file is refused.
    void nestedSubgraphs_data() {
        QTest::addColumn<int>("levels");
        QTest::addColumn<bool>("loads");
        QTest::newRow("1") << 1 << true;
        QTest::newRow("20") << 20 << true;
        QTest::newRow("30: too deep") << 30 << false;
    }
    void nestedSubgraphs();

    void otherUpgrades() {
        // 0.9.4 -> 0.9.5: argmax's axis -1 meant "all elements"; a file from 0.9.5 keeps it.
        const auto argmax = [](int version) {
            return parseSymbolJson(
                doc(R"([{"op": "null", "name": "x", "inputs": []},
                   {"op": "argmax", "name": "m", "attrs": {"axis": "-1"}, "inputs": [[0, 0, 0]]}])",
                    "[[1, 0, 0]]",
                    R"(, "attrs": {"mxnet_version": ["int", )" + std::to_string(version) + "]}"),
                "test");
        };
        QVERIFY(argmax(904).nodes[1].attr("axis") == nullptr);
        QCOMPARE(q(*argmax(905).nodes[1].attr("axis")), QString("-1"));
        // 0.9.3 -> 0.9.4 only: initialisers, but an existing __init__ stays.
        const Graph g = parseSymbolJson(doc(R"([{"op": "null", "name": "x", "inputs": []},
              {"op": "null", "name": "g", "inputs": []}, {"op": "null", "name": "b", "inputs": []},
              {"op": "null", "name": "mm", "attrs": {"__init__": "mine"}, "inputs": []},
              {"op": "null", "name": "mv", "inputs": []},
              {"op": "BatchNorm", "name": "bn", "inputs": [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]}])",
                                            "[[5, 0]]", R"(, "attrs": {"mxnet_version": ["int", 903]})"),
                                        "test");
        QCOMPARE(q(*find(g, "mm")->attr("__init__")), QString("mine"));
        QCOMPARE(q(*find(g, "mv")->attr("__init__")), QString(R"(["one", {}])"));
        QVERIFY(find(g, "g")->attr("__init__") == nullptr);
        QCOMPARE(find(g, "bn")->numOutputs, 3u);
    }

    // Each hostile input is a LoadError naming the file and the place.
    void hostileInput_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("where");   // LoadError::where() must contain this
        QTest::addColumn<QString>("reason");  // and LoadError::reason() this
        const std::string mlp = readText(kMxnet / "mlp-symbol.json");
        auto row = [](const char* name, const std::string& text, const char* where, const char* reason) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << where << reason;
        };
        const std::string two = kTwoNodes;
        row("empty file", "", "line 1, column 1", "unexpected end of input");
        row("whitespace only", " \n ", "line 2", "unexpected end of input");
        row("truncated", mlp.substr(0, mlp.size() / 2), "line 48, column 47", "unexpected end of input");
        row("not JSON", "nodes: []", "line 1, column 2", "invalid literal");
        row("trailing garbage", doc(two, "[[1, 0]]") + " x", "line 2", "syntax error");
        row("invalid UTF-8 in a name",
            doc(R"([{"op": "null", "name": "a)"
                "\xff"
                R"(", "inputs": []}])",
                "[[0, 0]]"),
            "line 1, column 37 (byte 36)", "ill-formed UTF-8");
        row("lone surrogate", doc(R"([{"op": "null", "name": "\ud800", "inputs": []}])", "[[0, 0]]"),
            "line 1", "surrogate");
        row("100000-deep nesting", std::string(100000, '['), "line 1, column 101 (byte 100)",
            "deeper than 100");
        row("deep nesting in attrs",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "x": )" + std::string(200, '[') +
                    std::string(200, ']') + "}]",
                "[[0, 0]]"),
            "line 1", "deeper than 100");
        row("document is an array", "[]", "document", "expected an object");
        row("missing nodes", R"({"heads": [[0, 0]]})", "", "'nodes'");
        row("missing heads", R"({"nodes": [{"op": "null", "name": "a", "inputs": []}]})", "", "'heads'");
        row("nodes not an array", doc("{}", "[[0, 0]]"), "nodes", "expected an array");
        row("empty nodes", doc("[]", "[]"), "nodes", "no nodes");
        row("empty heads", doc(two, "[]"), "heads", "no outputs");
        row("heads not an array", doc(two, "7"), "heads", "expected an array");
        row("head out of range", doc(two, "[[2, 0]]"), "heads 0", "does not exist");
        row("head output out of range", doc(two, "[[1, 1]]", R"(, "node_row_ptr": [0, 1, 2])"), "heads 0",
            "has 1 output");
        row("head entry too long", doc(two, "[[1, 0, 0, 0]]"), "heads 0", "4 element");
        row("node not an object", doc("[1]", "[[0, 0]]"), "node 0", "expected an object");
        row("name missing", doc(R"([{"op": "null", "inputs": []}])", "[[0, 0]]"), "node 0", "'name'");
        row("op missing", doc(R"([{"name": "a", "inputs": []}])", "[[0, 0]]"), "node 0 ('a')", "'op'");
        row("inputs missing", doc(R"([{"op": "null", "name": "a"}])", "[[0, 0]]"), "node 0 ('a')",
            "'inputs'");
        row("op not a string", doc(R"([{"op": 1, "name": "a", "inputs": []}])", "[[0, 0]]"),
            "node 0 ('a') op", "expected a string");
        row("name not a string", doc(R"([{"op": "null", "name": ["a"], "inputs": []}])", "[[0, 0]]"),
            "node 0 name", "expected a string");
        row("empty op", doc(R"([{"op": "", "name": "a", "inputs": []}])", "[[0, 0]]"), "node 0 ('a')",
            "empty op");
        row("variable with inputs",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "null", "name": "b", "inputs": [[0, 0]]}])",
                "[[1, 0]]"),
            "node 1 ('b')", "cannot have inputs");
        row("inputs not an array", doc(R"([{"op": "null", "name": "a", "inputs": {}}])", "[[0, 0]]"),
            "node 0 ('a') inputs", "expected an array");
        row("forward reference",
            doc(R"([{"op": "relu", "name": "a", "inputs": [[1, 0]]}, {"op": "null", "name": "b", "inputs": []}])",
                "[[0, 0]]"),
            "node 0 ('a') input 0", "not an earlier node");
        {
            // Names in messages: cut at 60 bytes on a UTF-8 boundary, control characters shown as '?'.
            std::string e70;
            for (int i = 0; i < 70; ++i) {
                e70 += "\u00e9";
            }
            std::string expected = "node 0 ('";
            for (int i = 0; i < 30; ++i) {
                expected += "\xc3\xa9";
            }
            QTest::newRow("long name in the message")
                << QByteArray::fromStdString(
                       doc(R"([{"op": "relu", "name": ")" + e70 + R"(", "inputs": [[1, 0]]}])", "[[0, 0]]"))
                << QString::fromStdString(expected + "...') input 0") << "not an earlier node";
            row("control character in the name",
                doc(R"([{"op": "relu", "name": "a\nb", "inputs": [[0, 0]]}])", "[[0, 0]]"),
                "node 0 ('a?b') input 0", "itself");
        }
        row("self reference",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[1, 0]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "itself");
        row("input index out of range",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[0, 1, 0]]}])",
                "[[1, 0]]", R"(, "node_row_ptr": [0, 1, 2])"),
            "node 1 ('b') input 0", "has 1 output");
        row("input index past any op",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[0, 70000]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "no operator has more");
        row("negative node id",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[-1, 0]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "negative");
        row("huge node id",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[4294967296, 0]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "out of range");
        row("huger node id",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[1e400, 0]]}])",
                "[[1, 0]]"),
            "", "");  // nlohmann rejects 1e400 as a number out of range; either way a LoadError
        row("fractional index",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[0, 0.5]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "non-integer");
        row("entry too short",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [[0]]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "1 element");
        row("entry not an array",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "relu", "name": "b", "inputs": [0]}])",
                "[[1, 0]]"),
            "node 1 ('b') input 0", "expected an array");
        row("control dependency forward",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "control_deps": [0]}])", "[[0, 0]]"),
            "node 0 ('a') control_deps 0", "not an earlier node");
        row("control_deps not an array",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "control_deps": "0"}])", "[[0, 0]]"),
            "node 0 ('a') control_deps", "expected an array");
        row("number as attribute value",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "attrs": {"lr": 0.1}}])", "[[0, 0]]"),
            "node 0 ('a') attrs 'lr'", "expected a string value");
        row("bool in param",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "param": {"x": true}}])", "[[0, 0]]"),
            "node 0 ('a') param 'x'", "expected a string value");
        row("attr not an object",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "attr": []}])", "[[0, 0]]"),
            "node 0 ('a') attr", "expected an object");
        row("subgraphs not objects",
            doc(R"([{"op": "null", "name": "a", "inputs": [], "subgraphs": [1]}])", "[[0, 0]]"),
            "node 0 ('a') subgraph 0", "expected an object");
        row("broken subgraph",
            doc(R"([{"op": "null", "name": "a", "inputs": []}, {"op": "_foreach", "name": "loop", "inputs": [[0, 0]],
                   "subgraphs": [{"nodes": [{"op": "relu", "name": "r", "inputs": [[0, 0]]}], "heads": [[0, 0]]}]}])",
                "[[1, 0]]"),
            "node 1 ('loop') subgraph 0, node 0 ('r') input 0", "itself");
        row("arg_nodes out of range", doc(two, "[[1, 0]]", R"(, "arg_nodes": [0, 5])"), "arg_nodes 1",
            "does not exist");
        row("arg_nodes not numbers", doc(two, "[[1, 0]]", R"(, "arg_nodes": ["a"])"), "arg_nodes 0",
            "expected a non-negative integer");
        row("node_row_ptr wrong size", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [0, 1])"), "node_row_ptr",
            "has 2 entries, expected 3");
        row("node_row_ptr not from 0", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [1, 2, 3])"),
            "node_row_ptr 0", "must be 0");
        row("node_row_ptr decreasing", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [0, 2, 1])"),
            "node_row_ptr 2", "negative");
        row("node_row_ptr zero span", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [0, 0, 1])"),
            "node_row_ptr 1", "no output");
        row("node_row_ptr huge span", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [0, 1, 4000000000])"),
            "node_row_ptr 2", "more than any operator");
        row("node_row_ptr negative", doc(two, "[[1, 0]]", R"(, "node_row_ptr": [0, -1, 1])"),
            "node_row_ptr 1", "negative");
        row("node_row_ptr not an array", doc(two, "[[1, 0]]", R"(, "node_row_ptr": null)"), "node_row_ptr",
            "expected an array");
        row("mxnet_version not an int",
            doc(two, "[[1, 0]]", R"(, "attrs": {"mxnet_version": ["str", "1.9"]})"), "attrs 'mxnet_version'",
            "expected");
        row("mxnet_version negative", doc(two, "[[1, 0]]", R"(, "attrs": {"mxnet_version": ["int", -5]})"),
            "attrs 'mxnet_version'", "expected");
        row("graph attrs not an object", doc(two, "[[1, 0]]", R"(, "attrs": 5)"), "attrs",
            "expected an object");
        {
            // Many nodes each claiming 65536 outputs: bounded in all, not only per node.
            std::string nodes = R"([{"op": "null", "name": "x", "inputs": []})";
            for (int i = 1; i < 100; ++i) {
                nodes +=
                    R"(, {"op": "MySplit", "name": "s", "inputs": [[)" + std::to_string(i - 1) + ", 65535]]}";
            }
            row("billions of outputs in all", doc(nodes + "]", "[[99, 0]]"), "nodes", "outputs in all");
        }
        {
            // The 0.8 upgrade asks the registry for input names; Concat's grow with num_args.
            std::string lacking = R"([{"op": "null", "name": "x", "inputs": []})";
            std::string hidden = lacking;
            for (int i = 1; i < 200; ++i) {
                const std::string input = R"(, "inputs": [[)" + std::to_string(i - 1) + ", 0]]}";
                lacking += R"(, {"op": "Concat", "name": "c", "attrs": {"num_args": "65536"})" + input;
                hidden +=
                    R"(, {"op": "Concat", "name": "h", "attrs": {"num_args": "65536", "data_lr_mult": "1"})" +
                    input;
            }
            row("legacy op lacking 65535 inputs", doc(lacking + "]", "[[199, 0]]"), "node 1 ('c')",
                "too many to add");
            row("legacy input names past any graph",
                doc(hidden + "]", "[[199, 0]]", R"(, "attrs": {"mxnet_version": ["int", 10000]})"),
                "node 2 ('h')", "cannot hold that many");
        }
    }
    void hostileInput() {
        QFETCH(QByteArray, text);
        QFETCH(QString, where);
        QFETCH(QString, reason);
        try {
            const Graph g = parseSymbolJson(std::string_view(text.constData(), text.size()), "hostile.json");
            QFAIL(qPrintable("accepted: " + describe(g.nodes[0])));
        } catch (const LoadError& e) {
            QCOMPARE(q(e.file()), QString("hostile.json"));
            QVERIFY2(q(e.where()).contains(where), e.what());
            QVERIFY2(q(e.reason()).contains(reason), e.what());
            QVERIFY2(!e.reason().empty(), e.what());
        }
    }

    void unreadableFiles() {
        for (const auto& path : {kFixtures / "does-not-exist.json", kFixtures}) {
            try {
                readSymbolJsonFile(path);
                QFAIL("read a file that is not there");
            } catch (const LoadError& e) {
                QCOMPARE(q(e.file()), q(path.string()));
            }
        }
    }

    void writesAtomically() {
        QTemporaryDir dir;
        const std::filesystem::path path =
            std::filesystem::path(dir.path().toStdString()) / "out-symbol.json";
        const Graph g = loadMxnet("legacy-save_000800.json");
        writeSymbolJsonFile(path, g);
        QCOMPARE(q(readText(path)), q(serializeSymbolJson(g)));
        compareGraphs(g, readSymbolJsonFile(path));
    }

    // Every input the fuzzer (or a bug report) found: success or LoadError, nothing else; and when it
    // loads, it round-trips.
    void regressionFiles_data() {
        QTest::addColumn<QString>("file");
        for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
            QTest::newRow(entry.path().filename().c_str()) << q(entry.path().string());
        }
    }
    void regressionFiles() {
        QFETCH(QString, file);
        Graph g;
        try {
            g = readSymbolJsonFile(file.toStdString());
        } catch (const LoadError& e) {
            QVERIFY2(!e.reason().empty(), e.what());
            return;
        }
        const std::string saved = serializeSymbolJson(g);
        const Graph back = parseSymbolJson(saved, "saved");
        compareGraphs(g, back);
        QCOMPARE(q(serializeSymbolJson(back)), q(saved));
    }
};

// Defined outside the class: moc misreads backslashes inside raw strings and would lose the class.
void TestSymbolJson::readerFollowsDmlc_data() {
    QTest::addColumn<QString>("node");  // the second node's JSON object body (after op/name)
    QTest::addColumn<QString>("attrs");
    QTest::newRow("attrs then attr: attr wins wholly")
        << R"("attrs": {"a": "1", "b": "2"}, "attr": {"c": "3"})"
        << "c=3;";
    QTest::newRow("attr then attrs: attrs wins wholly") << R"("attr": {"c": "3"}, "attrs": {"a": "1"})"
                                                        << "a=1;";
    QTest::newRow("param does not overwrite") << R"("param": {"a": "p", "z": "p"}, "attrs": {"a": "1"})"
                                              << "a=1;z=p;";
    QTest::newRow("later param wins") << R"("param": {"a": "1"}, "param": {"b": "2"})"
                                      << "b=2;";
    QTest::newRow("duplicate key in a map") << R"("attrs": {"a": "1", "a": "2"})"
                                            << "a=2;";
    QTest::newRow("unknown keys ignored") << R"("backward_source_id": -1, "future": [1, {"x": null}])"
                                          << "";
    QTest::newRow("escapes and unicode") << R"("attrs": {"s": "q\"b\\t\tn\nu\u00e9\u0001\ud83d\ude00"})"
                                         << "s=q\"b\\t\tn\nu\u00e9\x01\U0001F600;";
}

void TestSymbolJson::writerLayout() {
    Graph sub;
    sub.nodes.resize(1);
    sub.nodes[0].name = "i";
    sub.heads = {{0, 0, 0}};
    Graph g;
    g.nodes.resize(3);
    g.nodes[0].name = "x\"\n\x01";
    g.nodes[1].op = "add_n";
    g.nodes[1].name = "sum";
    g.nodes[1].attrs = {{"num_args", "11"}};
    for (int i = 0; i < 11; ++i) {
        g.nodes[1].inputs.push_back({0, 0, 0});
    }
    g.nodes[2].op = "_foreach";
    g.nodes[2].name = "loop";
    g.nodes[2].inputs = {{1, 0, 0}};
    g.nodes[2].controlDeps = {0};
    g.nodes[2].subgraphs = {serializeSubgraphJson(sub)};
    g.heads = {{2, 0, 0}};
    g.attrs = {{"zeta", R"(["list_int",[1,2]])"}, {"mxnet_version", R"(["int",1])"}};
    const std::string expected = R"({
  "nodes": [
    {
      "op": "null", 
      "name": "x\"\n\u0001", 
      "inputs": []
    }, 
    {
      "op": "add_n", 
      "name": "sum", 
      "attrs": {"num_args": "11"}, 
      "inputs": [
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0], 
        [0, 0, 0]
      ]
    }, 
    {
      "op": "_foreach", 
      "name": "loop", 
      "inputs": [[1, 0, 0]], 
      "control_deps": [0], 
      "subgraphs": [
        {
          "nodes": [
            {
              "op": "null", 
              "name": "i", 
              "inputs": []
            }
          ], 
          "arg_nodes": [0], 
          "node_row_ptr": [0, 1], 
          "heads": [[0, 0, 0]]
        }
      ]
    }
  ], 
  "arg_nodes": [0], 
  "node_row_ptr": [0, 1, 2, 3], 
  "heads": [[2, 0, 0]], 
  "attrs": {
    "mxnet_version": ["int", 10901], 
    "zeta": ["list_int", [1, 2]]
  }
})";
    const std::string saved = serializeSymbolJson(g);
    QCOMPARE(q(saved), q(expected));
    QCOMPARE(
        q(g.nodes[2].subgraphs[0]),
        QString(R"({"nodes":[{"op":"null","name":"i","inputs":[]}],"arg_nodes":[0],"node_row_ptr":[0,1],)"
                R"("heads":[[0,0,0]]})"));
    const Graph back = parseSymbolJson(saved, "saved");
    compareGraphs(g, back);
    QCOMPARE(q(serializeSymbolJson(back)), q(saved));
}

void TestSymbolJson::nestedSubgraphs() {
    QFETCH(int, levels);
    QFETCH(bool, loads);
    std::string graph = R"({"nodes": [{"op": "null", "name": "leaf", "inputs": []}], "heads": [[0, 0]]})";
    for (int level = 0; level < levels; ++level) {
        graph = R"({"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "_foreach", "name": "l)" +
                std::to_string(level) + R"(", "inputs": [[0, 0]], "subgraphs": [)" + graph +
                R"(]}], "heads": [[1, 0]]})";
    }
    try {
        const Graph g = parseSymbolJson(graph, "nested");
        QVERIFY(loads);
        const std::string saved = serializeSymbolJson(g);
        const Graph back = parseSymbolJson(saved, "saved");
        compareGraphs(g, back);
        QCOMPARE(q(serializeSymbolJson(back)), q(saved));
        QCOMPARE(g.nodes[1].subgraphs[0],
                 serializeSubgraphJson(parseSubgraphJson(g.nodes[1].subgraphs[0], "s")));
    } catch (const LoadError& e) {
        QVERIFY2(!loads, e.what());
        QVERIFY2(q(e.reason()).contains("deeper than 100"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestSymbolJson)
#include "test_symbol_json.moc"
