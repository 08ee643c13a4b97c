// The training loop on small synthetic problems (fast; the Fashion-MNIST runs are in
// test_training_fashion_mnist, label slow): every precision mode learns, an overflow step leaves
// every weight and optimizer state bit-identical, the same seed gives the same run, stop and pause
// are cooperative, checkpoints reload.
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "backend/backend.h"
#include "exec/executor.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"
#include "graph_builder.h"
#include "train/lr_schedule.h"
#include "train/synthetic_datasets.h"
#include "train/trainer.h"
#include "train/training_heads.h"

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

// data -> FC(32) -> relu -> FC(classes) -> SoftmaxOutput, named as MXNet's examples name them.
Graph mlp(int classes) {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry fc1 = b.addOp("FullyConnected", "fc1", {data, b.addVariable("fc1_weight"), b.addVariable("fc1_bias")},
                                  {{"num_hidden", "32"}});
    const NodeEntry relu = b.addOp("Activation", "relu1", {fc1}, {{"act_type", "relu"}});
    const NodeEntry fc2 = b.addOp("FullyConnected", "fc2", {relu, b.addVariable("fc2_weight"), b.addVariable("fc2_bias")},
                                  {{"num_hidden", std::to_string(classes)}});
    const NodeEntry out = b.addOp("SoftmaxOutput", "softmax", {fc2, b.addVariable("softmax_label")});
    return b.finish({out});
}

Graph linearRegression() {
    GraphBuilder b;
    const NodeEntry data = b.addVariable("data");
    const NodeEntry fc = b.addOp("FullyConnected", "fc", {data, b.addVariable("fc_weight"), b.addVariable("fc_bias")},
                                 {{"num_hidden", "1"}});
    const NodeEntry out = b.addOp("LinearRegressionOutput", "lro", {fc, b.addVariable("lro_label")});
    return b.finish({out});
}

Dataset blobs() {
    BlobOptions o;
    o.samples = 1200;
    o.classes = 4;
    o.features = 8;
    o.spread = 2.0;
    o.centerBox = 3.0;
    o.seed = 7;
    return gaussianBlobs(o);
}

TrainerSettings settingsFor(PrecisionMode mode) {
    TrainerSettings s;
    s.precision = mode;
    s.batchSize = 50;
    s.epochs = 3;
    s.seed = 11;
    s.schedule.baseLr = 0.05;
    return s;
}

std::vector<std::byte> bytesOf(const NDArrayList& list) { return serializeNDArrayList(list); }

}  // namespace

class TestTrainer : public QObject {
    Q_OBJECT

private slots:
    void precisionModesInDisplayOrder() {
        const std::vector<PrecisionMode> expected{PrecisionMode::Fp32, PrecisionMode::Amp, PrecisionMode::Fp16Master,
                                                  PrecisionMode::Bf16, PrecisionMode::Bf16Master};
        QVERIFY(allPrecisionModes() == expected);
        // One name per mode, in the same order, and each parses back to its mode.
        QCOMPARE(precisionModeNames().size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(precisionModeNames()[i], std::string(precisionModeName(expected[i])));
            QVERIFY(parsePrecisionMode(precisionModeNames()[i]) == expected[i]);
        }
    }

    void everyModeLearnsBlobs_data() {
        QTest::addColumn<QString>("mode");
        for (const std::string& m : precisionModeNames()) {
            QTest::newRow(m.c_str()) << QString::fromStdString(m);
        }
    }
    void everyModeLearnsBlobs() {
        QFETCH(QString, mode);
        const Dataset data = blobs();
        const TrainValidationSplit split = splitTrainValidation(data, 0.25, 3);
        auto backend = makeCpuBackend();
        MetricsSink sink;
        Trainer trainer(mlp(4), nullptr, split.train, &split.validation,
                        settingsFor(parsePrecisionMode(mode.toStdString())), *backend, &sink);
        const double before = trainer.evaluate(split.validation).loss;
        const TrainingSummary summary = trainer.run();
        const EvaluationResult after = trainer.evaluate(split.validation);
        QCOMPARE(summary.steps, 3 * (900 / 50));
        QVERIFY2(after.loss < 0.5 * before, qPrintable(QString("loss %1 -> %2").arg(before).arg(after.loss)));
        QVERIFY2(after.accuracy > 0.85, qPrintable(QString::number(after.accuracy)));
        const MetricsBatch batch = sink.takeNew();
        QCOMPARE(static_cast<int64_t>(batch.steps.size()), summary.steps);
        QCOMPARE(batch.epochs.size(), std::size_t{3});
        QVERIFY(batch.finished);
        QCOMPARE(batch.epochs.back().validationAccuracy, after.accuracy);
    }

