#include "training_setup.h"

#include <QCoreApplication>

#include <cmath>

#include "train/lr_schedule.h"

using namespace ampstudio;

QString TrainingSetup::dataSpec() const {
    if (dataset == QLatin1String("csv") || dataset == QLatin1String("idx")) {
        return dataset + QLatin1Char(':') + dataPath.trimmed();
    }
    return dataset;
}

bool TrainingSetup::isRegression() const {
    return dataset == QLatin1String("synthetic:regression") ||
           (dataset == QLatin1String("csv") && csvTask == DatasetTask::Regression);
}

TrainingRequest makeTrainingRequest(const TrainingSetup& setup, std::shared_ptr<const Graph> graph,
                                    std::shared_ptr<const NDArrayList> params, const ConversionOptions& conversion) {
    TrainingRequest r;
    r.model = std::move(graph);
    if (setup.fromLoadedParams) r.params = std::move(params);
    r.dataSpec = setup.dataSpec().toStdString();
    r.backend = setup.backend;
    r.dataOptions.seed = static_cast<uint64_t>(setup.seed);
    r.dataOptions.labelColumn = setup.labelColumn.trimmed().toStdString();
    r.dataOptions.csvTask = setup.csvTask;
    TrainerSettings& s = r.settings;
    s.precision = setup.precision;
    if (setup.trainConversion) {
        s.lists = conversion.lists;
        s.excludedNodes = conversion.excludedSymNames;
    }
    const double initScale = std::ldexp(1.0, setup.initScaleLog2);
    if (setup.scalerPreset == QLatin1String("static")) {
        s.scalerPreset = "static:" + QString::number(initScale, 'g', 17).toStdString();
    } else {
        s.scalerPreset = setup.scalerPreset.toStdString();
        if (setup.scalerPreset != QLatin1String("off")) {
            s.initScale = initScale;
            s.growthInterval = setup.growthInterval;
        }
    }
    s.optimizer.kind = setup.optimizer;
    s.optimizer.momentum = setup.optimizer == OptimizerKind::Sgd ? setup.momentum : 0.9;
    s.optimizer.weightDecay = setup.weightDecay;
    QString schedule = setup.schedule;
    if (schedule == QLatin1String("step")) {
        schedule += QStringLiteral(":%1:%2").arg(setup.stepSize).arg(setup.gamma);
    }
    s.schedule = LrSchedule::parse(schedule.toStdString(), setup.learningRate);
    s.batchSize = setup.batchSize;
    s.epochs = setup.epochs;
    s.maxSteps = setup.maxSteps;
    s.clipNorm = setup.clipNorm;
    s.seed = static_cast<uint64_t>(setup.seed);
    r.label = QString::fromUtf8(precisionModeName(setup.precision));
    if (setup.trainConversion) r.label += QCoreApplication::translate("TrainingSetup", " (conversion)");
    return r;
}
