#include "training_monitor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

#include "backend/backend.h"
#include "formats/atomic_file.h"
#include "train/fashion_mnist.h"
#include "train/loss_scaler.h"
#include "train/lr_schedule.h"
#include "train/precision_mode.h"
#include "train/training_heads.h"
#include "training_chart.h"

using namespace ampstudio;

namespace {

// Okabe–Ito, as the graph views use it: distinguishable with every kind of colour blindness.
const QColor kBlue(0x00, 0x72, 0xB2);
const QColor kVermillion(0xD5, 0x5E, 0x00);
const QColor kGreen(0x00, 0x9E, 0x73);
const QColor kPurple(0xCC, 0x79, 0xA7);
const QColor kGrey(0x88, 0x88, 0x88);

QColor faint(QColor c, float alpha) {
    c.setAlphaF(alpha);
    return c;
}

QString durationText(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return QStringLiteral("–");
    const auto s = static_cast<long long>(std::llround(seconds));
    if (s >= 3600) {
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
    }
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

// "2¹⁵ = 32768", or the plain number for a scale that is not a power of two.
QString scaleText(double scale) {
    if (!(scale > 0) || !std::isfinite(scale)) return QString::number(scale);
    const double k = std::log2(scale);
    if (k == std::round(k) && std::abs(k) <= 1023) {
        static const char16_t* sup = u"\u2070\u00B9\u00B2\u00B3\u2074\u2075\u2076\u2077\u2078\u2079";
        QString exp;
        for (QChar d : QString::number(std::abs(static_cast<int>(k)))) exp += QChar(sup[d.digitValue()]);
        return QStringLiteral("2%1%2 = %3").arg(k < 0 ? QStringLiteral("\u207B") : QString(), exp, QString::number(scale, 'g', 10));
    }
    return QString::number(scale, 'g', 6);
}


}  // namespace

TrainingMonitor::TrainingMonitor(QWidget* parent) : QWidget(parent), m_run(new TrainingRun(this)) {
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* form = new QWidget(scroll);
    buildForm(form);
    scroll->setWidget(form);
    scroll->setMinimumWidth(form->sizeHint().width() + 20);
    auto* charts = new QWidget(splitter);
    buildCharts(charts);
    splitter->addWidget(scroll);
    splitter->addWidget(charts);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_run, &TrainingRun::metricsArrived, this, &TrainingMonitor::refreshCharts);
    connect(m_run, &TrainingRun::stateChanged, this, &TrainingMonitor::showRunState);

    readSettings();
    updateModelChoice();
    updateScalerFields();
    updateDatasetFields();
    updateSetupState();
    updateButtons();
}

TrainingMonitor::~TrainingMonitor() {
    m_run->blockSignals(true);
    m_run->stop();
    writeSettings();
}

