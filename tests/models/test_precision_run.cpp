// The precision debugger as the window runs it: a measurement and a search on the worker thread,
// progress while they run, stop keeping the best so far, and the table of the worst nodes.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

#include "formats/symbol_json.h"
#include "precision_run.h"
#include "precision_table_model.h"

using namespace ampstudio;

namespace {

PrecisionRequest mlpRequest() {
    PrecisionRequest r;
    r.source = std::make_shared<Graph>(readSymbolJsonFile(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json"));
    r.inputs.randomInputs = {"data=8,784"};
    r.inputs.seed = 3;
    return r;
}

std::shared_ptr<const PrecisionOutcome> runToEnd(PrecisionRun& run, PrecisionRequest request) {
    QSignalSpy finished(&run, &PrecisionRun::finished);
    if (!run.start(std::move(request))) return nullptr;
    if (!finished.wait(60000)) return nullptr;
    return run.outcome();
}

}  // namespace

class TestPrecisionRun : public QObject {
    Q_OBJECT

private slots:
    void measuresEveryNode() {
        PrecisionRun run;
        const auto outcome = runToEnd(run, mlpRequest());
        QVERIFY(outcome);
        QVERIFY2(outcome->result, qPrintable(outcome->error));
        const PrecisionSearchResult& r = *outcome->result;
        // fc1, fc2, fc3 compute in float16 (with relu1 and relu2 between: neutral, float16 too).
        QVERIFY(r.nodes.size() >= 3);
        QCOMPARE(r.attempts.size(), std::size_t(1));  // measured, not searched
        QCOMPARE(r.outputs.size(), std::size_t(1));
        QVERIFY(r.outputs[0].referenceFinite());
        QVERIFY(!run.isRunning());
        QCOMPARE(run.progress().phase, PrecisionProgress::Phase::Idle);

        PrecisionTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(std::make_shared<PrecisionSearchResult>(r), DType::F16);
        QCOMPARE(model.rowCount(), int(r.nodes.size() + r.float32Nodes.size()));
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(PrecisionTableModel::SortRole);
        sorted.sort(PrecisionTableModel::Error, Qt::DescendingOrder);
        double previous = std::numeric_limits<double>::infinity();
        for (int row = 0; row < sorted.rowCount(); ++row) {
            const double e = sorted.index(row, PrecisionTableModel::Error).data(PrecisionTableModel::SortRole).toDouble();
            QVERIFY(e <= previous);
            previous = e;
        }
        const QString worst = sorted.index(0, 0).data(PrecisionTableModel::NameRole).toString();
        QVERIFY(model.profile(worst));
        QCOMPARE(QString::fromStdString(model.profile(worst)->name), worst);
        model.setResult(nullptr, DType::F16);
        QCOMPARE(model.rowCount(), 0);
    }

    // A tolerance the plain conversion misses: the search runs attempts, reports them while it
    // goes, and its set meets the tolerance.
    void searchesWithProgress() {
        PrecisionRun run;
        PrecisionRequest request = mlpRequest();
        request.search = true;
        request.tolerance = 1e-6;  // float16 cannot: only float32 everywhere meets it
        request.maxAttempts = 12;
        QSignalSpy progress(&run, &PrecisionRun::progressChanged);
        const auto outcome = runToEnd(run, request);
        QVERIFY(outcome && outcome->result);
        QVERIFY(outcome->result->attempts.size() > 1);
        QVERIFY(!progress.isEmpty());
        QVERIFY(run.progress().attempts >= 1);
    }

    // Stop right after starting: the run ends soon, a result (the measurement so far) still arrives.
    void stopKeepsWhatWasDone() {
        PrecisionRun run;
        PrecisionRequest request = mlpRequest();
        request.search = true;
        request.tolerance = 1e-9;
        QSignalSpy finished(&run, &PrecisionRun::finished);
        QVERIFY(run.start(request));
        QVERIFY(!run.start(request));  // one run at a time
        run.stop();
        QVERIFY(finished.wait(60000));
        QVERIFY(run.outcome()->result);
        QVERIFY(run.outcome()->result->stopped);
    }

    void badInputsAreAnError() {
        PrecisionRun run;
        PrecisionRequest request = mlpRequest();
        request.inputs.randomInputs = {"data=8,x"};
        const auto outcome = runToEnd(run, request);
        QVERIFY(outcome);
        QVERIFY(!outcome->result);
        QVERIFY(outcome->error.contains(QStringLiteral("data")));
    }
};

QTEST_GUILESS_MAIN(TestPrecisionRun)
#include "test_precision_run.moc"
