#include "training_monitor.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include "formats/atomic_file.h"
#include "training_chart.h"
#include "training_settings_form.h"

using namespace ampstudio;

TrainingMonitor::TrainingMonitor(QWidget* parent) : QWidget(parent), m_run(new TrainingRun(this)) {
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_form = new TrainingSettingsForm(scroll);
    scroll->setWidget(m_form);
    scroll->setMinimumWidth(m_form->sizeHint().width() + 20);
    QWidget* column = buildRunColumn(splitter);
    splitter->addWidget(scroll);
    splitter->addWidget(column);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_form, &TrainingSettingsForm::setupChanged, this, &TrainingMonitor::updateSetupState);
    connect(m_charts, &TrainingChartsPanel::exportMetricsRequested, this, &TrainingMonitor::exportMetricsInteractive);
    connect(m_charts, &TrainingChartsPanel::message, this, &TrainingMonitor::message);
    connect(m_charts, &TrainingChartsPanel::failed, m_form, &TrainingSettingsForm::showProblem);
    connect(m_run, &TrainingRun::metricsArrived, m_charts, &TrainingChartsPanel::refresh);
    connect(m_run, &TrainingRun::stateChanged, this, &TrainingMonitor::showRunState);

    readSettings();
    updateSetupState();
}

TrainingMonitor::~TrainingMonitor() {
    m_run->blockSignals(true);
    m_run->stop();
    writeSettings();
}

// Start / Pause / Stop / Save and the charts' controls in one row, the offer to save under it, then
// the charts panel.
QWidget* TrainingMonitor::buildRunColumn(QWidget* parent) {
    auto* column = new QWidget(parent);
    auto* layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    m_charts = new TrainingChartsPanel(m_run);

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
    controls->addWidget(m_charts->chartControls());
    controls->addStretch(1);
    layout->addLayout(controls);

    m_offer = new QLabel;
    m_offer->setObjectName(QStringLiteral("trainingOffer"));
    m_offer->setTextFormat(Qt::RichText);
    m_offer->setVisible(false);
    connect(m_offer, &QLabel::linkActivated, this, &TrainingMonitor::saveWeightsInteractive);
    layout->addWidget(m_offer);
    layout->addWidget(m_charts, 1);

    connect(m_start, &QPushButton::clicked, this, &TrainingMonitor::startTraining);
    connect(m_pause, &QPushButton::toggled, this, &TrainingMonitor::setPaused);
    connect(m_stop, &QPushButton::clicked, this, [this] { stopTraining(); });
    connect(m_save, &QPushButton::clicked, this, &TrainingMonitor::saveWeightsInteractive);
    return column;
}

void TrainingMonitor::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const NDArrayList> params,
                               const QString& /*name*/, const QStringList& inputFiles, const QString& suggestedPrefix) {
    m_inputFiles = inputFiles;
    m_suggestedPrefix = suggestedPrefix;
    m_form->setModel(std::move(graph), std::move(params));
}

void TrainingMonitor::setConversion(const ConversionOptions& options) { m_form->setConversion(options); }

QString TrainingMonitor::setupProblem() const { return m_form->setupProblem(); }

TrainingRequest TrainingMonitor::request() const { return m_form->request(); }

void TrainingMonitor::updateSetupState() {
    m_setupProblem = m_form->setupProblem();
    if (!m_run->isActive()) {
        m_form->showProblem(m_setupProblem);  // a running setup's problem waits for the run to end
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
}

bool TrainingMonitor::startTraining() {
    if (m_run->isActive() || !setupProblem().isEmpty()) {
        return false;
    }
    TrainingRequest r;
    try {
        r = request();
    } catch (const std::exception& e) {
        m_form->showProblem(QString::fromUtf8(e.what()));
        return false;
    }
    m_charts->beginRun(static_cast<int>(r.settings.epochs), static_cast<int>(r.settings.batchSize));
    writeSettings();
    m_offer->setVisible(false);
    m_form->showProblem(QString());
    const bool started = m_run->start(std::move(r));
    m_charts->refresh();
    return started;
}

void TrainingMonitor::setPaused(bool paused) {
    m_run->setPaused(paused);
    updateButtons();
    m_charts->updateProgress();
}

double TrainingMonitor::stopTraining() {
    const double ms = m_run->stop();
    m_charts->refresh();
    return ms;
}

void TrainingMonitor::showRunState(TrainingRun::State state) {
    using State = TrainingRun::State;
    updateButtons();
    m_charts->updateProgress();
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
            m_form->showProblem(tr("Training failed: %1").arg(m_run->errorMessage()));
            emit message(tr("Training failed"));
            break;
        case State::Idle: break;
    }
    emit activeChanged(m_run->isActive());
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
        m_form->showProblem(error);
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
        m_form->showProblem(error);
    }
}

// --- settings ---

namespace {
constexpr auto kGroup = "training";
}  // namespace

void TrainingMonitor::readSettings() {
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
    m_form->readSettings(s);
    m_charts->readSettings(s);
    s.endGroup();
}

void TrainingMonitor::writeSettings() const {
    QSettings s;
    s.beginGroup(QLatin1String(kGroup));
    m_form->writeSettings(s);
    m_charts->writeSettings(s);
    s.endGroup();
}
