// What the two views are built from: the snapshot of a conversion (report, both layouts, both
// drawings) and the job tracker that computes it off the GUI thread and drops stale results.
#include <QSemaphore>
#include <QThreadPool>
#include <QtTest>

#include <algorithm>
#include <atomic>

#include "amp/param_casting.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"
#include "job_tracker.h"
#include "workspace_snapshot.h"

using namespace ampstudio;

namespace {

WorkspaceSnapshot snapshotOf(const std::string& file, ConversionOptions options = {}) {
    WorkspaceInput input;
    input.source = std::make_shared<Graph>(readSymbolJsonFile(file));
    input.options = std::move(options);
    return computeWorkspaceSnapshot(input, [] { return false; });
}

int countStyle(const GraphDrawing& drawing, NodeStyle style) {
    return int(std::count_if(drawing.nodes.begin(), drawing.nodes.end(),
                             [style](const DrawnNode& n) { return n.style == style; }));
}

QString overlap(const GraphDrawing& drawing) {
    for (qsizetype a = 0; a < drawing.nodes.size(); ++a) {
        const auto& na = drawing.nodes[a];
        const QRectF ra(na.centre - QPointF(na.size.width() / 2, na.size.height() / 2), na.size);
        for (qsizetype b = a + 1; b < drawing.nodes.size(); ++b) {
            const auto& nb = drawing.nodes[b];
            const QRectF rb(nb.centre - QPointF(nb.size.width() / 2, nb.size.height() / 2), nb.size);
            if (ra.intersects(rb)) return na.name + QStringLiteral(" overlaps ") + nb.name;
        }
    }
    return {};
}

NodeStyle expectedStyle(NodePrecision precision) {
    switch (precision) {
        case NodePrecision::Target: return NodeStyle::Target;
        case NodePrecision::Float32: return NodeStyle::Float32;
        case NodePrecision::Widest: return NodeStyle::Widest;
        case NodePrecision::Variable: return NodeStyle::Variable;
        case NodePrecision::Unchanged: return NodeStyle::Unchanged;
    }
    return NodeStyle::Unchanged;
}

}  // namespace

