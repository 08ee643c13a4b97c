#pragma once
// The training monitor (DESIGN.md §6): the settings `ampstudio-cli train` has, Start / Pause / Stop,
// a progress bar with ETA, a status line, and two live charts — the loss (per step, smoothed,
// validation per epoch with accuracy on a second axis) and the loss scale on a log2 axis with every
// skipped step marked. Training runs in a TrainingRun (its own thread); the charts redraw from its
// history when a batch of metrics arrives. A finished run can be overlaid on the next one.
//
// Settings persist in QSettings (group "training"). A setup that cannot train is explained under the
// settings and Start stays disabled until it is fixed.

#include <QStringList>
#include <QWidget>

#include <memory>

#include "amp/conversion.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "training_history.h"
#include "training_run.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;
class TrainingChart;

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

    void readSettings();
    void writeSettings() const;

signals:
    void activeChanged(bool active);  // a run started or ended
    void message(const QString& text);  // for the status bar

private:
    void buildForm(QWidget* panel);
    void buildCharts(QWidget* panel);
    void updateSetupState();
    void updateScalerFields();
    void updateDatasetFields();
    void updateModelChoice();
    void updateButtons();
    void updateProgress();
    void refreshCharts();
    void showRunState(TrainingRun::State state);
    void setCompare(bool on);
    void chooseDataPath();
    void saveWeightsInteractive();
    void exportMetricsInteractive();
    void exportChartInteractive(TrainingChart* chart, const QString& name);
    QString datasetSpec() const;

    TrainingRun* m_run;
    std::shared_ptr<const ampstudio::Graph> m_graph;
    std::shared_ptr<const ampstudio::NDArrayList> m_params;
    QString m_modelName;
    QStringList m_inputFiles;
    QString m_suggestedPrefix;
    ampstudio::ConversionOptions m_conversion;
    TrainingHistory m_previous;
    std::string m_lossOp;    // the model's loss head, when it can be trained
    QString m_modelProblem;  // why the model cannot be trained (empty when it can)
    QString m_setupProblem;  // setupProblem() as of the last form change
    bool m_loadingSettings = false;
    int m_runEpochs = 1, m_runBatch = 1;  // of the run on show

    // Settings
    QComboBox* m_model = nullptr;
    QComboBox* m_startFrom = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_scaler = nullptr;
    QSpinBox* m_initScaleLog2 = nullptr;
    QSpinBox* m_growthInterval = nullptr;
    QComboBox* m_dataset = nullptr;
    QLineEdit* m_dataPath = nullptr;
    QToolButton* m_browse = nullptr;
    QLineEdit* m_labelColumn = nullptr;
    QComboBox* m_csvTask = nullptr;
    QComboBox* m_optimizer = nullptr;
    QDoubleSpinBox* m_lr = nullptr;
    QDoubleSpinBox* m_momentum = nullptr;
    QDoubleSpinBox* m_weightDecay = nullptr;
    QComboBox* m_schedule = nullptr;
    QSpinBox* m_stepSize = nullptr;
    QDoubleSpinBox* m_gamma = nullptr;
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_epochs = nullptr;
    QSpinBox* m_maxSteps = nullptr;
    QDoubleSpinBox* m_clip = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_backend = nullptr;
    QLabel* m_problem = nullptr;

    // Controls and output
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_save = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_offer = nullptr;
    QCheckBox* m_logLoss = nullptr;
    QCheckBox* m_compare = nullptr;
    QToolButton* m_follow = nullptr;

    TrainingChart* m_lossChart = nullptr;
    TrainingChart* m_scaleChart = nullptr;
    int m_rawLossSeries = -1, m_smoothedSeries = -1, m_validationLossSeries = -1, m_accuracySeries = -1;
    int m_previousLossSeries = -1, m_previousAccuracySeries = -1;
    int m_scaleSeries = -1, m_skippedSeries = -1, m_previousScaleSeries = -1;
};
