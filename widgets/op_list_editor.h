#pragma once
// The op-list editor (the content of a dock): the conversion choices and presets on top, a filter,
// the pages (the four op lists, conditional FP32, excluded nodes, each titled with its count), the
// add / move / remove bar and a message line. It shows a ConversionSettings and edits only through
// it, so every edit is undoable and the editor never holds its own copy of the truth: it refreshes
// from the settings on changed(). The parts are views; what an edit does, and what it says about
// it, is decided here.

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <map>

#include "amp/amp_lists.h"
#include "conversion_settings.h"
#include "op_list_page.h"

class ConditionalFp32Model;
class ConversionChoicesPanel;
class OpListEditBar;
class OpListModel;
class OpListPages;
class QAbstractItemView;
class QLabel;
class QLineEdit;

class OpListEditor : public QWidget {
    Q_OBJECT
public:
    using Page = OpListPage;

    explicit OpListEditor(ConversionSettings* settings = nullptr, QWidget* parent = nullptr);

    void setSettings(ConversionSettings* settings);
    ConversionSettings* settings() const { return m_settings; }

    // Completion for the excluded-nodes page (the loaded graph's node names), asked for when that
    // page first shows.
    void setNodeNames(std::function<QStringList()> names);

    // Lists files the user imported, newest first, offered as presets (the main window keeps them
    // in QSettings).
    void setUserPresets(const QStringList& paths);
    QStringList userPresets() const { return m_userPresets; }

    Page currentPage() const;
    void setCurrentPage(Page page);

    // Reads a lists file and applies it as one undo step. A file that does not parse or whose
    // lists overlap is rejected (errorOccurred names the file and the problem) and nothing changes.
    bool importFile(const QString& path);
    // Writes the current lists (atomically) in the lists JSON schema. Reports failures with errorOccurred.
    bool exportFile(const QString& path);

    // Adds what the add field holds to the current page, as the Add button does.
    void addFromField();
    // Moves the selected ops of the current op-list page to `to` (None: removes them), one undo step.
    void moveSelected(OpList to);
    // Removes the selected entries of the current page.
    void removeSelected();

    // The models behind the pages (tests, and the main window's counts).
    OpListModel* opListModel(OpList list) const;
    ConditionalFp32Model* conditionalModel() const;
    OpListModel* excludedModel() const;

    // The message shown under the lists ("" when none).
    QString message() const;

signals:
    // An import, export or edit was refused; the message names the file or the op and the problem.
    void errorOccurred(const QString& message);
    // The user presets changed (an import added one).
    void userPresetsChanged(const QStringList& paths);

private:
    enum class MessageKind { Info, Warning, Error };

    void buildUi();
    void refresh();
    void updatePresets();
    void updateEditBar();
    void updateActions();
    void showMessage(const QString& text, MessageKind kind);
    void clearMessage();
    void reportError(const QString& message);  // shown as an error, and errorOccurred

    void addOp(const QString& op, OpList to);
    void addConditional(const QString& text);
    void addExcluded(const QString& name);
    void selectName(Page page, const QString& name);
    void applyBuiltinPreset(ampstudio::DType dtype, const QString& name);
    void applyUserPreset(const QString& path, const QString& name);
    void chooseImport();
    void chooseExport();
    bool loadListsFile(const QString& path, const QString& undoText);
    void rememberUserPreset(const QString& path, const ampstudio::AmpLists& lists);
    void showContextMenu(QAbstractItemView* view, const QPoint& pos);
    QStringList selectedNames() const;  // of the current op-list or excluded page

    QPointer<ConversionSettings> m_settings;

    ConversionChoicesPanel* m_choices = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    OpListPages* m_pages = nullptr;
    OpListEditBar* m_editBar = nullptr;
    QLabel* m_messageLabel = nullptr;

    QStringList m_userPresets;
    std::map<QString, ampstudio::AmpLists> m_userPresetLists;  // as last read, to recognise them
};
