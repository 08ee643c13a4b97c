#pragma once
// The training settings form (DESIGN.md §6): model, start point and backend; precision mode and loss
// scaler; data; optimizer and schedule; and under them a line saying why the settings cannot train, or
// what went wrong with the last run. It holds the values and checks them; it starts nothing: the
// training monitor reads setup() and request() when the user presses Start.

#include <QSettings>
#include <QString>
#include <QWidget>

#include <memory>
#include <string>

#include "amp/conversion.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "training_run.h"
#include "training_setup.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

class TrainingSettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit TrainingSettingsForm(QWidget* parent = nullptr);

    // The graph to train (may be null) and its parameters (may be null: only a fresh start then).
    void setModel(std::shared_ptr<const ampstudio::Graph> graph, std::shared_ptr<const ampstudio::NDArrayList> params);
    // What "Model: current conversion" trains.
    void setConversion(const ampstudio::ConversionOptions& options);

    // Why the settings cannot start, for the user; empty when they can.
    QString setupProblem() const;
    TrainingSetup setup() const;
    // The request Start would make (valid when setupProblem() is empty).
    TrainingRequest request() const;

    // The line under the settings: a setup problem, or a run's or a file's error.
    void showProblem(const QString& text);

    // Within the group the caller opened; loading does not re-derive the scaler from the mode.
    void readSettings(QSettings& settings);
    void writeSettings(QSettings& settings) const;

signals:
    void setupChanged();  // setupProblem() or request() may differ now

private:
    void buildModelGroup();
    void buildPrecisionGroup();
    void buildDataGroup();
    void buildOptimizerGroup();
    void connectFields();
    void updateModelChoice();
    void updateScalerFields();
    void updateDatasetFields();
    void applyPrecisionDefaults();
    void applyScalerDefaults();
    void chooseDataPath();

    std::shared_ptr<const ampstudio::Graph> m_graph;
    std::shared_ptr<const ampstudio::NDArrayList> m_params;
    ampstudio::ConversionOptions m_conversion;
    std::string m_lossOp;    // the model's loss head, when it can be trained
    QString m_modelProblem;  // why the model cannot be trained (empty when it can)
    bool m_loadingSettings = false;

    QComboBox* m_model = nullptr;
    QComboBox* m_startFrom = nullptr;
    QComboBox* m_backend = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_scaler = nullptr;
    QSpinBox* m_initScaleLog2 = nullptr;
    QSpinBox* m_growthInterval = nullptr;
    QComboBox* m_dataset = nullptr;
    QLineEdit* m_dataPath = nullptr;
    QToolButton* m_browse = nullptr;
    QLineEdit* m_labelColumn = nullptr;
    QComboBox* m_csvTask = nullptr;
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_epochs = nullptr;
    QSpinBox* m_maxSteps = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_optimizer = nullptr;
    QDoubleSpinBox* m_lr = nullptr;
    QDoubleSpinBox* m_momentum = nullptr;
    QDoubleSpinBox* m_weightDecay = nullptr;
    QComboBox* m_schedule = nullptr;
    QSpinBox* m_stepSize = nullptr;
    QDoubleSpinBox* m_gamma = nullptr;
    QDoubleSpinBox* m_clip = nullptr;
    QLabel* m_problem = nullptr;
};
