// The IR's invariants: validation catches every structural error, DFS order matches NNVM's.
#include <QtTest>

#include "graph/graph.h"

using namespace ampstudio;

namespace {
Node var(const char* name) {
    Node n;
    n.name = name;
    return n;
}
Node op(const char* opName, const char* name, std::vector<NodeEntry> inputs, uint32_t outputs = 1) {
    Node n;
    n.op = opName;
    n.name = name;
    n.inputs = std::move(inputs);
    n.numOutputs = outputs;
    return n;
}
}  // namespace

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    void rowPtrAndArgs() {
        Graph g;
        g.nodes = {var("x"), var("g"), op("BatchNorm", "bn", {{0, 0, 0}, {1, 0, 0}}, 3), op("relu", "r", {{2, 0, 0}})};
        g.heads = {{3, 0, 0}};
        g.validate();
        QCOMPARE(g.nodeRowPtr(), (std::vector<uint32_t>{0, 1, 2, 5, 6}));
        QCOMPARE(g.argNodes(), (std::vector<NodeId>{0, 1}));
        QCOMPARE(g.consumers()[0], (std::vector<NodeId>{2}));
    }

    void validateRejects_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("forward reference") << 0 << "not an earlier node";
        QTest::newRow("self reference") << 1 << "not an earlier node";
        QTest::newRow("output index out of range") << 2 << "has 1 output";
        QTest::newRow("bad head") << 3 << "head 0";
        QTest::newRow("forward control dep") << 4 << "control dependency";
        QTest::newRow("zero outputs") << 5 << "no outputs";
    }
    void validateRejects() {
        QFETCH(int, which);
        QFETCH(QString, fragment);
        Graph g;
        g.nodes = {var("x"), op("relu", "r", {{0, 0, 0}})};
        g.heads = {{1, 0, 0}};
        switch (which) {
            case 0: g.nodes[1].inputs = {{2, 0, 0}}; g.nodes.push_back(var("late")); break;
            case 1: g.nodes[1].inputs = {{1, 0, 0}}; break;
            case 2: g.nodes[1].inputs = {{0, 1, 0}}; break;
            case 3: g.heads = {{7, 0, 0}}; break;
            case 4: g.nodes[1].controlDeps = {1}; break;
            case 5: g.nodes[0].numOutputs = 0; break;
        }
        try {
            g.validate();
            QFAIL("validate() accepted a broken graph");
        } catch (const GraphError& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }

    // NNVM's post-order DFS: inputs in order, shared nodes once, unreachable nodes dropped.
    void dfsOrder() {
        Graph g;
        g.nodes = {var("unused"), var("b"), var("a"), op("elemwise_add", "add", {{2, 0, 0}, {1, 0, 0}}),
                   op("relu", "r", {{3, 0, 0}})};
        g.heads = {{4, 0, 0}, {3, 0, 0}};
        const Graph d = reachableInDfsOrder(g);
        d.validate();
        QStringList names;
        for (const Node& n : d.nodes) {
            names << QString::fromStdString(n.name);
        }
        QCOMPARE(names, (QStringList{"a", "b", "add", "r"}));
        QCOMPARE(d.heads[0].node, NodeId(3));
        QCOMPARE(d.heads[1].node, NodeId(2));
        QCOMPARE(d.nodes[2].inputs[0].node, NodeId(0));
        QCOMPARE(dfsPostOrder(g), (std::vector<NodeId>{2, 1, 3, 4}));
        QVERIFY(!isInDfsOrder(g));
        QVERIFY(isInDfsOrder(d));
    }

    void deepChainDoesNotOverflowTheStack() {
        Graph g;
        g.nodes.push_back(var("x"));
        for (NodeId i = 1; i < 200000; ++i) {
            g.nodes.push_back(op("relu", "r", {{i - 1, 0, 0}}));
        }
        g.heads = {{NodeId(g.nodes.size() - 1), 0, 0}};
        QCOMPARE(reachableInDfsOrder(g).size(), g.size());
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "test_graph.moc"
