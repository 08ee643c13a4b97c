#pragma once
// What the training settings hold, as plain values, and the TrainingRequest that Start makes of them.
// Kept apart from the form so that turning choices into engine settings (the scaler preset string,
// which numbers a preset ignores, what "current conversion" trains) is tested without a widget.

#include <QString>

#include <memory>

#include "amp/conversion.h"
#include "backend/backend.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "train/dataset.h"
#include "train/precision_mode.h"
#include "train/trainer.h"
#include "training_run.h"

struct TrainingSetup {
    bool trainConversion = false;  // the current conversion rather than the graph as loaded
    bool fromLoadedParams = true;  // false: a fresh initialisation from the seed
    ampstudio::BackendChoice backend = ampstudio::BackendChoice::Auto;
    ampstudio::PrecisionMode precision = ampstudio::PrecisionMode::Amp;

    // A LossScaler preset ("pytorch", "apex", "fastai", "deepspeed", "off"), or "static", whose one
    // scale is 2^initScaleLog2.
    QString scalerPreset = QStringLiteral("pytorch");
    int initScaleLog2 = 16;
    int growthInterval = 2000;

    // "fashion-mnist", "synthetic:spirals|blobs|regression", or "csv" / "idx" with dataPath.
    QString dataset = QStringLiteral("synthetic:blobs");
    QString dataPath;
    QString labelColumn = QStringLiteral("label");
    ampstudio::DatasetTask csvTask = ampstudio::DatasetTask::Classification;

    ampstudio::OptimizerKind optimizer = ampstudio::OptimizerKind::Sgd;
    double learningRate = 0.05;
    double momentum = 0.9;  // SGD's; the others keep the engine's default
    double weightDecay = 0.0;
    QString schedule = QStringLiteral("constant");  // an LrSchedule name; "step" uses stepSize and gamma
    int stepSize = 1000;
    double gamma = 0.1;

    int batchSize = 64;
    int epochs = 1;
    int maxSteps = 0;  // 0: no limit
    double clipNorm = 0.0;  // 0: off
    int seed = 0;

    // As the CLI's --data takes it: "csv:PATH", "idx:PATH", or the dataset itself.
    QString dataSpec() const;
    // Whether the dataset's targets are numbers to regress rather than classes.
    bool isRegression() const;
};

// The request that trains `setup` on `graph` (the fp32 graph) from `params` (may be null), where
// "current conversion" means `conversion`'s lists and excluded nodes. Throws what the engine's
// parsers throw for a value they do not know.
TrainingRequest makeTrainingRequest(const TrainingSetup& setup, std::shared_ptr<const ampstudio::Graph> graph,
                                    std::shared_ptr<const ampstudio::NDArrayList> params,
                                    const ampstudio::ConversionOptions& conversion);
