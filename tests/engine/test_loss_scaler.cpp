// The dynamic loss scaler: the PyTorch trace, one hand-traced sequence per preset derived
// from that library's published update rule, preset parsing, and the scale's bounds (never inf,
// never zero, a warning below 1).
#include <QtTest>

#include <cfloat>
#include <cmath>
#include <limits>

#include "train/loss_scaler.h"

using namespace ampstudio;

namespace {

constexpr double k16 = 65536.0;     // 2^16
constexpr double k23 = 8388608.0;   // 2^23
constexpr double k24 = 16777216.0;  // 2^24

}  // namespace

class TestLossScaler : public QObject {
    Q_OBJECT
private slots:
    // pattern: Y = the step overflowed, n = clean. expected: the scale after each update.
    void trace_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("initScale");       // 0: the preset's
        QTest::addColumn<qint64>("growthInterval");  // 0: the preset's
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QList<double>>("expected");

        // The must-pass trace (PyTorch's `_amp_update_scale_`: overflow → ×0.5 and counter 0;
        // otherwise counter + 1 and at the interval ×2, counter 0).
        QTest::newRow("pytorch: issue trace")
            << "pytorch" << k16 << qint64(3) << "YnnnnYYnnnnYn"
            << QList<double>{32768, 32768, 32768, 65536, 65536, 32768, 16384,
                             16384, 16384, 32768, 32768, 16384, 16384};
        // apex/amp/scaler.py update_scale(): the same rule, growth capped by max_loss_scale = 2^24:
        // at 2^24 a full window resets _unskipped but min(2^24, 2^25) leaves the scale where it is.
        QTest::newRow("apex: growth capped at 2^24")
            << "apex" << k23 << qint64(2) << "nnnnYnn" << QList<double>{k23, k24, k24, k24, k23, k23, k24};
        // fastai NonNativeMixedPrecision: an overflow halves the scale but leaves `count` alone, so
        // the clean steps before it still count: after n n Y one clean step completes scale_wait = 3.
        // (PyTorch's rule would need three clean steps after the overflow.)
        QTest::newRow("fastai: counter survives overflows")
            << "fastai" << 0.0 << qint64(3) << "nnYnnnYnnn"
            << QList<double>{k24, k24, k23, k24, k24, k24, k23, k24, k24, k24};
        // DeepSpeed DynamicLossScaler, hysteresis 2 (delayed_shift): the first overflow only spends
        // the budget (scale unchanged, window restarted); the next one halves; the budget comes back
        // only when the scale grows (consecutive_hysteresis=False), so a third overflow halves again.
        QTest::newRow("deepspeed: hysteresis 2")
            << "deepspeed" << 0.0 << qint64(3) << "YnnnYYYnnn"
            << QList<double>{k16, k16, k16, 2 * k16, 2 * k16, k16, k16 / 2, k16 / 2, k16 / 2, k16};
        // ... and a clean step in between does not restore the budget.
        QTest::newRow("deepspeed: non-consecutive overflows")
            << "deepspeed" << 0.0 << qint64(3) << "YnY" << QList<double>{k16, k16, k16 / 2};
        // ... and min_loss_scale = 1 is a floor (DeepSpeed would raise there; we stay at 1 and skip).
        QTest::newRow("deepspeed: floor at 1")
            << "deepspeed" << 2.0 << qint64(0) << "YYYY" << QList<double>{2, 1, 1, 1};
        QTest::newRow("static: never changes")
            << "static:128" << 0.0 << qint64(0) << "YnnY" << QList<double>{128, 128, 128, 128};
        QTest::newRow("off: scale 1") << "off" << 0.0 << qint64(0) << "nYn" << QList<double>{1, 1, 1};
    }
    void trace() {
        QFETCH(QString, preset);
        QFETCH(double, initScale);
        QFETCH(qint64, growthInterval);
        QFETCH(QString, pattern);
        QFETCH(QList<double>, expected);
        LossScaler scaler = LossScaler::fromPreset(preset.toStdString());
        if (initScale > 0) {
            scaler.setInitScale(initScale);
        }
        if (growthInterval > 0) {
            scaler.setGrowthInterval(growthInterval);
        }
        QCOMPARE(pattern.size(), expected.size());
        int overflows = 0;
        for (int i = 0; i < pattern.size(); ++i) {
            const bool overflow = pattern[i] == QLatin1Char('Y');
            overflows += overflow ? 1 : 0;
            QCOMPARE(scaler.update(overflow), overflow);  // an overflow step is always skipped
            if (scaler.scale() != expected[i]) {
                QFAIL(qPrintable(QStringLiteral("after update %1 ('%2'): scale %3, expected %4")
                                     .arg(i + 1)
                                     .arg(pattern[i])
                                     .arg(scaler.scale())
                                     .arg(expected[i])));
            }
        }
        QCOMPARE(scaler.skippedSteps(), qint64(overflows));
        QCOMPARE(scaler.steps(), qint64(pattern.size()));
    }

    // The presets' published defaults.
    void presetDefaults_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("initScale");
        QTest::addColumn<qint64>("growthInterval");
        QTest::addColumn<double>("maxScale");
        QTest::addColumn<double>("minScale");
        QTest::addColumn<int>("hysteresis");
        QTest::addColumn<bool>("resetCounter");
        QTest::addColumn<bool>("dynamic");
        QTest::newRow("pytorch") << "pytorch" << k16 << qint64(2000) << 0.0 << 0.0 << 1 << true << true;
        QTest::newRow("apex") << "apex" << k16 << qint64(2000) << k24 << 0.0 << 1 << true << true;
        QTest::newRow("fastai") << "fastai" << k24 << qint64(500) << 0.0 << 0.0 << 1 << false << true;
        QTest::newRow("deepspeed") << "deepspeed" << k16 << qint64(1000) << 0.0 << 1.0 << 2 << true << true;
        QTest::newRow("static:1024") << "static:1024" << 1024.0 << qint64(2000) << 0.0 << 0.0 << 1 << true
                                     << false;
        QTest::newRow("static:0.5") << "static:0.5" << 0.5 << qint64(2000) << 0.0 << 0.0 << 1 << true
                                    << false;
        QTest::newRow("off") << "off" << 1.0 << qint64(2000) << 0.0 << 0.0 << 1 << true << false;
    }
    void presetDefaults() {
        QFETCH(QString, preset);
        QFETCH(double, initScale);
        QFETCH(qint64, growthInterval);
        QFETCH(double, maxScale);
        QFETCH(double, minScale);
        QFETCH(int, hysteresis);
        QFETCH(bool, resetCounter);
        QFETCH(bool, dynamic);
        const LossScaler scaler = LossScaler::fromPreset(preset.toStdString());
        const LossScalerSettings& s = scaler.settings();
        QCOMPARE(scaler.scale(), initScale);
        QCOMPARE(s.growthInterval, growthInterval);
        QCOMPARE(s.growthFactor, 2.0);
        QCOMPARE(s.backoffFactor, 0.5);
        QCOMPARE(s.maxScale, maxScale);
        QCOMPARE(s.minScale, minScale);
        QCOMPARE(s.hysteresis, hysteresis);
        QCOMPARE(s.resetCounterOnOverflow, resetCounter);
        QCOMPARE(s.dynamic, dynamic);
        QCOMPARE(QString::fromStdString(scaler.presetName()), preset);
    }

    // fastai's scale_wait of 500 and PyTorch's interval of 2000, counted out in full.
    void fullIntervals() {
        LossScaler fastai = LossScaler::fromPreset("fastai");
        for (int i = 0; i < 499; ++i) {
            fastai.update(false);
        }
        QCOMPARE(fastai.scale(), k24);
        fastai.update(false);
        QCOMPARE(fastai.scale(), 2 * k24);  // no ceiling in fastai v2
        LossScaler pytorch = LossScaler::fromPreset("pytorch");
        for (int i = 0; i < 1999; ++i) {
            pytorch.update(false);
        }
        QCOMPARE(pytorch.scale(), k16);
        pytorch.update(false);
        QCOMPARE(pytorch.scale(), 2 * k16);
        QCOMPARE(pytorch.growthCounter(), qint64(0));
    }

    void badPresets_data() {
        QTest::addColumn<QString>("preset");
        QTest::newRow("empty") << "";
        QTest::newRow("unknown") << "torch";
        QTest::newRow("case matters") << "PyTorch";
        QTest::newRow("static without number") << "static:";
        QTest::newRow("static with text") << "static:abc";
        QTest::newRow("static with trailing text") << "static:12x";
        QTest::newRow("static zero") << "static:0";
        QTest::newRow("static negative") << "static:-4";
        QTest::newRow("static inf") << "static:inf";
        QTest::newRow("static beyond float") << "static:1e39";
        QTest::newRow("static alone") << "static";
    }
    void badPresets() {
        QFETCH(QString, preset);
        try {
            LossScaler::fromPreset(preset.toStdString());
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("'") + preset + QStringLiteral("'")),
                     qPrintable(message));
            QVERIFY2(message.contains(QLatin1String("pytorch, apex, fastai, deepspeed, static:N, off")),
                     qPrintable(message));
        }
    }

    // `_amp_update_scale_`: "Do not grow the scale past fp32 bounds to inf."
    void neverGrowsToInf() {
        LossScaler scaler = LossScaler::fromPreset("pytorch");
        scaler.setGrowthInterval(1);
        scaler.setInitScale(FLT_MAX);
        for (int i = 0; i < 5; ++i) {
            scaler.update(false);
            QCOMPARE(scaler.scale(), double(FLT_MAX));
        }
        QCOMPARE(scaler.growthCounter(), qint64(0));  // the counter resets even when growth is refused

        LossScalerSettings huge;
        huge.initScale = 1e30;
        huge.growthFactor = 1e300;
        huge.growthInterval = 1;
        LossScaler big(huge);
        for (int i = 0; i < 10; ++i) {
            big.update(false);
            QVERIFY(std::isfinite(big.scale()));
            QVERIFY(big.scale() <= FLT_MAX);
        }
        QCOMPARE(big.scale(), double(1e30f));  // stored as the f32 PyTorch keeps
        // It still backs off normally afterwards.
        big.update(true);
        QCOMPARE(big.scale(), double(1e30f * 0.5f));
    }

    void rejectsScalesOutsideTheFloatRange_data() {
        QTest::addColumn<double>("scale");
        QTest::newRow("DBL_MAX") << DBL_MAX;
        QTest::newRow("just past FLT_MAX") << double(FLT_MAX) * 1.01;
        QTest::newRow("inf") << std::numeric_limits<double>::infinity();
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("zero") << 0.0;
        QTest::newRow("negative") << -1.0;
    }
    void rejectsScalesOutsideTheFloatRange() {
        QFETCH(double, scale);
        LossScaler scaler = LossScaler::fromPreset("pytorch");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, scaler.setInitScale(scale));
        QCOMPARE(scaler.scale(), k16);  // unchanged
        LossScalerSettings s;
        s.initScale = scale;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LossScaler{s});
    }

    void neverBacksOffToZero() {
        LossScaler scaler = LossScaler::fromPreset("pytorch");
        scaler.setGrowthInterval(1);
        scaler.setInitScale(1e-30);
        QCOMPARE(scaler.scale(), double(1e-30f));
        for (int i = 0; i < 200; ++i) {
            scaler.update(true);
        }
        // A zero scale could never grow back: the floor is the smallest normal float.
        QCOMPARE(scaler.scale(), double(FLT_MIN));
        scaler.update(false);
        QCOMPARE(scaler.scale(), 2.0 * FLT_MIN);
    }

    void scaleBelowOneWarns() {
        LossScaler scaler = LossScaler::fromPreset("pytorch");
        scaler.setInitScale(2.0);
        QVERIFY(!scaler.scaleBelowOne());
        scaler.update(true);
        QCOMPARE(scaler.scale(), 1.0);
        QVERIFY(!scaler.scaleBelowOne());
        scaler.update(true);
        QCOMPARE(scaler.scale(), 0.5);
        QVERIFY(scaler.scaleBelowOne());
        QVERIFY(LossScaler::fromPreset("static:0.25").scaleBelowOne());
    }

    void overridesRestart() {
        LossScaler scaler = LossScaler::fromPreset("apex");
        scaler.update(true);
        scaler.update(false);
        QCOMPARE(scaler.skippedSteps(), qint64(1));
        scaler.setInitScale(1024);
        QCOMPARE(scaler.scale(), 1024.0);
        QCOMPARE(scaler.skippedSteps(), qint64(0));
        QCOMPARE(scaler.growthCounter(), qint64(0));
        QCOMPARE(scaler.settings().maxScale, k24);  // the rest of the preset stays
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, scaler.setGrowthInterval(0));
    }

    void badSettings() {
        LossScalerSettings s;
        s.backoffFactor = 0.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LossScaler{s});
        s = {};
        s.growthFactor = 0.5;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LossScaler{s});
        s = {};
        s.hysteresis = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LossScaler{s});
        s = {};
        s.minScale = 10;
        s.maxScale = 5;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LossScaler{s});
    }

    void consecutiveHysteresis() {
        // DeepSpeed with consecutive_hysteresis=True: any clean step restores the budget, so only two
        // overflows in a row back off.
        LossScalerSettings s;
        s.hysteresis = 2;
        s.consecutiveHysteresis = true;
        s.growthInterval = 100;
        LossScaler scaler(s);
        const QList<double> expected = {k16, k16, k16, k16 / 2};
        const QString pattern = QStringLiteral("YnYY");
        for (int i = 0; i < pattern.size(); ++i) {
            scaler.update(pattern[i] == QLatin1Char('Y'));
            QCOMPARE(scaler.scale(), expected[i]);
        }
    }
};

QTEST_GUILESS_MAIN(TestLossScaler)
#include "test_loss_scaler.moc"