void TrainingMonitor::buildForm(QWidget* panel) {
    auto* outer = new QVBoxLayout(panel);
    auto group = [&](const QString& title) {
        auto* box = new QGroupBox(title, panel);
        auto* f = new QFormLayout(box);
        f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        outer->addWidget(box);
        return f;
    };
    auto named = [](auto* w, const char* name) {
        w->setObjectName(QLatin1String(name));
        return w;
    };

    QFormLayout* model = group(tr("Model"));
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

    QFormLayout* precision = group(tr("Precision"));
    m_precision = named(new QComboBox, "trainingPrecision");
    m_precision->addItem(tr("FP32"), QStringLiteral("fp32"));
    m_precision->addItem(tr("AMP (float16)"), QStringLiteral("amp"));
    m_precision->addItem(tr("FP16 master weights"), QStringLiteral("fp16-master"));
    m_precision->addItem(tr("BF16 (AMP)"), QStringLiteral("bf16"));
    m_precision->addItem(tr("BF16 master weights"), QStringLiteral("bf16-master"));
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

    QFormLayout* data = group(tr("Data"));
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

    QFormLayout* optimizer = group(tr("Optimizer"));
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

    m_problem = named(new QLabel, "trainingProblem");
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::PlainText);
    QPalette warn = m_problem->palette();
    warn.setColor(QPalette::WindowText, kVermillion);
    m_problem->setPalette(warn);
    outer->addWidget(m_problem);
    outer->addStretch(1);

    auto changed = [this] { updateSetupState(); };
    for (QComboBox* c : {m_startFrom, m_csvTask, m_optimizer, m_backend}) {
        connect(c, &QComboBox::currentIndexChanged, this, changed);
    }
    connect(m_model, &QComboBox::currentIndexChanged, this, [this] {
        updateModelChoice();
        updateSetupState();
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_loadingSettings) {
            const int i = m_scaler->findData(
                QString::fromUtf8(defaultScalerPreset(parsePrecisionMode(m_precision->currentData().toString().toStdString()))));
            m_scaler->setCurrentIndex(i);
        }
        updateSetupState();
    });
    connect(m_scaler, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_loadingSettings) {
            const QString preset = m_scaler->currentData().toString();
            const LossScaler scaler = LossScaler::fromPreset(preset == QLatin1String("static") ? "static:65536" : preset.toStdString());
            m_initScaleLog2->setValue(static_cast<int>(std::lround(std::log2(scaler.settings().initScale))));
            m_growthInterval->setValue(static_cast<int>(scaler.settings().growthInterval));
        }
        updateScalerFields();
        updateSetupState();
    });
    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
        updateDatasetFields();
        updateSetupState();
    });
    connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] { updateDatasetFields(); });
    connect(m_schedule, &QComboBox::currentIndexChanged, this, [this] { updateDatasetFields(); });
    connect(m_dataPath, &QLineEdit::textChanged, this, changed);
    connect(m_browse, &QToolButton::clicked, this, &TrainingMonitor::chooseDataPath);
}

