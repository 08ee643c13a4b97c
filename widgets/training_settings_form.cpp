#include "training_settings_form.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "backend/backend.h"
#include "okabe_ito.h"
#include "train/fashion_mnist.h"
#include "train/loss_scaler.h"
#include "train/precision_mode.h"
#include "train/training_heads.h"

using namespace ampstudio;

namespace {

template <typename W>
W* named(W* w, const char* name) {
    w->setObjectName(QLatin1String(name));
    return w;
}

QFormLayout* addGroup(QWidget* panel, const QString& title) {
    auto* box = new QGroupBox(title, panel);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    qobject_cast<QVBoxLayout*>(panel->layout())->addWidget(box);
    return form;
}

QString dataOf(const QComboBox* combo) { return combo->currentData().toString(); }

void setComboData(QComboBox* combo, const QVariant& value) {
    const int i = combo->findData(value);
    if (i >= 0) combo->setCurrentIndex(i);
}

// The words a user picks a mode by; the combo's data is the engine's name, which QSettings keeps and
// the CLI's --precision takes. No default case: a mode added to the engine must get its text here.
QString precisionModeText(PrecisionMode mode) {
    switch (mode) {
        case PrecisionMode::Fp32: return TrainingSettingsForm::tr("FP32");
        case PrecisionMode::Amp: return TrainingSettingsForm::tr("AMP (float16)");
        case PrecisionMode::Fp16Master: return TrainingSettingsForm::tr("FP16 master weights");
        case PrecisionMode::Bf16: return TrainingSettingsForm::tr("BF16 (AMP)");
        case PrecisionMode::Bf16Master: return TrainingSettingsForm::tr("BF16 master weights");
    }
    return QString::fromUtf8(precisionModeName(mode));
}

}  // namespace

TrainingSettingsForm::TrainingSettingsForm(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    buildModelGroup();
    buildPrecisionGroup();
    buildDataGroup();
    buildOptimizerGroup();

    m_problem = named(new QLabel, "trainingProblem");
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::PlainText);
    QPalette warn = m_problem->palette();
    warn.setColor(QPalette::WindowText, okabe_ito::kVermillion);
    m_problem->setPalette(warn);
    outer->addWidget(m_problem);
    outer->addStretch(1);

    connectFields();
    updateModelChoice();
    updateScalerFields();
    updateDatasetFields();
}

void TrainingSettingsForm::buildModelGroup() {
    QFormLayout* model = addGroup(this, tr("Model"));
    m_model = named(new QComboBox, "trainingModel");
    m_model->addItem(tr("Original (FP32 graph)"), QStringLiteral("original"));
    m_model->addItem(tr("Current conversion"), QStringLiteral("conversion"));
    m_model->setToolTip(tr("Train the graph as loaded, or the conversion the op lists and exclusions give now."));
    model->addRow(tr("Train:"), m_model);
    m_startFrom = named(new QComboBox, "trainingStartFrom");
    m_startFrom->addItem(tr("Loaded parameters"), QStringLiteral("params"));
    m_startFrom->addItem(tr("Fresh initialisation"), QStringLiteral("init"));
    m_startFrom->setToolTip(tr("Fresh initialisation follows MXNet's naming: *_weight Xavier, *_bias zeros, *_gamma ones."));
    model->addRow(tr("Start from:"), m_startFrom);
    m_backend = named(new QComboBox, "trainingBackend");
    QString cpuName = QString::fromStdString(cpuBackendName());  // "cpu (oneDNN avx2)"
    if (cpuName.startsWith(QStringLiteral("cpu "))) cpuName = cpuName.mid(4);
    const int devices = cudaDeviceCount();
    m_backend->addItem(tr("Automatic"), QStringLiteral("auto"));
    m_backend->addItem(tr("CPU %1").arg(cpuName), QStringLiteral("cpu"));
    m_backend->addItem(!cudaBackendBuilt() ? tr("CUDA (not in this build)")
                       : devices == 0      ? tr("CUDA (no device)")
                                           : tr("CUDA (%n device(s))", nullptr, devices),
                       QStringLiteral("cuda"));
    if (auto* items = qobject_cast<QStandardItemModel*>(m_backend->model())) items->item(2)->setEnabled(devices > 0);
    m_backend->setToolTip(tr("Automatic trains on the GPU when one is present and the CUDA backend runs every op "
                             "of the model, else on the CPU."));
    model->addRow(tr("Backend:"), m_backend);
}

