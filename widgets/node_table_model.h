#pragma once
// The nodes of a graph as a table (index, name, op, outputs, inputs): the first view of a loaded model.

#include <QAbstractTableModel>

#include "graph/graph.h"

class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        NameColumn,
        OpColumn,
        OutputsColumn,
        InputsColumn,
        ColumnCount
    };  // Inputs last: it stretches

    explicit NodeTableModel(QObject* parent = nullptr);

    void setGraph(ampstudio::Graph graph);
    const ampstudio::Graph& graph() const { return m_graph; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString inputsText(const ampstudio::Node& node) const;

    ampstudio::Graph m_graph;
};
