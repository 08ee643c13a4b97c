#pragma once
// The precision debugger's dock (issue 21): calibration inputs (random values by shape, Fashion-MNIST
// or an IDX file; a sample count and a seed), a metric and a tolerance; Measure (every node's error
// against float32, shown on the converted view and in the table) and Find Float32 Set (the search,
// with its attempts, the best set so far and the metric against the tolerance live, and Stop). The
// table lists every measured node, worst first, and selects a node in the views when clicked. The
// run itself is a PrecisionRun (models/): this widget only builds its request and shows its state.

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <memory>

#include "amp/conversion.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "graph_view.h"
#include "precision_run.h"

class PrecisionTableModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

class PrecisionPanel : public QWidget {
    Q_OBJECT
public:
    PrecisionPanel(PrecisionRun* run, PrecisionTableModel* table, QWidget* parent = nullptr);

    // `formatSource` the document's (ModelDocument::source): an ONNX model is measured on the ONNX runner.
    void setModel(std::shared_ptr<const ampstudio::Graph> graph, std::shared_ptr<const ampstudio::NDArrayList> params,
                  std::shared_ptr<const ampstudio::FormatSource> formatSource = nullptr);
    // The conversion Measure measures and the search starts from; a result for other options is
    // marked as out of date.
    void setConversion(const ampstudio::ConversionOptions& options);

    // The request Measure (search = false) or Find Float32 Set would make; throws nothing, a bad
    // form shows up as the run's error.
    PrecisionRequest request(bool search) const;
    bool measure();
    bool findFloat32Set();

    bool isRunning() const { return m_run->isRunning(); }
    bool colourByError() const;
    // The measured nodes' marks for the converted view (empty before a measurement).
    QHash<QString, GraphView::NodeErrorMark> errorMarks() const;
    QString statusText() const;
    QString resultText() const;
    QTableView* tableView() const { return m_tableView; }

signals:
    void nodeSelected(const QString& name);
    // A finished measurement or search (PrecisionRun::outcome()); the marks to colour by.
    void resultChanged();
    void colourByErrorChanged(bool on);
    // The search found a set: keep these nodes in float32 (the caller adds them to the exclusions
    // as one undoable step).
    void float32SetFound(const QStringList& nodes);

private:
    void updateState();
    void showProgress();
    void showOutcome();
    void updateInputsRow();
    bool inputsGiven();

    PrecisionRun* m_run;
    PrecisionTableModel* m_table;
    std::shared_ptr<const ampstudio::Graph> m_graph;
    std::shared_ptr<const ampstudio::NDArrayList> m_params;
    std::shared_ptr<const ampstudio::FormatSource> m_formatSource;
    ampstudio::ConversionOptions m_options;

    QComboBox* m_inputKind;
    QLineEdit* m_shapes;
    QLineEdit* m_idxFile;
    QSpinBox* m_samples;
    QSpinBox* m_seed;
    QComboBox* m_metric;
    QLineEdit* m_tolerance;
    QSpinBox* m_maxAttempts;
    QPushButton* m_measure;
    QPushButton* m_search;
    QPushButton* m_stop;
    QPushButton* m_apply;
    QCheckBox* m_colourByError;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_result;
    QTableView* m_tableView;
    QSortFilterProxyModel* m_sorted;
};
