#pragma once
// Every node the precision debugger measured, one row each, for a sortable table of the worst nodes
// (QSortFilterProxyModel on SortRole): the node, its op, the precision it computes in, its error in
// the converted model, the error it creates itself, cosine, its float32 range against the target
// dtype and its range warnings. Figures sort as numbers (undefined ones last); the display text is
// short (3 significant digits).

#include <QAbstractTableModel>
#include <QString>

#include <memory>

#include "exec/precision_search.h"

class PrecisionTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Node, Op, Precision, Error, OwnError, Cosine, MaxAbs, BeyondMax, BelowNormal, Warnings, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int NameRole = Qt::UserRole + 2;  // the node's name, whatever the column

    explicit PrecisionTableModel(QObject* parent = nullptr);

    // The target-dtype nodes first (the search's candidates), then the float32 ones. Null clears.
    void setResult(std::shared_ptr<const ampstudio::PrecisionSearchResult> result, ampstudio::DType target);
    // The row of `name`, or -1; the profile of `name`, or null.
    int rowOf(const QString& name) const;
    const ampstudio::NodeErrorProfile* profile(const QString& name) const;
    const ampstudio::PrecisionSearchResult* result() const { return m_result.get(); }
    ampstudio::DType target() const { return m_target; }
    const ampstudio::NodeErrorProfile* profileAt(int row) const;
    bool inTarget(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const ampstudio::PrecisionSearchResult> m_result;
    ampstudio::DType m_target = ampstudio::DType::F16;
};
