#pragma once
// The op-list editor (the content of a dock): target dtype, mode, cast-optional-params, presets,
// import/export, and the five lists plus the excluded nodes, each page titled with its count.
// It shows a ConversionSettings and edits only through it, so every edit is undoable and the
// editor never holds its own copy of the truth: it refreshes from the settings on changed().

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <map>

#include "amp/amp_lists.h"
#include "conversion_settings.h"

class ConditionalFp32Model;
class OpListModel;
class QAbstractItemView;
class QCheckBox;
class QComboBox;
class QCompleter;
class QLabel;
class QLineEdit;
class QListView;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QStringListModel;
class QTableView;
class QToolBox;

class OpListEditor : public QWidget {
    Q_OBJECT
public:
    // The pages of the editor, in order: the four op lists (as OpList), conditional, excluded.
    enum class Page { Target, Fp32, Widest, Neutral, Conditional, Excluded };

    explicit OpListEditor(ConversionSettings* settings = nullptr, QWidget* parent = nullptr);

    void setSettings(ConversionSettings* settings);
    ConversionSettings* settings() const { return m_settings; }

    // Completion for the excluded-nodes page (the loaded graph's node names).
    void setNodeNames(const QStringList& names);

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
    ConditionalFp32Model* conditionalModel() const { return m_conditionalModel; }
    OpListModel* excludedModel() const { return m_excludedModel; }

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
    QListView* makeListView(QSortFilterProxyModel* proxy, const QString& objectName);
    void refresh();
    void updateTitles();
    void updatePresetCombo();
    void updateActions();
    void updateAddField();
    void showMessage(const QString& text, MessageKind kind);
    void clearMessage();

    void addOp(const QString& op, OpList to);
    void addConditional(const QString& text);
    void addExcluded(const QString& name);
    void presetActivated(int index);
    void chooseImport();
    void chooseExport();
    bool loadListsFile(const QString& path, const QString& undoText);
    void rememberUserPreset(const QString& path, const ampstudio::AmpLists& lists);
    void filterChanged(const QString& text);
    void showContextMenu(QAbstractItemView* view, const QPoint& pos);
    void selectName(Page page, const QString& name);

    QAbstractItemView* viewOf(Page page) const;
    QStringList selectedNames() const;  // of the current op-list or excluded page
    std::vector<int> selectedConditionalRows() const;

    QPointer<ConversionSettings> m_settings;

    QComboBox* m_dtypeCombo = nullptr;
    QComboBox* m_modeCombo = nullptr;
    QCheckBox* m_castOptionalCheck = nullptr;
    QComboBox* m_presetCombo = nullptr;
    QPushButton* m_importButton = nullptr;
    QPushButton* m_exportButton = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QToolBox* m_toolBox = nullptr;
    QLineEdit* m_addEdit = nullptr;
    QPushButton* m_addButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    QPushButton* m_moveButton = nullptr;
    QMenu* m_moveMenu = nullptr;
    QLabel* m_messageLabel = nullptr;

    OpListModel* m_opModels[4] = {};
    QSortFilterProxyModel* m_opProxies[4] = {};
    QListView* m_opViews[4] = {};
    ConditionalFp32Model* m_conditionalModel = nullptr;
    QSortFilterProxyModel* m_conditionalProxy = nullptr;
    QTableView* m_conditionalView = nullptr;
    OpListModel* m_excludedModel = nullptr;
    QSortFilterProxyModel* m_excludedProxy = nullptr;
    QListView* m_excludedView = nullptr;

    QCompleter* m_completer = nullptr;
    QStringListModel* m_opNamesModel = nullptr;
    QStringListModel* m_nodeNamesModel = nullptr;

    QStringList m_userPresets;
    std::map<QString, ampstudio::AmpLists> m_userPresetLists;  // as last read, to recognise them
};
