// The metrics sink (DESIGN.md §5): a producer thread pushing as fast as it can and a consumer taking
// batches lose nothing and keep the order; the "data available" callback fires at most once per take;
// the CSV consumer writes the documented columns with inf/nan spelled out and identical bytes for
// identical values.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <thread>

#include "formats/atomic_file.h"
#include "train/metrics_csv_writer.h"
#include "train/metrics_sink.h"

using namespace ampstudio;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string readAll(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

class TestMetricsSink : public QObject {
    Q_OBJECT
private slots:
    void concurrentProducerLosesNothing() {
        MetricsSink sink;
        constexpr int64_t kSteps = 200000;
        constexpr int64_t kStepsPerEpoch = 1000;
        std::thread producer([&] {
            for (int64_t i = 0; i < kSteps; ++i) {
                StepMetrics s;
                s.step = i;
                s.epoch = i / kStepsPerEpoch;
                s.loss = 1.0 / double(i + 1);
                sink.push(s);
                if ((i + 1) % kStepsPerEpoch == 0) {
                    sink.push(EpochMetrics{i / kStepsPerEpoch, 0.5, 0.25, 0.75});
                }
            }
            sink.finish();
        });
        int64_t nextStep = 0;
        int64_t nextEpoch = 0;
        int takes = 0;
        bool finished = false;
        while (!finished) {
            const MetricsBatch batch = sink.takeNew();
            ++takes;
            for (const StepMetrics& s : batch.steps) {
                QCOMPARE(s.step, nextStep);  // in order, none lost, none twice
                QCOMPARE(s.loss, 1.0 / double(nextStep + 1));
                ++nextStep;
            }
            for (const EpochMetrics& e : batch.epochs) {
                QCOMPARE(e.epoch, nextEpoch++);
            }
            finished = batch.finished;
            if (!finished) {
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        }
        producer.join();
        QCOMPARE(nextStep, kSteps);
        QCOMPARE(nextEpoch, kSteps / kStepsPerEpoch);
        QVERIFY(sink.takeNew().empty());
        QVERIFY2(takes > 1, "the consumer should have taken several batches while the producer ran");
    }

    void callbackAtMostOncePerTake() {
        MetricsSink sink;
        std::atomic<int> calls{0};
        sink.setDataAvailableCallback([&] { ++calls; });
        sink.push(StepMetrics{});
        sink.push(StepMetrics{});
        sink.push(EpochMetrics{});
        QCOMPARE(calls.load(), 1);  // coalesced until the consumer takes
        MetricsBatch batch = sink.takeNew();
        QCOMPARE(batch.steps.size(), std::size_t(2));
        QCOMPARE(batch.epochs.size(), std::size_t(1));
        sink.push(StepMetrics{});
        QCOMPARE(calls.load(), 2);
        sink.finish();
        QCOMPARE(calls.load(), 2);
        batch = sink.takeNew();
        QVERIFY(batch.finished);
        QCOMPARE(batch.steps.size(), std::size_t(1));
    }

    void callbackMayTakeAtOnce() {
        // A consumer that takes from inside the callback must not deadlock (called without the lock).
        MetricsSink sink;
        std::vector<int64_t> got;
        sink.setDataAvailableCallback([&] {
            for (const StepMetrics& s : sink.takeNew().steps) {
                got.push_back(s.step);
            }
        });
        for (int64_t i = 0; i < 5; ++i) {
            StepMetrics s;
            s.step = i;
            sink.push(s);
        }
        QCOMPARE(got, (std::vector<int64_t>{0, 1, 2, 3, 4}));
    }

    void numberFormat_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("integer") << 65536.0 << "65536";
        QTest::newRow("fraction") << 0.1 << "0.1";
        QTest::newRow("shortest round trip") << 1.0 / 3.0 << "0.3333333333333333";
        QTest::newRow("tiny") << 1e-300 << "1e-300";
        QTest::newRow("inf") << kInf << "inf";
        QTest::newRow("-inf") << -kInf << "-inf";
        QTest::newRow("nan") << kNaN << "nan";
        QTest::newRow("negative nan") << -kNaN << "nan";
    }
    void numberFormat() {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatMetric(value)), text);
    }

    void csvOutput() {
        QTemporaryDir dir;
        const std::filesystem::path steps = std::filesystem::path(dir.path().toStdString()) / "out.csv";
        const std::filesystem::path epochs =
            std::filesystem::path(dir.path().toStdString()) / "out.epochs.csv";
        MetricsSink sink;
        sink.push(StepMetrics{0, 0, 2.5, 16777216.0, false, 1.25, 0.01, 1000.0, false});
        sink.push(StepMetrics{1, 0, kNaN, 8388608.0, true, kInf, 0.01, 2000.5, false});
        sink.push(EpochMetrics{0, 2.5, 2.0, 0.5});
        {
            MetricsCsvWriter writer(steps, epochs);
            writer.write(sink.takeNew());
            // Streamed: the rows are on disk before the writer is closed.
            QCOMPARE(readAll(steps).substr(0, 6), std::string("step,e"));
            QVERIFY(readAll(steps).find("\n1,0,nan,") != std::string::npos);
            sink.push(StepMetrics{2, 1, 0.75, 0.5, false, 0.0, 0.005, 3000.0, true});
            sink.push(EpochMetrics{1, 0.75, kNaN, kNaN});
            writer.write(sink.takeNew());
            writer.close();
        }
        QCOMPARE(readAll(steps),
                 std::string("step,epoch,loss,loss_scale,skipped,grad_norm,lr,samples_per_s,scale_below_one\n"
                             "0,0,2.5,16777216,0,1.25,0.01,1000,0\n"
                             "1,0,nan,8388608,1,inf,0.01,2000.5,0\n"
                             "2,1,0.75,0.5,0,0,0.005,3000,1\n"));
        QCOMPARE(readAll(epochs), std::string("epoch,train_loss,validation_loss,validation_accuracy\n"
                                              "0,2.5,2,0.5\n"
                                              "1,0.75,nan,nan\n"));
    }

    void csvWithoutEpochFile() {
        QTemporaryDir dir;
        const std::filesystem::path steps = std::filesystem::path(dir.path().toStdString()) / "m.csv";
        MetricsCsvWriter writer(steps);
        MetricsBatch batch;
        batch.steps.push_back(StepMetrics{});
        batch.epochs.push_back(EpochMetrics{});
        writer.write(batch);
        writer.close();
        QCOMPARE(readAll(steps), MetricsCsvWriter::stepHeader() + "0,0,0,1,0,0,0,0,0\n");
    }

    void csvUnwritable() {
        QVERIFY_THROWS_EXCEPTION(SaveError, MetricsCsvWriter("/nonexistent-dir/for/metrics.csv"));
    }
};

QTEST_GUILESS_MAIN(TestMetricsSink)
#include "test_metrics_sink.moc"