void TrainingMonitor::buildCharts(QWidget* panel) {
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* controls = new QHBoxLayout;
    m_start = new QPushButton(tr("&Start"));
    m_start->setObjectName(QStringLiteral("trainingStart"));
    m_start->setToolTip(tr("Train with these settings (Ctrl+T)"));
    m_start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    m_pause = new QPushButton(tr("&Pause"));
    m_pause->setObjectName(QStringLiteral("trainingPause"));
    m_pause->setCheckable(true);
    m_stop = new QPushButton(tr("S&top"));
    m_stop->setObjectName(QStringLiteral("trainingStop"));
    m_save = new QPushButton(tr("Save &Weights…"));
    m_save->setObjectName(QStringLiteral("trainingSave"));
    m_save->setToolTip(tr("Save the trained model as PREFIX-symbol.json and PREFIX-NNNN.params"));
    for (QPushButton* b : {m_start, m_pause, m_stop, m_save}) controls->addWidget(b);
    controls->addSpacing(12);
    m_logLoss = new QCheckBox(tr("&Log loss axis"));
    m_logLoss->setObjectName(QStringLiteral("trainingLogLoss"));
    m_compare = new QCheckBox(tr("&Compare with previous run"));
    m_compare->setObjectName(QStringLiteral("trainingCompare"));
    m_compare->setToolTip(tr("Overlay the previous run's smoothed loss, accuracy and loss scale (grey)"));
    m_follow = new QToolButton;
    m_follow->setText(tr("&Follow"));
    m_follow->setCheckable(true);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Show the whole run as it grows. Wheel zooms, drag pans, a double click follows again."));
    auto* exportButton = new QToolButton;
    exportButton->setText(tr("&Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("Loss Chart as PNG…"), this, [this] { exportChartInteractive(m_lossChart, QStringLiteral("loss")); });
    exportMenu->addAction(tr("Loss-Scale Chart as PNG…"), this,
                          [this] { exportChartInteractive(m_scaleChart, QStringLiteral("loss-scale")); });
    exportMenu->addAction(tr("Metrics as CSV…"), this, &TrainingMonitor::exportMetricsInteractive);
    exportButton->setMenu(exportMenu);
    for (QWidget* w : std::initializer_list<QWidget*>{m_logLoss, m_compare, m_follow, exportButton}) controls->addWidget(w);
    controls->addStretch(1);
    layout->addLayout(controls);

    m_offer = new QLabel;
    m_offer->setObjectName(QStringLiteral("trainingOffer"));
    m_offer->setTextFormat(Qt::RichText);
    m_offer->setVisible(false);
    connect(m_offer, &QLabel::linkActivated, this, &TrainingMonitor::saveWeightsInteractive);
    layout->addWidget(m_offer);

    m_lossChart = new TrainingChart;
    m_lossChart->setObjectName(QStringLiteral("lossChart"));
    m_lossChart->setXTitle(tr("step"));
    m_lossChart->setAxisTitle(TrainingChart::Axis::Left, tr("loss"));
    m_lossChart->setAxisTitle(TrainingChart::Axis::Right, tr("accuracy %"));
    m_lossChart->setAxisFixedRange(TrainingChart::Axis::Right, 0.0, 100.0);
    m_lossChart->setAxisLabelFormat(TrainingChart::Axis::Right, QStringLiteral("%.0f"));
    m_previousLossSeries = m_lossChart->addLine(tr("previous run"), faint(kGrey, 0.9f), 1.6, TrainingChart::Axis::Left, Qt::DashLine);
    m_previousAccuracySeries =
        m_lossChart->addLine(tr("previous accuracy"), faint(kGrey, 0.9f), 1.4, TrainingChart::Axis::Right, Qt::DotLine);
    m_rawLossSeries = m_lossChart->addLine(tr("loss per step"), faint(kBlue, 0.28f), 1.0, TrainingChart::Axis::Left);
    m_smoothedSeries = m_lossChart->addLine(tr("smoothed"), kBlue, 2.2, TrainingChart::Axis::Left);
    m_validationLossSeries = m_lossChart->addLine(tr("validation loss"), kVermillion, 1.8, TrainingChart::Axis::Left, Qt::SolidLine, true);
    m_accuracySeries = m_lossChart->addLine(tr("validation accuracy"), kGreen, 1.8, TrainingChart::Axis::Right, Qt::SolidLine, true);
    const TrainingHistory& h = m_run->history();
    m_lossChart->setData(m_rawLossSeries, &h.stepX(), &h.loss());
    m_lossChart->setData(m_smoothedSeries, &h.stepX(), &h.smoothedLoss());
    m_lossChart->setData(m_validationLossSeries, &h.epochX(), &h.validationLoss());
    m_lossChart->setData(m_accuracySeries, &h.epochX(), &h.validationAccuracyPercent());
    m_lossChart->setData(m_previousLossSeries, &m_previous.stepX(), &m_previous.smoothedLoss());
    m_lossChart->setData(m_previousAccuracySeries, &m_previous.epochX(), &m_previous.validationAccuracyPercent());

    m_scaleChart = new TrainingChart;
    m_scaleChart->setObjectName(QStringLiteral("scaleChart"));
    m_scaleChart->setXTitle(tr("step"));
    m_scaleChart->setAxisTitle(TrainingChart::Axis::Left, tr("loss scale"));
    m_scaleChart->setAxisScale(TrainingChart::Axis::Left, TrainingChart::AxisScale::Log2);
    m_scaleChart->setAxisVisible(TrainingChart::Axis::Right, false);
    m_previousScaleSeries = m_scaleChart->addLine(tr("previous run"), faint(kGrey, 0.9f), 1.6, TrainingChart::Axis::Left, Qt::DashLine);
    m_scaleSeries = m_scaleChart->addLine(tr("loss scale"), kPurple, 2.0, TrainingChart::Axis::Left);
    m_skippedSeries = m_scaleChart->addMarkers(tr("skipped step (overflow)"), kVermillion, 7.0, TrainingChart::Axis::Left);
    m_scaleChart->setData(m_scaleSeries, &h.stepX(), &h.lossScale());
    m_scaleChart->setData(m_skippedSeries, &h.skippedStep(), &h.skippedScale());
    m_scaleChart->setData(m_previousScaleSeries, &m_previous.stepX(), &m_previous.lossScale());
    setCompare(false);

    // Side by side: the dock is wide and short under the graph views.
    auto* chartSplitter = new QSplitter(Qt::Horizontal);
    chartSplitter->addWidget(m_lossChart);
    chartSplitter->addWidget(m_scaleChart);
    chartSplitter->setStretchFactor(0, 3);
    chartSplitter->setStretchFactor(1, 2);
    layout->addWidget(chartSplitter, 1);

    auto* progressRow = new QHBoxLayout;
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("trainingProgress"));
    m_progress->setTextVisible(true);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("not started"));
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("trainingStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progressRow->addWidget(m_progress, 3);
    progressRow->addWidget(m_status, 2);
    layout->addLayout(progressRow);

    connect(m_start, &QPushButton::clicked, this, &TrainingMonitor::startTraining);
    connect(m_pause, &QPushButton::toggled, this, &TrainingMonitor::setPaused);
    connect(m_stop, &QPushButton::clicked, this, [this] { stopTraining(); });
    connect(m_save, &QPushButton::clicked, this, &TrainingMonitor::saveWeightsInteractive);
    connect(m_logLoss, &QCheckBox::toggled, this, [this](bool on) {
        m_lossChart->setAxisScale(TrainingChart::Axis::Left, on ? TrainingChart::AxisScale::Log10 : TrainingChart::AxisScale::Linear);
    });
    connect(m_compare, &QCheckBox::toggled, this, &TrainingMonitor::setCompare);
    connect(m_follow, &QToolButton::clicked, this, [this] {
        m_lossChart->setFollowing(true);
        m_scaleChart->setFollowing(true);
        m_follow->setChecked(true);
    });
    // One x range for both charts: zooming one zooms the other.
    connect(m_lossChart, &TrainingChart::xRangeChangedByUser, m_scaleChart, &TrainingChart::setXRange);
    connect(m_scaleChart, &TrainingChart::xRangeChangedByUser, m_lossChart, &TrainingChart::setXRange);
    for (TrainingChart* chart : {m_lossChart, m_scaleChart}) {
        TrainingChart* other = chart == m_lossChart ? m_scaleChart : m_lossChart;
        connect(chart, &TrainingChart::followingChanged, this, [this, other](bool following) {
            if (following) other->setFollowing(true);
            m_follow->setChecked(m_lossChart->isFollowing() && m_scaleChart->isFollowing());
        });
        connect(chart, &TrainingChart::hovered, this, [this, chart](int, QPointF value, bool entered) {
            if (entered) {
                QToolTip::showText(QCursor::pos(), hoverText(value.x()), chart);
            } else {
                QToolTip::hideText();
            }
        });
    }
}

void TrainingMonitor::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const NDArrayList> params,
                               const QString& name, const QStringList& inputFiles, const QString& suggestedPrefix) {
    m_graph = std::move(graph);
    m_params = std::move(params);
    m_modelName = name;
    m_inputFiles = inputFiles;
    m_suggestedPrefix = suggestedPrefix;
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
    updateSetupState();
}

