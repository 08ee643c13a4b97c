// ConversionSettings, the undoable document behind the op-list editor: every edit is one undo step
// that restores exactly the previous options, and the editing methods keep the lists disjoint.
#include <QGuiApplication>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <functional>

#include "conversion_settings.h"
#include "ops/mxnet_op_facts.h"

using namespace ampstudio;

using Edit = std::function<void(ConversionSettings&)>;
Q_DECLARE_METATYPE(Edit)

namespace {

// ConversionOptions has no operator==: compare every member; empty when equal, else what differs.
QString difference(const ConversionOptions& a, const ConversionOptions& b) {
    QStringList d;
    if (!(a.lists == b.lists)) {
        d << QStringLiteral("lists");
    }
    if (a.mode != b.mode) {
        d << QStringLiteral("mode");
    }
    if (a.excludedSymNames != b.excludedSymNames) {
        d << QStringLiteral("excludedSymNames");
    }
    if (a.dataNames != b.dataNames) {
        d << QStringLiteral("dataNames");
    }
    if (a.castOptionalParams != b.castOptionalParams) {
        d << QStringLiteral("castOptionalParams");
    }
    return d.join(QStringLiteral(", "));
}

#define COMPARE_OPTIONS(actual, expected)                                            \
    do {                                                                             \
        const QString diff_ = difference((actual), (expected));                      \
        QVERIFY2(diff_.isEmpty(), qPrintable(QStringLiteral("differ in ") + diff_)); \
    } while (false)

int count(const std::vector<std::string>& list, const std::string& op) {
    return int(std::count(list.begin(), list.end(), op));
}

// An op that is in none of the float16 lists, conditional rows included.
QString opInNoList() {
    const AmpLists lists = AmpLists::defaults(DType::F16);
    for (const std::string& op : MxnetOpFacts::instance().opNames()) {
        if (!count(lists.targetDtypeOps, op) && !count(lists.fp32Ops, op) &&
            !count(lists.widestDtypeOps, op) && !count(lists.neutralOps, op) && op != "Activation" &&
            op != "LeakyReLU") {
            return QString::fromStdString(op);
        }
    }
    return {};
}

// Pairwise disjoint target / FP32 / widest / neutral lists, and no overlap with conditional rows.
QString disjointnessProblem(const AmpLists& lists) {
    const std::vector<std::string>* all[] = {&lists.targetDtypeOps, &lists.fp32Ops, &lists.widestDtypeOps,
                                             &lists.neutralOps};
    for (int a = 0; a < 4; ++a) {
        for (const std::string& op : *all[a]) {
            for (int b = 0; b < 4; ++b) {
                if (count(*all[b], op) != (a == b ? 1 : 0)) {
                    return QStringLiteral("%1 in lists %2 and %3")
                        .arg(QString::fromStdString(op))
                        .arg(a)
                        .arg(b);
                }
            }
        }
    }
    const auto overlaps = lists.overlapErrors();
    return overlaps.empty() ? QString() : QString::fromStdString(overlaps.front());
}

}  // namespace

class TestConversionSettings : public QObject {
    Q_OBJECT
private slots:
    void startsWithMxnetFloat16DefaultsTyped() {
        ConversionSettings settings;
        ConversionOptions expected;
        expected.lists = AmpLists::defaults(DType::F16);
        COMPARE_OPTIONS(settings.options(), expected);
        QCOMPARE(settings.options().mode, ConversionMode::Typed);
        QCOMPARE(settings.undoStack()->count(), 0);
        QCOMPARE(settings.listOf(QStringLiteral("FullyConnected")), OpList::Target);
        QCOMPARE(settings.listOf(QStringLiteral("exp")), OpList::Fp32);
        QCOMPARE(settings.listOf(QStringLiteral("Concat")), OpList::Widest);
        QCOMPARE(settings.listOf(QStringLiteral("relu")), OpList::Neutral);
        QCOMPARE(settings.listOf(QStringLiteral("Activation")), OpList::None);
        QVERIFY(settings.isConditional(QStringLiteral("Activation")));
    }

