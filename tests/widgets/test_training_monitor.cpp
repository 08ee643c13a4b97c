// The training monitor with real runs on synthetic data (offscreen): the charts fill while the
// engine trains on its own thread, the loss falls, every skipped step has its marker, pause holds
// the step counter and resume moves it on, stop joins within a second and keeps weights that save and
// reload, a setup that cannot train is explained before Start, settings persist, and a finished run
// is overlaid on the next.
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "blob_mlp.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"
#include "train/metrics_csv_writer.h"
#include "training_chart.h"
#include "training_monitor.h"

using namespace ampstudio;

namespace {

using ampstudio::test::blobMlp;

template <typename T>
T* child(QWidget& parent, const char* name) {
    T* w = parent.findChild<T*>(QLatin1String(name));
    if (w == nullptr) qFatal("no child %s", name);
    return w;
}

void choose(QComboBox* combo, const QString& data) {
    const int i = combo->findData(data);
    if (i < 0) qFatal("no item %s", qPrintable(data));
    combo->setCurrentIndex(i);
}

// A monitor set up for a quick run on blobs.
void setUp(TrainingMonitor& m, const QString& precision, int epochs, int maxSteps = 0) {
    m.setModel(blobMlp(), nullptr, QStringLiteral("blob MLP"), {}, QString());
    choose(child<QComboBox>(m, "trainingModel"), QStringLiteral("original"));
    choose(child<QComboBox>(m, "trainingDataset"), QStringLiteral("synthetic:blobs"));
    choose(child<QComboBox>(m, "trainingPrecision"), precision);
    child<QSpinBox>(m, "trainingBatch")->setValue(32);
    child<QSpinBox>(m, "trainingEpochs")->setValue(epochs);
    child<QSpinBox>(m, "trainingMaxSteps")->setValue(maxSteps);
    child<QSpinBox>(m, "trainingSeed")->setValue(3);
}

}  // namespace

