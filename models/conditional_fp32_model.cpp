#include "conditional_fp32_model.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

#include "conversion_settings.h"
#include "ops/mxnet_op_facts.h"

using namespace ampstudio;

namespace {

QString valuesText(const std::vector<std::string>& values) {
    QStringList list;
    for (const std::string& v : values) {
        list << QString::fromStdString(v);
    }
    return list.join(QStringLiteral(", "));
}

std::vector<std::string> parseValues(const QString& text) {
    std::vector<std::string> values;
    for (const QString& part : text.split(QLatin1Char(','))) {
        const QString v = part.trimmed();
        if (!v.isEmpty()) {
            values.push_back(v.toStdString());
        }
    }
    return values;
}

}  // namespace

ConditionalFp32Model::ConditionalFp32Model(ConversionSettings* settings, QObject* parent)
    : QAbstractTableModel(parent) {
    setSettings(settings);
}

void ConditionalFp32Model::setSettings(ConversionSettings* settings) {
    if (m_settings) {
        disconnect(m_settings, nullptr, this, nullptr);
    }
    m_settings = settings;
    if (m_settings) {
        connect(m_settings, &ConversionSettings::changed, this, &ConditionalFp32Model::refresh);
        connect(m_settings, &QObject::destroyed, this, &ConditionalFp32Model::refresh);
    }
    refresh();
}

void ConditionalFp32Model::refresh() {
    const std::vector<ConditionalFp32Op> rows =
        m_settings ? m_settings->options().lists.conditionalFp32Ops : std::vector<ConditionalFp32Op>{};
    if (rows == m_rows) {
        return;
    }
    // Common prefix and suffix stay; the middle is changed in place where both have rows, and the
    // rest is inserted or removed. A cell edit is then one dataChanged, an added row one insertion.
    const std::size_t oldN = m_rows.size();
    const std::size_t newN = rows.size();
    std::size_t prefix = 0;
    while (prefix < oldN && prefix < newN && m_rows[prefix] == rows[prefix]) {
        ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix < oldN - prefix && suffix < newN - prefix &&
           m_rows[oldN - 1 - suffix] == rows[newN - 1 - suffix]) {
        ++suffix;
    }
    const std::size_t oldMiddle = oldN - prefix - suffix;
    const std::size_t newMiddle = newN - prefix - suffix;
    const std::size_t common = std::min(oldMiddle, newMiddle);
    if (oldMiddle > newMiddle) {
        const int first = int(prefix + common);
        const int last = int(prefix + oldMiddle - 1);
        beginRemoveRows({}, first, last);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + last + 1);
        endRemoveRows();
    } else if (newMiddle > oldMiddle) {
        const int first = int(prefix + common);
        const int last = int(prefix + newMiddle - 1);
        beginInsertRows({}, first, last);
        m_rows.insert(m_rows.begin() + first, rows.begin() + first, rows.begin() + last + 1);
        endInsertRows();
    }
    if (common > 0) {
        std::copy(rows.begin() + std::ptrdiff_t(prefix), rows.begin() + std::ptrdiff_t(prefix + common),
                  m_rows.begin() + std::ptrdiff_t(prefix));
        emit dataChanged(index(int(prefix), 0), index(int(prefix + common - 1), ColumnCount - 1));
    }
}

int ConditionalFp32Model::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ConditionalFp32Model::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConditionalFp32Model::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const ConditionalFp32Op& row = m_rows[std::size_t(index.row())];
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    switch (index.column()) {
        case OpColumn: {
            const bool known = registry.isKnown(row.op);
            const bool alias = known && registry.canonicalName(row.op) != row.op;
            if (role == Qt::DisplayRole || role == Qt::EditRole) {
                return QString::fromStdString(row.op);
            }
            if (role == Qt::ToolTipRole && !known) {
                return tr("%1 is not an MXNet 1.9.1 operator: this row never matches a node.")
                    .arg(QString::fromStdString(row.op));
            }
            if (role == Qt::ToolTipRole && alias) {
                return tr("%1 is an alias of %2. Symbol files store canonical names, so this row "
                          "never matches a node.")
                    .arg(QString::fromStdString(row.op), QString::fromUtf8(registry.canonicalName(row.op)));
            }
            if (role == Qt::FontRole && (!known || alias)) {
                QFont font;
                font.setItalic(true);
                return font;
            }
            return {};
        }
        case ParamColumn:
            if (role == Qt::EditRole) {
                return QString::fromStdString(row.param);
            }
            // A freshly added row has no parameter yet: say what is missing rather than show a blank.
            if (role == Qt::DisplayRole) {
                return row.param.empty() ? tr("(set a parameter)") : QString::fromStdString(row.param);
            }
            if (role == Qt::ForegroundRole && row.param.empty()) {
                return QGuiApplication::palette().brush(QPalette::PlaceholderText);
            }
            if (role == Qt::ToolTipRole) {
                return tr("The node attribute to test, e.g. act_type");
            }
            return {};
        case ValuesColumn:
            if (role == Qt::DisplayRole || role == Qt::EditRole) {
                return valuesText(row.values);
            }
            if (role == Qt::ToolTipRole) {
                return tr("Comma-separated: the node runs in FP32 when the attribute equals one of them");
            }
            return {};
        default:
            return {};
    }
}

QVariant ConditionalFp32Model::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case OpColumn:
            return tr("Op");
        case ParamColumn:
            return tr("Param");
        case ValuesColumn:
            return tr("Values");
        default:
            return {};
    }
}

Qt::ItemFlags ConditionalFp32Model::flags(const QModelIndex& index) const {
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)) {
        return QAbstractTableModel::flags(index);
    }
    return QAbstractTableModel::flags(index) | Qt::ItemIsEditable;
}

bool ConditionalFp32Model::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !m_settings || !index.isValid() ||
        !checkIndex(index, CheckIndexOption::ParentIsInvalid)) {
        return false;
    }
    std::vector<ConditionalFp32Op> rows = m_settings->options().lists.conditionalFp32Ops;
    if (std::size_t(index.row()) >= rows.size()) {
        return false;
    }
    ConditionalFp32Op& row = rows[std::size_t(index.row())];
    const QString text = value.toString().trimmed();
    switch (index.column()) {
        case OpColumn: {
            if (text.isEmpty()) {
                emit editRejected(tr("A conditional FP32 row needs an op."));
                return false;
            }
            if (!MxnetOpFacts::instance().isKnown(text.toStdString())) {
                emit editRejected(tr("“%1” is not an MXNet 1.9.1 operator.").arg(text));
                return false;
            }
            const OpList list = m_settings->listOf(text);
            if (list == OpList::Target || list == OpList::Fp32) {
                emit editRejected(tr("%1 is in %2: a node would match two lists. Move it out of %2 first.")
                                      .arg(text, m_settings->listName(list)));
                return false;
            }
            row.op = text.toStdString();
            break;
        }
        case ParamColumn:
            if (text.isEmpty()) {
                emit editRejected(
                    tr("The parameter of %1's row can't be empty.").arg(QString::fromStdString(row.op)));
                return false;
            }
            row.param = text.toStdString();
            break;
        case ValuesColumn:
            row.values = parseValues(text);
            break;
        default:
            return false;
    }
    // changed() comes back through refresh(), which emits dataChanged for this row.
    return m_settings->setConditionalFp32(
        rows,
        tr("Edit %1's conditional FP32 row").arg(QString::fromStdString(rows[std::size_t(index.row())].op)));
}
