// The conversion workspace as a user meets it: it starts on an example, a dropped model shows in
// both views, list edits and exclusions change the converted view and undo restores it exactly,
// selection follows across views, saving round-trips, a bad file keeps the document, German loads.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QLineEdit>
#include <QPushButton>
#include <QElapsedTimer>
#include <QSpinBox>
#include <QDropEvent>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTranslator>
#include <QUndoStack>
#include <QtTest>

#include "amp/conversion.h"
#include "app_settings.h"
#include "conversion_workspace.h"
#include "formats/symbol_json.h"
#include "graph_view.h"
#include "main_window.h"
#include "graph_comparison.h"
#include "graph_legend.h"
#include "node_error_box.h"
#include "node_inspector.h"
#include "precision_panel.h"
#include "precision_table_model.h"
#include "training_monitor.h"

using namespace ampstudio;

namespace {

const QString kSqueezenet = QStringLiteral(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json");
const QString kExamples = QStringLiteral(AMS_SOURCE_DIR "/resources/examples");

// The snapshot matches the settings once the workspace is idle.
bool settled(const MainWindow& window) {
    return window.workspace()->snapshot() && !window.workspace()->isBusy();
}

const ConversionReport& reportOf(const MainWindow& window) { return window.workspace()->snapshot()->conversion->report; }

const NodeDecision* decisionOf(const MainWindow& window, const std::string& name) {
    for (const NodeDecision& d : reportOf(window).nodes) {
        if (d.name == name) return &d;
    }
    return nullptr;
}

void drop(QWidget* target, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropEvent(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &dropEvent);
}

QAction* findAction(QMenu* menu, const QString& objectName) {
    return menu->findChild<QAction*>(objectName);
}

// Whether the precision table lists `name` as a float16 (candidate) node.
bool decisionOfNameInTable(const PrecisionPanel& panel, const std::string& name) {
    const auto* model = qobject_cast<const QSortFilterProxyModel*>(panel.tableView()->model());
    const auto* table = qobject_cast<const PrecisionTableModel*>(model->sourceModel());
    const int row = table->rowOf(QString::fromStdString(name));
    return row >= 0 && table->inTarget(row);
}

bool sameOptions(const ConversionOptions& a, const ConversionOptions& b) {
    return a.lists == b.lists && a.mode == b.mode && a.excludedSymNames == b.excludedSymNames &&
           a.dataNames == b.dataNames && a.castOptionalParams == b.castOptionalParams;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QSettings().clear();
    }

    void startsOnTheMlpWithBothViews() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 14);
        const auto& report = reportOf(window);
        QCOMPARE(window.afterView()->drawing().nodes.size(), qsizetype(report.nodesAfter));
        QVERIFY(report.ampCastCount > 0);
        QCOMPARE(std::size_t(window.afterView()->highlightedCastCount()), report.ampCastCount + report.ampMulticastCount);
        QCOMPARE(window.beforeView()->highlightedCastCount(), 0);
        QVERIFY2(window.countsText().contains(QStringLiteral("amp_cast")), qPrintable(window.countsText()));
    }

    void droppingARealModelShowsBothViews() {
        MainWindow window;
        QVERIFY(window.openDemo());
        drop(&window, kSqueezenet);
        QCOMPARE(window.workspace()->displayName(), QStringLiteral("squeezenet_v1.1-symbol.json"));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 121);
        const auto& report = reportOf(window);
        QCOMPARE(std::size_t(window.afterView()->drawing().nodes.size()), report.nodesAfter);
        QCOMPARE(std::size_t(window.afterView()->highlightedCastCount()), report.ampCastCount + report.ampMulticastCount);
        QVERIFY(QSettings().value(settings::kRecentFiles + QStringLiteral("/1/path")).toString().endsWith(
            QStringLiteral("squeezenet_v1.1-symbol.json")));
    }

    // While a model is converted and laid out the status bar names the stage and offers Cancel;
    // cancelling keeps the last finished graphs on screen, and the next edit lays the model out.
    void aLayoutInFlightShowsItsStageAndCanBeCancelled() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        auto* cancel = window.findChild<QToolButton*>(QStringLiteral("cancelComputation"));
        QVERIFY(cancel);
        QVERIFY(cancel->isHidden());
        QSignalSpy ready(window.workspace(), &ConversionWorkspace::snapshotReady);
        drop(&window, kSqueezenet);
        QVERIFY(window.workspace()->isBusy());
        QVERIFY(!cancel->isHidden());
        cancel->click();
        QVERIFY(!window.workspace()->isBusy());
        QVERIFY(cancel->isHidden());
        QVERIFY2(window.statusBar()->currentMessage().startsWith(QStringLiteral("Cancelled")),
                 qPrintable(window.statusBar()->currentMessage()));
        QTest::qWait(500);
        QCOMPARE(ready.count(), 0);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 14);  // still the MLP's

        QSignalSpy stages(window.workspace(), &ConversionWorkspace::stageChanged);
        QSignalSpy percents(window.workspace(), &ConversionWorkspace::layoutProgress);
        window.workspace()->settings()->moveOp(QStringLiteral("FullyConnected"), OpList::Fp32);
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);
        // Both layouts report how far they are, each to 100 %.
        QList<int> shown;
        for (const QList<QVariant>& args : percents) shown.push_back(args.at(0).toInt());
        QVERIFY2(shown.count(100) == 2 && shown.size() >= 4, qPrintable(QString::number(shown.size())));
        QVERIFY(std::all_of(shown.begin(), shown.end(), [](int p) { return p >= 0 && p <= 100; }));
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 121);
        QList<SnapshotStage> seen;
        for (const QList<QVariant>& args : stages) {
            seen.push_back(args.at(0).value<SnapshotStage>());
        }
        QCOMPARE(seen, (QList<SnapshotStage>{SnapshotStage::Converting, SnapshotStage::LayingOutConverted,
                                             SnapshotStage::LayingOutOriginal, SnapshotStage::Drawing}));
        QVERIFY(cancel->isHidden());
    }

    // Dropping a large model shows its original before the conversion is laid out, then both.
    void aLargeModelShowsItsOriginalFirst() {
        QTemporaryDir dir;
        Graph chain;
        chain.nodes.push_back(Node{"", "data", {}, {}, {}, {}, 1});
        for (int i = 0; i < 2100; ++i) {
            chain.nodes.push_back(Node{i % 2 ? "relu" : "exp", "op" + std::to_string(i), {},
                                       {NodeEntry{static_cast<NodeId>(i), 0, 0}}, {}, {}, 1});
        }
        chain.heads = {NodeEntry{static_cast<NodeId>(chain.nodes.size() - 1), 0, 0}};
        const QString path = dir.filePath(QStringLiteral("chain-symbol.json"));
        writeSymbolJsonFile(path.toStdString(), chain);
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QSignalSpy original(window.workspace(), &ConversionWorkspace::originalLaidOut);
        QSignalSpy ready(window.workspace(), &ConversionWorkspace::snapshotReady);
        drop(&window, path);
        QTRY_VERIFY_WITH_TIMEOUT(original.count() == 1, 20000);
        if (ready.isEmpty()) {  // shown while the conversion is still laid out
            QCOMPARE(window.beforeView()->drawing().nodes.size(), 2101);
            QVERIFY(window.afterView()->drawing().nodes.isEmpty());
        }
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);
        QCOMPARE(ready.count(), 1);
        QCOMPARE(original.count(), 1);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 2101);
        QCOMPARE(std::size_t(window.afterView()->drawing().nodes.size()), reportOf(window).nodesAfter);
        // An edit keeps the original on screen: nothing comes first.
        window.workspace()->settings()->moveOp(QStringLiteral("exp"), OpList::Neutral);
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 2 && settled(window), 20000);
        QCOMPARE(original.count(), 1);
    }

    // View → Group by Name Scope: one box per fire module; double-click opens one, the inspector
    // describes a group, its context menu excludes its nodes in one undoable step and collapses it.
    void groupingByNameScope() {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        drop(&window, kSqueezenet);
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 121);  // small: flat at first
        auto* group = window.findChild<QAction*>(QStringLiteral("groupByScope"));
        QVERIFY(group);
        QVERIFY(!group->isChecked());
        group->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && window.workspace()->isGrouped(), 20000);
        QTRY_VERIFY(window.beforeView()->hasNode(QStringLiteral("fire2")));
        QVERIFY(group->isChecked());
        QVERIFY(window.afterView()->hasNode(QStringLiteral("fire2")));
        QVERIFY(window.beforeView()->drawing().nodes.size() < 40);

        window.beforeView()->selectNode(QStringLiteral("fire3"));
        QCOMPARE(window.inspector()->nodeName(), QStringLiteral("fire3"));
        // Its tool tip gives the op mix.
        const QString tip = window.beforeView()->toolTipForNode(QStringLiteral("fire3"));
        QVERIFY2(tip.contains(QStringLiteral("× Convolution")) && tip.contains(QStringLiteral("× variable")), qPrintable(tip));
        // A search finds the group that holds the match.
        QCOMPARE(window.beforeView()->findNodes(QStringLiteral("fire4_expand3x3_weight")), 1);
        QVERIFY(window.afterView()->findNodes(QStringLiteral("fire4_expand3x3")) >= 1);
        window.beforeView()->findNodes(QString());
        window.afterView()->findNodes(QString());

        GraphView* view = window.beforeView();
        view->selectNode(QStringLiteral("fire2"));
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(view->nodeScenePos(QStringLiteral("fire2"))));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && !window.beforeView()->hasNode(QStringLiteral("fire2")), 20000);
        QVERIFY(window.beforeView()->hasNode(QStringLiteral("fire2_squeeze1x1")));

        std::unique_ptr<QMenu> menu(window.createNodeContextMenu(QStringLiteral("fire2_squeeze1x1"), &window));
        QAction* exclude = findAction(menu.get(), QStringLiteral("excludeGroup"));
        QVERIFY(exclude);
        const std::size_t excludedBefore = window.workspace()->settings()->options().excludedSymNames.size();
        exclude->trigger();
        const std::size_t excluded = window.workspace()->settings()->options().excludedSymNames.size() - excludedBefore;
        QCOMPARE(excluded, std::size_t(3));  // the convolution, its weight and its bias
        QCOMPARE(window.workspace()->settings()->undoStack()->undoText(), QStringLiteral("Exclude 3 Node(s)"));
        window.workspace()->settings()->undoStack()->undo();
        QCOMPARE(window.workspace()->settings()->options().excludedSymNames.size(), excludedBefore);
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);

        findAction(menu.get(), QStringLiteral("collapseScope"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && window.beforeView()->hasNode(QStringLiteral("fire2")), 20000);

        group->trigger();  // off: flat again
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && window.beforeView()->drawing().nodes.size() == 121, 20000);
    }

    void droppingParamsFindsTheirSymbol() {
        MainWindow window;
        drop(&window, kExamples + QStringLiteral("/small-cnn-0000.params"));
        QCOMPARE(window.workspace()->displayName(), QStringLiteral("small-cnn-symbol.json"));
        QVERIFY(window.workspace()->params());
        QVERIFY(window.workspace()->paramsPath().endsWith(QStringLiteral("small-cnn-0000.params")));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QVERIFY(reportOf(window).paramsKnown);
        QVERIFY(reportOf(window).paramBytesBefore > 1000000);
    }

    // An ONNX model drops as an MXNet one does (converting it is the next step: it is shown as read).
    void droppingAnOnnxModelShowsIt() {
        const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx");
        if (!QFile::exists(model)) {
            QSKIP("libonnx-testdata is not installed");
        }
        MainWindow window;
        QVERIFY(window.openDemo());
        drop(&window, model);
        QCOMPARE(window.workspace()->displayName(), QStringLiteral("model.onnx"));
        QVERIFY(window.workspace()->params());  // the initializers
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QCOMPARE(window.beforeView()->drawing().nodes.size(), 4);  // input, weight, bias, Conv
        // Casts named as ONNX names them, in the counts and the legend; no amp_multicast.
        QVERIFY2(window.countsText().contains(QStringLiteral(" Cast ")), qPrintable(window.countsText()));
        QVERIFY(!window.countsText().contains(QStringLiteral("amp_")));
        const GraphLegend* legend = window.comparison()->legend();
        QCOMPARE(legend->entryText(static_cast<int>(NodeStyle::Cast)), QStringLiteral("Cast"));
        QVERIFY(!legend->entryShown(static_cast<int>(NodeStyle::Multicast)));
        // Back on an MXNet model, MXNet's names.
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QCOMPARE(legend->entryText(static_cast<int>(NodeStyle::Cast)), QStringLiteral("amp_cast"));
        QVERIFY(legend->entryShown(static_cast<int>(NodeStyle::Multicast)));
    }

    void movingAnOpChangesTheConvertedViewAndUndoRestoresIt() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        const ConversionOptions before = window.workspace()->settings()->options();
        const GraphDrawing drawingBefore = window.afterView()->drawing();
        const QString countsBefore = window.countsText();
        const int castsBefore = window.afterView()->highlightedCastCount();
        QCOMPARE(decisionOf(window, "fc1")->precision, NodePrecision::Target);

        std::unique_ptr<QMenu> menu(window.createNodeContextMenu(QStringLiteral("fc1"), &window));
        QAction* toFp32 = findAction(menu.get(), QStringLiteral("moveToFp32"));
        QVERIFY(toFp32);
        QVERIFY(toFp32->isEnabled());
        toFp32->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QCOMPARE(decisionOf(window, "fc1")->precision, NodePrecision::Float32);
        QVERIFY(window.countsText() != countsBefore);
        QVERIFY(window.afterView()->highlightedCastCount() != castsBefore);
        QCOMPARE(window.workspace()->settings()->undoStack()->undoText(),
                 QStringLiteral("Move FullyConnected to FP32 ops"));

        window.workspace()->settings()->undoStack()->undo();
        QVERIFY(sameOptions(window.workspace()->settings()->options(), before));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QCOMPARE(window.countsText(), countsBefore);
        const GraphDrawing drawingAfterUndo = window.afterView()->drawing();
        QCOMPARE(drawingAfterUndo.nodes.size(), drawingBefore.nodes.size());
        for (qsizetype i = 0; i < drawingBefore.nodes.size(); ++i) {
            QCOMPARE(drawingAfterUndo.nodes[i].name, drawingBefore.nodes[i].name);
            QCOMPARE(drawingAfterUndo.nodes[i].style, drawingBefore.nodes[i].style);
            QCOMPARE(drawingAfterUndo.nodes[i].centre, drawingBefore.nodes[i].centre);
        }
    }

    void excludingANodeRunsItInFp32() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        std::unique_ptr<QMenu> menu(window.createNodeContextMenu(QStringLiteral("fc2"), &window));
        QAction* exclude = findAction(menu.get(), QStringLiteral("excludeNode"));
        QVERIFY(exclude);
        exclude->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        const NodeDecision* fc2 = decisionOf(window, "fc2");
        QCOMPARE(fc2->precision, NodePrecision::Float32);
        QCOMPARE(fc2->rule, DecisionRule::Excluded);
        QCOMPARE(window.workspace()->settings()->undoStack()->undoText(), QStringLiteral("Exclude fc2"));
        // The menu now offers the way back.
        std::unique_ptr<QMenu> again(window.createNodeContextMenu(QStringLiteral("fc2"), &window));
        QVERIFY(findAction(again.get(), QStringLiteral("excludeNode"))->text().contains(QStringLiteral("Include")));
    }

    // A conversion MXNet could not bind (classic casts BatchNorm's float32 statistics to float16)
    // is shown, but Save is disabled and the status bar says why; undo makes it savable again.
    void invalidConversionCannotBeSaved() {
        const QString symbol = QStringLiteral(AMS_TEST_FIXTURES_DIR "/batchnorm-symbol.json");
        MainWindow window;
        QVERIFY(window.openFile(symbol));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QVERIFY(window.saveConvertedAction()->isEnabled());
        window.workspace()->settings()->setMode(ConversionMode::Classic);
        window.workspace()->settings()->moveOp(QStringLiteral("BatchNorm"), OpList::Target);
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && !reportOf(window).dtypeCheck.passed, 10000);
        QVERIFY(!window.saveConvertedAction()->isEnabled());
        QVERIFY2(window.countsText().contains(QStringLiteral("fails MXNet")), qPrintable(window.countsText()));
        QVERIFY(window.saveConvertedAction()->toolTip().contains(QStringLiteral("cannot take inputs")));
        window.workspace()->settings()->undoStack()->undo();
        QTRY_VERIFY_WITH_TIMEOUT(settled(window) && reportOf(window).dtypeCheck.passed, 10000);
        QVERIFY(window.saveConvertedAction()->isEnabled());
    }

    void selectionFollowsAcrossViewsAndFillsTheInspector() {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        GraphView* before = window.beforeView();
        before->centreOn(before->nodeScenePos(QStringLiteral("relu1")));
        const QPoint at = before->mapFromScene(before->nodeScenePos(QStringLiteral("relu1")));
        QCOMPARE(before->nodeNameAt(at), QStringLiteral("relu1"));
        QTest::mouseClick(before->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(window.afterView()->selectedNode(), QStringLiteral("relu1"));
        QCOMPARE(window.inspector()->nodeName(), QStringLiteral("relu1"));
        // A cast exists only in the converted graph: the original clears its selection.
        const auto& casts = reportOf(window).casts;
        QVERIFY(!casts.empty());
        const QString cast = QString::fromStdString(std::string(casts.front().name.data(), casts.front().name.size()));
        window.afterView()->selectNode(cast);
        emit window.afterView()->nodeSelected(cast);
        QCOMPARE(window.beforeView()->selectedNode(), QString());
        QCOMPARE(window.inspector()->nodeName(), cast);
    }

    void savedModelReloadsAsTheConversion() {
        QTemporaryDir dir;
        MainWindow window;
        QVERIFY(window.openFile(kSqueezenet));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 20000);
        const QString prefix = dir.filePath(QStringLiteral("squeezenet-fp16"));
        QString error;
        QStringList written;
        QVERIFY2(window.workspace()->saveConverted(prefix, &error, &written), qPrintable(error));
        QCOMPARE(written, QStringList{prefix + QStringLiteral("-symbol.json")});
        const std::string expected = serializeSymbolJson(window.workspace()->snapshot()->conversion->graph);

        MainWindow reopened;
        QVERIFY(reopened.openFile(written.first()));
        QCOMPARE(serializeSymbolJson(*reopened.workspace()->source()), expected);
        QVERIFY2(window.workspace()->exportReport(dir.filePath(QStringLiteral("report.json")), &error), qPrintable(error));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("report.json"))).size() > 1000);
    }

    void savingNeverOverwritesTheInput() {
        QTemporaryDir dir;
        const QString symbol = dir.filePath(QStringLiteral("cnn-symbol.json"));
        const QString params = dir.filePath(QStringLiteral("cnn-0000.params"));
        QVERIFY(QFile::copy(kExamples + QStringLiteral("/small-cnn-symbol.json"), symbol));
        QVERIFY(QFile::copy(kExamples + QStringLiteral("/small-cnn-0000.params"), params));
        const QByteArray paramsBytes = [&] { QFile f(params); f.open(QIODevice::ReadOnly); return f.readAll(); }();
        MainWindow window;
        QVERIFY(window.openFile(symbol));
        QCOMPARE(window.workspace()->paramsPath(), params);
        QString error;
        QVERIFY(!window.workspace()->saveConverted(dir.filePath(QStringLiteral("cnn")), &error));
        QVERIFY2(error.contains(QStringLiteral("refusing to overwrite")), qPrintable(error));
        QFile f(params);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), paramsBytes);
        // With parameters: cast_optional_params halves what it stores in float16.
        window.workspace()->settings()->setCastOptionalParams(true);
        QStringList written;
        QVERIFY2(window.workspace()->saveConverted(dir.filePath(QStringLiteral("cnn-fp16")), &error, &written),
                 qPrintable(error));
        QCOMPARE(written.size(), 2);
        QVERIFY(QFileInfo(written[1]).size() < paramsBytes.size() * 3 / 4);
    }

    void badFileKeepsTheDocument() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken-symbol.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"nodes": [{"op": "null", "name": "x", "inputs": [[5, 0, 0]]}], "heads": [[0, 0, 0]]})");
        f.close();
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        QVERIFY(!window.openFile(path));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("broken-symbol.json")),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(window.workspace()->source()->size(), std::size_t(14));  // the MLP is still there
        QVERIFY(!window.openFile(dir.filePath(QStringLiteral("missing-symbol.json"))));
        QCOMPARE(failed.count(), 2);
        QCOMPARE(window.workspace()->source()->size(), std::size_t(14));
    }

    void everyExampleOpens_data() {
        QTest::addColumn<int>("index");
        for (int i = 0; i < ConversionWorkspace::examples().size(); ++i) {
            QTest::newRow(qPrintable(ConversionWorkspace::examples()[i].symbolPath)) << i;
        }
    }
    void everyExampleOpens() {
        QFETCH(int, index);
        MainWindow window;
        QVERIFY(window.openExample(index));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        QVERIFY(window.workspace()->snapshot()->conversion);
        QVERIFY(!window.afterView()->drawing().nodes.isEmpty());
    }

    void trainingMonitorTrainsTheOpenDocument() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        TrainingMonitor* monitor = window.trainingMonitor();
        auto* dataset = monitor->findChild<QComboBox*>(QStringLiteral("trainingDataset"));
        dataset->setCurrentIndex(dataset->findData(QStringLiteral("synthetic:blobs")));
        auto* model = monitor->findChild<QComboBox*>(QStringLiteral("trainingModel"));
        model->setCurrentIndex(model->findData(QStringLiteral("conversion")));
        QVERIFY2(monitor->setupProblem().isEmpty(), qPrintable(monitor->setupProblem()));
        QCOMPARE(monitor->request().model.get(), window.workspace()->source().get());
        // An exclusion made in the workspace is what "current conversion" trains.
        window.workspace()->settings()->setExcluded(QStringLiteral("fc2"), true);
        QCOMPARE(monitor->request().settings.excludedNodes, (std::set<std::string>{"fc2"}));
        QCOMPARE(monitor->request().settings.precision, PrecisionMode::Amp);

        // Closing the window while it trains stops the run and joins the engine thread.
        monitor->findChild<QSpinBox*>(QStringLiteral("trainingEpochs"))->setValue(100000);
        QVERIFY(monitor->startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(monitor->run()->stepsDone() > 5, 10000);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(window.close());
        QVERIFY(!monitor->run()->isActive());
        QCOMPARE(monitor->run()->state(), TrainingRun::State::Stopped);
        QVERIFY(timer.elapsed() < 1000);
    }

    void germanTranslationLoads() {
        QTranslator translator;
        QVERIFY(translator.load(QStringLiteral(":/i18n/ampstudio_de.qm")));
        QCOMPARE(translator.translate("MainWindow", "&File"), QStringLiteral("&Datei"));
        QCOMPARE(translator.translate("MainWindow", "&Save Converted…"), QStringLiteral("Konvertiertes Modell &speichern…"));
        QCOMPARE(translator.translate("TrainingMonitor", "&Start"), QStringLiteral("&Starten"));
    }

    // The precision debugger on the small CNN with its parameters: Measure colours the converted view
    // by error, the inspector shows a node's figures, and the search's set goes into the
    // exclusions as one step Undo takes back.
    // The precision debugger on an ONNX model: measured on the ONNX runner with the inputs the model
    // declares, searched, and the set kept as exclusions that the conversion then runs in float32.
    void precisionDebuggerOnAnOnnxModel() {
        const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx");
        if (!QFile::exists(model)) {
            QSKIP("libonnx-testdata is not installed");
        }
        MainWindow window;
        QVERIFY(window.openFile(model));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        PrecisionPanel* panel = window.precisionPanel();
        QCOMPARE(panel->findChild<QLineEdit*>(QStringLiteral("precisionShapes"))->text(), QStringLiteral("0=2,3,7,5"));
        QVERIFY(window.measurePrecision());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 60000);
        QVERIFY2(panel->statusText().startsWith(QStringLiteral("Measured")), qPrintable(panel->statusText()));
        QVERIFY(window.afterView()->hasErrorMarks());
        QCOMPARE(decisionOfNameInTable(*panel, "Conv_0"), true);
        panel->findChild<QLineEdit*>(QStringLiteral("precisionTolerance"))->setText(QStringLiteral("1e-6"));
        QVERIFY(panel->findFloat32Set());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 60000);
        QVERIFY2(panel->findChild<QPushButton*>(QStringLiteral("precisionApply"))->isEnabled(), qPrintable(panel->resultText()));
        panel->findChild<QPushButton*>(QStringLiteral("precisionApply"))->click();
        QCOMPARE(window.workspace()->settings()->options().excludedSymNames, std::set<std::string>{"Conv_0"});
    }

    void precisionDebuggerColoursMeasuresAndKeepsASet() {
        MainWindow window;
        QVERIFY(window.openFile(kExamples + QStringLiteral("/small-cnn-symbol.json")));
        QTRY_VERIFY_WITH_TIMEOUT(settled(window), 10000);
        PrecisionPanel* panel = window.precisionPanel();
        QVERIFY(!panel->findChild<QLineEdit*>(QStringLiteral("precisionShapes"))->text().isEmpty());  // suggested
        QVERIFY(window.measurePrecision());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 60000);
        QVERIFY2(panel->statusText().startsWith(QStringLiteral("Measured")), qPrintable(panel->statusText()));
        QCOMPARE(window.afterView()->colouring(), GraphView::Colouring::Error);
        QVERIFY(window.afterView()->hasErrorMarks());
        QVERIFY(window.comparison()->errorColouring());
        QCOMPARE(window.beforeView()->colouring(), GraphView::Colouring::Precision);

        // The worst node, selected from the table, shows its figures in the inspector.
        QTableView* table = panel->tableView();
        QVERIFY(table->model()->rowCount() > 0);
        table->setCurrentIndex(table->model()->index(0, 0));
        const QString worst = table->model()->index(0, 0).data(PrecisionTableModel::NameRole).toString();
        QCOMPARE(window.inspector()->nodeName(), worst);
        QVERIFY(window.inspector()->measuredErrorBox()->isVisibleTo(window.inspector()));
        QVERIFY(!window.inspector()->measuredErrorBox()->errorText().isEmpty());

        // Colouring by precision again, and back.
        panel->findChild<QCheckBox*>(QStringLiteral("precisionColourByError"))->setChecked(false);
        QCOMPARE(window.afterView()->colouring(), GraphView::Colouring::Precision);
        panel->findChild<QCheckBox*>(QStringLiteral("precisionColourByError"))->setChecked(true);
        QCOMPARE(window.afterView()->colouring(), GraphView::Colouring::Error);

        // Nothing to spare: the search keeps every float16 layer; Keep applies it, Undo takes it back.
        panel->findChild<QLineEdit*>(QStringLiteral("precisionTolerance"))->setText(QStringLiteral("0"));
        QVERIFY(panel->findFloat32Set());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 60000);
        QUndoStack* undo = window.workspace()->settings()->undoStack();
        const int steps = undo->count();
        QVERIFY2(panel->findChild<QPushButton*>(QStringLiteral("precisionApply"))->isEnabled(), qPrintable(panel->resultText()));
        QSignalSpy found(panel, &PrecisionPanel::float32SetFound);
        panel->findChild<QPushButton*>(QStringLiteral("precisionApply"))->click();
        QCOMPARE(found.count(), 1);
        QCOMPARE(undo->count(), steps + 1);
        const auto& excluded = window.workspace()->settings()->options().excludedSymNames;
        QVERIFY(!excluded.empty());
        for (const std::string& n : excluded) QCOMPARE(decisionOfNameInTable(*panel, n), true);
        QVERIFY(panel->resultText().contains(QStringLiteral("Out of date")));
        undo->undo();
        QVERIFY(window.workspace()->settings()->options().excludedSymNames.empty());
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