void TrainingMonitor::setConversion(const ConversionOptions& options) {
    m_conversion = options;
    updateModelChoice();
    updateSetupState();
}

void TrainingMonitor::updateModelChoice() {
    const bool converted = m_model->currentData().toString() == QLatin1String("conversion");
    const bool bf16 = m_conversion.lists.targetDtype == DType::BF16;
    m_model->setItemText(1, m_conversion.excludedSymNames.empty()
                                ? tr("Current conversion (%1)").arg(bf16 ? QStringLiteral("bfloat16") : QStringLiteral("float16"))
                                : tr("Current conversion (%1, %n excluded)", nullptr,
                                     static_cast<int>(m_conversion.excludedSymNames.size()))
                                      .arg(bf16 ? QStringLiteral("bfloat16") : QStringLiteral("float16")));
    if (converted) {
        // The conversion fixes the mode: its lists' dtype, parameters in FP32.
        m_precision->setCurrentIndex(m_precision->findData(bf16 ? QStringLiteral("bf16") : QStringLiteral("amp")));
    }
    m_precision->setEnabled(!converted);
    m_precision->setToolTip(converted ? tr("The current conversion trains as AMP in its target dtype.") : QString());
}

void TrainingMonitor::updateScalerFields() {
    const QString preset = m_scaler->currentData().toString();
    m_initScaleLog2->setEnabled(preset != QLatin1String("off"));
    m_growthInterval->setEnabled(preset != QLatin1String("off") && preset != QLatin1String("static"));
}

