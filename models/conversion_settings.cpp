#include "conversion_settings.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <string>

using namespace ampstudio;

namespace {

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<ConditionalFp32Op> sorted(std::vector<ConditionalFp32Op> v) {
    std::sort(v.begin(), v.end(), [](const ConditionalFp32Op& a, const ConditionalFp32Op& b) {
        return std::tie(a.op, a.param, a.values) < std::tie(b.op, b.param, b.values);
    });
    return v;
}

bool sameOptions(const ConversionOptions& a, const ConversionOptions& b) {
    return a.lists == b.lists && a.mode == b.mode && a.excludedSymNames == b.excludedSymNames &&
           a.dataNames == b.dataNames && a.castOptionalParams == b.castOptionalParams;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// The vector behind `list` (const or not, as `lists` is); nullptr for None.
template <typename Lists>
auto listIn(Lists& lists, OpList list) -> decltype(&lists.fp32Ops) {
    switch (list) {
        case OpList::Target:
            return &lists.targetDtypeOps;
        case OpList::Fp32:
            return &lists.fp32Ops;
        case OpList::Widest:
            return &lists.widestDtypeOps;
        case OpList::Neutral:
            return &lists.neutralOps;
        case OpList::None:
            break;
    }
    return nullptr;
}

constexpr OpList kOpLists[] = {OpList::Target, OpList::Fp32, OpList::Widest, OpList::Neutral};

// At most this many names are spelled out in an undo text ("Include fc1, fc2"); more are counted.
constexpr qsizetype kNamesInUndoText = 3;

}  // namespace

bool sameListContent(const AmpLists& a, const AmpLists& b) {
    return a.targetDtype == b.targetDtype && sorted(a.targetDtypeOps) == sorted(b.targetDtypeOps) &&
           sorted(a.fp32Ops) == sorted(b.fp32Ops) && sorted(a.widestDtypeOps) == sorted(b.widestDtypeOps) &&
           sorted(a.neutralOps) == sorted(b.neutralOps) &&
           sorted(a.conditionalFp32Ops) == sorted(b.conditionalFp32Ops) &&
           sorted(a.lossOutputOps) == sorted(b.lossOutputOps);
}

class ConversionSettings::EditCommand : public QUndoCommand {
public:
    EditCommand(ConversionSettings* settings, Snapshot before, Snapshot after, const QString& text)
        : QUndoCommand(text), m_settings(settings), m_before(std::move(before)), m_after(std::move(after)) {}

