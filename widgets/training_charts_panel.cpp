#include "training_charts_panel.h"

#include <QCheckBox>
#include <QCursor>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

#include "okabe_ito.h"
#include "training_chart.h"

using namespace ampstudio;
using namespace okabe_ito;

namespace {

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

TrainingChartsPanel::TrainingChartsPanel(const TrainingRun* run, QWidget* parent) : QWidget(parent), m_run(run) {
    buildControls();
    buildCharts();
    connectCharts();
}

void TrainingChartsPanel::buildControls() {
    m_controls = new QWidget(this);
    auto* row = new QHBoxLayout(m_controls);
    row->setContentsMargins(0, 0, 0, 0);
    m_logLoss = new QCheckBox(tr("&Log loss axis"));
    m_logLoss->setObjectName(QStringLiteral("trainingLogLoss"));
    m_compare = new QCheckBox(tr("&Compare with previous run"));
    m_compare->setObjectName(QStringLiteral("trainingCompare"));
    m_compare->setToolTip(tr("Overlay the previous run's smoothed loss, accuracy and loss scale (grey)"));
    m_compare->setEnabled(false);  // until there is a previous run
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
    exportMenu->addAction(tr("Metrics as CSV…"), this, &TrainingChartsPanel::exportMetricsRequested);
    exportButton->setMenu(exportMenu);
    for (QWidget* w : std::initializer_list<QWidget*>{m_logLoss, m_compare, m_follow, exportButton}) row->addWidget(w);
}

void TrainingChartsPanel::buildCharts() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

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
    // The charts point at the history's columns, which stay the same objects for the panel's life:
    // a new run rewrites them in place, and beginRun copies into m_previous's.
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
}

void TrainingChartsPanel::connectCharts() {
    connect(m_logLoss, &QCheckBox::toggled, this, [this](bool on) {
        m_lossChart->setAxisScale(TrainingChart::Axis::Left, on ? TrainingChart::AxisScale::Log10 : TrainingChart::AxisScale::Linear);
    });
    connect(m_compare, &QCheckBox::toggled, this, &TrainingChartsPanel::setCompare);
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

void TrainingChartsPanel::beginRun(int epochs, int batchSize) {
    if (m_run->history().stepCount() > 0) {
        m_previous = m_run->history();  // the overlay: same column objects, new contents
    }
    m_compare->setEnabled(m_previous.stepCount() > 0);
    m_lossChart->setFollowing(true);
    m_scaleChart->setFollowing(true);
    m_lossChart->invalidate();  // the previous-run columns were rewritten
    m_scaleChart->invalidate();
    setCompare(m_compare->isChecked());
    m_runEpochs = epochs;
    m_runBatch = batchSize;
}

void TrainingChartsPanel::setCompare(bool on) {
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

void TrainingChartsPanel::refresh() {
    m_lossChart->refresh();
    m_scaleChart->refresh();
    updateProgress();
}

QString TrainingChartsPanel::statusText() const { return m_status->text(); }

void TrainingChartsPanel::updateProgress() {
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

QString TrainingChartsPanel::hoverText(double x) const {
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

void TrainingChartsPanel::exportChartInteractive(TrainingChart* chart, const QString& name) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chart"), QDir::home().filePath(name + QStringLiteral(".png")),
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (chart->exportPng(path, &error)) {
        emit message(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
    } else {
        emit failed(error);
    }
}

void TrainingChartsPanel::readSettings(QSettings& s) { m_logLoss->setChecked(s.value(QStringLiteral("logLoss"), false).toBool()); }

void TrainingChartsPanel::writeSettings(QSettings& s) const { s.setValue(QStringLiteral("logLoss"), m_logLoss->isChecked()); }