class TestWorkspaceSnapshot : public QObject {
    Q_OBJECT
private slots:
    void drawingsFollowTheReport_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("mode");
        for (const char* file : {"mlp-symbol.json", "squeezenet_v1.1-symbol.json", "lstm_ptb-symbol.json"}) {
            for (const char* mode : {"typed", "classic"}) {
                QTest::addRow("%s %s", file, mode) << QString::fromLatin1(file) << QString::fromLatin1(mode);
            }
        }
    }
    void drawingsFollowTheReport() {
        QFETCH(QString, file);
        QFETCH(QString, mode);
        ConversionOptions options;
        options.mode = *conversionModeFromName(mode.toStdString());
        const WorkspaceSnapshot s = snapshotOf(AMS_TESTDATA_DIR "/mxnet/" + file.toStdString(), options);
        QVERIFY2(s.conversion, qPrintable(s.error));
        const ConversionReport& report = s.conversion->report;
        QCOMPARE(std::size_t(s.before.nodes.size()), s.source->size());
        QCOMPARE(std::size_t(s.after.nodes.size()), report.nodesAfter);
        QCOMPARE(std::size_t(countStyle(s.after, NodeStyle::Cast)), report.ampCastCount);
        QCOMPARE(std::size_t(countStyle(s.after, NodeStyle::Multicast)), report.ampMulticastCount);
        QCOMPARE(countStyle(s.before, NodeStyle::Cast) + countStyle(s.before, NodeStyle::Multicast), 0);
        // Every node of the original is drawn in the style of its decision.
        QHash<QString, NodeStyle> decided;
        for (const NodeDecision& d : report.nodes) {
            decided.insert(QString::fromUtf8(d.name.data(), qsizetype(d.name.size())), expectedStyle(d.precision));
        }
        for (const DrawnNode& node : s.before.nodes) {
            QVERIFY2(decided.contains(node.name), qPrintable(node.name));
            QCOMPARE(node.style, decided.value(node.name));
        }
        for (const DrawnNode& node : s.after.nodes) {
            if (node.style == NodeStyle::Cast) {
                QVERIFY2(node.badge == QLatin1String("f16") || node.badge == QLatin1String("f32"), qPrintable(node.badge));
            }
        }
        // Edges leaving a cast carry its dtype; every edge runs downward.
        int labelled = 0;
        for (const DrawnEdge& edge : s.after.edges) {
            const DrawnNode& from = s.after.nodes[edge.source];
            if (from.style == NodeStyle::Cast) {
                QCOMPARE(edge.label, from.badge);
                ++labelled;
            }
            QVERIFY(edge.points.size() >= 2);
            QVERIFY(edge.points.last().y() > edge.points.first().y());
        }
        QVERIFY(labelled >= countStyle(s.after, NodeStyle::Cast));
        QCOMPARE(overlap(s.after), QString());
        QCOMPARE(overlap(s.before), QString());
    }

    // A large model's original, laid out on its own beside the conversion and handed over before the
    // computation returns: every node, unconverted styles; small models (below the threshold) skip it.
    void theOriginalComesFirstWhenLarge() {
        WorkspaceInput input;
        input.source = std::make_shared<Graph>(readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json"));
        int calls = 0;
        GraphDrawing first;
        const auto hook = [&](GraphDrawing drawing) {
            ++calls;
            first = std::move(drawing);
        };
        const WorkspaceSnapshot small = computeWorkspaceSnapshot(input, [] { return false; }, {}, hook);
        QCOMPARE(calls, 0);  // 121 nodes: under originalFirstFrom
        input.originalFirstFrom = 100;
        const WorkspaceSnapshot s = computeWorkspaceSnapshot(input, [] { return false; }, {}, hook);
        QCOMPARE(calls, 1);
        QCOMPARE(std::size_t(first.nodes.size()), input.source->size());
        QCOMPARE(countStyle(first, NodeStyle::Target) + countStyle(first, NodeStyle::Float32), 0);
        QVERIFY(countStyle(s.before, NodeStyle::Target) > 0);  // the final one shows the decisions
        QCOMPARE(overlap(first), QString());
        QVERIFY(small.conversion && s.conversion);
        const bool cancelledCalls = [&] {
            calls = 0;
            computeWorkspaceSnapshot(input, [] { return true; }, {}, hook);
            return calls != 0;
        }();
        QVERIFY(!cancelledCalls);  // a stale job hands nothing over
    }

    // An edge is labelled with its source's dtype only when it reads output 0 alone: the RNN's
    // float16 output 0 is labelled, a read of its state output (1), alone or beside output 0, not.
    void edgeLabelsOnlyForFirstOutputReads() {
        const char* json = R"({"nodes": [
            {"op": "null", "name": "data", "inputs": []},
            {"op": "null", "name": "rnn_parameters", "inputs": []},
            {"op": "null", "name": "rnn_state", "inputs": []},
            {"op": "null", "name": "rnn_state_cell", "inputs": []},
            {"op": "RNN", "name": "rnn", "attrs": {"mode": "lstm", "num_layers": "1", "state_size": "4", "state_outputs": "True"},
             "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]},
            {"op": "elemwise_add", "name": "both", "inputs": [[4, 0, 0], [4, 1, 0]]},
            {"op": "relu", "name": "first", "inputs": [[4, 0, 0]]},
            {"op": "relu", "name": "state", "inputs": [[4, 1, 0]]}
          ], "arg_nodes": [0, 1, 2, 3], "heads": [[5, 0, 0], [6, 0, 0], [7, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}})";
        WorkspaceInput input;
        input.source = std::make_shared<Graph>(parseSymbolJson(json, "test"));
        const WorkspaceSnapshot s = computeWorkspaceSnapshot(input, [] { return false; });
        QVERIFY(s.conversion);
        QHash<QString, QString> labelTo;  // from the RNN, by target
        for (const DrawnEdge& edge : s.after.edges) {
            if (s.after.nodes[edge.source].name == QLatin1String("rnn")) {
                labelTo.insert(s.after.nodes[edge.target].name, edge.label);
            }
        }
        QCOMPARE(labelTo.value(QStringLiteral("first"), QStringLiteral("(no edge)")), QStringLiteral("f16"));
        QCOMPARE(labelTo.value(QStringLiteral("state"), QStringLiteral("(no edge)")), QString());
        QCOMPARE(labelTo.value(QStringLiteral("both"), QStringLiteral("(no edge)")), QString());
    }

    // Grouped by name scope: both views draw the same groups (casts inside the scope of what they
    // cast), each group at the same place in both; opening one shows its contents; a second
    // computation that only changes the grouping reuses the conversion.
    void groupedViewsShareTheirGroups() {
        WorkspaceInput input;
        input.source = std::make_shared<Graph>(readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json"));
        input.grouping = WorkspaceInput::Grouping::On;
        const WorkspaceSnapshot s = computeWorkspaceSnapshot(input, [] { return false; });
        QVERIFY(s.conversion && s.beforeGroups && s.afterGroups);
        QCOMPARE(s.before.nodes.size(), qsizetype(s.beforeGroups->items.size()));
        QCOMPARE(s.after.nodes.size(), qsizetype(s.afterGroups->items.size()));
        QHash<QString, const DrawnNode*> after;
        for (const DrawnNode& node : s.after.nodes) after.insert(node.name, &node);
        int groups = 0, samePlace = 0;
        for (const DrawnNode& node : s.before.nodes) {
            QVERIFY2(after.contains(node.name), qPrintable(node.name));
            if (node.members > 0) {
                ++groups;
                QVERIFY(after[node.name]->members >= node.members);  // plus its casts
                samePlace += after[node.name]->centre == node.centre;
            }
        }
        QVERIFY(groups >= 9);  // conv1, fire2 ... fire9
        QCOMPARE(samePlace, groups);
        // Edges between groups carry the dtype of the reads they stand for, in the converted view.
        int labelled = 0;
        for (const DrawnEdge& edge : s.after.edges) {
            if (edge.label.isEmpty()) continue;
            ++labelled;
            QVERIFY2(edge.label == QLatin1String("f16") || edge.label == QLatin1String("f32"), qPrintable(edge.label));
        }
        QVERIFY(labelled >= groups);  // one into each fire module at least
        for (const DrawnEdge& edge : s.before.edges) QVERIFY(edge.label.isEmpty());
        const auto fire2 = std::find_if(s.after.nodes.begin(), s.after.nodes.end(),
                                        [](const DrawnNode& n) { return n.name == QLatin1String("fire2"); });
        QVERIFY(fire2 != s.after.nodes.end());
        QVERIFY2(fire2->label.contains(QStringLiteral("cast")), qPrintable(fire2->label));
        QCOMPARE(fire2->style, NodeStyle::Target);  // its convolutions run in float16
        // Its op mix, most frequent first (then by name), without its casts and weights.
        QCOMPARE(fire2->mix, QStringLiteral("Activation 3 · Convolution 3 · Concat 1"));
        QCOMPARE(overlap(s.before), QString());

        input.openScopes = {"fire2"};
        input.reuse = s.conversion;
        const WorkspaceSnapshot opened = computeWorkspaceSnapshot(input, [] { return false; });
        QCOMPARE(opened.conversion.get(), s.conversion.get());
        QCOMPARE(opened.beforeGroups->find("fire2"), std::size_t(-1));
        QVERIFY(opened.beforeGroups->find("fire2_squeeze1x1") != std::size_t(-1));
        QVERIFY(opened.before.nodes.size() > s.before.nodes.size());

        // A large model's grouped original comes first, before the conversion: its groups, unconverted.
        GraphDrawing first;
        input.originalFirstFrom = 100;
        input.reuse.reset();
        computeWorkspaceSnapshot(input, [] { return false; }, {}, [&](GraphDrawing d) { first = std::move(d); });
        QCOMPARE(first.nodes.size(), opened.before.nodes.size());
        QVERIFY(std::any_of(first.nodes.begin(), first.nodes.end(), [](const DrawnNode& n) { return n.members > 0; }));
        QCOMPARE(countStyle(first, NodeStyle::Target), 0);
        input.originalFirstFrom = 2000;

        // Auto: a model this small stays flat.
        input.grouping = WorkspaceInput::Grouping::Auto;
        input.openScopes.clear();
        QVERIFY(!computeWorkspaceSnapshot(input, [] { return false; }).beforeGroups);
        input.autoGroupFrom = 100;
        const WorkspaceSnapshot automatic = computeWorkspaceSnapshot(input, [] { return false; });
        QVERIFY(automatic.beforeGroups);
        QVERIFY(automatic.openScopes.empty());
    }

    // A sum over the outputs of every layer of a deep chain: its long edges share one trunk in both
    // views, drawn once with the arrow at the gathering node; each branch ends on the trunk without
    // an arrow, and the trunk of the converted view takes the branches' common dtype.
    void aGatheringNodeIsDrawnWithOneTrunk() {
        auto graph = std::make_shared<Graph>();
        auto add = [&](Node node) {
            graph->nodes.push_back(std::move(node));
            return NodeEntry{static_cast<NodeId>(graph->nodes.size() - 1), 0, 0};
        };
        NodeEntry x = add(Node{"", "data", {}, {}, {}, {}, 1});
        std::vector<NodeEntry> layers;
        for (int i = 0; i < 12; ++i) {
            const std::string name = "fc" + std::to_string(i);
            const NodeEntry w = add(Node{"", name + "_weight", {}, {}, {}, {}, 1});
            const NodeEntry b = add(Node{"", name + "_bias", {}, {}, {}, {}, 1});
            x = add(Node{"FullyConnected", name, {{"num_hidden", "8"}}, {x, w, b}, {}, {}, 1});
            layers.push_back(x);
        }
        const NodeEntry sum = add(Node{"add_n", "sum", {{"num_args", "12"}}, layers, {}, {}, 1});
        graph->heads = {sum};
        WorkspaceInput input;
        input.source = graph;
        const WorkspaceSnapshot s = computeWorkspaceSnapshot(input, [] { return false; });
        QVERIFY2(s.conversion, qPrintable(s.error));
        for (const GraphDrawing* drawing : {&s.before, &s.after}) {
            QCOMPARE(drawing->trunks.size(), 1);
            const DrawnEdge& trunk = drawing->trunks.front();
            QVERIFY(trunk.arrow);
            QCOMPARE(trunk.source, -1);
            const DrawnNode& gatherer = drawing->nodes[trunk.target];
            QCOMPARE(trunk.points.last(), gatherer.centre - QPointF(0, gatherer.size.height() / 2));
            int branches = 0;
            for (const DrawnEdge& edge : drawing->edges) {
                if (edge.target == trunk.target && !edge.arrow) {
                    ++branches;
                    QCOMPARE(edge.points.size(), 2);
                    QVERIFY(trunk.points.contains(edge.points.last()));
                }
            }
            QVERIFY2(branches >= 8, qPrintable(QString::number(branches)));  // not the last layers' short edges
        }
        QCOMPARE(s.after.trunks.front().label, QStringLiteral("f16"));
        QCOMPARE(s.after.nodes[s.after.trunks.front().target].name, QStringLiteral("sum"));
    }

    // The original is laid out like the converted graph: shared nodes sit at the same place in both
    // views (nine in ten at least; the rest move aside where a cast's absence leaves a gap).
    void sharedNodesSitAtTheSamePlace_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp") << "mlp-symbol.json";
        QTest::newRow("squeezenet") << "squeezenet_v1.1-symbol.json";
    }
    void sharedNodesSitAtTheSamePlace() {
        QFETCH(QString, file);
        const WorkspaceSnapshot s = snapshotOf(AMS_TESTDATA_DIR "/mxnet/" + file.toStdString());
        QHash<QString, QPointF> after;
        for (const DrawnNode& node : s.after.nodes) after.insert(node.name, node.centre);
        int same = 0;
        for (const DrawnNode& node : s.before.nodes) {
            QVERIFY(after.contains(node.name));
            const QPointF d = after[node.name] - node.centre;
            same += std::abs(d.x()) < 0.5 && std::abs(d.y()) < 0.5;
        }
        const auto shared = s.before.nodes.size();
        QVERIFY2(same * 10 >= shared * 9, qPrintable(QStringLiteral("%1 of %2 at the same place").arg(same).arg(shared)));
        QCOMPARE(s.before.bounds, s.after.bounds);
    }

    void excludedNodesAreMarked() {
        ConversionOptions options;
        options.excludedSymNames = {"fc1"};
        const WorkspaceSnapshot s = snapshotOf(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json", options);
        for (const GraphDrawing* drawing : {&s.before, &s.after}) {
            const auto it = std::find_if(drawing->nodes.begin(), drawing->nodes.end(),
                                         [](const DrawnNode& n) { return n.name == QLatin1String("fc1"); });
            QVERIFY(it != drawing->nodes.end());
            QVERIFY(it->excluded);
            QCOMPARE(it->style, NodeStyle::Float32);
        }
    }

    void aFailedConversionStillDrawsTheOriginal() {
        ConversionOptions options;
        options.lists.fp32Ops.push_back("FullyConnected");  // also in target_dtype_ops
        const WorkspaceSnapshot s = snapshotOf(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json", options);
        QVERIFY(!s.conversion);
        QVERIFY2(s.error.contains(QStringLiteral("FullyConnected")), qPrintable(s.error));
        QCOMPARE(s.before.nodes.size(), 14);
        QVERIFY(s.after.nodes.isEmpty());
    }

    void aCancelledJobDrawsNothing() {
        WorkspaceInput input;
        input.source =
            std::make_shared<Graph>(readSymbolJsonFile(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json"));
        const WorkspaceSnapshot s = computeWorkspaceSnapshot(input, [] { return true; });
        QVERIFY(s.before.nodes.isEmpty());
        QVERIFY(s.after.nodes.isEmpty());
    }

    void paramBytesMatchTheCastParameters() {
        const Graph graph = readSymbolJsonFile(AMS_SOURCE_DIR "/resources/examples/small-cnn-symbol.json");
        NDArrayList params = readNDArrayListFile(AMS_SOURCE_DIR "/resources/examples/small-cnn-0000.params");
        ConversionOptions options;
        options.castOptionalParams = true;
        ConversionResult result = convertGraph(graph, options);
        ConversionReport estimated = result.report;
        fillParamBytes(params, result.storedInTargetDtype, result.report.targetDtype, estimated);
        applyParamCasting(params, result.storedInTargetDtype, DType::F16, result.report);
        QCOMPARE(estimated.paramBytesBefore, result.report.paramBytesBefore);
        QCOMPARE(estimated.paramBytesAfter, result.report.paramBytesAfter);
        QVERIFY(estimated.paramBytesAfter < estimated.paramBytesBefore);
    }

    // Only the newest job delivers; a cancelled one never does, and a stale job sees `cancelled`.
    void jobTrackerDropsStaleResults() {
        QObject context;
        QThreadPool pool;
        pool.setMaxThreadCount(1);
        JobTracker tracker(&context);
        QList<int> delivered;
        std::atomic<int> sawCancel = 0;
        QSemaphore started;
        QSemaphore release;
        // The first job blocks until two newer ones have been started, then finds itself stale.
        tracker.startJob(
            &pool,
            [&](const std::function<bool()>& cancelled) {
                started.release();
                release.acquire();
                sawCancel += cancelled() ? 1 : 0;
                return 1;
            },
            [&](int v) { delivered << v; });
        started.acquire();
        tracker.startJob(&pool, [](const std::function<bool()>&) { return 2; }, [&](int v) { delivered << v; });
        tracker.startJob(&pool, [](const std::function<bool()>&) { return 3; }, [&](int v) { delivered << v; });
        QVERIFY(tracker.isRunning());
        release.release();
        QTRY_VERIFY(!tracker.isRunning());
        pool.waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QList<int>{3});
        QCOMPARE(sawCancel.load(), 1);

        tracker.startJob(&pool, [](const std::function<bool()>&) { return 4; }, [&](int v) { delivered << v; });
        tracker.cancel();
        pool.waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QList<int>{3});
        QVERIFY(!tracker.isRunning());
    }
};

QTEST_MAIN(TestWorkspaceSnapshot)
#include "test_workspace_snapshot.moc"