    void undo() override { m_settings->apply(m_before); }
    void redo() override { m_settings->apply(m_after); }

private:
    ConversionSettings* m_settings;  // owns the stack that owns this command
    Snapshot m_before;
    Snapshot m_after;
};

ConversionSettings::ConversionSettings(QObject* parent)
    : QObject(parent), m_options(std::make_shared<ConversionOptions>()), m_undoStack(new QUndoStack(this)) {}

QString ConversionSettings::listName(OpList list, DType target) {
    switch (list) {
        case OpList::Target:
            return target == DType::BF16 ? tr("BF16 ops") : tr("FP16 ops");
        case OpList::Fp32:
            return tr("FP32 ops");
        case OpList::Widest:
            return tr("widest-type ops");
        case OpList::Neutral:
            return tr("neutral ops");
        case OpList::None:
            break;
    }
    return tr("no list");
}

void ConversionSettings::apply(Snapshot options) {
    m_options = std::move(options);
    emit changed();
}

void ConversionSettings::edit(const ConversionOptions& after, const QString& undoText) {
    if (sameOptions(after, *m_options)) {
        return;
    }
    // push() runs redo(), which applies `after` and emits changed().
    m_undoStack->push(
        new EditCommand(this, m_options, std::make_shared<const ConversionOptions>(after), undoText));
}

void ConversionSettings::setTargetDtype(DType dtype) {
    if (!isLowPrecisionFloat(dtype) || dtype == m_options->lists.targetDtype) {
        return;
    }
    ConversionOptions after = *m_options;
    const OpSet opSet = after.lists.opSet();
    if (sameListContent(after.lists, AmpLists::defaults(after.lists.targetDtype, opSet))) {
        // Untouched defaults: the user wants the default lists for the new dtype, not float16's
        // lists relabelled (MXNet ships different lists per dtype).
        after.lists = AmpLists::defaults(dtype, opSet);
    } else {
        // Edited lists are the user's work: keep them and change only the target.
        after.lists.targetDtype = dtype;
    }
    edit(after, tr("Target %1").arg(QString::fromUtf8(dtypeName(dtype))));
}

void ConversionSettings::setMode(ConversionMode mode) {
    ConversionOptions after = *m_options;
    after.mode = mode;
    edit(after, mode == ConversionMode::Classic ? tr("Classic mode") : tr("Typed mode"));
}

void ConversionSettings::setCastOptionalParams(bool on) {
    ConversionOptions after = *m_options;
    after.castOptionalParams = on;
    edit(after, on ? tr("Turn on cast optional params") : tr("Turn off cast optional params"));
}

void ConversionSettings::moveOp(const QString& op, OpList to) {
    moveOps({op}, to);
}

void ConversionSettings::moveOps(const QStringList& ops, OpList to) {
    if (ops.isEmpty()) {
        return;
    }
    ConversionOptions after = *m_options;
    AmpLists& lists = after.lists;
    std::vector<std::string>* destination = listIn(lists, to);
    const OpList firstFrom = listOf(ops.front());
    bool sameSource = true;
    bool anyInList = false;
    for (const QString& op : ops) {
        const std::string name = op.toStdString();
        const OpList from = listOf(op);
        sameSource = sameSource && from == firstFrom;
        anyInList = anyInList || from != OpList::None;
        for (OpList list : kOpLists) {
            if (list != to) {
                std::erase(*listIn(lists, list), name);
            }
        }
        // Already there: it keeps its place, so that a no-op move pushes nothing.
        if (destination && !contains(*destination, name)) {
            destination->push_back(name);
        }
        if (to == OpList::Target || to == OpList::Fp32) {
            std::erase_if(lists.conditionalFp32Ops, [&](const ConditionalFp32Op& c) { return c.op == name; });
        }
    }

    QString text;
    const QString toName = listName(to);
    if (ops.size() == 1) {
        const QString& op = ops.front();
        if (to == OpList::None) {
            text = tr("Remove %1 from %2").arg(op, listName(firstFrom));
        } else if (firstFrom == OpList::None) {
            text = tr("Add %1 to %2").arg(op, toName);
        } else {
            text = tr("Move %1 to %2").arg(op, toName);
        }
    } else if (to == OpList::None) {
        text = sameSource ? tr("Remove %n ops from %1", "", int(ops.size())).arg(listName(firstFrom))
                          : tr("Remove %n ops", "", int(ops.size()));
    } else {
        text = anyInList ? tr("Move %n ops to %1", "", int(ops.size())).arg(toName)
                         : tr("Add %n ops to %1", "", int(ops.size())).arg(toName);
    }
    edit(after, text);
}

OpList ConversionSettings::listOf(const QString& op) const {
    const std::string name = op.toStdString();
    for (OpList list : kOpLists) {
        if (contains(*listIn(m_options->lists, list), name)) {
            return list;
        }
    }
    return OpList::None;
}

bool ConversionSettings::isConditional(const QString& op) const {
    const std::string name = op.toStdString();
    const auto& rows = m_options->lists.conditionalFp32Ops;
    return std::any_of(rows.begin(), rows.end(), [&](const ConditionalFp32Op& c) { return c.op == name; });
}

void ConversionSettings::setExcluded(const QString& nodeName, bool excluded) {
    ConversionOptions after = *m_options;
    if (excluded) {
        after.excludedSymNames.insert(nodeName.toStdString());
    } else {
        after.excludedSymNames.erase(nodeName.toStdString());
    }
    edit(after, excluded ? tr("Exclude %1").arg(nodeName) : tr("Include %1").arg(nodeName));
}

void ConversionSettings::setExcludedNodes(const QStringList& names) {
    ConversionOptions after = *m_options;
    after.excludedSymNames.clear();
    for (const QString& n : names) {
        after.excludedSymNames.insert(n.toStdString());
    }
    // Say what changed: "Include fc1, fc2", "Exclude 5 nodes", or, for a mix, "Edit excluded nodes".
    QStringList added;
    QStringList removed;
    for (const std::string& n : after.excludedSymNames) {
        if (!m_options->excludedSymNames.contains(n)) {
            added << QString::fromStdString(n);
        }
    }
    for (const std::string& n : m_options->excludedSymNames) {
        if (!after.excludedSymNames.contains(n)) {
            removed << QString::fromStdString(n);
        }
    }
    QString text = tr("Edit excluded nodes");
    if (removed.isEmpty() && !added.isEmpty()) {
        text = added.size() <= kNamesInUndoText ? tr("Exclude %1").arg(added.join(QStringLiteral(", ")))
                                                : tr("Exclude %n nodes", "", int(added.size()));
    } else if (added.isEmpty() && !removed.isEmpty()) {
        text = removed.size() <= kNamesInUndoText ? tr("Include %1").arg(removed.join(QStringLiteral(", ")))
                                                  : tr("Include %n nodes", "", int(removed.size()));
    }
    edit(after, text);
}

bool ConversionSettings::setConditionalFp32(const std::vector<ConditionalFp32Op>& rows,
                                            const QString& undoText) {
    ConversionOptions after = *m_options;
    after.lists.conditionalFp32Ops = rows;
    for (const ConditionalFp32Op& row : rows) {
        if (contains(after.lists.targetDtypeOps, row.op) || contains(after.lists.fp32Ops, row.op)) {
            return false;
        }
    }
    edit(after, undoText.isEmpty() ? tr("Edit conditional FP32 ops") : undoText);
    return true;
}

void ConversionSettings::addConditionalFp32(const ConditionalFp32Op& row) {
    ConversionOptions after = *m_options;
    std::erase(after.lists.targetDtypeOps, row.op);
    std::erase(after.lists.fp32Ops, row.op);
    after.lists.conditionalFp32Ops.push_back(row);
    edit(after, tr("Add %1 to conditional FP32 ops").arg(QString::fromStdString(row.op)));
}

bool ConversionSettings::applyLists(const AmpLists& lists, const QString& undoText) {
    if (!lists.overlapErrors().empty() || !isLowPrecisionFloat(lists.targetDtype)) {
        return false;
    }
    ConversionOptions after = *m_options;
    after.lists = lists;
    edit(after, undoText);
    return true;
}

void ConversionSettings::resetOptions(const ConversionOptions& options) {
    m_undoStack->clear();
    apply(std::make_shared<const ConversionOptions>(options));
}
