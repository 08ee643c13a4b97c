// What Start asks the engine for, from the settings as plain values (no widget): the scaler preset
// string and which numbers a preset ignores, what "current conversion" adds, where the parameters
// come from, the optimizer and schedule, the data spec. And the form offers every precision mode the
// engine has, in the engine's order.
#include <QComboBox>
#include <QtTest>

#include <cmath>

#include "blob_mlp.h"
#include "train/precision_mode.h"
#include "training_settings_form.h"
#include "training_setup.h"

using namespace ampstudio;

namespace {

TrainingRequest requestFor(const TrainingSetup& setup, const ConversionOptions& conversion = {}) {
    return makeTrainingRequest(setup, test::blobMlp(), std::make_shared<const NDArrayList>(), conversion);
}

}  // namespace

class TestTrainingSetup : public QObject {
    Q_OBJECT

private slots:
    void scalerPresets_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("log2");
        QTest::addColumn<QString>("engineName");
        QTest::addColumn<double>("initScale");    // 0: the preset's own (no override)
        QTest::addColumn<int>("growthInterval");  // 0: the preset's own
        // A dynamic preset takes the form's numbers; static keeps its one scale in its name.
        QTest::newRow("pytorch from 2^24") << "pytorch" << 24 << "pytorch" << std::ldexp(1.0, 24) << 500;
        QTest::newRow("fastai from 2^16") << "fastai" << 16 << "fastai" << 65536.0 << 500;
        QTest::newRow("static 2^10") << "static" << 10 << "static:1024" << 0.0 << 0;
        QTest::newRow("off") << "off" << 16 << "off" << 0.0 << 0;
    }
    void scalerPresets() {
        QFETCH(QString, preset);
        QFETCH(int, log2);
        QFETCH(QString, engineName);
        QFETCH(double, initScale);
        QFETCH(int, growthInterval);
        TrainingSetup setup;
        setup.scalerPreset = preset;
        setup.initScaleLog2 = log2;
        setup.growthInterval = 500;
        const TrainerSettings s = requestFor(setup).settings;
        QCOMPARE(QString::fromStdString(s.scalerPreset), engineName);
        QCOMPARE(s.initScale.has_value(), initScale > 0);
        if (s.initScale)
            QCOMPARE(*s.initScale, initScale);
        QCOMPARE(s.growthInterval.has_value(), growthInterval > 0);
        if (s.growthInterval)
            QCOMPARE(*s.growthInterval, int64_t{growthInterval});
    }

    void currentConversionBringsItsListsAndExclusions() {
        ConversionOptions conversion;
        conversion.lists = AmpLists::defaults(DType::BF16);
        conversion.excludedSymNames = {"fc1"};
        TrainingSetup setup;
        setup.precision = PrecisionMode::Bf16;
        const TrainingRequest original = requestFor(setup, conversion);
        QVERIFY(!original.settings.lists.has_value());
        QVERIFY(original.settings.excludedNodes.empty());
        QCOMPARE(original.label, QStringLiteral("bf16"));
        setup.trainConversion = true;
        const TrainingRequest converted = requestFor(setup, conversion);
        QVERIFY(converted.settings.lists.has_value());
        QCOMPARE(converted.settings.lists->targetDtype, DType::BF16);
        QCOMPARE(converted.settings.excludedNodes, (std::set<std::string>{"fc1"}));
        QCOMPARE(converted.settings.precision, PrecisionMode::Bf16);
        QCOMPARE(converted.label, QStringLiteral("bf16 (conversion)"));
    }

    void parametersOnlyWhenStartingFromThem() {
        TrainingSetup setup;
        QVERIFY(requestFor(setup).params != nullptr);
        setup.fromLoadedParams = false;
        QVERIFY(requestFor(setup).params == nullptr);  // a fresh initialisation from the seed
        QVERIFY(requestFor(setup).model != nullptr);
    }

    void optimizerAndSchedule() {
        TrainingSetup setup;
        setup.optimizer = OptimizerKind::Sgd;
        setup.momentum = 0.5;
        setup.weightDecay = 0.01;
        setup.learningRate = 0.2;
        setup.schedule = QStringLiteral("step");
        setup.stepSize = 100;
        setup.gamma = 0.5;
        TrainerSettings s = requestFor(setup).settings;
        QCOMPARE(s.optimizer.momentum, 0.5);
        QCOMPARE(s.optimizer.weightDecay, 0.01);
        QCOMPARE(s.schedule.kind, LrScheduleKind::Step);
        QCOMPARE(s.schedule.baseLr, 0.2);
        QCOMPARE(s.schedule.stepSize, int64_t{100});
        QCOMPARE(s.schedule.gamma, 0.5);
        // Momentum is SGD's: Adam keeps the engine's default whatever the (hidden) field says.
        setup.optimizer = OptimizerKind::Adam;
        setup.schedule = QStringLiteral("cosine");
        s = requestFor(setup).settings;
        QCOMPARE(s.optimizer.kind, OptimizerKind::Adam);
        QCOMPARE(s.optimizer.momentum, 0.9);
        QCOMPARE(s.schedule.kind, LrScheduleKind::Cosine);
    }

    void dataSpecAndRunLength() {
        TrainingSetup setup;
        setup.dataset = QStringLiteral("csv");
        setup.dataPath = QStringLiteral("  /data/train.csv ");
        setup.labelColumn = QStringLiteral(" y ");
        setup.csvTask = DatasetTask::Regression;
        setup.batchSize = 32;
        setup.epochs = 3;
        setup.maxSteps = 50;
        setup.clipNorm = 1.5;
        setup.seed = 7;
        setup.backend = BackendChoice::Cpu;
        QVERIFY(setup.isRegression());
        const TrainingRequest r = requestFor(setup);
        QCOMPARE(r.dataSpec, std::string("csv:/data/train.csv"));
        QCOMPARE(r.dataOptions.labelColumn, std::string("y"));
        QCOMPARE(r.dataOptions.csvTask, DatasetTask::Regression);
        QCOMPARE(r.dataOptions.seed, uint64_t{7});
        QCOMPARE(r.backend, BackendChoice::Cpu);
        QCOMPARE(r.settings.batchSize, int64_t{32});
        QCOMPARE(r.settings.epochs, int64_t{3});
        QCOMPARE(r.settings.maxSteps, int64_t{50});
        QCOMPARE(r.settings.clipNorm, 1.5);
        QCOMPARE(r.settings.seed, uint64_t{7});
        setup.dataset = QStringLiteral("synthetic:blobs");
        QVERIFY(!setup.isRegression());  // the CSV task applies to CSV files only
        QCOMPARE(requestFor(setup).dataSpec, std::string("synthetic:blobs"));
        setup.dataset = QStringLiteral("synthetic:regression");
        QVERIFY(setup.isRegression());
    }

    void formOffersTheEnginesModesInOrder() {
        TrainingSettingsForm form;
        auto* combo = form.findChild<QComboBox*>(QStringLiteral("trainingPrecision"));
        QVERIFY(combo != nullptr);
        QCOMPARE(combo->count(), int(allPrecisionModes().size()));
        for (int i = 0; i < combo->count(); ++i) {
            const PrecisionMode mode = allPrecisionModes()[std::size_t(i)];
            QCOMPARE(combo->itemData(i).toString(), QString::fromUtf8(precisionModeName(mode)));
            QVERIFY(!combo->itemText(i).isEmpty());
            combo->setCurrentIndex(i);
            QCOMPARE(form.setup().precision, mode);
        }
    }
};

QTEST_MAIN(TestTrainingSetup)
#include "test_training_setup.moc"
