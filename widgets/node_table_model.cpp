#include "node_table_model.h"

#include <QStringList>

using namespace ampstudio;

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeTableModel::setGraph(Graph graph) {
    beginResetModel();
    m_graph = std::move(graph);
    endResetModel();
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_graph.nodes.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString NodeTableModel::inputsText(const Node& node) const {
    QStringList names;
    for (const NodeEntry& e : node.inputs) {
        const Node& source = m_graph.node(e);
        QString name = QString::fromStdString(source.name);
        if (source.numOutputs > 1) {
            name += QStringLiteral("[%1]").arg(e.index);
        }
        names << name;
    }
    return names.join(QStringLiteral(", "));
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const Node& node = m_graph.nodes[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
        case IndexColumn:
            return index.row();
        case NameColumn:
            return QString::fromStdString(node.name);
        case OpColumn:
            return node.isVariable() ? tr("variable") : QString::fromStdString(node.op);
        case InputsColumn:
            return inputsText(node);
        case OutputsColumn:
            return static_cast<int>(node.numOutputs);
        default:
            return {};
    }
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case IndexColumn:
            return tr("#");
        case NameColumn:
            return tr("Name");
        case OpColumn:
            return tr("Operator");
        case InputsColumn:
            return tr("Inputs");
        case OutputsColumn:
            return tr("Outputs");
        default:
            return {};
    }
}