void TrainingMonitor::updateDatasetFields() {
    const QString kind = m_dataset->currentData().toString();
    auto* form = qobject_cast<QFormLayout*>(m_dataset->parentWidget()->layout());
    if (form) {
        form->setRowVisible(m_dataPath->parentWidget(), kind == QLatin1String("csv") || kind == QLatin1String("idx"));
        form->setRowVisible(m_labelColumn, kind == QLatin1String("csv"));
        form->setRowVisible(m_csvTask, kind == QLatin1String("csv"));
    }
    m_dataPath->setPlaceholderText(kind == QLatin1String("idx") ? tr("folder with train-images-idx3-ubyte[.gz]")
                                                                : tr("numeric columns with a header"));
    if (auto* opt = qobject_cast<QFormLayout*>(m_optimizer->parentWidget()->layout())) {
        opt->setRowVisible(m_momentum, m_optimizer->currentData().toString() == QLatin1String("sgd"));
        const bool step = m_schedule->currentData().toString() == QLatin1String("step");
        opt->setRowVisible(m_stepSize, step);
        opt->setRowVisible(m_gamma, step);
    }
}

QString TrainingMonitor::datasetSpec() const {
    const QString kind = m_dataset->currentData().toString();
    if (kind == QLatin1String("csv") || kind == QLatin1String("idx")) return kind + QLatin1Char(':') + m_dataPath->text().trimmed();
    return kind;
}