void TrainingSettingsForm::buildPrecisionGroup() {
    QFormLayout* precision = addGroup(this, tr("Precision"));
    m_precision = named(new QComboBox, "trainingPrecision");
    for (PrecisionMode mode : allPrecisionModes()) {
        m_precision->addItem(precisionModeText(mode), QString::fromUtf8(precisionModeName(mode)));
    }
    m_precision->setToolTip(tr("AMP converts the graph with the op lists and keeps FP32 parameters; master-weight modes "
                               "store parameters in the low dtype with an FP32 copy for the optimizer."));
    precision->addRow(tr("Mode:"), m_precision);
    m_scaler = named(new QComboBox, "trainingScaler");
    m_scaler->addItem(tr("PyTorch GradScaler"), QStringLiteral("pytorch"));
    m_scaler->addItem(tr("Apex"), QStringLiteral("apex"));
    m_scaler->addItem(tr("fastai"), QStringLiteral("fastai"));
    m_scaler->addItem(tr("DeepSpeed"), QStringLiteral("deepspeed"));
    m_scaler->addItem(tr("Static"), QStringLiteral("static"));
    m_scaler->addItem(tr("Off"), QStringLiteral("off"));
    precision->addRow(tr("Loss scaler:"), m_scaler);
    m_initScaleLog2 = named(new QSpinBox, "trainingInitScale");
    m_initScaleLog2->setRange(0, 120);
    m_initScaleLog2->setPrefix(QStringLiteral("2^"));
    m_initScaleLog2->setToolTip(tr("The initial loss scale, as a power of two."));
    precision->addRow(tr("Initial scale:"), m_initScaleLog2);
    m_growthInterval = named(new QSpinBox, "trainingGrowthInterval");
    m_growthInterval->setRange(1, 1000000);
    m_growthInterval->setToolTip(tr("Clean steps before the scale doubles."));
    precision->addRow(tr("Growth interval:"), m_growthInterval);
}

void TrainingSettingsForm::buildDataGroup() {
    QFormLayout* data = addGroup(this, tr("Data"));
    m_dataset = named(new QComboBox, "trainingDataset");
    m_dataset->addItem(fashionMnistAvailable() ? tr("Fashion-MNIST") : tr("Fashion-MNIST (not installed)"),
                       QStringLiteral("fashion-mnist"));
    m_dataset->addItem(tr("Two spirals (synthetic)"), QStringLiteral("synthetic:spirals"));
    m_dataset->addItem(tr("Gaussian blobs (synthetic)"), QStringLiteral("synthetic:blobs"));
    m_dataset->addItem(tr("Regression y = a·x + b (synthetic)"), QStringLiteral("synthetic:regression"));
    m_dataset->addItem(tr("CSV file…"), QStringLiteral("csv"));
    m_dataset->addItem(tr("IDX folder (MNIST format)…"), QStringLiteral("idx"));
    data->addRow(tr("Dataset:"), m_dataset);
    auto* pathRow = new QWidget;
    auto* pathLayout = new QHBoxLayout(pathRow);
    pathLayout->setContentsMargins(0, 0, 0, 0);
    m_dataPath = named(new QLineEdit, "trainingDataPath");
    m_browse = new QToolButton;
    m_browse->setText(tr("…"));
    m_browse->setToolTip(tr("Choose the file or folder"));
    pathLayout->addWidget(m_dataPath);
    pathLayout->addWidget(m_browse);
    data->addRow(tr("File:"), pathRow);
    m_labelColumn = named(new QLineEdit(QStringLiteral("label")), "trainingLabelColumn");
    data->addRow(tr("Label column:"), m_labelColumn);
    m_csvTask = named(new QComboBox, "trainingCsvTask");
    m_csvTask->addItem(tr("Classification"), QStringLiteral("classification"));
    m_csvTask->addItem(tr("Regression"), QStringLiteral("regression"));
    data->addRow(tr("Task:"), m_csvTask);
    m_batch = named(new QSpinBox, "trainingBatch");
    m_batch->setRange(1, 65536);
    data->addRow(tr("Batch size:"), m_batch);
    m_epochs = named(new QSpinBox, "trainingEpochs");
    m_epochs->setRange(1, 1000000);
    data->addRow(tr("Epochs:"), m_epochs);
    m_maxSteps = named(new QSpinBox, "trainingMaxSteps");
    m_maxSteps->setRange(0, 1000000000);
    m_maxSteps->setSpecialValueText(tr("no limit"));
    data->addRow(tr("Stop after steps:"), m_maxSteps);
    m_seed = named(new QSpinBox, "trainingSeed");
    m_seed->setRange(0, 2147483647);
    m_seed->setToolTip(tr("Initialisation, shuffling, the validation split and dropout: the same seed gives the same run."));
    data->addRow(tr("Seed:"), m_seed);
}

