#pragma once
// The conditional-FP32 rows of a ConversionSettings as an editable table: op, param, values
// (comma-separated). Edits go through ConversionSettings::setConditionalFp32, so each cell edit is
// one undo step; the model only mirrors the settings for the view and follows changed() with
// the finest signals that describe the difference (dataChanged for edited rows, row insertions
// and removals otherwise), so the view keeps its selection and scroll position.

#include <QAbstractTableModel>
#include <QPointer>

#include <vector>

#include "amp/amp_lists.h"
#include "conversion_settings.h"  // complete: QPointer<ConversionSettings> converts to a pointer inline

class ConditionalFp32Model : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { OpColumn, ParamColumn, ValuesColumn, ColumnCount };

    explicit ConditionalFp32Model(ConversionSettings* settings = nullptr, QObject* parent = nullptr);

    void setSettings(ConversionSettings* settings);
    ConversionSettings* settings() const { return m_settings; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Op: a known op name (an alias is accepted and marked) that is not in the target or FP32
    // list; param: non-empty; values: comma-separated, blanks dropped. Anything else is refused
    // with editRejected().
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
    // A cell edit was refused; the message says why, naming the op.
    void editRejected(const QString& message);

private:
    void refresh();

    QPointer<ConversionSettings> m_settings;
    std::vector<ampstudio::ConditionalFp32Op> m_rows;  // what the view was last told
};
