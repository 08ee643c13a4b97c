#pragma once
// The node inspector (DESIGN.md section 6): one node of the original or the converted graph — its
// name, operator, the precision the conversion decided and why, its attributes, and its inputs and
// outputs with the dtypes they carry. Made for a dock about 350 px wide. Activating an input or an
// output (double-click or Enter) asks, through nodeActivated(), for that node to be shown; the
// main window does the selecting, so this widget never talks to the graph views.

#include <QWidget>

#include <memory>

#include "amp/conversion_index.h"
#include "amp/conversion_report.h"
#include "exec/precision_search.h"
#include "graph/graph.h"

class NodeErrorBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTreeWidget;

class NodeInspector : public QWidget {
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);
    ~NodeInspector() override;

    // graph: the graph the node belongs to (before or after conversion); report: the conversion's
    // report (may be null); nodeIndex: index into graph->nodes, or -1 (or any index out of range) to clear.
    void showNode(std::shared_ptr<const ampstudio::Graph> graph,
                  std::shared_ptr<const ampstudio::ConversionReport> report, int nodeIndex);
    // The same, with an index built already (the workspace snapshot's, built off the GUI thread).
    void showNode(std::shared_ptr<const ampstudio::ConversionIndex> index, int nodeIndex);
    void clear();
    // A collapsed name scope of the grouped view: what it holds instead of one node's facts.
    void showGroup(const QString& scope, const QString& contents, const QString& precision, const QString& ops);
    // What the precision debugger measured at the shown node (null: nothing, the section hides).
    void showMeasuredError(const ampstudio::NodeErrorProfile* profile, ampstudio::DType target, bool inTarget);
    NodeErrorBox* measuredErrorBox() const { return m_errorBox; }
    // The shown node's name; empty when cleared.
    QString nodeName() const;

signals:
    // The user activated an input or an output: show that node.
    void nodeActivated(const QString& name);

private:
    void showPrecision(ampstudio::NodeId id);
    void fillAttributes(const ampstudio::Node& node);
    void fillInputs(ampstudio::NodeId id);
    void fillOutputs(ampstudio::NodeId id);

    // Answers every question about the shown graph and its conversion (the engine's, shared with
    // the drawing and `ampstudio-cli inspect --node`).
    std::shared_ptr<const ampstudio::ConversionIndex> m_index;
    QString m_nodeName;

    QStackedWidget* m_stack;
    QLineEdit* m_name;
    QLabel* m_operator;
    QLabel* m_precision;
    QLabel* m_rule;
    QLabel* m_reason;
    NodeErrorBox* m_errorBox;
    QGroupBox* m_attributesBox;
    QTreeWidget* m_attributes;
    QGroupBox* m_inputsBox;
    QTreeWidget* m_inputs;
    QGroupBox* m_outputsBox;
    QTreeWidget* m_outputs;
};