void TrainingSettingsForm::buildOptimizerGroup() {
    QFormLayout* optimizer = addGroup(this, tr("Optimizer"));
    m_optimizer = named(new QComboBox, "trainingOptimizer");
    m_optimizer->addItem(tr("SGD"), QStringLiteral("sgd"));
    m_optimizer->addItem(tr("Adam"), QStringLiteral("adam"));
    m_optimizer->addItem(tr("AdamW"), QStringLiteral("adamw"));
    optimizer->addRow(tr("Optimizer:"), m_optimizer);
    m_lr = named(new QDoubleSpinBox, "trainingLr");
    m_lr->setDecimals(6);
    m_lr->setRange(0.000001, 10.0);
    m_lr->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    optimizer->addRow(tr("Learning rate:"), m_lr);
    m_momentum = named(new QDoubleSpinBox, "trainingMomentum");
    m_momentum->setRange(0.0, 0.999);
    m_momentum->setDecimals(3);
    m_momentum->setSingleStep(0.05);
    optimizer->addRow(tr("Momentum:"), m_momentum);
    m_weightDecay = named(new QDoubleSpinBox, "trainingWeightDecay");
    m_weightDecay->setDecimals(6);
    m_weightDecay->setRange(0.0, 1.0);
    m_weightDecay->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    optimizer->addRow(tr("Weight decay:"), m_weightDecay);
    m_schedule = named(new QComboBox, "trainingSchedule");
    m_schedule->addItem(tr("Constant"), QStringLiteral("constant"));
    m_schedule->addItem(tr("Step decay"), QStringLiteral("step"));
    m_schedule->addItem(tr("Cosine"), QStringLiteral("cosine"));
    m_schedule->addItem(tr("One-cycle"), QStringLiteral("one-cycle"));
    optimizer->addRow(tr("Schedule:"), m_schedule);
    m_stepSize = named(new QSpinBox, "trainingStepSize");
    m_stepSize->setRange(1, 100000000);
    optimizer->addRow(tr("Decay every:"), m_stepSize);
    m_gamma = named(new QDoubleSpinBox, "trainingGamma");
    m_gamma->setRange(0.001, 1.0);
    m_gamma->setDecimals(3);
    optimizer->addRow(tr("Decay factor:"), m_gamma);
    m_clip = named(new QDoubleSpinBox, "trainingClip");
    m_clip->setRange(0.0, 1e6);
    m_clip->setDecimals(3);
    m_clip->setSpecialValueText(tr("off"));
    m_clip->setToolTip(tr("Clip the unscaled gradients to this global L2 norm."));
    optimizer->addRow(tr("Clip gradients:"), m_clip);
}

void TrainingSettingsForm::connectFields() {
    auto changed = [this] { emit setupChanged(); };
    for (QComboBox* c : {m_startFrom, m_csvTask, m_optimizer, m_backend}) {
        connect(c, &QComboBox::currentIndexChanged, this, changed);
    }
    connect(m_model, &QComboBox::currentIndexChanged, this, [this] {
        updateModelChoice();
        emit setupChanged();
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_loadingSettings) applyPrecisionDefaults();
        emit setupChanged();
    });
    connect(m_scaler, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_loadingSettings) applyScalerDefaults();
        updateScalerFields();
        emit setupChanged();
    });
    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
        updateDatasetFields();
        emit setupChanged();
    });
    connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] { updateDatasetFields(); });
    connect(m_schedule, &QComboBox::currentIndexChanged, this, [this] { updateDatasetFields(); });
    connect(m_dataPath, &QLineEdit::textChanged, this, changed);
    connect(m_browse, &QToolButton::clicked, this, &TrainingSettingsForm::chooseDataPath);
}