    // Each edit: changed() once, one undo step with a text saying what it does; undo restores the
    // exact previous options, redo re-applies.
    void everyEditIsOneUndoStep_data() {
        QTest::addColumn<Edit>("edit");
        QTest::addColumn<QString>("undoText");
        const QString newOp = opInNoList();
        QTest::newRow("target bfloat16")
            << Edit([](ConversionSettings& s) { s.setTargetDtype(DType::BF16); }) << "Target bfloat16";
        QTest::newRow("classic mode")
            << Edit([](ConversionSettings& s) { s.setMode(ConversionMode::Classic); }) << "Classic mode";
        QTest::newRow("cast optional params")
            << Edit([](ConversionSettings& s) { s.setCastOptionalParams(true); })
            << "Turn on cast optional params";
        QTest::newRow("move FullyConnected to FP32")
            << Edit([](ConversionSettings& s) { s.moveOp(QStringLiteral("FullyConnected"), OpList::Fp32); })
            << "Move FullyConnected to FP32 ops";
        QTest::newRow("move exp to FP16")
            << Edit([](ConversionSettings& s) { s.moveOp(QStringLiteral("exp"), OpList::Target); })
            << "Move exp to FP16 ops";
        QTest::newRow("remove relu") << Edit([](ConversionSettings& s) {
            s.moveOp(QStringLiteral("relu"), OpList::None);
        }) << "Remove relu from neutral ops";
        QTest::newRow("add an op in no list")
            << Edit([newOp](ConversionSettings& s) { s.moveOp(newOp, OpList::Widest); })
            << QStringLiteral("Add %1 to widest-type ops").arg(newOp);
        QTest::newRow("move two ops") << Edit([](ConversionSettings& s) {
            s.moveOps({QStringLiteral("exp"), QStringLiteral("log")}, OpList::Neutral);
        }) << "Move 2 ops to neutral ops";
        QTest::newRow("exclude fc1") << Edit([](ConversionSettings& s) {
            s.setExcluded(QStringLiteral("fc1"), true);
        }) << "Exclude fc1";
        QTest::newRow("excluded set") << Edit([](ConversionSettings& s) {
            s.setExcludedNodes({QStringLiteral("conv0"), QStringLiteral("fc1"), QStringLiteral("fc2")});
        }) << "Exclude fc1, fc2";
        QTest::newRow("conditional rows") << Edit([](ConversionSettings& s) {
            auto rows = s.options().lists.conditionalFp32Ops;
            rows.push_back({"Pooling", "pool_type", {"lp"}});
            QVERIFY(s.setConditionalFp32(rows));
        }) << "Edit conditional FP32 ops";
        QTest::newRow("add conditional row") << Edit([](ConversionSettings& s) {
            s.addConditionalFp32({"FullyConnected", "no_bias", {"True"}});
        }) << "Add FullyConnected to conditional FP32 ops";
        QTest::newRow("preset") << Edit([](ConversionSettings& s) {
            QVERIFY(s.applyLists(AmpLists::defaults(DType::BF16),
                                 QStringLiteral("Load preset MXNet 1.9.1 bfloat16")));
        }) << "Load preset MXNet 1.9.1 bfloat16";
        QTest::newRow("generic edit") << Edit([](ConversionSettings& s) {
            ConversionOptions o = s.options();
            o.dataNames = {"data", "label"};
            s.edit(o, QStringLiteral("Data inputs data, label"));
        }) << "Data inputs data, label";
    }
    void everyEditIsOneUndoStep() {
        QFETCH(Edit, edit);
        QFETCH(QString, undoText);
        ConversionSettings settings;
        settings.setExcluded(QStringLiteral("conv0"), true);  // something to keep through the edit
        const ConversionOptions before = settings.options();
        QSignalSpy changed(&settings, &ConversionSettings::changed);
        QUndoStack* stack = settings.undoStack();
        const int steps = stack->count();

        edit(settings);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(stack->count(), steps + 1);
        QCOMPARE(stack->undoText(), undoText);
        QVERIFY(!difference(settings.options(), before).isEmpty());
        QVERIFY2(disjointnessProblem(settings.options().lists).isEmpty(),
                 qPrintable(disjointnessProblem(settings.options().lists)));
        const ConversionOptions after = settings.options();

        stack->undo();
        QCOMPARE(changed.count(), 2);
        COMPARE_OPTIONS(settings.options(), before);
        stack->redo();
        QCOMPARE(changed.count(), 3);
        COMPARE_OPTIONS(settings.options(), after);
    }

