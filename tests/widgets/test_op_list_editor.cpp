// The op-list editor as a user drives it: the add field, Move to, Remove, the conditional table,
// presets, import and export; and its models under QAbstractItemModelTester while being edited.
// Set AMS_SCREENSHOT_DIR to also write op-list-editor.png (350 x 700) there.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBox>
#include <QUndoStack>
#include <QtTest>

#include <fstream>

#include "conditional_fp32_model.h"
#include "conversion_settings.h"
#include "op_list_editor.h"
#include "op_list_model.h"

using namespace ampstudio;
using Page = OpListEditor::Page;

namespace {

QStringList sortedNames(QStringList names) {
    std::sort(names.begin(), names.end(), OpListModel::lessThan);
    return names;
}

QStringList toQStringList(const std::vector<std::string>& names) {
    QStringList list;
    for (const std::string& n : names) {
        list << QString::fromStdString(n);
    }
    return list;
}

void writeFile(const QString& path, const std::string& text) {
    std::ofstream out(QFile::encodeName(path).toStdString(), std::ios::binary);
    out << text;
}

// Selects `names` (and only them) in `view`, whose model is a proxy over an OpListModel.
void select(QListView* view, const QStringList& names) {
    view->clearSelection();
    QAbstractItemModel* model = view->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, 0);
        if (names.contains(index.data().toString())) {
            view->selectionModel()->select(index, QItemSelectionModel::Select);
        }
    }
}

QAction* moveAction(OpListEditor& editor, OpList to) {
    for (QAction* action : editor.findChild<QPushButton*>(QStringLiteral("moveButton"))->menu()->actions()) {
        if (OpList(action->data().toInt()) == to) {
            return action;
        }
    }
    return nullptr;
}

// MXNet's float16 lists with one op added to a second list, as a hand-edited file would have it.
std::string overlappingListsJson() {
    AmpLists lists = AmpLists::defaults(DType::F16);
    lists.fp32Ops.push_back("FullyConnected");
    return lists.toJson();
}

}  // namespace

class TestOpListEditor : public QObject {
    Q_OBJECT
private slots:
    // --- the models ---

    void opListModelFollowsNamesUnderTester() {
        OpListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QList<QStringList> sequence = {
            {},      {"relu", "Activation"},           {"_contrib_X", "Activation", "relu", "exp"},
            {"exp"}, {"exp", "exp", "FullyConnected"},  // duplicates stay
            {},
        };
        for (const QStringList& names : sequence) {
            model.setNames(names);
            QCOMPARE(model.names(), sortedNames(names));
            QCOMPARE(model.rowCount(), names.size());
        }
        // A wholesale change (a preset) and back.
        model.setNames(toQStringList(AmpLists::defaults(DType::F16).neutralOps));
        model.setNames(toQStringList(AmpLists::defaults(DType::BF16).neutralOps));
        QCOMPARE(model.names(), sortedNames(toQStringList(AmpLists::defaults(DType::BF16).neutralOps)));
    }

    void opListModelMarksAliasesAndUnknownNames() {
        OpListModel model;
        model.setNames({"_Plus", "FullyConnected", "NoSuchOp"});
        QCOMPARE(model.names(), (QStringList{"_Plus", "FullyConnected", "NoSuchOp"}));
        QCOMPARE(model.index(0).data(OpListModel::CanonicalNameRole).toString(),
                 QStringLiteral("elemwise_add"));
        QVERIFY(model.index(0).data(OpListModel::UnmatchableRole).toBool());
        QVERIFY(model.index(0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("alias of elemwise_add")));
        QVERIFY(!model.index(1).data(OpListModel::UnmatchableRole).toBool());
        QVERIFY(model.index(2).data(OpListModel::UnmatchableRole).toBool());
        model.setMarkUnmatchable(false);  // node names
        QVERIFY(!model.index(2).data(OpListModel::UnmatchableRole).toBool());
    }