// A mode brings its scaler: float16 needs PyTorch's dynamic one, float32 and bfloat16 none.
void TrainingSettingsForm::applyPrecisionDefaults() {
    m_scaler->setCurrentIndex(m_scaler->findData(QString::fromUtf8(defaultScalerPreset(parsePrecisionMode(dataOf(m_precision).toStdString())))));
}

// A preset brings its numbers; "static" starts from PyTorch's 2^16.
void TrainingSettingsForm::applyScalerDefaults() {
    const QString preset = dataOf(m_scaler);
    const LossScaler scaler = LossScaler::fromPreset(preset == QLatin1String("static") ? "static:65536" : preset.toStdString());
    m_initScaleLog2->setValue(static_cast<int>(std::lround(std::log2(scaler.settings().initScale))));
    m_growthInterval->setValue(static_cast<int>(scaler.settings().growthInterval));
}

void TrainingSettingsForm::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const NDArrayList> params) {
    m_graph = std::move(graph);
    m_params = std::move(params);
    // What training needs from the graph, found once per model rather than on every form change.
    m_lossOp.clear();
    m_modelProblem.clear();
    if (m_graph) {
        try {
            m_lossOp = findTrainingHeads(*m_graph).lossOp;
        } catch (const std::exception& e) {
            m_modelProblem = tr("This model cannot be trained: %1.").arg(QString::fromUtf8(e.what()));
        }
    }
    auto* items = qobject_cast<QStandardItemModel*>(m_startFrom->model());
    const bool hasParams = m_params != nullptr && !m_params->arrays.empty();
    if (items) items->item(0)->setEnabled(hasParams);
    if (!hasParams) m_startFrom->setCurrentIndex(1);
    emit setupChanged();
}

void TrainingSettingsForm::setConversion(const ConversionOptions& options) {
    m_conversion = options;
    updateModelChoice();
    emit setupChanged();
}

void TrainingSettingsForm::updateModelChoice() {
    const bool converted = dataOf(m_model) == QLatin1String("conversion");
    const bool bf16 = m_conversion.lists.targetDtype == DType::BF16;
    m_model->setItemText(1, m_conversion.excludedSymNames.empty()
                                ? tr("Current conversion (%1)").arg(bf16 ? QStringLiteral("bfloat16") : QStringLiteral("float16"))
                                : tr("Current conversion (%1, %n excluded)", nullptr,
                                     static_cast<int>(m_conversion.excludedSymNames.size()))
                                      .arg(bf16 ? QStringLiteral("bfloat16") : QStringLiteral("float16")));
    if (converted) {
        // The conversion fixes the mode: its lists' dtype, parameters in FP32.
        const PrecisionMode mode = bf16 ? PrecisionMode::Bf16 : PrecisionMode::Amp;
        m_precision->setCurrentIndex(m_precision->findData(QString::fromUtf8(precisionModeName(mode))));
    }
    m_precision->setEnabled(!converted);
    m_precision->setToolTip(converted ? tr("The current conversion trains as AMP in its target dtype.") : QString());
}

void TrainingSettingsForm::updateScalerFields() {
    const QString preset = dataOf(m_scaler);
    m_initScaleLog2->setEnabled(preset != QLatin1String("off"));
    m_growthInterval->setEnabled(preset != QLatin1String("off") && preset != QLatin1String("static"));
}

// Shows only the rows the choices use: a file for csv and idx, the CSV's columns, SGD's momentum,
// the step schedule's numbers.
void TrainingSettingsForm::updateDatasetFields() {
    const QString kind = dataOf(m_dataset);
    auto* form = qobject_cast<QFormLayout*>(m_dataset->parentWidget()->layout());
    if (form) {
        form->setRowVisible(m_dataPath->parentWidget(), kind == QLatin1String("csv") || kind == QLatin1String("idx"));
        form->setRowVisible(m_labelColumn, kind == QLatin1String("csv"));
        form->setRowVisible(m_csvTask, kind == QLatin1String("csv"));
    }
    m_dataPath->setPlaceholderText(kind == QLatin1String("idx") ? tr("folder with train-images-idx3-ubyte[.gz]")
                                                                : tr("numeric columns with a header"));
    if (auto* opt = qobject_cast<QFormLayout*>(m_optimizer->parentWidget()->layout())) {
        opt->setRowVisible(m_momentum, dataOf(m_optimizer) == QLatin1String("sgd"));
        const bool step = dataOf(m_schedule) == QLatin1String("step");
        opt->setRowVisible(m_stepSize, step);
        opt->setRowVisible(m_gamma, step);
    }
}

