// The training monitor's responsiveness (issue 4), offscreen:
//  1. GUI event-loop latency while a model trains at full speed in the real TrainingMonitor: a
//     probe timer asks to run every 5 ms and records how late it runs (the time a user's click or
//     key waits), p50 / p99 / max, with the steps per second the engine kept up meanwhile;
//  2. a chart holding one million points: refresh() (decimation + one replace per series) and the
//     paint of the whole chart, medians.
//   bench_training_monitor [--seconds S] [--repeats N]
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <QComboBox>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "bench_stats.h"
#include "blob_mlp.h"
#include "formats/symbol_json.h"
#include "platform/process_heap_policy.h"
#include "train/fashion_mnist.h"
#include "training_chart.h"
#include "training_monitor.h"

using namespace ampstudio;

namespace {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void choose(QComboBox* combo, const char* data) { combo->setCurrentIndex(combo->findData(QString::fromLatin1(data))); }

// Trains in the real monitor for `seconds` and probes the event loop meanwhile.
void latencyRow(const char* name, std::shared_ptr<const Graph> model, const char* dataset, const char* precision,
                int batch, double seconds) {
    TrainingMonitor monitor;
    monitor.resize(1400, 460);
    monitor.show();
    monitor.setModel(std::move(model), nullptr, QString::fromLatin1(name), {}, QString());
    choose(monitor.findChild<QComboBox*>(QStringLiteral("trainingModel")), "original");
    choose(monitor.findChild<QComboBox*>(QStringLiteral("trainingStartFrom")), "init");
    choose(monitor.findChild<QComboBox*>(QStringLiteral("trainingDataset")), dataset);
    choose(monitor.findChild<QComboBox*>(QStringLiteral("trainingPrecision")), precision);
    monitor.findChild<QSpinBox*>(QStringLiteral("trainingBatch"))->setValue(batch);
    monitor.findChild<QSpinBox*>(QStringLiteral("trainingEpochs"))->setValue(1000000);
    monitor.findChild<QSpinBox*>(QStringLiteral("trainingMaxSteps"))->setValue(0);
    if (!monitor.startTraining()) {
        std::printf("  %-22s cannot start: %s\n", name, qPrintable(monitor.setupProblem()));
        return;
    }
    // Wait for the dataset and the trainer, then measure.
    QElapsedTimer wait;
    wait.start();
    while (monitor.run()->state() == TrainingRun::State::Loading && wait.elapsed() < 60000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    int refreshes = 0;
    QObject::connect(monitor.run(), &TrainingRun::metricsArrived, [&] { ++refreshes; });

    std::vector<double> lateMs;
    QElapsedTimer clock;
    clock.start();
    const int64_t stepsBefore = monitor.run()->stepsDone();
    constexpr int kProbeMs = 5;
    QEventLoop loop;
    std::function<void()> probe;
    qint64 due = 0;
    probe = [&] {
        lateMs.push_back(static_cast<double>(clock.nsecsElapsed() - due) / 1e6);
        if (clock.elapsed() >= seconds * 1000.0) {
            loop.quit();
            return;
        }
        due = clock.nsecsElapsed() + kProbeMs * 1000000LL;
        QTimer::singleShot(kProbeMs, Qt::PreciseTimer, probe);
    };
    due = clock.nsecsElapsed() + kProbeMs * 1000000LL;
    QTimer::singleShot(kProbeMs, Qt::PreciseTimer, probe);
    loop.exec();
    const double elapsed = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    const int64_t steps = monitor.run()->stepsDone() - stepsBefore;
    const double stopMs = monitor.stopTraining();
    std::printf("  %-22s %10.0f %10d %9.2f %9.2f %9.2f %9.1f %9.1f\n", name, static_cast<double>(steps) / elapsed,
                static_cast<int>(monitor.run()->history().stepCount()), percentile(lateMs, 0.5), percentile(lateMs, 0.99),
                percentile(lateMs, 1.0), refreshes / elapsed, stopMs);
}

void millionPointRow(const char* name, TrainingChart::AxisScale scale, int repeats) {
    TrainingChart chart;
    chart.resize(1200, 420);
    chart.show();
    QCoreApplication::processEvents();
    chart.setAxisScale(TrainingChart::Axis::Left, scale);
    const std::size_t n = 1'000'000;
    std::vector<double> x(n), raw(n), smooth(n), skippedX, skippedY;
    std::mt19937 rng(1);
    std::normal_distribution<double> noise(0.0, 0.15);
    double ema = 0, weight = 0;
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<double>(i);
        const double base = scale == TrainingChart::AxisScale::Log2 ? std::ldexp(1.0, 10 + static_cast<int>(i / 2000 % 8))
                                                                    : 0.3 + 2.0 * std::exp(-static_cast<double>(i) / 50000.0);
        raw[i] = scale == TrainingChart::AxisScale::Log2 ? base : base * (1.0 + noise(rng));
        ema = 0.97 * ema + 0.03 * raw[i];
        weight = 0.97 * weight + 0.03;
        smooth[i] = ema / weight;
        if (i % 2000 == 0) {
            skippedX.push_back(x[i]);
            skippedY.push_back(raw[i]);
        }
    }
    const int a = chart.addLine(QStringLiteral("raw"), QColor(0, 114, 178, 70), 1.0, TrainingChart::Axis::Left);
    const int b = chart.addLine(QStringLiteral("smoothed"), QColor(0, 114, 178), 2.2, TrainingChart::Axis::Left);
    const int c = chart.addMarkers(QStringLiteral("skipped"), QColor(213, 94, 0), 7.0, TrainingChart::Axis::Left);
    chart.setData(a, &x, &raw);
    chart.setData(b, &x, &smooth);
    chart.setData(c, &skippedX, &skippedY);
    chart.refresh();
    QCoreApplication::processEvents();
    std::vector<double> refreshMs, paintMs, totalMs;
    for (int r = 0; r < repeats; ++r) {
        chart.invalidate();  // a full redraw: every series decimated and handed over again
        QElapsedTimer t;
        t.start();
        chart.refresh();
        const double refresh = static_cast<double>(t.nsecsElapsed()) / 1e6;
        const double paint = chart.timeRender();
        refreshMs.push_back(refresh);
        paintMs.push_back(paint);
        totalMs.push_back(refresh + paint);
    }
    std::printf("  %-22s %10zu %10lld %9.2f %9.2f %9.2f\n", name, n * 2 + skippedX.size(),
                static_cast<long long>(chart.pointCount(a) + chart.pointCount(b) + chart.pointCount(c)),
                percentile(refreshMs, 0.5), percentile(paintMs, 0.5), percentile(totalMs, 0.5));
}

}  // namespace

