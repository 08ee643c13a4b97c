#pragma once
// The composition root of the GUI: the conversion workspace (original and converted graph side by
// side, the op-list editor and the node inspector as docks), its menus and settings. It only wires
// widgets to the ConversionWorkspace; widgets never talk to each other directly.

#include <QMainWindow>
#include <QPointer>

#include "graph/scope_groups.h"

class ConversionWorkspace;
class GraphComparison;
class GraphView;
class NodeInspector;
class OpListEditor;
class PrecisionPanel;
class PrecisionRun;
class PrecisionTableModel;
class QActionGroup;
class QDockWidget;
class QLabel;
class QToolButton;
enum class SnapshotStage;
struct GraphDrawing;
struct WorkspaceSnapshot;
class QLineEdit;
class QMenu;
class TrainingMonitor;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a symbol file (or a .params file with its symbol); on failure shows a dialog naming the
    // file and the reason and keeps the current document. Returns whether it loaded.
    bool openFile(const QString& path);
    // Opens the first bundled example (the MLP).
    bool openDemo();
    bool openExample(int index);

    ConversionWorkspace* workspace() const { return m_workspace; }
    GraphView* beforeView() const;
    GraphView* afterView() const;
    NodeInspector* inspector() const { return m_inspector; }
    OpListEditor* listEditor() const { return m_listEditor; }
    TrainingMonitor* trainingMonitor() const { return m_training; }
    PrecisionPanel* precisionPanel() const { return m_precision; }
    GraphComparison* comparison() const { return m_comparison; }
    // The node context menu (also what a right click on a node shows); the caller owns it.
    QMenu* createNodeContextMenu(const QString& nodeName, QWidget* parent);
    // The counts shown in the status bar, as text.
    QString countsText() const;
    // Shows the Precision panel and measures the current conversion on its inputs.
    bool measurePrecision();
    QAction* saveConvertedAction() const { return m_saveAction; }

signals:
    // A file failed to load; the message names the file and the reason (also shown in a dialog).
    void loadFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createViews();
    void createDocks();
    void createActions();
    void readSettings();
    void writeSettings() const;

    void showDocument();
    void showSnapshot();
    void showBusy(bool busy);
    void showStage(SnapshotStage stage);
    void showOriginalFirst(const GraphDrawing& drawing);
    const ampstudio::ScopeGroups::Item* groupItem(const QString& name) const;
    void showGroupInInspector(const WorkspaceSnapshot& snapshot, const ampstudio::ScopeGroups& groups,
                              const ampstudio::ScopeGroups::Item& item);
    void excludeNodes(const QStringList& nodes, const QString& undoText);
    void updateInspector();
    void showErrorMarks();
    void keepInFloat32(const QStringList& nodes);
    void showNodeContextMenu(const QString& name, const QPoint& globalPos);

    void chooseAndOpen();
    void saveConverted();
    void exportReport();
    void exportView(GraphView* view);
    void showPreferences();
    void showAbout();
    void search(bool backwards);

    void addRecentFile(const QString& path);
    void updateRecentFilesMenu();
    void reportLoadFailure(const QString& message);
    void reportError(const QString& title, const QString& message);

    ConversionWorkspace* m_workspace;
    GraphComparison* m_comparison = nullptr;
    OpListEditor* m_listEditor = nullptr;
    NodeInspector* m_inspector = nullptr;
    QDockWidget* m_editorDock = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    TrainingMonitor* m_training = nullptr;
    QDockWidget* m_trainingDock = nullptr;
    PrecisionRun* m_precisionRun = nullptr;
    PrecisionTableModel* m_precisionTable = nullptr;
    PrecisionPanel* m_precision = nullptr;
    QDockWidget* m_precisionDock = nullptr;
    QAction* m_saveAction = nullptr;  // disabled while the conversion fails its dtype check
    QLabel* m_countsLabel = nullptr;
    QLabel* m_busyLabel = nullptr;
    QToolButton* m_cancelButton = nullptr;  // stops the conversion and layout in flight
    bool m_originalOnly = false;
    QString m_stageText;  // the layout stage shown, to which its progress is appended
    QAction* m_groupAction = nullptr;  // View → Group by Name Scope  // the views show showOriginalFirst()'s drawing, not a snapshot
    QLineEdit* m_searchField = nullptr;
    QMenu* m_recentMenu = nullptr;
    QActionGroup* m_paneGroup = nullptr;
    QString m_selectedName;     // synchronised across both views
    bool m_selectedInAfter = false;  // the inspector shows the converted graph's node
};
