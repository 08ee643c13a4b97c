// The pieces under the training monitor's charts, without a training run: the min/max decimator as
// a pure function (spikes survive, output bounded, inf/NaN and non-positive values never pass), the
// history's derived columns and CSV, and the chart class (one replace per refresh, the log2 axis
// never handed a non-positive value, zoom/pan/follow, PNG export).
#include <QGraphicsView>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

#include "series_decimator.h"
#include "train/metrics_csv_writer.h"
#include "training_chart.h"
#include "training_history.h"

using namespace ampstudio;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

std::vector<double> iota(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i);
    return x;
}

MetricsBatch steps(const std::vector<double>& losses, const std::vector<double>& scales, const std::vector<bool>& skipped) {
    MetricsBatch b;
    for (std::size_t i = 0; i < losses.size(); ++i) {
        StepMetrics s;
        s.step = static_cast<int64_t>(i);
        s.loss = losses[i];
        s.lossScale = scales[i];
        s.skipped = skipped[i];
        b.steps.push_back(s);
    }
    return b;
}

}  // namespace

class TestTrainingChart : public QObject {
    Q_OBJECT

private slots:
    void decimatorKeepsSpikesAndBoundsOutput() {
        const std::size_t n = 1'000'000;
        const std::vector<double> x = iota(n);
        std::vector<double> y(n);
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> noise(0.9, 1.1);
        for (double& v : y) v = noise(rng);
        y[123'457] = 50.0;   // one-step spikes, up and down
        y[876'543] = -20.0;
        QList<QPointF> out;
        for (int buckets : {1, 7, 640, 1920}) {
            decimateMinMax(x, y, {0.0, static_cast<double>(n - 1), buckets}, ValueDomain::Finite, out);
            QVERIFY2(out.size() <= 2 * buckets + 2, qPrintable(QString::number(out.size())));
            double hi = -kInf, lo = kInf;
            for (const QPointF& p : out) {
                hi = std::max(hi, p.y());
                lo = std::min(lo, p.y());
            }
            QCOMPARE(hi, 50.0);
            QCOMPARE(lo, -20.0);
            for (qsizetype i = 1; i < out.size(); ++i) QVERIFY(out[i].x() > out[i - 1].x());  // x order kept
        }
        // A zoomed window: only its points, plus one neighbour on each side.
        decimateMinMax(x, y, {1000.0, 1100.0, 500}, ValueDomain::Finite, out);
        QCOMPARE(out.size(), qsizetype{103});
        QCOMPARE(out.front().x(), 999.0);
        QCOMPARE(out.back().x(), 1101.0);
        // Every bucket's min and max are the true extremes of its points.
        decimateMinMax(x, y, {0.0, 9999.0, 10}, ValueDomain::Finite, out);
        for (int b = 0; b < 10; ++b) {
            const auto first = y.begin() + b * 1000, last = first + 1000;
            const double bucketMax = *std::max_element(first, last), bucketMin = *std::min_element(first, last);
            bool foundMax = false, foundMin = false;
            for (const QPointF& p : out) {
                foundMax |= p.y() == bucketMax;
                foundMin |= p.y() == bucketMin;
            }
            QVERIFY(foundMax && foundMin);
        }
    }

    void decimatorDropsWhatAChartMustNotSee() {
        const std::vector<double> x = iota(8);
        const std::vector<double> y{1.0, kInf, 2.0, kNaN, -kInf, 0.0, -3.0, 4.0};
        QList<QPointF> out;
        decimateMinMax(x, y, {0.0, 7.0, 100}, ValueDomain::Finite, out);
        QCOMPARE(out.size(), qsizetype{5});  // 1, 2, 0, -3, 4
        for (const QPointF& p : out) QVERIFY(std::isfinite(p.y()));
        decimateMinMax(x, y, {0.0, 7.0, 100}, ValueDomain::Positive, out);
        QCOMPARE(out.size(), qsizetype{3});  // 1, 2, 4
        for (const QPointF& p : out) QVERIFY(p.y() > 0);
        // Decimating too, on a long series with many bad values.
        std::vector<double> xs = iota(100'000), ys(100'000);
        for (std::size_t i = 0; i < ys.size(); ++i) ys[i] = i % 3 == 0 ? kNaN : (i % 3 == 1 ? -1.0 : 1.0 + i);
        decimateMinMax(xs, ys, {0.0, 99'999.0, 50}, ValueDomain::Positive, out);
        QVERIFY(!out.isEmpty() && out.size() <= 102);
        for (const QPointF& p : out) QVERIFY(p.y() > 0 && std::isfinite(p.y()));
        // Nothing to show: empty output, no crash.
        decimateMinMax({}, {}, {0.0, 1.0, 10}, ValueDomain::Finite, out);
        QVERIFY(out.isEmpty());
        decimateMinMax(x, y, {5.0, 1.0, 10}, ValueDomain::Finite, out);
        QVERIFY(out.isEmpty());
    }

    void historyDerivesItsColumns() {
        TrainingHistory h;
        h.append(steps({2.0, kInf, 1.0, 0.5}, {65536, 65536, 32768, 32768}, {false, true, false, false}));
        EpochMetrics e;
        e.validationLoss = 0.7;
        e.validationAccuracy = 0.8;
        MetricsBatch epoch;
        epoch.epochs.push_back(e);
        h.append(epoch);
        QCOMPARE(h.stepCount(), std::size_t{4});
        QCOMPARE(h.skippedCount(), int64_t{1});
        QCOMPARE(h.skippedStep(), (std::vector<double>{1.0}));
        QCOMPARE(h.skippedScale(), (std::vector<double>{65536.0}));
        // Smoothing skips the overflow and starts at the first loss (debiased).
        QCOMPARE(h.smoothedLoss()[0], 2.0);
        QCOMPARE(h.smoothedLoss()[1], 2.0);
        QVERIFY(h.smoothedLoss()[3] < h.smoothedLoss()[2] && h.smoothedLoss()[2] < 2.0);
        QCOMPARE(h.epochX(), (std::vector<double>{3.0}));
        QCOMPARE(h.validationAccuracyPercent(), (std::vector<double>{80.0}));
        QCOMPARE(h.stepNear(2.4)->step, int64_t{2});
        QCOMPARE(h.stepNear(99.0)->step, int64_t{3});
        QVERIFY(h.stepNear(kNaN) == nullptr);
        // The CSV is the CLI's.
        const std::string csv = h.stepsCsv();
        QVERIFY(csv.starts_with(MetricsCsvWriter::stepHeader()));
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 5);
        QVERIFY(csv.find(MetricsCsvWriter::stepRow(h.steps()[1])) != std::string::npos);
        QVERIFY(h.epochsCsv().starts_with(MetricsCsvWriter::epochHeader()));
        h.label = "amp";
        h.clear();
        QCOMPARE(h.stepCount(), std::size_t{0});
        QCOMPARE(h.label, std::string("amp"));
    }

    void log2AxisNeverSeesANonPositiveValue() {
        TrainingChart chart;
        chart.resize(600, 300);
        chart.setAxisScale(TrainingChart::Axis::Left, TrainingChart::AxisScale::Log2);
        const int line = chart.addLine(QStringLiteral("scale"), Qt::magenta, 2.0, TrainingChart::Axis::Left);
        const std::vector<double> x = iota(6);
        const std::vector<double> y{65536.0, 0.0, -4.0, kInf, kNaN, 0.25};
        chart.setData(line, &x, &y);
        chart.show();
        chart.refresh();
        QVERIFY(chart.smallestValueGiven(TrainingChart::Axis::Left) > 0.0);
        const QList<QPointF> points = chart.points(line);
        QCOMPARE(points.size(), qsizetype{2});
        QCOMPARE(points[0].y(), 16.0);  // plotted as log2
        QCOMPARE(points[1].y(), -2.0);
        // The loss axis in log10 mode gets the same protection.
        const int loss = chart.addLine(QStringLiteral("loss"), Qt::blue, 1.0, TrainingChart::Axis::Right);
        const std::vector<double> l{1.0, 0.0, -1.0, 0.5, kInf, 0.25};
        chart.setData(loss, &x, &l);
        chart.setAxisScale(TrainingChart::Axis::Right, TrainingChart::AxisScale::Log10);
        QCOMPARE(chart.pointCount(loss), qsizetype{3});
        QVERIFY(chart.smallestValueGiven(TrainingChart::Axis::Right) > 0.0);
        chart.setAxisScale(TrainingChart::Axis::Right, TrainingChart::AxisScale::Linear);
        QCOMPARE(chart.pointCount(loss), qsizetype{5});  // 0 and -1 are fine on a linear axis
    }

    void millionPointsBecomeAFewPerPixel() {
        TrainingChart chart;
        chart.resize(800, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const int line = chart.addLine(QStringLiteral("loss"), Qt::blue, 1.0, TrainingChart::Axis::Left);
        const std::vector<double> x = iota(1'000'000);
        std::vector<double> y(x.size(), 1.0);
        y[500'000] = 9.0;
        chart.setData(line, &x, &y);
        chart.refresh();
        QVERIFY2(chart.pointCount(line) <= 2 * 800 + 2, qPrintable(QString::number(chart.pointCount(line))));
        bool spike = false;
        for (const QPointF& p : chart.points(line)) spike |= p.y() == 9.0;
        QVERIFY(spike);
        QVERIFY(chart.timeRender() >= 0.0);
    }

    void zoomPanAndFollow() {
        TrainingChart chart;
        chart.resize(800, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const int line = chart.addLine(QStringLiteral("loss"), Qt::blue, 1.0, TrainingChart::Axis::Left);
        std::vector<double> x = iota(1000), y(1000, 1.0);
        chart.setData(line, &x, &y);
        chart.refresh();
        QVERIFY(chart.isFollowing());
        QVERIFY(chart.xMax() >= 999.0);
        QSignalSpy user(&chart, &TrainingChart::xRangeChangedByUser);
        QWidget* viewport = chart.findChild<QGraphicsView*>()->viewport();
        const QPoint centre = viewport->rect().center();
        QWheelEvent wheel(centre, viewport->mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(viewport, &wheel);
        QCOMPARE(user.count(), 1);
        QVERIFY(!chart.isFollowing());
        const double zoomedSpan = chart.xMax() - chart.xMin();
        QVERIFY(zoomedSpan < 0.7 * 999.0);
        // More data does not move a zoomed view.
        x.push_back(1000.0);
        y.push_back(1.0);
        chart.refresh();
        QCOMPARE(chart.xMax() - chart.xMin(), zoomedSpan);
        // Drag pans by the distance dragged.
        const double before = chart.xMin();
        QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, centre);
        QTest::mouseMove(viewport, centre + QPoint(-100, 0));
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, centre + QPoint(-100, 0));
        QVERIFY(chart.xMin() > before);
        QCOMPARE(chart.xMax() - chart.xMin(), zoomedSpan);
        // A double click follows again.
        QTest::mouseDClick(viewport, Qt::LeftButton, Qt::NoModifier, centre);
        QVERIFY(chart.isFollowing());
        QVERIFY(chart.xMax() >= 1000.0);
        QCOMPARE(chart.xMin(), 0.0);
    }

    void exportsPng() {
        QTemporaryDir dir;
        TrainingChart chart;
        chart.resize(500, 300);
        const int line = chart.addLine(QStringLiteral("loss"), Qt::blue, 1.0, TrainingChart::Axis::Left);
        const std::vector<double> x = iota(10), y(10, 1.0);
        chart.setData(line, &x, &y);
        chart.show();
        chart.refresh();
        QString error;
        QVERIFY2(chart.exportPng(dir.filePath(QStringLiteral("c.png")), &error), qPrintable(error));
        QImage image(dir.filePath(QStringLiteral("c.png")));
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 500);
        QVERIFY(!chart.exportPng(dir.filePath(QStringLiteral("missing/c.png")), &error));
        QVERIFY(error.contains(QStringLiteral("missing")));
    }
};

QTEST_MAIN(TestTrainingChart)
#include "test_training_chart.moc"
