// `ampstudio-cli train`: one precision mode, one dataset, a progress line per epoch, every step in
// --metrics, the trained weights in --save. Ctrl-C stops cooperatively and still saves.
#include <cmath>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <memory>

#include "amp/amp_lists.h"
#include "amp/conversion.h"
#include "backend/backend.h"
#include "cli_commands.h"
#include "cli_errors.h"
#include "formats/model_file.h"
#include "train/dataset_source.h"
#include "train/metrics_csv_writer.h"
#include "train/trainer.h"

namespace ampstudio::cli {
namespace {

Trainer* g_trainer = nullptr;

extern "C" void stopOnSignal(int) {
    if (g_trainer != nullptr) {
        g_trainer->requestStop();  // only atomics and a notify: safe enough for a cooperative stop
    }
}

}  // namespace

int runTrain(const TrainArgs& args) {
    try {
        std::vector<std::filesystem::path> inputs{args.symbol};
        if (args.params) inputs.push_back(*args.params);
        if (args.listsFile) inputs.push_back(*args.listsFile);
        if (args.data.starts_with("csv:")) inputs.emplace_back(args.data.substr(4));
        for (const auto& out : {args.metrics, args.epochMetrics}) {
            if (out) refuseToOverwriteInput(*out, inputs);
        }
        const ModelFormat format = sniffModelFormat(args.symbol);
        if (args.save) {
            // The epoch is not known yet; the symbol file's name does not depend on it.
            refuseToOverwriteInput(modelFilesFor(format, *args.save, false).model, inputs);
        }

        TrainerSettings settings;
        settings.precision = parsePrecisionMode(args.precision);
        if (args.listsFile) settings.lists = AmpLists::fromJsonFile(*args.listsFile);
        settings.scalerPreset = args.scaler.value_or("");
        settings.initScale = args.initScale;
        settings.growthInterval = args.growthInterval;
        settings.optimizer.kind = parseOptimizer(args.optimizer);
        settings.optimizer.momentum = args.momentum;
        settings.optimizer.weightDecay = args.weightDecay;
        settings.schedule = LrSchedule::parse(args.schedule, args.lr);
        settings.batchSize = args.batchSize;
        settings.epochs = args.steps > 0 && args.epochs == 1 ? 0 : args.epochs;
        settings.maxSteps = args.steps;
        settings.clipNorm = args.clip;
        settings.seed = args.seed;
        if (args.excludedSymNames) {
            const auto names = splitList(*args.excludedSymNames, ',');
            settings.excludedNodes = {names.begin(), names.end()};
        }

        const ModelDocument source = openModelFile(args.symbol, {.findCompanions = false, .params = args.params});
        const Graph& graph = *source.graph;
        DataSourceOptions dataOptions;
        dataOptions.seed = args.seed;
        dataOptions.labelColumn = args.labelColumn;
        const TrainingData data = loadTrainingData(args.data, dataOptions);
        std::cout << data.description << '\n';

        auto backend = makeBackend(parseBackendChoice(args.backend), &graph);
        MetricsSink sink;
        std::optional<MetricsCsvWriter> writer;
        if (args.metrics) {
            writer.emplace(*args.metrics, args.epochMetrics.value_or(std::filesystem::path()));
            sink.setDataAvailableCallback([&] { writer->write(sink.takeNew()); });
        }
        Trainer trainer(graph, source.params.get(), data.train,
                        data.validation.size() > 0 ? &data.validation : nullptr, settings, *backend,
                        writer ? &sink : nullptr);
        std::cout << "training: " << trainer.describe() << '\n';
        trainer.setEpochCallback([&](const EpochMetrics& e, const TrainingSummary& s) {
            std::cout << "epoch " << e.epoch + 1 << ": train loss " << std::setprecision(4) << e.trainLoss;
            if (!std::isnan(e.validationLoss)) std::cout << ", validation loss " << e.validationLoss;
            if (!std::isnan(e.validationAccuracy)) {
                std::cout << ", accuracy " << std::fixed << std::setprecision(2) << 100.0 * e.validationAccuracy << " %"
                          << std::defaultfloat;
            }
            std::cout << ", loss scale " << s.finalLossScale << ", skipped " << s.skippedSteps << " of " << s.steps
                      << " steps\n"
                      << std::flush;
        });
        g_trainer = &trainer;
        std::signal(SIGINT, stopOnSignal);
        const TrainingSummary summary = trainer.run();
        std::signal(SIGINT, SIG_DFL);
        g_trainer = nullptr;
        if (writer) {
            writer->write(sink.takeNew());
            writer->close();
        }
        std::cout << (summary.stopped ? "stopped after " : "done: ") << summary.steps << " steps, "
                  << summary.skippedSteps << " skipped, " << std::fixed << std::setprecision(0)
                  << summary.samplesPerSecond << " samples/s" << std::defaultfloat << '\n';
        if (args.save) {
            const ModelFiles saved = trainer.saveCheckpoint(*args.save, summary.epochsCompleted, format, inputs);
            std::cout << "saved " << saved.model.string() << " and " << saved.params->string() << '\n';
        }
        return kSuccess;
    } catch (...) {
        // Here an invalid argument is an option value (precision, schedule, loss scale, dataset).
        return reportCurrentException(args.symbol, kUsageError);
    }
}

}  // namespace ampstudio::cli
