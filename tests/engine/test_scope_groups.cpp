// Name scopes read from node names (ONNX slashes, PyTorch dots, MXNet underscores) and the graph
// grouped by them: what the views show when grouping is on.
#include <QtTest>

#include <algorithm>

#include "formats/symbol_json.h"
#include "graph/name_scopes.h"
#include "graph/scope_groups.h"

using namespace ampstudio;

namespace {

QStringList scopes(const char* name) {
    QStringList out;
    for (const std::string& s : nameScopes(name)) out << QString::fromStdString(s);
    return out;
}

Graph chainOf(const std::vector<std::string>& names) {
    Graph g;
    for (std::size_t i = 0; i < names.size(); ++i) {
        Node n;
        n.name = names[i];
        if (i > 0) {
            n.op = "relu";
            n.inputs = {NodeEntry{static_cast<NodeId>(i - 1), 0, 0}};
        }
        g.nodes.push_back(n);
    }
    g.heads = {NodeEntry{static_cast<NodeId>(names.size() - 1), 0, 0}};
    return g;
}

}  // namespace

class TestScopeGroups : public QObject {
    Q_OBJECT

private slots:
    void scopesFromNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("onnx") << "/encoder/layer.3/attention/MatMul"
                              << QStringList{"/encoder", "/encoder/layer.3", "/encoder/layer.3/attention"};
        QTest::newRow("onnx tensor cast") << "/encoder/layer.3/attention/MatMul_output_0_amp_cast_float16"
                                          << QStringList{"/encoder", "/encoder/layer.3", "/encoder/layer.3/attention"};
        QTest::newRow("pytorch") << "bert.encoder.layer.3.attention.self.query"
                                 << QStringList{"bert", "bert.encoder", "bert.encoder.layer.3",
                                                "bert.encoder.layer.3.attention", "bert.encoder.layer.3.attention.self"};
        QTest::newRow("gluon") << "resnetv10_stage2_conv0_weight"
                               << QStringList{"resnetv10", "resnetv10_stage2", "resnetv10_stage2_conv0"};
        QTest::newRow("mxnet cast") << "fire3_squeeze1x1_weight_amp_cast_float16"
                                    << QStringList{"fire3", "fire3_squeeze1x1"};
        QTest::newRow("multicast") << "fire3_concat_amp_multicast" << QStringList{"fire3"};
        QTest::newRow("index joins") << "stage_2_unit_10_conv" << QStringList{"stage_2", "stage_2_unit_10"};
        QTest::newRow("plain") << "data" << QStringList{};
        QTest::newRow("one scope") << "fc1_weight" << QStringList{"fc1"};
        QTest::newRow("leading slash only") << "/MatMul" << QStringList{};
        QTest::newRow("empty") << "" << QStringList{};
        QTest::newRow("separators only") << "__//" << QStringList{};
    }
    void scopesFromNames() {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        QCOMPARE(scopes(name.toUtf8().constData()), expected);
    }

    void ownPartOfAScope() {
        QCOMPARE(scopeOwnPart("/encoder/layer.3"), std::string_view("layer.3"));
        QCOMPARE(scopeOwnPart("bert.encoder.layer.3"), std::string_view("layer.3"));
        QCOMPARE(scopeOwnPart("resnetv10_stage2"), std::string_view("stage2"));
        QCOMPARE(scopeOwnPart("stage_2"), std::string_view("stage_2"));
        QCOMPARE(scopeOwnPart("fire2"), std::string_view("fire2"));
    }

    // squeezenet_v1.1: its fire modules become eight groups, each holding its convolutions, their
    // weights and the module's concat; conv1 with its weight and bias is one more.
    void squeezenetGroupsByFireModule() {
        const Graph g = readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json");
        const std::set<std::string> open = initiallyOpenScopes(g);
        QVERIFY(open.empty());
        const ScopeGroups groups = groupByScope(g, open);
        QStringList groupNames;
        std::size_t grouped = 0;
        for (const auto& item : groups.items) {
            if (item.group) {
                groupNames << QString::fromStdString(item.name);
                grouped += item.members.size();
            }
        }
        for (int f = 2; f <= 9; ++f) {
            QVERIFY2(groupNames.contains(QStringLiteral("fire%1").arg(f)), qPrintable(groupNames.join(',')));
        }
        QVERIFY(groupNames.contains("conv1"));
        const auto fire2 = groups.items[groups.find("fire2")];
        QVERIFY(fire2.members.size() >= 10);  // squeeze, two expands, relus, concat, six parameters
        QVERIFY(grouped > g.size() / 2);
        // Every node is in exactly one item; edges join different items, once each, and only where
        // some node reads another.
        std::vector<int> seen(g.size(), 0);
        for (std::size_t i = 0; i < groups.items.size(); ++i) {
            for (const NodeId n : groups.items[i].members) {
                ++seen[n];
                QCOMPARE(groups.itemOf[n], uint32_t(i));
            }
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
        QVERIFY(std::adjacent_find(groups.edges.begin(), groups.edges.end()) == groups.edges.end());
        for (const auto& [a, b] : groups.edges) QVERIFY(a != b);
        QVERIFY(groups.items.size() < g.size() / 4);

        // Opening one module shows its nodes one level down (here: its own sub-scopes), the rest stays.
        const ScopeGroups opened = groupByScope(g, {"fire2"});
        QCOMPARE(opened.find("fire2"), std::size_t(-1));
        QVERIFY(opened.find("fire2_squeeze1x1") != std::size_t(-1));
        QVERIFY(opened.items[opened.find("fire2_squeeze1x1")].group);  // the conv, its weight, its bias
        QVERIFY(opened.find("fire3") != std::size_t(-1));
        QVERIFY(opened.items.size() > groups.items.size());
    }

    // A model whose every name shares one prefix opens that prefix at first: one box is no view.
    void aSingleOuterScopeOpensAtFirst() {
        const Graph g = chainOf({"data", "net_a_x", "net_a_y", "net_b_x", "net_b_y", "net_c_x"});
        const std::set<std::string> open = initiallyOpenScopes(g);
        QCOMPARE(open, (std::set<std::string>{"net"}));
        const ScopeGroups groups = groupByScope(g, open);
        QCOMPARE(groups.items.size(), 4u);  // data, net_a, net_b, and net_c_x alone (a scope of one)
        QVERIFY(groups.items[groups.find("net_a")].group);
        QVERIFY(!groups.items[groups.find("net_c_x")].group);
        QCOMPARE(groups.edges.size(), 3u);
    }

    // Automatic names sharing a prefix far apart are no scope; a multicast sits with its consumer.
    void scatteredPrefixesAndMulticasts() {
        std::vector<std::string> names{"data", "elemwise_add0"};
        for (int i = 0; i < 20; ++i) names.push_back("relu" + std::to_string(i));
        names.push_back("elemwise_add1");
        const Graph scattered = chainOf(names);
        const ScopeGroups flat = groupByScope(scattered, {});
        QCOMPARE(flat.find("elemwise"), std::size_t(-1));
        QCOMPARE(flat.items.size(), scattered.size());

        // stage_a's two nodes, stage_b's two, then head_sum reading both through a multicast that
        // MXNet named after its first input (in stage_a).
        Graph g = chainOf({"data", "stage_a_x", "stage_a_y", "stage_b_x", "stage_b_y"});
        Node multicast;
        multicast.op = "amp_multicast";
        multicast.name = "stage_a_y_amp_multicast";
        multicast.inputs = {NodeEntry{2, 0, 0}, NodeEntry{4, 0, 0}};
        g.nodes.push_back(multicast);
        Node sum;
        sum.op = "elemwise_add";
        sum.name = "head_sum";
        sum.inputs = {NodeEntry{5, 0, 0}, NodeEntry{5, 1, 0}};
        g.nodes.push_back(sum);
        const ScopeGroups groups = groupByScope(g, {"stage"});
        QCOMPARE(groups.itemOf[5], groups.itemOf[6]);  // with head_sum, in its scope "head"
        QCOMPARE(groups.items[groups.itemOf[5]].name, std::string("head"));
        QVERIFY(groups.items[groups.find("stage_a")].members.size() == 2);
        // No edge back from stage_b into stage_a: the groups stay in order.
        const uint32_t a = uint32_t(groups.find("stage_a")), b = uint32_t(groups.find("stage_b"));
        QVERIFY(std::find(groups.edges.begin(), groups.edges.end(), std::make_pair(b, a)) == groups.edges.end());
    }

    // Names without scopes: every node its own item, the edges those of the graph.
    void namesWithoutScopesStayFlat() {
        const Graph g = chainOf({"a", "b", "c"});
        const ScopeGroups groups = groupByScope(g, initiallyOpenScopes(g));
        QCOMPARE(groups.items.size(), 3u);
        QCOMPARE(groups.edges.size(), 2u);
    }
};

QTEST_APPLESS_MAIN(TestScopeGroups)
#include "test_scope_groups.moc"