    void noOpEditPushesNothing() {
        ConversionSettings settings;
        QSignalSpy changed(&settings, &ConversionSettings::changed);
        settings.moveOp(QStringLiteral("FullyConnected"), OpList::Target);  // already there
        settings.moveOp(QStringLiteral("NoSuchOp"), OpList::None);          // in no list
        settings.setMode(ConversionMode::Typed);
        settings.setTargetDtype(DType::F16);
        settings.setTargetDtype(DType::F32);  // not a target dtype
        settings.setCastOptionalParams(false);
        settings.setExcluded(QStringLiteral("fc1"), false);
        settings.setExcludedNodes({});
        settings.edit(settings.options(), QStringLiteral("nothing"));
        QVERIFY(settings.setConditionalFp32(settings.options().lists.conditionalFp32Ops));
        QVERIFY(settings.applyLists(AmpLists::defaults(DType::F16), QStringLiteral("Load preset")));
        QCOMPARE(changed.count(), 0);
        QCOMPARE(settings.undoStack()->count(), 0);
    }

    // Rows are real ops of MXNet 1.9.1's lists, moved between lists of the same dtype.
    void moveOpKeepsListsDisjoint_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("from");
        QTest::addColumn<int>("to");
        QTest::addColumn<QString>("undoText");
        const auto F16 = int(DType::F16);
        const auto BF16 = int(DType::BF16);
        QTest::newRow("f16 FullyConnected target->fp32")
            << F16 << "FullyConnected" << int(OpList::Target) << int(OpList::Fp32)
            << "Move FullyConnected to FP32 ops";
        QTest::newRow("f16 RNN target->widest")
            << F16 << "RNN" << int(OpList::Target) << int(OpList::Widest) << "Move RNN to widest-type ops";
        QTest::newRow("f16 softmax fp32->target")
            << F16 << "softmax" << int(OpList::Fp32) << int(OpList::Target) << "Move softmax to FP16 ops";
        QTest::newRow("f16 LayerNorm fp32->neutral")
            << F16 << "LayerNorm" << int(OpList::Fp32) << int(OpList::Neutral)
            << "Move LayerNorm to neutral ops";
        QTest::newRow("f16 Concat widest->fp32")
            << F16 << "Concat" << int(OpList::Widest) << int(OpList::Fp32) << "Move Concat to FP32 ops";
        QTest::newRow("f16 _Plus (alias) widest->neutral")
            << F16 << "_Plus" << int(OpList::Widest) << int(OpList::Neutral) << "Move _Plus to neutral ops";
        QTest::newRow("f16 BatchNorm neutral->fp32") << F16 << "BatchNorm" << int(OpList::Neutral)
                                                     << int(OpList::Fp32) << "Move BatchNorm to FP32 ops";
        QTest::newRow("f16 Pooling neutral->target")
            << F16 << "Pooling" << int(OpList::Neutral) << int(OpList::Target) << "Move Pooling to FP16 ops";
        QTest::newRow("f16 exp fp32->none")
            << F16 << "exp" << int(OpList::Fp32) << int(OpList::None) << "Remove exp from FP32 ops";
        QTest::newRow("f16 Activation (conditional)->target")
            << F16 << "Activation" << int(OpList::None) << int(OpList::Target)
            << "Add Activation to FP16 ops";
        QTest::newRow("f16 LeakyReLU (conditional)->fp32")
            << F16 << "LeakyReLU" << int(OpList::None) << int(OpList::Fp32) << "Add LeakyReLU to FP32 ops";
        QTest::newRow("bf16 Convolution target->fp32") << BF16 << "Convolution" << int(OpList::Target)
                                                       << int(OpList::Fp32) << "Move Convolution to FP32 ops";
        QTest::newRow("bf16 Flatten fp32->neutral") << BF16 << "Flatten" << int(OpList::Fp32)
                                                    << int(OpList::Neutral) << "Move Flatten to neutral ops";
        QTest::newRow("bf16 Deconvolution fp32->target")
            << BF16 << "Deconvolution" << int(OpList::Fp32) << int(OpList::Target)
            << "Move Deconvolution to BF16 ops";
        QTest::newRow("bf16 Concat neutral->widest")
            << BF16 << "Concat" << int(OpList::Neutral) << int(OpList::Widest)
            << "Move Concat to widest-type ops";
    }
    void moveOpKeepsListsDisjoint() {
        QFETCH(int, dtype);
        QFETCH(QString, op);
        QFETCH(int, from);
        QFETCH(int, to);
        QFETCH(QString, undoText);
        ConversionSettings settings;
        settings.setTargetDtype(DType(dtype));
        QCOMPARE(int(settings.listOf(op)), from);
        const ConversionOptions before = settings.options();

        settings.moveOp(op, OpList(to));
        QCOMPARE(int(settings.listOf(op)), to);
        QCOMPARE(settings.undoStack()->undoText(), undoText);
        const AmpLists& lists = settings.options().lists;
        QVERIFY2(disjointnessProblem(lists).isEmpty(), qPrintable(disjointnessProblem(lists)));
        if (OpList(to) == OpList::Target || OpList(to) == OpList::Fp32) {
            QVERIFY(!settings.isConditional(op));  // resolved, not an overlap
        }
        // Nothing else moved: the total shrinks or grows by one at most.
        const auto total = [](const AmpLists& l) {
            return l.targetDtypeOps.size() + l.fp32Ops.size() + l.widestDtypeOps.size() + l.neutralOps.size();
        };
        const auto expectedTotal =
            total(before.lists) + (from == int(OpList::None) ? 1 : 0) - (to == int(OpList::None) ? 1 : 0);
        QCOMPARE(total(lists), expectedTotal);

        settings.undoStack()->undo();
        COMPARE_OPTIONS(settings.options(), before);
    }

    // Every op of every list moved once to the next list: still disjoint, nothing lost, and undoing
    // all of it gives MXNet's lists back exactly.
    void moveEveryListedOpThenUndoAll() {
        ConversionSettings settings;
        const ConversionOptions start = settings.options();
        const AmpLists& lists = start.lists;
        const OpList next[] = {OpList::Fp32, OpList::Widest, OpList::Neutral, OpList::Target};
        int moves = 0;
        for (const auto& [list, ops] :
             {std::pair{0, &lists.targetDtypeOps}, std::pair{1, &lists.fp32Ops},
              std::pair{2, &lists.widestDtypeOps}, std::pair{3, &lists.neutralOps}}) {
            for (const std::string& op : *ops) {
                settings.moveOp(QString::fromStdString(op), next[list]);
                ++moves;
            }
        }
        QVERIFY2(disjointnessProblem(settings.options().lists).isEmpty(),
                 qPrintable(disjointnessProblem(settings.options().lists)));
        const AmpLists& moved = settings.options().lists;
        QCOMPARE(moved.fp32Ops.size(), lists.targetDtypeOps.size());
        QCOMPARE(moved.widestDtypeOps.size(), lists.fp32Ops.size());
        QCOMPARE(moved.neutralOps.size(), lists.widestDtypeOps.size());
        QCOMPARE(moved.targetDtypeOps.size(), lists.neutralOps.size());
        QCOMPARE(settings.undoStack()->count(), moves);
        settings.undoStack()->setIndex(0);
        COMPARE_OPTIONS(settings.options(), start);
    }

    void excludeAndInclude() {
        ConversionSettings settings;
        QSignalSpy changed(&settings, &ConversionSettings::changed);
        settings.setExcluded(QStringLiteral("fc1"), true);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Exclude fc1"));
        QVERIFY(settings.options().excludedSymNames.contains("fc1"));
        settings.setExcluded(QStringLiteral("fc1"), false);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Include fc1"));
        QVERIFY(settings.options().excludedSymNames.empty());
        settings.undoStack()->undo();
        QVERIFY(settings.options().excludedSymNames.contains("fc1"));
        settings.undoStack()->undo();
        QVERIFY(settings.options().excludedSymNames.empty());
        QCOMPARE(changed.count(), 4);

        settings.setExcludedNodes(
            {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")});
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Exclude 4 nodes"));
        settings.setExcludedNodes({QStringLiteral("a"), QStringLiteral("b")});
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Include c, d"));
        settings.setExcludedNodes({QStringLiteral("a"), QStringLiteral("e")});
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Edit excluded nodes"));
        QCOMPARE(settings.options().excludedSymNames, (std::set<std::string>{"a", "e"}));
    }

    void targetSwitchOnDefaultsSwapsLists() {
        ConversionSettings settings;
        settings.setTargetDtype(DType::BF16);
        QVERIFY(sameListContent(settings.options().lists, AmpLists::defaults(DType::BF16)));
        QCOMPARE(settings.listOf(QStringLiteral("Flatten")), OpList::Fp32);  // neutral in float16
        settings.setTargetDtype(DType::F16);
        QVERIFY(sameListContent(settings.options().lists, AmpLists::defaults(DType::F16)));
        settings.undoStack()->undo();
        settings.undoStack()->undo();
        QVERIFY(settings.options().lists == AmpLists::defaults(DType::F16));
    }

    // Defaults in another order are still the defaults (a move there and back).
    void targetSwitchRecognisesReorderedDefaults() {
        ConversionSettings settings;
        settings.moveOp(QStringLiteral("FullyConnected"), OpList::Fp32);
        settings.moveOp(QStringLiteral("FullyConnected"), OpList::Target);
        QVERIFY(!(settings.options().lists == AmpLists::defaults(DType::F16)));  // order differs
        settings.setTargetDtype(DType::BF16);
        QVERIFY(sameListContent(settings.options().lists, AmpLists::defaults(DType::BF16)));
    }

    void targetSwitchKeepsEditedLists() {
        ConversionSettings settings;
        settings.moveOp(QStringLiteral("exp"), OpList::Neutral);
        const AmpLists edited = settings.options().lists;
        settings.setTargetDtype(DType::BF16);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Target bfloat16"));
        const AmpLists& lists = settings.options().lists;
        QCOMPARE(lists.targetDtype, DType::BF16);
        QCOMPARE(lists.targetDtypeOps, edited.targetDtypeOps);
        QCOMPARE(lists.fp32Ops, edited.fp32Ops);
        QCOMPARE(lists.neutralOps, edited.neutralOps);
        QCOMPARE(settings.listOf(QStringLiteral("exp")), OpList::Neutral);
        QCOMPARE(settings.listName(OpList::Target), QStringLiteral("BF16 ops"));
    }

    void conditionalOverlapIsImpossible() {
        ConversionSettings settings;
        // A replacement that would put FullyConnected (a target op) in conditional is refused.
        auto rows = settings.options().lists.conditionalFp32Ops;
        rows.push_back({"FullyConnected", "no_bias", {"True"}});
        QVERIFY(!settings.setConditionalFp32(rows));
        QCOMPARE(settings.undoStack()->count(), 0);
        QVERIFY(!settings.isConditional(QStringLiteral("FullyConnected")));
        // So are overlapping lists.
        AmpLists overlapping = AmpLists::defaults(DType::F16);
        overlapping.fp32Ops.push_back("FullyConnected");
        QVERIFY(!settings.applyLists(overlapping, QStringLiteral("Import bad.json")));
        QCOMPARE(settings.undoStack()->count(), 0);

        // An explicit add resolves: the op leaves the target list in the same step.
        settings.addConditionalFp32({"FullyConnected", "no_bias", {"True"}});
        QCOMPARE(settings.listOf(QStringLiteral("FullyConnected")), OpList::None);
        QVERIFY(settings.isConditional(QStringLiteral("FullyConnected")));
        QVERIFY(settings.options().lists.overlapErrors().empty());
        // And so does an explicit move back.
        settings.moveOp(QStringLiteral("FullyConnected"), OpList::Target);
        QVERIFY(!settings.isConditional(QStringLiteral("FullyConnected")));
        QVERIFY(settings.options().lists.overlapErrors().empty());
        // Moving a conditional op to widest or neutral keeps its rows: no overlap there.
        settings.moveOp(QStringLiteral("Activation"), OpList::Neutral);
        QVERIFY(settings.isConditional(QStringLiteral("Activation")));
        QVERIFY(settings.options().lists.overlapErrors().empty());
        settings.undoStack()->setIndex(0);
        QVERIFY(settings.options().lists == AmpLists::defaults(DType::F16));
    }

    void resetOptionsClearsTheStack() {
        ConversionSettings settings;
        settings.setMode(ConversionMode::Classic);
        settings.moveOp(QStringLiteral("exp"), OpList::Target);
        QCOMPARE(settings.undoStack()->count(), 2);
        QSignalSpy changed(&settings, &ConversionSettings::changed);
        ConversionOptions fresh;
        fresh.excludedSymNames = {"fc3"};
        settings.resetOptions(fresh);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(settings.undoStack()->count(), 0);
        COMPARE_OPTIONS(settings.options(), fresh);
    }
};

int main(int argc, char** argv) {
    // Offscreen at 96 DPI, whatever the desktop.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    qputenv("QT_FONT_DPI", "96");
    QGuiApplication app(argc, argv);
    TestConversionSettings test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_conversion_settings.moc"
