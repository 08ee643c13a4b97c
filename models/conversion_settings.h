#pragma once
// The user's conversion choices — target dtype, mode, the op lists, node exclusions — as one
// undoable document. Every edit is a QUndoCommand holding the options before and after (QtNodes'
// commands snapshot what they change the same way), so undo restores exactly what was there,
// whatever the edit was. Widgets read options() and edit through this class only; none keeps its
// own copy of the truth.
//
// Invariants the editing methods keep (edit() itself takes any options):
// - an op is in at most one of the target / FP32 / widest / neutral lists (moveOp removes it from
//   the others);
// - no op is both in a conditional-FP32 row and in the target or FP32 list (AmpLists::overlapErrors
//   is empty): an explicit "put this op in that list" (moveOp to Target/Fp32, addConditionalFp32)
//   resolves the conflict by taking the op out of the other side in the same undo step; a bulk
//   replacement that would create one (setConditionalFp32, applyLists) is refused.

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

#include "amp/conversion.h"

class QUndoStack;

// The op lists an op can be moved between (None: in none of them).
enum class OpList { Target, Fp32, Widest, Neutral, None };

// Same ops in each list whatever their order, same conditional rows, same target dtype. The keys a
// file carries besides the lists (source, license ...) do not count. Used to recognise presets.
bool sameListContent(const ampstudio::AmpLists& a, const ampstudio::AmpLists& b);

class ConversionSettings : public QObject {
    Q_OBJECT
public:
    // MXNet 1.9.1's float16 lists, typed mode, nothing excluded.
    explicit ConversionSettings(QObject* parent = nullptr);

    // Valid until the next change: copy what must outlive an edit.
    const ampstudio::ConversionOptions& options() const { return *m_options; }
    QUndoStack* undoStack() const { return m_undoStack; }

    // "FP16 ops", "FP32 ops", "widest-type ops", "neutral ops" (translated) for messages and undo
    // texts; the target list is named after `target`.
    static QString listName(OpList list, ampstudio::DType target);
    QString listName(OpList list) const { return listName(list, m_options->lists.targetDtype); }

    // One undo step replacing the options by `after`; nothing is pushed when after equals the
    // current options.
    void edit(const ampstudio::ConversionOptions& after, const QString& undoText);

    // F16 or BF16 (anything else is ignored). When the lists are the current dtype's MXNet defaults,
    // they become the new dtype's defaults (bfloat16's lists differ a lot from float16's: fewer
    // target ops, many more FP32 ops). Lists the user has edited are kept and only the target
    // changes: switching dtype must not throw their work away.
    void setTargetDtype(ampstudio::DType dtype);
    void setMode(ampstudio::ConversionMode mode);
    void setCastOptionalParams(bool on);

    // Takes `op` out of whichever of the four lists holds it and puts it in `to` (None: removes it).
    // Moving into Target or Fp32 also drops the op's conditional-FP32 rows: the user has decided
    // its precision, and a node matching two lists has none (AmpLists::overlapErrors).
    void moveOp(const QString& op, OpList to);
    // The same for several ops, as one undo step.
    void moveOps(const QStringList& ops, OpList to);
    // The first of target, FP32, widest, neutral that holds `op`; None when none does.
    OpList listOf(const QString& op) const;
    // Whether `op` has a conditional-FP32 row.
    bool isConditional(const QString& op) const;

    void setExcluded(const QString& nodeName, bool excluded);
    // The whole set, as one undo step.
    void setExcludedNodes(const QStringList& names);

    // Replaces the conditional-FP32 rows. Refused (returns false, nothing changes) when a row's op
    // is in the target or FP32 list: a table edit is too easy a way to change an op's precision
    // by accident. The caller names the conflict to the user. Default undo text: "Edit conditional
    // FP32 ops".
    bool setConditionalFp32(const std::vector<ampstudio::ConditionalFp32Op>& rows,
                            const QString& undoText = {});
    // Appends a row; the op leaves the target and FP32 lists in the same step (explicit intent).
    void addConditionalFp32(const ampstudio::ConditionalFp32Op& row);

    // All lists at once, target dtype included: a preset or an imported file. Mode and exclusions
    // stay. Refused (returns false) when the lists overlap; callers validate first and name the
    // problem.
    bool applyLists(const ampstudio::AmpLists& lists, const QString& undoText);

    // A new document: replaces the options without an undo step and clears the undo stack.
    void resetOptions(const ampstudio::ConversionOptions& options);

signals:
    // After every edit, undo and redo, and after resetOptions.
    void changed();

private:
    class EditCommand;
    using Snapshot = std::shared_ptr<const ampstudio::ConversionOptions>;
    void apply(Snapshot options);

    // Consecutive commands share their snapshots: one copy of the options per undo step.
    Snapshot m_options;
    QUndoStack* m_undoStack;
};