QString TrainingSettingsForm::setupProblem() const {
    if (!m_graph) {
        return tr("Open a model to train it.");
    }
    if (!m_modelProblem.isEmpty()) {
        return m_modelProblem;
    }
    if (dataOf(m_backend) == QLatin1String("cuda") && cudaDeviceCount() == 0) {
        return cudaBackendBuilt() ? tr("No CUDA device is present: choose the CPU or Automatic.")
                                  : tr("This build has no CUDA backend: choose the CPU or Automatic.");
    }
    const QString kind = dataOf(m_dataset);
    const QString path = m_dataPath->text().trimmed();
    if (kind == QLatin1String("fashion-mnist") && !fashionMnistAvailable()) {
        return tr("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist). Install it or choose another dataset.");
    }
    if (kind == QLatin1String("csv") || kind == QLatin1String("idx")) {
        if (path.isEmpty()) {
            return kind == QLatin1String("csv") ? tr("Choose the CSV file to train on.") : tr("Choose the folder that holds the IDX files.");
        }
        const QFileInfo info(path);
        if (!info.exists() || (kind == QLatin1String("idx") && !info.isDir())) {
            return tr("%1 does not exist.").arg(QDir::toNativeSeparators(path));
        }
    }
    try {
        checkLossFitsTask(m_lossOp, setup().isRegression() ? DatasetTask::Regression : DatasetTask::Classification,
                          m_dataset->currentText().toStdString());
    } catch (const std::exception& e) {
        return tr("The model and the dataset do not fit: %1.").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

TrainingSetup TrainingSettingsForm::setup() const {
    TrainingSetup s;
    s.trainConversion = dataOf(m_model) == QLatin1String("conversion");
    s.fromLoadedParams = dataOf(m_startFrom) == QLatin1String("params");
    s.backend = parseBackendChoice(dataOf(m_backend).toStdString());
    s.precision = parsePrecisionMode(dataOf(m_precision).toStdString());
    s.scalerPreset = dataOf(m_scaler);
    s.initScaleLog2 = m_initScaleLog2->value();
    s.growthInterval = m_growthInterval->value();
    s.dataset = dataOf(m_dataset);
    s.dataPath = m_dataPath->text();
    s.labelColumn = m_labelColumn->text();
    s.csvTask = dataOf(m_csvTask) == QLatin1String("regression") ? DatasetTask::Regression : DatasetTask::Classification;
    s.optimizer = parseOptimizer(dataOf(m_optimizer).toStdString());
    s.learningRate = m_lr->value();
    s.momentum = m_momentum->value();
    s.weightDecay = m_weightDecay->value();
    s.schedule = dataOf(m_schedule);
    s.stepSize = m_stepSize->value();
    s.gamma = m_gamma->value();
    s.batchSize = m_batch->value();
    s.epochs = m_epochs->value();
    s.maxSteps = m_maxSteps->value();
    s.clipNorm = m_clip->value();
    s.seed = m_seed->value();
    return s;
}

TrainingRequest TrainingSettingsForm::request() const { return makeTrainingRequest(setup(), m_graph, m_params, m_conversion); }

void TrainingSettingsForm::showProblem(const QString& text) {
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
}

void TrainingSettingsForm::chooseDataPath() {
    const bool idx = dataOf(m_dataset) == QLatin1String("idx");
    const QString start = m_dataPath->text().isEmpty() ? QDir::homePath() : m_dataPath->text();
    const QString path = idx ? QFileDialog::getExistingDirectory(this, tr("IDX Folder"), start)
                             : QFileDialog::getOpenFileName(this, tr("CSV File"), start, tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty()) m_dataPath->setText(path);
}

void TrainingSettingsForm::readSettings(QSettings& s) {
    m_loadingSettings = true;
    setComboData(m_model, s.value(QStringLiteral("model"), QStringLiteral("original")));
    setComboData(m_startFrom, s.value(QStringLiteral("startFrom"), QStringLiteral("params")));
    setComboData(m_precision, s.value(QStringLiteral("precision"), QStringLiteral("amp")));
    setComboData(m_backend, s.value(QStringLiteral("backend"), QStringLiteral("auto")));
    setComboData(m_scaler, s.value(QStringLiteral("scaler"), QStringLiteral("pytorch")));
    m_initScaleLog2->setValue(s.value(QStringLiteral("initScaleLog2"), 16).toInt());
    m_growthInterval->setValue(s.value(QStringLiteral("growthInterval"), 2000).toInt());
    setComboData(m_dataset, s.value(QStringLiteral("dataset"),
                                    fashionMnistAvailable() ? QStringLiteral("fashion-mnist") : QStringLiteral("synthetic:blobs")));
    m_dataPath->setText(s.value(QStringLiteral("dataPath")).toString());
    m_labelColumn->setText(s.value(QStringLiteral("labelColumn"), QStringLiteral("label")).toString());
    setComboData(m_csvTask, s.value(QStringLiteral("csvTask"), QStringLiteral("classification")));
    setComboData(m_optimizer, s.value(QStringLiteral("optimizer"), QStringLiteral("sgd")));
    m_lr->setValue(s.value(QStringLiteral("learningRate"), 0.05).toDouble());
    m_momentum->setValue(s.value(QStringLiteral("momentum"), 0.9).toDouble());
    m_weightDecay->setValue(s.value(QStringLiteral("weightDecay"), 0.0).toDouble());
    setComboData(m_schedule, s.value(QStringLiteral("schedule"), QStringLiteral("constant")));
    m_stepSize->setValue(s.value(QStringLiteral("stepSize"), 1000).toInt());
    m_gamma->setValue(s.value(QStringLiteral("gamma"), 0.1).toDouble());
    m_batch->setValue(s.value(QStringLiteral("batchSize"), 64).toInt());
    m_epochs->setValue(s.value(QStringLiteral("epochs"), 1).toInt());
    m_maxSteps->setValue(s.value(QStringLiteral("maxSteps"), 0).toInt());
    m_clip->setValue(s.value(QStringLiteral("clip"), 0.0).toDouble());
    m_seed->setValue(s.value(QStringLiteral("seed"), 0).toInt());
    m_loadingSettings = false;
}

void TrainingSettingsForm::writeSettings(QSettings& s) const {
    s.setValue(QStringLiteral("model"), m_model->currentData());
    s.setValue(QStringLiteral("startFrom"), m_startFrom->currentData());
    s.setValue(QStringLiteral("precision"), m_precision->currentData());
    s.setValue(QStringLiteral("backend"), m_backend->currentData());
    s.setValue(QStringLiteral("scaler"), m_scaler->currentData());
    s.setValue(QStringLiteral("initScaleLog2"), m_initScaleLog2->value());
    s.setValue(QStringLiteral("growthInterval"), m_growthInterval->value());
    s.setValue(QStringLiteral("dataset"), m_dataset->currentData());
    s.setValue(QStringLiteral("dataPath"), m_dataPath->text());
    s.setValue(QStringLiteral("labelColumn"), m_labelColumn->text());
    s.setValue(QStringLiteral("csvTask"), m_csvTask->currentData());
    s.setValue(QStringLiteral("optimizer"), m_optimizer->currentData());
    s.setValue(QStringLiteral("learningRate"), m_lr->value());
    s.setValue(QStringLiteral("momentum"), m_momentum->value());
    s.setValue(QStringLiteral("weightDecay"), m_weightDecay->value());
    s.setValue(QStringLiteral("schedule"), m_schedule->currentData());
    s.setValue(QStringLiteral("stepSize"), m_stepSize->value());
    s.setValue(QStringLiteral("gamma"), m_gamma->value());
    s.setValue(QStringLiteral("batchSize"), m_batch->value());
    s.setValue(QStringLiteral("epochs"), m_epochs->value());
    s.setValue(QStringLiteral("maxSteps"), m_maxSteps->value());
    s.setValue(QStringLiteral("clip"), m_clip->value());
    s.setValue(QStringLiteral("seed"), m_seed->value());
}
