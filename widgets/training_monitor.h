#pragma once
// The training monitor (DESIGN.md §6): the settings form on the left; on the right Start / Pause /
// Stop / Save Weights beside the charts' controls, the offer to save a finished run's weights, and
// the charts panel. Training runs in a TrainingRun (its own thread); the monitor starts, pauses and
// stops it from the form's request, and the panel redraws from its history when a batch of metrics
// arrives. A finished run is overlaid on the next one.
//
// Settings persist in QSettings (group "training"). A setup that cannot train is explained under the
// settings and Start stays disabled until it is fixed.

#include <QStringList>
#include <QWidget>

#include <memory>

#include "amp/conversion.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "training_charts_panel.h"
#include "training_history.h"
#include "training_run.h"

class QLabel;
class QPushButton;
class TrainingChart;
class TrainingSettingsForm;

class TrainingMonitor : public QWidget {
    Q_OBJECT
public:
    explicit TrainingMonitor(QWidget* parent = nullptr);
    ~TrainingMonitor() override;  // stops a run and saves the settings

    // The open model: its fp32 graph, its parameters (may be null), a name for titles, the files it
    // was read from (never written over) and a prefix to suggest for saved weights.
    void setModel(std::shared_ptr<const ampstudio::Graph> graph, std::shared_ptr<const ampstudio::NDArrayList> params,
                  const QString& name, const QStringList& inputFiles, const QString& suggestedPrefix);
    // The conversion that "Model: current conversion" trains (its lists and excluded nodes).
    void setConversion(const ampstudio::ConversionOptions& options);

    // Why the current settings cannot start, for the user; empty when they can.
    QString setupProblem() const;
    // The request Start would make (valid when setupProblem() is empty).
    TrainingRequest request() const;

    bool startTraining();
    void setPaused(bool paused);
    // Stops and joins the engine thread; the weights stay for saveWeights(). Returns the wait in ms.
    double stopTraining();
    // PREFIX-symbol.json and PREFIX-NNNN.params (NNNN: the epochs completed); `paramsPath` gets the latter.
    bool saveWeights(const QString& prefix, QString* error, QString* paramsPath = nullptr);
    bool exportMetrics(const QString& path, QString* error) const;  // PATH and PATH's -epochs.csv sibling

    TrainingRun* run() const { return m_run; }
    TrainingSettingsForm* settingsForm() const { return m_form; }
    TrainingChartsPanel* chartsPanel() const { return m_charts; }
    TrainingChart* lossChart() const { return m_charts->lossChart(); }
    TrainingChart* scaleChart() const { return m_charts->scaleChart(); }
    const TrainingHistory& previousRun() const { return m_charts->previousRun(); }
    int rawLossSeries() const { return m_charts->rawLossSeries(); }
    int smoothedLossSeries() const { return m_charts->smoothedLossSeries(); }
    int scaleSeries() const { return m_charts->scaleSeries(); }
    int skippedSeries() const { return m_charts->skippedSeries(); }
    int previousLossSeries() const { return m_charts->previousLossSeries(); }
    QString statusText() const { return m_charts->statusText(); }
    // What hovering the loss-scale chart at step x shows: step, scale and loss.
    QString hoverText(double x) const { return m_charts->hoverText(x); }

    void readSettings();
    void writeSettings() const;

signals:
    void activeChanged(bool active);  // a run started or ended
    void message(const QString& text);  // for the status bar

private:
    QWidget* buildRunColumn(QWidget* parent);
    void updateSetupState();
    void updateButtons();
    void showRunState(TrainingRun::State state);
    void saveWeightsInteractive();
    void exportMetricsInteractive();

    TrainingRun* m_run;
    TrainingSettingsForm* m_form = nullptr;
    TrainingChartsPanel* m_charts = nullptr;
    QStringList m_inputFiles;
    QString m_suggestedPrefix;
    QString m_setupProblem;  // setupProblem() as of the last form change

    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_save = nullptr;
    QLabel* m_offer = nullptr;
};