    // An edit elsewhere in the list does not lose the user's selection.
    void opListModelKeepsSelection() {
        OpListModel model;
        model.setNames({"exp", "log", "sqrt"});
        QListView view;
        view.setModel(&model);
        view.selectionModel()->select(model.index(1), QItemSelectionModel::Select);  // log
        model.setNames({"abs", "exp", "log", "sqrt", "tan"});
        model.setNames({"abs", "log", "tan"});
        const QModelIndexList selected = view.selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.front().data().toString(), QStringLiteral("log"));
    }

    void conditionalModelUnderTesterWhileEdited() {
        ConversionSettings settings;
        ConditionalFp32Model model(&settings);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy rejected(&model, &ConditionalFp32Model::editRejected);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, ConditionalFp32Model::OpColumn).data().toString(),
                 QStringLiteral("Activation"));
        QCOMPARE(model.index(1, ConditionalFp32Model::ValuesColumn).data().toString(),
                 QStringLiteral("elu, selu"));

        // Cell edits change the options, one undo step each.
        QVERIFY(model.setData(model.index(1, ConditionalFp32Model::ValuesColumn),
                              QStringLiteral("elu, selu ,gelu,")));
        QCOMPARE(settings.options().lists.conditionalFp32Ops[1].values,
                 (std::vector<std::string>{"elu", "selu", "gelu"}));
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Edit LeakyReLU's conditional FP32 row"));
        QVERIFY(model.setData(model.index(0, ConditionalFp32Model::ParamColumn), QStringLiteral("mode")));
        QCOMPARE(settings.options().lists.conditionalFp32Ops[0].param, std::string("mode"));
        QVERIFY(model.setData(model.index(0, ConditionalFp32Model::OpColumn), QStringLiteral("Pooling")));
        QCOMPARE(settings.options().lists.conditionalFp32Ops[0].op, std::string("Pooling"));
        QCOMPARE(settings.undoStack()->count(), 3);

        // Refused: an unknown op, an op of the target list, an empty param.
        QVERIFY(!model.setData(model.index(0, ConditionalFp32Model::OpColumn), QStringLiteral("NoSuchOp")));
        QVERIFY(
            !model.setData(model.index(0, ConditionalFp32Model::OpColumn), QStringLiteral("FullyConnected")));
        QVERIFY(!model.setData(model.index(0, ConditionalFp32Model::ParamColumn), QStringLiteral("  ")));
        QCOMPARE(rejected.count(), 3);
        QVERIFY(rejected.at(1).at(0).toString().contains(QStringLiteral("FullyConnected")));
        QCOMPARE(settings.undoStack()->count(), 3);

        // Rows come and go through the settings, undo and redo; the model follows.
        settings.addConditionalFp32({"softmax", "", {}});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(2, ConditionalFp32Model::ParamColumn).data().toString(),
                 QStringLiteral("(set a parameter)"));
        QCOMPARE(model.index(2, ConditionalFp32Model::ParamColumn).data(Qt::EditRole).toString(), QString());
        settings.setConditionalFp32({settings.options().lists.conditionalFp32Ops[2]});
        QCOMPARE(model.rowCount(), 1);
        settings.undoStack()->setIndex(0);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, ConditionalFp32Model::OpColumn).data().toString(),
                 QStringLiteral("Activation"));
        settings.undoStack()->setIndex(settings.undoStack()->count());
        QCOMPARE(model.rowCount(), 1);
        settings.resetOptions({});
        QCOMPARE(model.rowCount(), 2);
    }

    // The editor's own models while the user edits through the editor.
    void editorModelsUnderTester() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (OpList list : {OpList::Target, OpList::Fp32, OpList::Widest, OpList::Neutral}) {
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                editor.opListModel(list), QAbstractItemModelTester::FailureReportingMode::QtTest));
        }
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            editor.conditionalModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            editor.excludedModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
        for (QAbstractItemView* view : editor.findChildren<QAbstractItemView*>()) {
            if (view->model()) {
                testers.push_back(std::make_unique<QAbstractItemModelTester>(
                    view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest));
            }
        }
        settings.moveOp(QStringLiteral("exp"), OpList::Target);
        settings.setExcluded(QStringLiteral("fc1"), true);
        settings.addConditionalFp32({"FullyConnected", "no_bias", {"True"}});
        editor.findChild<QLineEdit*>(QStringLiteral("filterEdit"))->setText(QStringLiteral("e"));
        settings.setTargetDtype(DType::BF16);
        settings.undoStack()->setIndex(0);
        settings.undoStack()->setIndex(settings.undoStack()->count());
        QCOMPARE(
            editor.opListModel(OpList::Target)->names(),
            (QStringList{"Convolution", "Deconvolution", "exp", "RNN"}));  // FullyConnected went conditional
    }

    // --- the editor ---

    void addingThroughTheFieldPutsTheOpInTheList_data() {
        QTest::addColumn<int>("page");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("undoText");
        QTest::addColumn<QString>("message");  // part of the message shown
        QTest::newRow("FullyConnected to FP32") << int(Page::Fp32) << "FullyConnected"
                                                << "Move FullyConnected to FP32 ops"
                                                << "Moved FullyConnected from FP16 ops to FP32 ops.";
        QTest::newRow("exp to FP16") << int(Page::Target) << "exp"
                                     << "Move exp to FP16 ops"
                                     << "Moved exp from FP32 ops";
        QTest::newRow("Activation (conditional) to FP32") << int(Page::Fp32) << "Activation"
                                                          << "Add Activation to FP32 ops"
                                                          << "conditional FP32 rows were removed";
        QTest::newRow("alias _Plus to neutral") << int(Page::Neutral) << "_Plus"
                                                << "Move _Plus to neutral ops"
                                                << "alias of elemwise_add";
        QTest::newRow("relu to widest") << int(Page::Widest) << "relu"
                                        << "Move relu to widest-type ops"
                                        << "Moved relu";
    }
    void addingThroughTheFieldPutsTheOpInTheList() {
        QFETCH(int, page);
        QFETCH(QString, op);
        QFETCH(QString, undoText);
        QFETCH(QString, message);
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        editor.setCurrentPage(Page(page));
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        field->setText(op);
        QTest::keyClick(field, Qt::Key_Return);

        QCOMPARE(int(settings.listOf(op)), page);
        QCOMPARE(settings.undoStack()->count(), 1);
        QCOMPARE(settings.undoStack()->undoText(), undoText);
        QVERIFY2(editor.message().contains(message), qPrintable(editor.message()));
        QCOMPARE(errors.count(), 0);
        QVERIFY(field->text().isEmpty());
        QVERIFY(settings.options().lists.overlapErrors().empty());
        // The new entry is the selected one.
        static const char* const kViews[] = {"targetView", "fp32View", "widestView", "neutralView"};
        const QModelIndexList selected =
            editor.findChild<QListView*>(QString::fromLatin1(kViews[page]))->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.front().data().toString(), op);
    }

    void typingAndClickingAddWorksToo() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        editor.show();
        editor.setCurrentPage(Page::Fp32);
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        QTest::keyClicks(field, QStringLiteral("Convolution"));
        QTest::mouseClick(editor.findChild<QPushButton*>(QStringLiteral("addButton")), Qt::LeftButton);
        QCOMPARE(settings.listOf(QStringLiteral("Convolution")), OpList::Fp32);
        QCOMPARE(settings.undoStack()->count(), 1);
    }

    void unknownOpIsRejected() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        editor.setCurrentPage(Page::Target);
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        field->setText(QStringLiteral("FullyConected"));
        editor.addFromField();
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.at(0).at(0).toString().contains(
            QStringLiteral("“FullyConected” is not an MXNet 1.9.1 operator")));
        QVERIFY(editor.findChild<QLabel*>(QStringLiteral("messageLabel"))->isVisibleTo(&editor));
        QCOMPARE(field->text(), QStringLiteral("FullyConected"));  // kept, to be corrected
        QCOMPARE(settings.undoStack()->count(), 0);

        field->setText(QStringLiteral("fullyconnected"));
        editor.addFromField();
        QCOMPARE(errors.count(), 2);
        QVERIFY2(errors.at(1).at(0).toString().contains(QStringLiteral("Did you mean FullyConnected?")),
                 qPrintable(errors.at(1).at(0).toString()));
        QCOMPARE(settings.undoStack()->count(), 0);
    }

    void moveToMovesTheSelectedOps() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        editor.setCurrentPage(Page::Fp32);
        auto* fp32View = editor.findChild<QListView*>(QStringLiteral("fp32View"));
        select(fp32View, {"exp", "log"});
        auto* moveButton = editor.findChild<QPushButton*>(QStringLiteral("moveButton"));
        QVERIFY(moveButton->isEnabled());
        QVERIFY(!moveAction(editor, OpList::Fp32)->isEnabled());  // not to where they are
        moveAction(editor, OpList::Neutral)->trigger();
        QCOMPARE(settings.listOf(QStringLiteral("exp")), OpList::Neutral);
        QCOMPARE(settings.listOf(QStringLiteral("log")), OpList::Neutral);
        QCOMPARE(settings.undoStack()->count(), 1);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Move 2 ops to neutral ops"));
        QVERIFY(!editor.opListModel(OpList::Fp32)->names().contains(QStringLiteral("exp")));
        QVERIFY(editor.opListModel(OpList::Neutral)->names().contains(QStringLiteral("exp")));

        // Undo is reflected in the lists.
        settings.undoStack()->undo();
        QVERIFY(editor.opListModel(OpList::Fp32)->names().contains(QStringLiteral("exp")));
        QVERIFY(!editor.opListModel(OpList::Neutral)->names().contains(QStringLiteral("exp")));
    }

    void deleteKeyRemovesTheSelection() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        editor.show();
        editor.setCurrentPage(Page::Fp32);
        auto* fp32View = editor.findChild<QListView*>(QStringLiteral("fp32View"));
        select(fp32View, {"exp"});
        QApplication::setActiveWindow(&editor);
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        fp32View->setFocus();
        QTest::keyClick(fp32View, Qt::Key_Delete);
        QCOMPARE(settings.listOf(QStringLiteral("exp")), OpList::None);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Remove exp from FP32 ops"));
    }

    void excludedNodes() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        int asked = 0;
        editor.setNodeNames([&] {
            ++asked;
            return QStringList{"relu1", "fc2", "fc1"};
        });
        QCOMPARE(asked, 0);  // not before the page that completes them shows
        editor.setCurrentPage(Page::Excluded);
        QCOMPARE(asked, 1);
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        QCOMPARE(field->completer()->model()->rowCount(), 3);
        QCOMPARE(field->completer()->model()->index(0, 0).data().toString(), QStringLiteral("fc1"));  // sorted
        field->setText(QStringLiteral("fc1"));
        editor.addFromField();
        QVERIFY(settings.options().excludedSymNames.contains("fc1"));
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Exclude fc1"));
        QCOMPARE(editor.excludedModel()->names(), QStringList{"fc1"});
        select(editor.findChild<QListView*>(QStringLiteral("excludedView")), {"fc1"});
        editor.removeSelected();
        QVERIFY(settings.options().excludedSymNames.empty());
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Include fc1"));
    }

    void conditionalRowsThroughTheEditor() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        editor.setCurrentPage(Page::Conditional);
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        field->setText(QStringLiteral("Pooling pool_type = lp, max"));
        editor.addFromField();
        const auto& rows = settings.options().lists.conditionalFp32Ops;
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[2], (ConditionalFp32Op{"Pooling", "pool_type", {"lp", "max"}}));

        // A table edit changes the options; one refused names the op.
        auto* view = editor.findChild<QTableView*>(QStringLiteral("conditionalView"));
        QAbstractItemModel* table = view->model();
        QVERIFY(table->setData(table->index(2, ConditionalFp32Model::ValuesColumn), QStringLiteral("lp")));
        QCOMPARE(settings.options().lists.conditionalFp32Ops[2].values, std::vector<std::string>{"lp"});
        QVERIFY(!table->setData(table->index(2, ConditionalFp32Model::OpColumn), QStringLiteral("exp")));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.at(0).at(0).toString().contains(QStringLiteral("exp is in FP32 ops")));
        QVERIFY(editor.message().contains(QStringLiteral("exp is in FP32 ops")));

        // Adding an op of the target list explicitly takes it out of the list.
        field->setText(QStringLiteral("FullyConnected"));
        editor.addFromField();
        QCOMPARE(settings.listOf(QStringLiteral("FullyConnected")), OpList::None);
        QVERIFY(settings.isConditional(QStringLiteral("FullyConnected")));
        QVERIFY(editor.message().contains(QStringLiteral("FullyConnected left FP16 ops")));
        QVERIFY(settings.options().lists.overlapErrors().empty());

        // Removing the selected rows.
        view->selectRow(0);
        editor.removeSelected();
        QVERIFY(!settings.isConditional(QStringLiteral("Activation")));
        QCOMPARE(settings.undoStack()->undoText(),
                 QStringLiteral("Remove Activation from conditional FP32 ops"));
    }

    void controlsEditTheSettings() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        editor.show();
        auto* dtype = editor.findChild<QComboBox*>(QStringLiteral("targetDtypeCombo"));
        QTest::keyClick(dtype, Qt::Key_Down);
        QCOMPARE(settings.options().lists.targetDtype, DType::BF16);
        QVERIFY(sameListContent(settings.options().lists, AmpLists::defaults(DType::BF16)));
        auto* mode = editor.findChild<QComboBox*>(QStringLiteral("modeCombo"));
        QTest::keyClick(mode, Qt::Key_Down);
        QCOMPARE(settings.options().mode, ConversionMode::Classic);
        auto* cast = editor.findChild<QCheckBox*>(QStringLiteral("castOptionalParamsCheck"));
        QVERIFY(!cast->isEnabled());  // classic mode ignores it
        settings.undoStack()->undo();
        QCOMPARE(mode->currentText(), QStringLiteral("typed"));
        QVERIFY(cast->isEnabled());
        QTest::mouseClick(cast, Qt::LeftButton);
        QVERIFY(settings.options().castOptionalParams);
        settings.undoStack()->setIndex(0);
        QCOMPARE(dtype->currentText(), QStringLiteral("float16"));
        QVERIFY(!cast->isChecked());
    }

    void titlesShowCounts() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        auto* box = editor.findChild<QToolBox*>(QStringLiteral("lists"));
        const AmpLists lists = settings.options().lists;
        QCOMPARE(box->itemText(int(Page::Target)),
                 QStringLiteral("FP16 ops (%1)").arg(lists.targetDtypeOps.size()));
        QCOMPARE(box->itemText(int(Page::Fp32)), QStringLiteral("FP32 ops (%1)").arg(lists.fp32Ops.size()));
        QCOMPARE(box->itemText(int(Page::Conditional)), QStringLiteral("Conditional FP32 ops (2)"));
        QCOMPARE(box->itemText(int(Page::Excluded)), QStringLiteral("Excluded nodes (0)"));
        editor.findChild<QLineEdit*>(QStringLiteral("filterEdit"))->setText(QStringLiteral("sparse_exp"));
        QCOMPARE(box->itemText(int(Page::Fp32)),
                 QStringLiteral("FP32 ops (2 of %1)").arg(lists.fp32Ops.size()));
        settings.moveOp(QStringLiteral("exp"), OpList::Target);
        QCOMPARE(box->itemText(int(Page::Fp32)),
                 QStringLiteral("FP32 ops (2 of %1)").arg(lists.fp32Ops.size() - 1));
        settings.setTargetDtype(DType::BF16);  // edited lists: only the target changes
        QCOMPARE(box->itemText(int(Page::Target)), QStringLiteral("BF16 ops (0 of 5)"));
    }

    void presets() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        auto* combo = editor.findChild<QComboBox*>(QStringLiteral("presetCombo"));
        QCOMPARE(combo->currentText(), QStringLiteral("MXNet 1.9.1 float16"));
        emit combo->activated(1);
        QVERIFY(sameListContent(settings.options().lists, AmpLists::defaults(DType::BF16)));
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Load preset MXNet 1.9.1 bfloat16"));
        QCOMPARE(combo->currentText(), QStringLiteral("MXNet 1.9.1 bfloat16"));
        settings.moveOp(QStringLiteral("exp"), OpList::Neutral);
        QCOMPARE(combo->currentIndex(), -1);  // "Edited lists"
        settings.undoStack()->undo();
        QCOMPARE(combo->currentIndex(), 1);
    }

    // --- files ---

    void importWithAnOverlapIsRejected() {
        ConversionSettings settings;
        settings.setMode(ConversionMode::Classic);
        const ConversionOptions before = settings.options();
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("overlap.json"));
        writeFile(path, overlappingListsJson());

        QVERIFY(!editor.importFile(path));
        QCOMPARE(errors.count(), 1);
        const QString message = errors.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("overlap.json")) &&
                     message.contains(
                         QStringLiteral("\"FullyConnected\" is in both target_dtype_ops and fp32_ops")),
                 qPrintable(message));
        QCOMPARE(editor.message(), message);
        QVERIFY(settings.options().lists == before.lists);
        QCOMPARE(settings.undoStack()->count(), 1);  // the mode change only
        QVERIFY(editor.userPresets().isEmpty());
    }

    void importOfABrokenFileNamesThePlace() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        writeFile(path, "{\n  \"target_dtype\": \"float16\",\n  \"fp32_ops\": [\"exp\",\n");
        QVERIFY(!editor.importFile(path));
        QVERIFY(!editor.importFile(dir.filePath(QStringLiteral("missing.json"))));
        QCOMPARE(errors.count(), 2);
        QVERIFY2(errors.at(0).at(0).toString().contains(QStringLiteral("broken.json: line ")),
                 qPrintable(errors.at(0).at(0).toString()));
        QVERIFY(errors.at(1).at(0).toString().contains(QStringLiteral("missing.json")));
        QCOMPARE(settings.undoStack()->count(), 0);
    }

    void exportThenImportRoundTrips() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy presetsChanged(&editor, &OpListEditor::userPresetsChanged);
        settings.setTargetDtype(DType::BF16);
        settings.moveOps({QStringLiteral("Convolution"), QStringLiteral("exp")}, OpList::Neutral);
        settings.addConditionalFp32({"Pooling", "pool_type", {"lp"}});
        const AmpLists edited = settings.options().lists;

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("my-lists.json"));
        QVERIFY(editor.exportFile(path));
        QCOMPARE(AmpLists::fromJsonFile(QFile::encodeName(path).toStdString()), edited);

        settings.resetOptions({});
        QVERIFY(editor.importFile(path));
        QVERIFY(settings.options().lists == edited);
        QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("Import my-lists.json"));
        // The file is now a preset, and the combo says it is the one in use.
        QCOMPARE(editor.userPresets(), QStringList{QFileInfo(path).absoluteFilePath()});
        QVERIFY(presetsChanged.count() >= 1);
        QCOMPARE(editor.findChild<QComboBox*>(QStringLiteral("presetCombo"))->currentText(),
                 QStringLiteral("my-lists.json"));
    }

    void exportIntoAMissingFolderFails() {
        ConversionSettings settings;
        OpListEditor editor(&settings);
        QSignalSpy errors(&editor, &OpListEditor::errorOccurred);
        QTemporaryDir dir;
        QVERIFY(!editor.exportFile(dir.filePath(QStringLiteral("no/such/dir/lists.json"))));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.at(0).at(0).toString().contains(QStringLiteral("lists.json")));
    }

    // --- how it looks ---

    void screenshot() {
        const QString dir = qEnvironmentVariable("AMS_SCREENSHOT_DIR");
        if (dir.isEmpty()) {
            QSKIP("set AMS_SCREENSHOT_DIR to write op-list-editor.png");
        }
        // The style a Linux desktop without a platform theme gets (offscreen defaults to Windows).
        QApplication::setStyle(QStringLiteral("Fusion"));
        ConversionSettings settings;
        OpListEditor editor(&settings);
        editor.resize(350, 700);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.setCurrentPage(Page::Fp32);
        auto* field = editor.findChild<QLineEdit*>(QStringLiteral("addEdit"));
        field->setText(QStringLiteral("_Plus"));
        editor.addFromField();
        QTest::qWait(50);
        QVERIFY(editor.grab().save(QDir(dir).filePath(QStringLiteral("op-list-editor.png"))));
        editor.setCurrentPage(Page::Conditional);
        field->setText(QStringLiteral("softmax"));
        editor.addFromField();  // no parameter yet: the table opens its editor
        QTest::qWait(50);
        QVERIFY(editor.grab().save(QDir(dir).filePath(QStringLiteral("op-list-editor-conditional.png"))));
    }
};

int main(int argc, char** argv) {
    // Offscreen at 96 DPI, whatever the desktop: the same pixels everywhere.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    qputenv("QT_FONT_DPI", "96");
    QApplication app(argc, argv);
    TestOpListEditor test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_op_list_editor.moc"
