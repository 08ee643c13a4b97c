#pragma once
// What a training run looks like as it goes (DESIGN.md §6): the loss chart (per step, smoothed,
// validation per epoch with accuracy on a second axis), the loss-scale chart on a log2 axis with every
// skipped step marked, the progress bar with step, epoch and ETA, and the status line with samples/s,
// the scale and the skipped steps. It reads a TrainingRun and keeps the previous run for the overlay;
// it never starts or stops one.

#include <QSettings>
#include <QString>
#include <QWidget>

#include "training_history.h"
#include "training_run.h"

class QCheckBox;
class QLabel;
class QProgressBar;
class QToolButton;
class TrainingChart;

class TrainingChartsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainingChartsPanel(const TrainingRun* run, QWidget* parent = nullptr);

    // The charts' own controls: log loss axis, compare with the previous run, follow, export. They
    // sit in the monitor's control row beside Start / Pause / Stop, so they are a widget of their own.
    QWidget* chartControls() const { return m_controls; }

    // A run is about to start with these epochs and batch size: the run on show, when it trained at
    // all, becomes the previous run, and both charts follow the new one.
    void beginRun(int epochs, int batchSize);
    // Redraws the charts from the run's history and updates the progress (after metrics arrived).
    void refresh();
    // The progress bar and the status line, from the run's state and history.
    void updateProgress();

    TrainingChart* lossChart() const { return m_lossChart; }
    TrainingChart* scaleChart() const { return m_scaleChart; }
    const TrainingHistory& previousRun() const { return m_previous; }
    int rawLossSeries() const { return m_rawLossSeries; }
    int smoothedLossSeries() const { return m_smoothedSeries; }
    int scaleSeries() const { return m_scaleSeries; }
    int skippedSeries() const { return m_skippedSeries; }
    int previousLossSeries() const { return m_previousLossSeries; }
    QString statusText() const;
    // What hovering the loss-scale chart at step x shows: step, scale and loss.
    QString hoverText(double x) const;

    // Within the group the caller opened.
    void readSettings(QSettings& settings);
    void writeSettings(QSettings& settings) const;

signals:
    void exportMetricsRequested();
    void message(const QString& text);  // for the status bar
    void failed(const QString& text);   // an export went wrong

private:
    void buildControls();
    void buildCharts();
    void connectCharts();
    void setCompare(bool on);
    void exportChartInteractive(TrainingChart* chart, const QString& name);

    const TrainingRun* m_run;
    TrainingHistory m_previous;
    int m_runEpochs = 1, m_runBatch = 1;  // of the run on show

    QWidget* m_controls = nullptr;
    QCheckBox* m_logLoss = nullptr;
    QCheckBox* m_compare = nullptr;
    QToolButton* m_follow = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;

    TrainingChart* m_lossChart = nullptr;
    TrainingChart* m_scaleChart = nullptr;
    int m_rawLossSeries = -1, m_smoothedSeries = -1, m_validationLossSeries = -1, m_accuracySeries = -1;
    int m_previousLossSeries = -1, m_previousAccuracySeries = -1;
    int m_scaleSeries = -1, m_skippedSeries = -1, m_previousScaleSeries = -1;
};