QString TrainingMonitor::setupProblem() const {
    if (!m_graph) {
        return tr("Open a model to train it.");
    }
    if (!m_modelProblem.isEmpty()) {
        return m_modelProblem;
    }
    if (m_backend->currentData().toString() == QLatin1String("cuda") && cudaDeviceCount() == 0) {
        return cudaBackendBuilt() ? tr("No CUDA device is present: choose the CPU or Automatic.")
                                  : tr("This build has no CUDA backend: choose the CPU or Automatic.");
    }
    const QString kind = m_dataset->currentData().toString();
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
    const bool regression = kind == QLatin1String("synthetic:regression") ||
                            (kind == QLatin1String("csv") && m_csvTask->currentData().toString() == QLatin1String("regression"));
    try {
        checkLossFitsTask(m_lossOp, regression ? DatasetTask::Regression : DatasetTask::Classification,
                          m_dataset->currentText().toStdString());
    } catch (const std::exception& e) {
        return tr("The model and the dataset do not fit: %1.").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

TrainingRequest TrainingMonitor::request() const {
    TrainingRequest r;
    r.model = m_graph;
    if (m_startFrom->currentData().toString() == QLatin1String("params")) r.params = m_params;
    r.dataSpec = datasetSpec().toStdString();
    r.backend = parseBackendChoice(m_backend->currentData().toString().toStdString());
    r.dataOptions.seed = static_cast<uint64_t>(m_seed->value());
    r.dataOptions.labelColumn = m_labelColumn->text().trimmed().toStdString();
    r.dataOptions.csvTask = m_csvTask->currentData().toString() == QLatin1String("regression") ? DatasetTask::Regression
                                                                                              : DatasetTask::Classification;
    TrainerSettings& s = r.settings;
    s.precision = parsePrecisionMode(m_precision->currentData().toString().toStdString());
    if (m_model->currentData().toString() == QLatin1String("conversion")) {
        s.lists = m_conversion.lists;
        s.excludedNodes = m_conversion.excludedSymNames;
    }
    const QString preset = m_scaler->currentData().toString();
    const double initScale = std::ldexp(1.0, m_initScaleLog2->value());
    if (preset == QLatin1String("static")) {
        s.scalerPreset = "static:" + QString::number(initScale, 'g', 17).toStdString();
    } else {
        s.scalerPreset = preset.toStdString();
        if (preset != QLatin1String("off")) {
            s.initScale = initScale;
            s.growthInterval = m_growthInterval->value();
        }
    }
    s.optimizer.kind = parseOptimizer(m_optimizer->currentData().toString().toStdString());
    s.optimizer.momentum = s.optimizer.kind == OptimizerKind::Sgd ? m_momentum->value() : 0.9;
    s.optimizer.weightDecay = m_weightDecay->value();
    QString schedule = m_schedule->currentData().toString();
    if (schedule == QLatin1String("step")) {
        schedule += QStringLiteral(":%1:%2").arg(m_stepSize->value()).arg(m_gamma->value());
    }
    s.schedule = LrSchedule::parse(schedule.toStdString(), m_lr->value());
    s.batchSize = m_batch->value();
    s.epochs = m_epochs->value();
    s.maxSteps = m_maxSteps->value();
    s.clipNorm = m_clip->value();
    s.seed = static_cast<uint64_t>(m_seed->value());
    r.label = m_precision->currentData().toString();
    if (m_model->currentData().toString() == QLatin1String("conversion")) r.label += tr(" (conversion)");
    return r;
}

void TrainingMonitor::updateSetupState() {
    m_setupProblem = setupProblem();
    if (!m_run->isActive()) {
        m_problem->setText(m_setupProblem);
        m_problem->setVisible(!m_setupProblem.isEmpty());
    }
    updateButtons();
}

void TrainingMonitor::updateButtons() {
    const bool active = m_run->isActive();
    m_start->setEnabled(!active && m_setupProblem.isEmpty());
    m_pause->setEnabled(active);
    {
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(m_run->state() == TrainingRun::State::Paused);
    }
    m_pause->setText(m_pause->isChecked() ? tr("&Resume") : tr("&Pause"));
    m_stop->setEnabled(active);
    m_save->setEnabled(m_run->hasWeights());
    m_compare->setEnabled(m_previous.stepCount() > 0);
}

bool TrainingMonitor::startTraining() {
    if (m_run->isActive() || !setupProblem().isEmpty()) {
        return false;
    }
    TrainingRequest r;
    try {
        r = request();
    } catch (const std::exception& e) {
        m_problem->setText(QString::fromUtf8(e.what()));
        m_problem->setVisible(true);
        return false;
    }
    if (m_run->history().stepCount() > 0) {
        m_previous = m_run->history();  // the overlay: same column objects, new contents
    }
    writeSettings();
    m_offer->setVisible(false);
    m_problem->setVisible(false);
    m_lossChart->setFollowing(true);
    m_scaleChart->setFollowing(true);
    m_lossChart->invalidate();  // the previous-run columns were rewritten
    m_scaleChart->invalidate();
    setCompare(m_compare->isChecked());
    m_runEpochs = static_cast<int>(r.settings.epochs);
    m_runBatch = static_cast<int>(r.settings.batchSize);
    const bool started = m_run->start(std::move(r));
    refreshCharts();
    return started;
}

void TrainingMonitor::setPaused(bool paused) {
    m_run->setPaused(paused);
    updateButtons();
    updateProgress();
}

double TrainingMonitor::stopTraining() {
    const double ms = m_run->stop();
    refreshCharts();
    return ms;
}

void TrainingMonitor::showRunState(TrainingRun::State state) {
    using State = TrainingRun::State;
    updateButtons();
    updateProgress();
    switch (state) {
        case State::Loading: emit message(tr("Loading the dataset…")); break;
        case State::Training: emit message(tr("Training: %1").arg(m_run->trainerDescription())); break;
        case State::Paused: emit message(tr("Training paused")); break;
        case State::Finished:
        case State::Stopped: {
            const int64_t steps = m_run->summary() ? m_run->summary()->steps : m_run->stepsDone();
            const QString what = state == State::Finished ? tr("Training finished after %n steps.", nullptr, static_cast<int>(steps))
                                                           : tr("Training stopped after %n steps.", nullptr, static_cast<int>(steps));
            if (m_run->hasWeights()) {
                m_offer->setText(what + QStringLiteral(" <a href=\"save\">") + tr("Save the trained weights…") +
                                 QStringLiteral("</a>"));
                m_offer->setVisible(true);
            }
            emit message(what);
            break;
        }
        case State::Failed:
            m_problem->setText(tr("Training failed: %1").arg(m_run->errorMessage()));
            m_problem->setVisible(true);
            emit message(tr("Training failed"));
            break;
        case State::Idle: break;
    }
    emit activeChanged(m_run->isActive());
}

void TrainingMonitor::setCompare(bool on) {
    const bool show = on && m_previous.stepCount() > 0;
    const QString label = QString::fromStdString(m_previous.label);
    m_lossChart->setSeriesName(m_previousLossSeries, tr("previous: %1").arg(label));
    m_scaleChart->setSeriesName(m_previousScaleSeries, tr("previous: %1").arg(label));
    for (auto [chart, id] : {std::pair{m_lossChart, m_previousLossSeries}, std::pair{m_lossChart, m_previousAccuracySeries},
                             std::pair{m_scaleChart, m_previousScaleSeries}}) {
        chart->setSeriesVisible(id, show);
        chart->setSeriesInLegend(id, show && id != m_previousAccuracySeries);
    }
}

void TrainingMonitor::refreshCharts() {
    m_lossChart->refresh();
    m_scaleChart->refresh();
    updateProgress();
}

QString TrainingMonitor::statusText() const { return m_status->text(); }

void TrainingMonitor::updateProgress() {
    const TrainingHistory& h = m_run->history();
    const int64_t total = m_run->totalSteps();
    const int64_t done = static_cast<int64_t>(h.stepCount());
    using State = TrainingRun::State;
    if (m_run->state() == State::Loading) {
        m_progress->setRange(0, 0);  // busy
        m_progress->setFormat(tr("loading the dataset…"));
    } else if (total > 0) {
        m_progress->setRange(0, static_cast<int>(std::min<int64_t>(total, 2147483647)));
        m_progress->setValue(static_cast<int>(std::min(done, total)));
        QString text = tr("step %1 of %2").arg(done).arg(total);
        if (!h.steps().empty()) {
            text += tr(" · epoch %1 of %2").arg(h.steps().back().epoch + 1).arg(m_runEpochs);
        }
        if (m_run->state() == State::Training && total > done && !h.steps().empty() && h.steps().back().samplesPerSecond > 0) {
            const double stepsPerSecond = h.steps().back().samplesPerSecond / std::max(1, m_runBatch);
            text += tr(" · ETA %1").arg(durationText(static_cast<double>(total - done) / stepsPerSecond));
        }
        m_progress->setFormat(text);
    }
    if (h.steps().empty()) {
        m_status->setText(m_run->state() == State::Idle ? QString() : m_run->datasetDescription());
        return;
    }
    const StepMetrics& last = h.steps().back();
    QString status = tr("%1 samples/s · loss scale %2 · %n skipped", nullptr, static_cast<int>(h.skippedCount()))
                         .arg(QLocale().toString(last.samplesPerSecond, 'f', 0), scaleText(last.lossScale));

    if (last.scaleBelowOne) status += tr(" · warning: the loss scale fell below 1");
    if (m_run->state() == State::Paused) status = tr("Paused · ") + status;
    m_status->setText(status);
}

QString TrainingMonitor::hoverText(double x) const {
    const StepMetrics* s = m_run->history().stepNear(x);
    if (s == nullptr) return {};
    QString text = tr("step %1 (epoch %2)\nloss scale %3\nloss %4")
                       .arg(s->step)
                       .arg(s->epoch + 1)
                       .arg(scaleText(s->lossScale))
                       .arg(std::isfinite(s->loss) ? QString::number(s->loss, 'g', 5) : QStringLiteral("overflow"));
    if (s->skipped) text += tr("\nskipped: the gradients overflowed");
    return text;
}

void TrainingMonitor::chooseDataPath() {
    const bool idx = m_dataset->currentData().toString() == QLatin1String("idx");
    const QString start = m_dataPath->text().isEmpty() ? QDir::homePath() : m_dataPath->text();
    const QString path = idx ? QFileDialog::getExistingDirectory(this, tr("IDX Folder"), start)
                             : QFileDialog::getOpenFileName(this, tr("CSV File"), start, tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty()) m_dataPath->setText(path);
}

bool TrainingMonitor::saveWeights(const QString& prefix, QString* error, QString* writtenParams) {
    QString paramsPath;
    if (!m_run->saveWeights(prefix, m_inputFiles, error, &paramsPath)) {
        return false;
    }
    if (writtenParams) *writtenParams = paramsPath;
    emit message(tr("Saved %1-symbol.json and %2").arg(QDir::toNativeSeparators(prefix), QDir::toNativeSeparators(paramsPath)));
    m_offer->setVisible(false);
    return true;
}

void TrainingMonitor::saveWeightsInteractive() {
    const QString suggested = (m_suggestedPrefix.isEmpty() ? QDir::home().filePath(QStringLiteral("model")) : m_suggestedPrefix) +
                              QStringLiteral("-trained-symbol.json");
    QString path = QFileDialog::getSaveFileName(this, tr("Save Trained Weights"), suggested,
                                                tr("MXNet checkpoint (*-symbol.json)"));
    if (path.isEmpty()) return;
    if (path.endsWith(QStringLiteral("-symbol.json"))) path.chop(int(qstrlen("-symbol.json")));
    else if (path.endsWith(QStringLiteral(".json"))) path.chop(5);
    QString error;
    if (!saveWeights(path, &error)) {
        m_problem->setText(error);
        m_problem->setVisible(true);
    }
}

bool TrainingMonitor::exportMetrics(const QString& path, QString* error) const {
    QString epochs = path;
    if (epochs.endsWith(QStringLiteral(".csv"))) epochs.chop(4);
    epochs += QStringLiteral("-epochs.csv");
    try {
        for (const QString& input : m_inputFiles) {
            if (!input.isEmpty() && (sameFile(path.toStdString(), input.toStdString()) ||
                                     sameFile(epochs.toStdString(), input.toStdString()))) {
                throw SaveError(input.toStdString() + " is an input of the open model; choose another name");
            }
        }
        writeFileAtomically(path.toStdString(), m_run->history().stepsCsv());
        writeFileAtomically(epochs.toStdString(), m_run->history().epochsCsv());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void TrainingMonitor::exportMetricsInteractive() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Metrics"), QDir::home().filePath(QStringLiteral("metrics.csv")),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportMetrics(path, &error)) {
        emit message(tr("Wrote %1 and its -epochs.csv").arg(QDir::toNativeSeparators(path)));
    } else {
        m_problem->setText(error);
        m_problem->setVisible(true);
    }
}

void TrainingMonitor::exportChartInteractive(TrainingChart* chart, const QString& name) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chart"), QDir::home().filePath(name + QStringLiteral(".png")),
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (chart->exportPng(path, &error)) {
        emit message(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
    } else {
        m_problem->setText(error);
        m_problem->setVisible(true);
    }
}

// --- settings ---

namespace {
constexpr auto kGroup = "training";

void setComboData(QComboBox* combo, const QVariant& value) {
    const int i = combo->findData(value);
    if (i >= 0) combo->setCurrentIndex(i);
}
}  // namespace

void TrainingMonitor::readSettings() {
    m_loadingSettings = true;
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
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
    m_logLoss->setChecked(s.value(QStringLiteral("logLoss"), false).toBool());
    s.endGroup();
    m_loadingSettings = false;
}

void TrainingMonitor::writeSettings() const {
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
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
    s.setValue(QStringLiteral("logLoss"), m_logLoss->isChecked());
    s.endGroup();
}
