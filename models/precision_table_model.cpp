#include "precision_table_model.h"

#include <QLocale>

#include <cmath>
#include <limits>

using namespace ampstudio;

namespace {

QString figure(double v) {
    if (std::isnan(v)) return QStringLiteral("n/a");
    if (v == 0.0) return QStringLiteral("0");
    return QString::number(v, 'g', 3);
}

QString share(double v) {
    if (v == 0.0) return QStringLiteral("—");
    return QLocale().toString(100.0 * v, 'g', 2) + QStringLiteral(" %");
}

// Undefined sorts as worse than any figure: NaN errors are what a user looks for first.
QVariant sortable(double v) { return std::isnan(v) ? std::numeric_limits<double>::infinity() : v; }

}  // namespace

PrecisionTableModel::PrecisionTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void PrecisionTableModel::setResult(std::shared_ptr<const PrecisionSearchResult> result, DType target) {
    beginResetModel();
    m_result = std::move(result);
    m_target = target;
    endResetModel();
}

int PrecisionTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_result) return 0;
    return int(m_result->nodes.size() + m_result->float32Nodes.size());
}

int PrecisionTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const NodeErrorProfile* PrecisionTableModel::profileAt(int row) const {
    if (!m_result || row < 0) return nullptr;
    const auto r = std::size_t(row);
    if (r < m_result->nodes.size()) return &m_result->nodes[r];
    if (r - m_result->nodes.size() < m_result->float32Nodes.size()) return &m_result->float32Nodes[r - m_result->nodes.size()];
    return nullptr;
}

bool PrecisionTableModel::inTarget(int row) const { return m_result && row >= 0 && std::size_t(row) < m_result->nodes.size(); }

int PrecisionTableModel::rowOf(const QString& name) const {
    const std::string n = name.toStdString();
    for (int row = 0; row < rowCount(); ++row) {
        if (profileAt(row)->name == n) return row;
    }
    return -1;
}

const NodeErrorProfile* PrecisionTableModel::profile(const QString& name) const { return profileAt(rowOf(name)); }

QVariant PrecisionTableModel::data(const QModelIndex& index, int role) const {
    const NodeErrorProfile* p = index.isValid() ? profileAt(index.row()) : nullptr;
    if (!p) return {};
    if (role == NameRole) return QString::fromStdString(p->name);
    const bool target = inTarget(index.row());
    const double own = p->own ? p->own->maxRelError : std::numeric_limits<double>::quiet_NaN();
    if (role == SortRole) {
        switch (index.column()) {
            case Node: return QString::fromStdString(p->name);
            case Op: return QString::fromStdString(p->op);
            case Precision: return target ? 0 : 1;
            case Error: return sortable(p->error.maxRelError);
            case OwnError: return p->own ? sortable(own) : QVariant(-1.0);
            case Cosine: return std::isnan(p->error.cosine) ? -2.0 : p->error.cosine;
            case MaxAbs: return p->stats.maxAbs;
            case BeyondMax: return p->stats.beyondMax;
            case BelowNormal: return p->stats.belowNormal;
            case Warnings: return int(p->warnings.size());
            default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Node: return QString::fromStdString(p->name);
            case Op: return QString::fromStdString(p->op);
            case Precision: return target ? QString::fromLatin1(dtypeName(m_target)) : QStringLiteral("float32");
            case Error: return figure(p->error.maxRelError);
            case OwnError: return p->own ? figure(own) : QString();
            case Cosine: return std::isnan(p->error.cosine) ? QStringLiteral("n/a") : QString::number(p->error.cosine, 'f', 6);
            case MaxAbs: return figure(p->stats.maxAbs);
            case BeyondMax: return share(p->stats.beyondMax);
            case BelowNormal: return share(p->stats.belowNormal);
            case Warnings: {
                // The first reason in words, and how many more the tool tip lists.
                if (p->warnings.empty()) return QString();
                QString text = QString::fromStdString(p->warnings.front());
                if (p->warnings.size() > 1) text += tr(" (+%n more)", nullptr, int(p->warnings.size() - 1));
                return text;
            }
            default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QStringList lines;
        for (const std::string& w : p->warnings) lines << QString::fromStdString(w);
        if (index.column() == OwnError && !p->own && target) lines << tr("This node could not be run on its own.");
        if (index.column() == OwnError && !target) lines << tr("Computes in float32: its error is inherited only.");
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Error) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant PrecisionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case Node: return tr("Node");
            case Op: return tr("Op");
            case Precision: return tr("Runs in");
            case Error: return tr("Error");
            case OwnError: return tr("Own error");
            case Cosine: return tr("Cosine");
            case MaxAbs: return tr("Max |x|");
            case BeyondMax: return tr("Overflow");
            case BelowNormal: return tr("Subnormal");
            case Warnings: return tr("Warnings");
            default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case Error: return tr("Max relative error of the node's output in the converted model against float32 "
                                  "(max |c − r| / max |r|): created here and inherited from upstream");
            case OwnError: return tr("The node alone in the low dtype on exact float32 inputs: the error it creates itself");
            case MaxAbs: return tr("The largest magnitude of its float32 output");
            case BeyondMax: return tr("Share of its float32 values beyond the target dtype's largest value: they become inf");
            case BelowNormal: return tr("Share of its non-zero float32 values below the target dtype's smallest normal");
            default: return {};
        }
    }
    return {};
}
