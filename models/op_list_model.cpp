#include "op_list_model.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

#include "ops/mxnet_op_facts.h"

using namespace ampstudio;

namespace {

// Past this many changed rows, one reset is cheaper for the view than row-by-row signals, and the
// selection is about content that changed anyway.
constexpr qsizetype kMaxFineGrainedChanges = 64;

}  // namespace

OpListModel::OpListModel(QObject* parent) : QAbstractListModel(parent) {}

bool OpListModel::lessThan(const QString& a, const QString& b) {
    const int c = a.compare(b, Qt::CaseInsensitive);
    return c != 0 ? c < 0 : a < b;
}

OpListModel::Match OpListModel::matchOf(const QString& name) const {
    if (!m_markUnmatchable) {
        return {};
    }
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    const std::string op = name.toStdString();
    if (!registry.isKnown(op)) {
        return {false, {}};
    }
    const std::string_view canonical = registry.canonicalName(op);
    return {true,
            canonical == op ? QString() : QString::fromUtf8(canonical.data(), qsizetype(canonical.size()))};
}

void OpListModel::setMarkUnmatchable(bool on) {
    if (on == m_markUnmatchable) {
        return;
    }
    beginResetModel();
    m_markUnmatchable = on;
    m_matches.clear();
    for (const QString& n : m_names) {
        m_matches.push_back(matchOf(n));
    }
    endResetModel();
}

void OpListModel::setNames(QStringList names) {
    std::sort(names.begin(), names.end(), lessThan);
    if (names == m_names) {
        return;
    }

    // Merge the two sorted lists: rows only in the old list go, rows only in the new one come.
    std::vector<qsizetype> removed;   // old indices, ascending
    std::vector<qsizetype> inserted;  // new indices, ascending
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < m_names.size() || j < names.size()) {
        if (j == names.size() || (i < m_names.size() && lessThan(m_names[i], names[j]))) {
            removed.push_back(i++);
        } else if (i == m_names.size() || lessThan(names[j], m_names[i])) {
            inserted.push_back(j++);
        } else {
            ++i;
            ++j;
        }
    }

    if (qsizetype(removed.size() + inserted.size()) > kMaxFineGrainedChanges) {
        beginResetModel();
        m_names = std::move(names);
        m_matches.clear();
        for (const QString& n : m_names) {
            m_matches.push_back(matchOf(n));
        }
        endResetModel();
        return;
    }

    // Removals from the back, one signal per contiguous run, so earlier indices stay valid.
    for (auto it = removed.rbegin(); it != removed.rend();) {
        const qsizetype last = *it;
        qsizetype first = last;
        while (++it != removed.rend() && *it == first - 1) {
            --first;
        }
        beginRemoveRows({}, int(first), int(last));
        m_names.remove(first, last - first + 1);
        m_matches.erase(m_matches.begin() + first, m_matches.begin() + last + 1);
        endRemoveRows();
    }
    // What is left is the common subsequence in order; inserting at the new indices, from the front,
    // rebuilds the new list.
    for (auto it = inserted.begin(); it != inserted.end();) {
        const qsizetype first = *it;
        qsizetype last = first;
        while (++it != inserted.end() && *it == last + 1) {
            ++last;
        }
        beginInsertRows({}, int(first), int(last));
        for (qsizetype k = first; k <= last; ++k) {
            m_names.insert(k, names[k]);
            m_matches.insert(m_matches.begin() + k, matchOf(names[k]));
        }
        endInsertRows();
    }
}

int OpListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_names.size());
}

QVariant OpListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const QString& name = m_names[index.row()];
    const Match& match = m_matches[std::size_t(index.row())];
    const bool unmatchable = !match.known || !match.canonical.isEmpty();
    switch (role) {
        case Qt::DisplayRole:
        case Qt::EditRole:
            return name;
        case Qt::ToolTipRole:
            if (!match.known) {
                return tr("%1 is not an MXNet 1.9.1 operator: this entry never matches a node.").arg(name);
            }
            if (!match.canonical.isEmpty()) {
                return tr("%1 is an alias of %2. Symbol files store canonical names, so this entry never "
                          "matches a node.")
                    .arg(name, match.canonical);
            }
            return {};
        case Qt::FontRole:
            if (unmatchable) {
                QFont font;
                font.setItalic(true);
                return font;
            }
            return {};
        case Qt::ForegroundRole:
            if (unmatchable) {
                return QGuiApplication::palette().brush(QPalette::PlaceholderText);
            }
            return {};
        case CanonicalNameRole:
            return match.canonical;
        case UnmatchableRole:
            return unmatchable;
        default:
            return {};
    }
}