class TestTrainingMonitor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void shortRunFillsTheCharts() {
        TrainingMonitor m;
        m.resize(1200, 450);
        m.show();
        setUp(m, QStringLiteral("amp"), 4);
        // From 2^24 the float16 gradients overflow: skipped steps, the scale backing off.
        child<QSpinBox>(m, "trainingInitScale")->setValue(24);
        QVERIFY2(m.setupProblem().isEmpty(), qPrintable(m.setupProblem()));
        QVERIFY(child<QPushButton>(m, "trainingStart")->isEnabled());
        QTest::mouseClick(child<QPushButton>(m, "trainingStart"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m.lossChart()->pointCount(m.rawLossSeries()) > 0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!m.run()->isActive(), 30000);
        QCOMPARE(m.run()->state(), TrainingRun::State::Finished);
        const auto summary = m.run()->summary();
        QVERIFY(summary.has_value());
        QCOMPARE(summary->steps, 4 * (800 / 32));
        QCOMPARE(static_cast<int64_t>(m.run()->history().stepCount()), summary->steps);
        const std::vector<double>& smoothed = m.run()->history().smoothedLoss();
        QVERIFY2(smoothed.back() < smoothed.front(), qPrintable(QString("%1 -> %2").arg(smoothed.front()).arg(smoothed.back())));
        // One marker per skipped step, and there were some.
        QVERIFY(summary->skippedSteps > 0);
        QCOMPARE(static_cast<int64_t>(m.scaleChart()->pointCount(m.skippedSeries())), summary->skippedSteps);
        // The log2 axis only ever got positive scales; the loss series no inf/NaN.
        QVERIFY(m.scaleChart()->smallestValueGiven(TrainingChart::Axis::Left) > 0.0);
        for (const QPointF& p : m.lossChart()->points(m.rawLossSeries())) QVERIFY(std::isfinite(p.y()));
        // Validation per epoch: four points on each of the epoch series.
        QCOMPARE(m.run()->history().epochs().size(), std::size_t{4});
        QVERIFY(m.statusText().contains(QStringLiteral("skipped")));
        QVERIFY(m.hoverText(0).contains(QStringLiteral("loss scale 2")));
        QVERIFY(m.hoverText(0).contains(QStringLiteral("skipped")));  // step 0 overflowed at 2^24
        QVERIFY(child<QLabel>(m, "trainingOffer")->isVisible());
        QVERIFY(child<QPushButton>(m, "trainingSave")->isEnabled());

        // The metrics export as the CLI writes them.
        QTemporaryDir dir;
        QString error;
        const QString csv = dir.filePath(QStringLiteral("metrics.csv"));
        QVERIFY2(m.exportMetrics(csv, &error), qPrintable(error));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray header = file.readLine();
        QCOMPARE(header.toStdString(), MetricsCsvWriter::stepHeader());
        QCOMPARE(file.readAll().count('\n'), summary->steps);
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("metrics-epochs.csv"))));
    }

    void pauseHoldsTheStepCounter() {
        TrainingMonitor m;
        m.show();
        setUp(m, QStringLiteral("fp32"), 100000);
        QVERIFY(m.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(m.run()->stepsDone() > 20, 10000);
        // The progress bar tells step, epoch and the time left; the status line the speed and scale.
        QTRY_VERIFY_WITH_TIMEOUT(child<QProgressBar>(m, "trainingProgress")->format().contains(QStringLiteral("ETA")), 5000);
        QVERIFY(child<QProgressBar>(m, "trainingProgress")->format().contains(QRegularExpression(QStringLiteral("epoch \\d+ of 100000"))));
        QVERIFY(m.statusText().contains(QStringLiteral("samples/s")));
        QTest::mouseClick(child<QPushButton>(m, "trainingPause"), Qt::LeftButton);
        QCOMPARE(m.run()->state(), TrainingRun::State::Paused);
        // A step in flight finishes (on a loaded machine that can take a while): the counter settles.
        int64_t held = -1;
        const auto settled = [&] {
            const int64_t before = m.run()->stepsDone();
            QTest::qWait(150);
            held = m.run()->stepsDone();
            return held == before;
        };
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 5000);
        QTest::qWait(400);
        QCOMPARE(m.run()->stepsDone(), held);
        QCOMPARE(child<QPushButton>(m, "trainingPause")->text(), QStringLiteral("&Resume"));
        QTest::mouseClick(child<QPushButton>(m, "trainingPause"), Qt::LeftButton);
        QCOMPARE(m.run()->state(), TrainingRun::State::Training);
        QTRY_VERIFY_WITH_TIMEOUT(m.run()->stepsDone() > held + 20, 10000);

        // Stop joins the thread within a second and keeps the weights.
        QElapsedTimer timer;
        timer.start();
        QTest::mouseClick(child<QPushButton>(m, "trainingStop"), Qt::LeftButton);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(m.run()->state(), TrainingRun::State::Stopped);
        QVERIFY(!m.run()->isActive());
        QVERIFY(m.run()->hasWeights());
        QTemporaryDir dir;
        const QString prefix = dir.filePath(QStringLiteral("blob-trained"));
        QString error;
        QString paramsPath;
        QVERIFY2(m.saveWeights(prefix, &error, &paramsPath), qPrintable(error));
        QVERIFY(paramsPath.startsWith(prefix + QStringLiteral("-")));
        const NDArrayList saved = readNDArrayListFile(paramsPath.toStdString());
        const NDArrayList live = m.run()->parameters();
        QCOMPARE(saved.arrays.size(), live.arrays.size());
        QCOMPARE(serializeNDArrayList(saved), serializeNDArrayList(live));
        QVERIFY(saved.find("fc1_weight") >= 0);
        const Graph reloaded = readSymbolJsonFile((prefix + QStringLiteral("-symbol.json")).toStdString());
        QCOMPARE(reloaded.size(), blobMlp()->size());
        // Training again from the saved weights starts where the first run ended.
        const double scratchLoss = m.run()->history().loss().front();
        m.setModel(blobMlp(), std::make_shared<const NDArrayList>(saved), QStringLiteral("blob MLP"),
                   {prefix + QStringLiteral("-symbol.json"), paramsPath}, prefix);
        choose(child<QComboBox>(m, "trainingStartFrom"), QStringLiteral("params"));
        child<QSpinBox>(m, "trainingMaxSteps")->setValue(5);
        QVERIFY(m.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(!m.run()->isActive(), 10000);
        // A trained start, not a fresh one: the first loss is well below the first run's first loss.
        QVERIFY2(m.run()->history().loss().front() < 0.75 * scratchLoss,
                 qPrintable(QString("%1 vs %2").arg(m.run()->history().loss().front()).arg(scratchLoss)));
        // Saving over the model's own files is refused, and they stay as they were.
        const QByteArray before = [&] {
            QFile f(paramsPath);
            f.open(QIODevice::ReadOnly);
            return f.readAll();
        }();
        QVERIFY(!m.saveWeights(prefix, &error));
        QVERIFY(error.contains(QStringLiteral("overwritten")));
        QFile f(paramsPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
    }

    void previousRunIsOverlaid() {
        TrainingMonitor m;
        m.show();
        setUp(m, QStringLiteral("fp32"), 1);
        QVERIFY(m.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(!m.run()->isActive(), 10000);
        QVERIFY(!child<QCheckBox>(m, "trainingCompare")->isEnabled());  // nothing to compare with yet
        choose(child<QComboBox>(m, "trainingPrecision"), QStringLiteral("amp"));
        QVERIFY(m.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(!m.run()->isActive(), 10000);
        QCOMPARE(m.previousRun().label, std::string("fp32"));
        QCOMPARE(m.previousRun().stepCount(), std::size_t{800 / 32});
        QVERIFY(child<QCheckBox>(m, "trainingCompare")->isEnabled());
        QCOMPARE(m.lossChart()->pointCount(m.previousLossSeries()), qsizetype{0});
        child<QCheckBox>(m, "trainingCompare")->setChecked(true);
        QCOMPARE(m.lossChart()->pointCount(m.previousLossSeries()), qsizetype{800 / 32});
    }

    void badSetupsAreExplainedBeforeStart() {
        TrainingMonitor m;
        QVERIFY(m.setupProblem().contains(QStringLiteral("Open a model")));
        QVERIFY(!child<QPushButton>(m, "trainingStart")->isEnabled());
        setUp(m, QStringLiteral("fp32"), 1);
        QVERIFY(m.setupProblem().isEmpty());
        choose(child<QComboBox>(m, "trainingDataset"), QStringLiteral("synthetic:regression"));
        QVERIFY2(m.setupProblem().contains(QStringLiteral("classification")), qPrintable(m.setupProblem()));
        QVERIFY(!child<QPushButton>(m, "trainingStart")->isEnabled());
        QVERIFY(!m.startTraining());
        QVERIFY(child<QLabel>(m, "trainingProblem")->text().contains(QStringLiteral("do not fit")));
        choose(child<QComboBox>(m, "trainingDataset"), QStringLiteral("csv"));
        QVERIFY(m.setupProblem().contains(QStringLiteral("CSV")));
        child<QLineEdit>(m, "trainingDataPath")->setText(QStringLiteral("/nonexistent/x.csv"));
        QVERIFY(m.setupProblem().contains(QStringLiteral("does not exist")));
        // The CUDA backend where there is none.
        if (cudaDeviceCount() == 0) {
            choose(child<QComboBox>(m, "trainingDataset"), QStringLiteral("synthetic:blobs"));
            choose(child<QComboBox>(m, "trainingBackend"), QStringLiteral("cuda"));
            QVERIFY2(m.setupProblem().contains(QStringLiteral("CUDA")), qPrintable(m.setupProblem()));
            choose(child<QComboBox>(m, "trainingBackend"), QStringLiteral("auto"));
            QVERIFY(m.setupProblem().isEmpty());
            QCOMPARE(m.request().backend, BackendChoice::Auto);
        }
        // A model without a loss head.
        const auto plain = std::make_shared<const Graph>(parseSymbolJson(
            R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
                {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[0, 0, 0]]}],
                "arg_nodes": [0], "heads": [[1, 0, 0]]})",
            "plain"));
        m.setModel(plain, nullptr, QStringLiteral("plain"), {}, QString());
        QVERIFY(m.setupProblem().contains(QStringLiteral("no loss head")));
        // A problem found only after start (a parameter of the wrong shape) is reported, not thrown.
        setUp(m, QStringLiteral("fp32"), 1);
        NDArrayList wrong;
        NDArrayRecord r;
        r.name = "arg:fc1_weight";
        r.dtype = DType::F32;
        r.shape = {5, 5};
        r.data.resize(25 * sizeof(float));
        wrong.arrays.push_back(r);
        m.setModel(blobMlp(), std::make_shared<const NDArrayList>(wrong), QStringLiteral("blob MLP"), {}, QString());
        choose(child<QComboBox>(m, "trainingStartFrom"), QStringLiteral("params"));
        QVERIFY(m.startTraining());
        QTRY_COMPARE_WITH_TIMEOUT(m.run()->state(), TrainingRun::State::Failed, 10000);
        QVERIFY2(m.run()->errorMessage().contains(QStringLiteral("fc1_weight")), qPrintable(m.run()->errorMessage()));
        QVERIFY(child<QLabel>(m, "trainingProblem")->text().contains(QStringLiteral("fc1_weight")));
        QVERIFY(child<QPushButton>(m, "trainingStart")->isEnabled());
    }

    void currentConversionTrainsWithItsExclusions() {
        TrainingMonitor m;
        setUp(m, QStringLiteral("fp32"), 1, 3);
        ConversionOptions options;
        options.lists = AmpLists::defaults(DType::BF16);
        options.excludedSymNames = {"fc1"};
        m.setConversion(options);
        choose(child<QComboBox>(m, "trainingModel"), QStringLiteral("conversion"));
        // The conversion fixes the mode to its dtype.
        QCOMPARE(child<QComboBox>(m, "trainingPrecision")->currentData().toString(), QStringLiteral("bf16"));
        QVERIFY(!child<QComboBox>(m, "trainingPrecision")->isEnabled());
        const TrainingRequest r = m.request();
        QCOMPARE(r.settings.precision, PrecisionMode::Bf16);
        QVERIFY(r.settings.lists.has_value());
        QCOMPARE(r.settings.lists->targetDtype, DType::BF16);
        QCOMPARE(r.settings.excludedNodes, (std::set<std::string>{"fc1"}));
        QVERIFY(m.startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(!m.run()->isActive(), 10000);
        QCOMPARE(m.run()->state(), TrainingRun::State::Finished);
        QVERIFY(m.run()->trainerDescription().contains(QStringLiteral("1 nodes kept in float32")));
    }

    void settingsPersist() {
        {
            TrainingMonitor m;
            choose(child<QComboBox>(m, "trainingModel"), QStringLiteral("original"));
            choose(child<QComboBox>(m, "trainingPrecision"), QStringLiteral("fp16-master"));
            child<QSpinBox>(m, "trainingInitScale")->setValue(24);
            choose(child<QComboBox>(m, "trainingOptimizer"), QStringLiteral("adam"));
            child<QSpinBox>(m, "trainingBatch")->setValue(128);
            choose(child<QComboBox>(m, "trainingDataset"), QStringLiteral("synthetic:spirals"));
        }  // the destructor writes them
        TrainingMonitor again;
        QCOMPARE(child<QComboBox>(again, "trainingPrecision")->currentData().toString(), QStringLiteral("fp16-master"));
        QCOMPARE(child<QSpinBox>(again, "trainingInitScale")->value(), 24);
        QCOMPARE(child<QComboBox>(again, "trainingOptimizer")->currentData().toString(), QStringLiteral("adam"));
        QCOMPARE(child<QSpinBox>(again, "trainingBatch")->value(), 128);
        QCOMPARE(child<QComboBox>(again, "trainingDataset")->currentData().toString(), QStringLiteral("synthetic:spirals"));
        // Changing the mode picks its default scaler: float16 scales, bfloat16 does not.
        choose(child<QComboBox>(again, "trainingPrecision"), QStringLiteral("bf16"));
        QCOMPARE(child<QComboBox>(again, "trainingScaler")->currentData().toString(), QStringLiteral("off"));
        choose(child<QComboBox>(again, "trainingPrecision"), QStringLiteral("amp"));
        QCOMPARE(child<QComboBox>(again, "trainingScaler")->currentData().toString(), QStringLiteral("pytorch"));
        QCOMPARE(child<QSpinBox>(again, "trainingInitScale")->value(), 16);
    }

    void destroyingDuringARunStopsIt() {
        auto* m = new TrainingMonitor;
        setUp(*m, QStringLiteral("fp32"), 100000);
        QVERIFY(m->startTraining());
        QTRY_VERIFY_WITH_TIMEOUT(m->run()->stepsDone() > 5, 10000);
        QElapsedTimer timer;
        timer.start();
        delete m;  // joins the engine thread
        QVERIFY(timer.elapsed() < 1000);
    }
};

QTEST_MAIN(TestTrainingMonitor)
#include "test_training_monitor.moc"