    void modesBuildTheirGraphs() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        // fp16-master: parameters stored in f16 with f32 masters, the loss head in f32.
        Trainer master(mlp(4), nullptr, data, nullptr, settingsFor(PrecisionMode::Fp16Master), *backend);
        QCOMPARE(master.executor().value("fc1_weight").dtype(), DType::F16);
        QCOMPARE(master.executor().value("fc2_bias").dtype(), DType::F16);
        QCOMPARE(master.lossScaler().presetName(), std::string("pytorch"));
        // amp: f32 parameters, cast per use.
        Trainer amp(mlp(4), nullptr, data, nullptr, settingsFor(PrecisionMode::Amp), *backend);
        QCOMPARE(amp.executor().value("fc1_weight").dtype(), DType::F32);
        QVERIFY(amp.preparedModel().castsInserted > 0);
        // bf16: no loss scaling by default.
        Trainer bf16(mlp(4), nullptr, data, nullptr, settingsFor(PrecisionMode::Bf16), *backend);
        QCOMPARE(bf16.lossScaler().presetName(), std::string("off"));
        // The saved weights are f32 in every mode.
        for (const NDArrayRecord& r : master.parameters().arrays) {
            QCOMPARE(r.dtype, DType::F32);
        }
    }

    void excludedNodesTrainInFloat32() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        auto fc1Dtype = [&](const std::set<std::string>& excluded) {
            TrainerSettings s = settingsFor(PrecisionMode::Amp);
            s.excludedNodes = excluded;
            Trainer t(mlp(4), nullptr, data, nullptr, s, *backend);
            const Graph& g = t.preparedModel().graph;
            for (NodeId n = 0; n < g.size(); ++n) {
                if (g.nodes[n].name == "fc1") return t.executor().entryValue(NodeEntry{n, 0, 0}).dtype();
            }
            return DType::I32;
        };
        QCOMPARE(fc1Dtype({}), DType::F16);
        QCOMPARE(fc1Dtype({"fc1"}), DType::F32);
        TrainerSettings typo = settingsFor(PrecisionMode::Amp);
        typo.excludedNodes = {"fc9"};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Trainer(mlp(4), nullptr, data, nullptr, typo, *backend));
    }

    void trainingHeadsAreFound() {
        const TrainingHeads heads = findTrainingHeads(mlp(3));
        QCOMPARE(heads.lossOp, std::string("SoftmaxOutput"));
        QCOMPARE(heads.labelName, std::string("softmax_label"));
        QCOMPARE(heads.dataName, std::string("data"));
        QCOMPARE(heads.inputs, (std::set<std::string>{"data", "softmax_label"}));
        QCOMPARE(findTrainingHeads(linearRegression()).lossOp, std::string("LinearRegressionOutput"));

        GraphBuilder noLoss;
        const NodeEntry x = noLoss.addVariable("data");
        const Graph plain = noLoss.finish({noLoss.addOp("Activation", "act", {x}, {{"act_type", "relu"}})});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findTrainingHeads(plain));
        try {
            findTrainingHeads(plain);
        } catch (const std::invalid_argument& e) {
            QVERIFY(std::string(e.what()).find("no loss head") != std::string::npos);
        }

        GraphBuilder two;
        const NodeEntry sum = two.addOp("elemwise_add", "sum", {two.addVariable("a"), two.addVariable("b")});
        const Graph twoInputs = two.finish({two.addOp("LinearRegressionOutput", "lro", {sum, two.addVariable("lro_label")})});
        try {
            findTrainingHeads(twoInputs);
            QFAIL("two data inputs were accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("several data inputs (a, b)") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 checkLossFitsTask("SoftmaxOutput", DatasetTask::Regression, "regression"));
        checkLossFitsTask("SoftmaxOutput", DatasetTask::Classification, "blobs");
        checkLossFitsTask("MakeLoss", DatasetTask::Classification, "blobs");
    }

    void overflowStepLeavesEverythingBitIdentical() {
        // A static scale of 2^40 overflows f16 gradients on every step: nothing may change.
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        TrainerSettings s = settingsFor(PrecisionMode::Fp16Master);
        s.scalerPreset = "static:1099511627776";
        s.maxSteps = 3;
        s.epochs = 0;
        s.optimizer.kind = OptimizerKind::Adam;
        MetricsSink sink;
        Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend, &sink);
        const auto before = bytesOf(trainer.parameters());
        const std::vector<float> f16Before = [&] {
            const Tensor& w = trainer.executor().value("fc1_weight");
            std::vector<float> v(static_cast<std::size_t>(w.size()) / 2);
            backend->copyToHost(w, v.data(), w.bytes());
            return v;
        }();
        const TrainingSummary summary = trainer.run();
        QCOMPARE(summary.skippedSteps, int64_t{3});
        QVERIFY(bytesOf(trainer.parameters()) == before);
        std::vector<float> f16After(f16Before.size());
        const Tensor& w = trainer.executor().value("fc1_weight");
        backend->copyToHost(w, f16After.data(), w.bytes());
        QVERIFY(std::memcmp(f16After.data(), f16Before.data(), w.bytes()) == 0);
        for (const StepMetrics& m : sink.takeNew().steps) {
            QVERIFY(m.skipped);
            QVERIFY(!std::isfinite(m.gradNorm));
        }
        // ... and once the scale is sane the same trainer state trains: Adam's step count did not advance.
    }

    void dynamicScaleBacksOffFromHugeScale() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        TrainerSettings s = settingsFor(PrecisionMode::Fp16Master);
        s.initScale = std::ldexp(1.0, 24);
        s.epochs = 4;
        MetricsSink sink;
        Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend, &sink);
        const TrainingSummary summary = trainer.run();
        const MetricsBatch batch = sink.takeNew();
        QVERIFY(batch.steps.front().skipped);
        QVERIFY(summary.skippedSteps >= 1);
        QVERIFY(summary.finalLossScale < std::ldexp(1.0, 24));
        // Skips come first, then it trains: the scale never goes back up (interval 2000) and the
        // last skipped step is early.
        int64_t lastSkipped = -1;
        for (const StepMetrics& m : batch.steps) {
            lastSkipped = m.skipped ? m.step : lastSkipped;
        }
        QVERIFY2(lastSkipped < 20, qPrintable(QString::number(lastSkipped)));
        QVERIFY(std::isfinite(batch.epochs.front().trainLoss));
        QVERIFY2(batch.epochs.back().trainLoss < batch.epochs.front().trainLoss,
                 qPrintable(QString("%1 -> %2").arg(batch.epochs.front().trainLoss).arg(batch.epochs.back().trainLoss)));
    }

    // The scale is decided on the backend and the host reads each step one step behind the queue:
    // the metrics still come in step order, each with the scale its step used, and the host's mirror
    // of the scaler ends where the same rule replayed on the skipped flags ends.
    void theHostMirrorsTheBackendsScale() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        TrainerSettings s = settingsFor(PrecisionMode::Fp16Master);
        s.initScale = std::ldexp(1.0, 26);
        s.growthInterval = 3;
        s.epochs = 2;
        MetricsSink sink;
        Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend, &sink);
        const TrainingSummary summary = trainer.run();
        const std::vector<StepMetrics> steps = sink.takeNew().steps;
        QCOMPARE(static_cast<int64_t>(steps.size()), summary.steps);
        LossScaler replay = LossScaler::fromPreset("pytorch");
        replay.setInitScale(std::ldexp(1.0, 26));
        replay.setGrowthInterval(3);
        int64_t skipped = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps[i].step, static_cast<int64_t>(i));
            QCOMPARE(steps[i].lossScale, replay.scale());
            replay.update(steps[i].skipped);
            skipped += steps[i].skipped ? 1 : 0;
        }
        QVERIFY2(skipped >= 2, qPrintable(QString::number(skipped)));  // it backed off, then grew
        QCOMPARE(trainer.lossScaler().scale(), replay.scale());
        QCOMPARE(trainer.lossScaler().growthCounter(), replay.growthCounter());
        QCOMPARE(trainer.lossScaler().skippedSteps(), skipped);
        QCOMPARE(summary.finalLossScale, replay.scale());
        QCOMPARE(trainer.optimizerSteps(), summary.steps - skipped);
    }

    void sameSeedSameRun() {
        auto run = [](uint64_t seed) {
            auto backend = makeCpuBackend();
            const Dataset data = blobs();
            TrainerSettings s = settingsFor(PrecisionMode::Amp);
            s.seed = seed;
            MetricsSink sink;
            Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend, &sink);
            trainer.run();
            std::vector<double> trace;
            for (const StepMetrics& m : sink.takeNew().steps) {
                trace.insert(trace.end(), {m.loss, m.lossScale, m.gradNorm, m.learningRate});
            }
            return std::make_pair(trace, bytesOf(trainer.parameters()));
        };
        const auto a = run(5), b = run(5), c = run(6);
        // Bytes, not values: a skipped step's NaN norm must repeat too.
        auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
            return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
        };
        QVERIFY(same(a.first, b.first));
        QVERIFY(a.second == b.second);
        QVERIFY(!same(a.first, c.first));
    }

    void regressionLearnsTheLine() {
        RegressionOptions o;
        o.samples = 1000;
        o.slope = {1.5f, -2.0f};
        o.intercept = 0.5f;
        o.noise = 0.05f;
        const Dataset data = syntheticRegression(o);
        auto backend = makeCpuBackend();
        TrainerSettings s = settingsFor(PrecisionMode::Fp32);
        s.epochs = 10;
        s.schedule.baseLr = 0.1;
        Trainer trainer(linearRegression(), nullptr, data, nullptr, s, *backend);
        trainer.run();
        const EvaluationResult r = trainer.evaluate(data);
        QVERIFY2(r.loss < 0.01, qPrintable(QString::number(r.loss)));
        QVERIFY(std::isnan(r.accuracy));
        const NDArrayList params = trainer.parameters();
        const NDArrayRecord& w = params.arrays[static_cast<std::size_t>(params.find("fc_weight"))];
        float v[2];
        std::memcpy(v, w.data.data(), sizeof v);
        QVERIFY(std::abs(v[0] - 1.5f) < 0.05f && std::abs(v[1] + 2.0f) < 0.05f);
    }

    void clippingBoundsTheStep() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        TrainerSettings s = settingsFor(PrecisionMode::Fp32);
        s.optimizer.momentum = 0.0;
        s.maxSteps = 1;
        s.epochs = 0;
        s.clipNorm = 1e-3;
        s.schedule.baseLr = 1.0;
        Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend);
        const NDArrayList before = trainer.parameters();
        trainer.run();
        const NDArrayList after = trainer.parameters();
        double sq = 0.0;
        for (std::size_t i = 0; i < before.arrays.size(); ++i) {
            const auto n = before.arrays[i].data.size() / sizeof(float);
            const auto* a = reinterpret_cast<const float*>(before.arrays[i].data.data());
            const auto* b = reinterpret_cast<const float*>(after.arrays[i].data.data());
            for (std::size_t j = 0; j < n; ++j) {
                sq += (double(a[j]) - b[j]) * (double(a[j]) - b[j]);
            }
        }
        // SGD without momentum moves the weights by lr * clipped gradient: norm 1e-3.
        QVERIFY2(std::abs(std::sqrt(sq) - 1e-3) < 1e-5, qPrintable(QString::number(std::sqrt(sq))));
    }

    void stopAndPauseAreCooperative() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        TrainerSettings s = settingsFor(PrecisionMode::Fp32);
        s.epochs = 100000;
        Trainer trainer(mlp(4), nullptr, data, nullptr, s, *backend);
        TrainingSummary summary;
        std::thread worker([&] { summary = trainer.run(); });
        QTRY_VERIFY(trainer.stepsDone() > 5);
        trainer.setPaused(true);
        QTest::qWait(50);
        const int64_t paused = trainer.stepsDone();
        QTest::qWait(100);
        QVERIFY(trainer.stepsDone() <= paused + 1);
        trainer.setPaused(false);
        QTRY_VERIFY(trainer.stepsDone() > paused + 5);
        trainer.requestStop();
        worker.join();
        QVERIFY(summary.stopped);
        QVERIFY(summary.steps < trainer.totalSteps());
        // The weights survive: they save and load back into a new trainer that evaluates the same.
        const std::string prefix = (std::filesystem::path(QDir::tempPath().toStdString()) / "ams-trainer-ckpt").string();
        const ModelFiles saved = trainer.saveCheckpoint(prefix, 3);
        QCOMPARE(saved.model.string(), prefix + "-symbol.json");
        QVERIFY(saved.params);
        const std::filesystem::path path = *saved.params;
        QVERIFY(path.string().ends_with("-0003.params"));
        const NDArrayList loaded = readNDArrayListFile(path);
        Trainer again(readSymbolJsonFile(prefix + "-symbol.json"), &loaded, data, nullptr, s, *backend);
        QCOMPARE(again.evaluate(data).loss, trainer.evaluate(data).loss);
    }

    void badSetupsAreExplained() {
        auto backend = makeCpuBackend();
        const Dataset data = blobs();
        auto message = [&](const Graph& g, const Dataset& d, TrainerSettings s) -> QString {
            try {
                Trainer t(g, nullptr, d, nullptr, s, *backend);
            } catch (const std::exception& e) {
                return e.what();
            }
            return {};
        };
        TrainerSettings s = settingsFor(PrecisionMode::Fp32);
        QVERIFY(message(linearRegression(), data, s).contains("classification"));
        s.batchSize = 5000;
        QVERIFY(message(mlp(4), data, s).contains("fewer than one batch"));
        s.batchSize = 0;
        QVERIFY(message(mlp(4), data, s).contains("batch size"));
        s = settingsFor(PrecisionMode::Fp32);
        s.scalerPreset = "nonsense";
        QVERIFY(message(mlp(4), data, s).contains("nonsense"));
    }

    void schedules() {
        const LrSchedule constant = LrSchedule::parse("constant", 0.1);
        QCOMPARE(constant.at(0, 100), 0.1);
        QCOMPARE(constant.at(99, 100), 0.1);
        const LrSchedule step = LrSchedule::parse("step:10:0.5", 0.1);
        QCOMPARE(step.at(9, 100), 0.1);
        QCOMPARE(step.at(10, 100), 0.05);
        QCOMPARE(step.at(25, 100), 0.025);
        const LrSchedule cosine = LrSchedule::parse("cosine", 0.1);
        QCOMPARE(cosine.at(0, 100), 0.1);
        QVERIFY(std::abs(cosine.at(50, 100) - 0.05) < 1e-12);
        QVERIFY(cosine.at(100, 100) < 1e-12);
        // PyTorch OneCycleLR(max_lr=0.1, total_steps=100): 0.004 at step 0, 0.1 at step 29, 4e-7 at 99.
        const LrSchedule cycle = LrSchedule::parse("one-cycle", 0.1);
        QVERIFY(std::abs(cycle.at(0, 100) - 0.004) < 1e-12);
        QVERIFY(std::abs(cycle.at(29, 100) - 0.1) < 1e-12);
        QVERIFY(std::abs(cycle.at(99, 100) - 4e-7) < 1e-15);
        QVERIFY(cycle.at(14, 100) > 0.004 && cycle.at(14, 100) < 0.1);
        for (const char* bad : {"step", "step:0", "step:x", "cosine:5", "warp", "step:10:2"}) {
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LrSchedule::parse(bad, 0.1));
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LrSchedule::parse("constant", -1.0));
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "test_trainer.moc"