int main(int argc, char* argv[]) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AMP Studio bench"));  // never the user's settings
    double seconds = 5.0;
    int repeats = 21;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[++i]);
        else if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[++i]);
    }

    std::printf("# event-loop latency while training (probe every 5 ms; late_ms = how late it ran), %.0f s per row\n",
                seconds);
    std::printf("# %-22s %10s %10s %9s %9s %9s %9s %9s\n", "model", "steps/s", "steps", "late_p50", "late_p99", "late_max",
                "redraws/s", "stop_ms");
    latencyRow("tiny MLP, blobs, fp32", ampstudio::test::blobMlp(),
               "synthetic:blobs", "fp32", 32, seconds);
    latencyRow("tiny MLP, blobs, amp", ampstudio::test::blobMlp(),
               "synthetic:blobs", "amp", 32, seconds);
    if (fashionMnistAvailable()) {
        const std::string mlp = std::string(AMS_TESTDATA_DIR) + "/mxnet/mlp-symbol.json";
        latencyRow("MLP, F-MNIST, fp16-mst", std::make_shared<const Graph>(readSymbolJsonFile(mlp)), "fashion-mnist",
                   "fp16-master", 64, seconds);
    }

    std::printf("\n# one chart holding 1,000,000 steps (two lines + a marker every 2000 steps), 1200x420, medians of %d\n",
                repeats);
    std::printf("# %-22s %10s %10s %9s %9s %9s\n", "chart", "points", "plotted", "refresh", "paint_ms", "redraw_ms");
    millionPointRow("loss (linear)", TrainingChart::AxisScale::Linear, repeats);
    millionPointRow("loss (log10)", TrainingChart::AxisScale::Log10, repeats);
    millionPointRow("loss scale (log2)", TrainingChart::AxisScale::Log2, repeats);
    return 0;
}
