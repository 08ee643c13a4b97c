#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <map>

#include "app_settings.h"
#include "conversion_workspace.h"
#include "formats/model_file.h"
#include "graph_comparison.h"
#include "precision_panel.h"
#include "precision_run.h"
#include "precision_table_model.h"
#include "graph_view.h"
#include "node_context_menu.h"
#include "node_inspector.h"
#include "op_list_editor.h"
#include "preferences_dialog.h"
#include "training_monitor.h"

using namespace ampstudio;

namespace {

constexpr int kMaxRecentFiles = 8;

QString byteSize(uint64_t bytes) { return QLocale().formattedDataSize(static_cast<qint64>(bytes)); }

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

bool isModelFile(const QString& path) { return isModelFileName(std::filesystem::path(path.toStdU16String())); }

QString localModelFile(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) {
        return {};
    }
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile() && isModelFile(url.toLocalFile())) {
            return url.toLocalFile();
        }
    }
    return {};
}

// The node called `name`, or -1.
int indexOfNode(const Graph& graph, const std::string& name) {
    for (std::size_t i = 0; i < graph.size(); ++i) {
        if (graph.nodes[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_workspace(new ConversionWorkspace(this)) {
    setAcceptDrops(true);
    createViews();
    createDocks();
    createActions();

    m_countsLabel = new QLabel(this);
    m_busyLabel = new QLabel(this);
    m_cancelButton = new QToolButton(this);
    m_cancelButton->setObjectName(QStringLiteral("cancelComputation"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setToolTip(tr("Stop converting and laying out; the views keep the last finished graphs"));
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->hide();
    statusBar()->addPermanentWidget(m_busyLabel);
    statusBar()->addPermanentWidget(m_cancelButton);
    statusBar()->addPermanentWidget(m_countsLabel);

    // Node sizes follow the fonts the views draw with.
    const QFont font = m_comparison->afterView()->font();
    QFont bold = font;
    bold.setBold(true);
    NodeTextMetrics metrics;
    metrics.titleCharWidth = QFontMetricsF(bold).averageCharWidth() * 1.05;
    metrics.labelCharWidth = QFontMetricsF(font).averageCharWidth() * 1.05;
    metrics.lineHeight = QFontMetricsF(font).height();
    m_workspace->setTextMetrics(metrics);

    connect(m_workspace, &ConversionWorkspace::documentChanged, this, &MainWindow::showDocument);
    connect(m_workspace, &ConversionWorkspace::snapshotReady, this, &MainWindow::showSnapshot);
    connect(m_workspace, &ConversionWorkspace::busyChanged, this, &MainWindow::showBusy);
    connect(m_workspace, &ConversionWorkspace::stageChanged, this, &MainWindow::showStage);
    connect(m_workspace, &ConversionWorkspace::layoutProgress, this, [this](int percent) {
        if (m_stageText.isEmpty()) return;
        m_busyLabel->setText(tr("%1 %2 %").arg(m_stageText).arg(percent));
    });
    connect(m_workspace, &ConversionWorkspace::originalLaidOut, this, &MainWindow::showOriginalFirst);
    connect(m_cancelButton, &QToolButton::clicked, m_workspace, &ConversionWorkspace::cancelComputation);
    connect(m_workspace, &ConversionWorkspace::computationCancelled, this, [this] {
        statusBar()->showMessage(tr("Cancelled: the views show the last finished graphs; an edit lays them out again"),
                                 8000);
    });

    setWindowTitle(tr("AMP Studio"));
    resize(1440, 960);
    readSettings();
}

MainWindow::~MainWindow() = default;

GraphView* MainWindow::beforeView() const { return m_comparison->beforeView(); }
GraphView* MainWindow::afterView() const { return m_comparison->afterView(); }

void MainWindow::createViews() {
    m_comparison = new GraphComparison(this);
    setCentralWidget(m_comparison);
    connect(m_comparison, &GraphComparison::nodeSelected, this, [this](const QString& name, bool inAfter) {
        m_selectedName = name;
        m_selectedInAfter = inAfter;
        updateInspector();
    });
    connect(m_comparison, &GraphComparison::nodeContextMenuRequested, this, &MainWindow::showNodeContextMenu);
    connect(m_comparison, &GraphComparison::nodeActivated, this, [this](const QString& name) {
        if (groupItem(name)) m_workspace->openScope(name);
    });
}

// The selected name's item when it is a collapsed scope of the grouped view, else null.
const ScopeGroups::Item* MainWindow::groupItem(const QString& name) const {
    const auto snapshot = m_workspace->snapshot();
    const ScopeGroups* groups = snapshot ? snapshot->beforeGroups.get() : nullptr;
    if (!groups) return nullptr;
    const std::size_t at = groups->find(name.toStdString());
    return at < groups->items.size() && groups->items[at].group ? &groups->items[at] : nullptr;
}

void MainWindow::createDocks() {
    m_listEditor = new OpListEditor(m_workspace->settings(), this);
    m_editorDock = new QDockWidget(tr("Operator Lists"), this);
    m_editorDock->setObjectName(QStringLiteral("listEditorDock"));
    m_editorDock->setWidget(m_listEditor);
    addDockWidget(Qt::RightDockWidgetArea, m_editorDock);
    connect(m_listEditor, &OpListEditor::errorOccurred, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    m_listEditor->setUserPresets(QSettings().value(settings::kUserPresets).toStringList());
    connect(m_listEditor, &OpListEditor::userPresetsChanged, this,
            [](const QStringList& paths) { QSettings().setValue(settings::kUserPresets, paths); });

    m_inspector = new NodeInspector(this);
    m_inspectorDock = new QDockWidget(tr("Node Inspector"), this);
    m_inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspectorDock->setWidget(m_inspector);
    // Side by side in height: the lists and the selected node are both wanted while editing.
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    splitDockWidget(m_editorDock, m_inspectorDock, Qt::Vertical);
    resizeDocks({m_editorDock, m_inspectorDock}, {3, 2}, Qt::Vertical);
    connect(m_inspector, &NodeInspector::nodeActivated, this,
            [this](const QString& name) { m_comparison->selectNode(name, m_selectedInAfter); });

    // The training monitor under the graphs: it trains the open model, or its current conversion.
    m_training = new TrainingMonitor(this);
    m_trainingDock = new QDockWidget(tr("Training"), this);
    m_trainingDock->setObjectName(QStringLiteral("trainingDock"));
    m_trainingDock->setWidget(m_training);
    addDockWidget(Qt::BottomDockWidgetArea, m_trainingDock);
    resizeDocks({m_trainingDock}, {440}, Qt::Vertical);
    connect(m_training, &TrainingMonitor::message, this, [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    m_training->setConversion(m_workspace->settings()->options());
    // The precision debugger beside it, a tab of the same dock area: it measures the current
    // conversion, colours the converted view by error and proposes the nodes to keep in float32.
    m_precisionRun = new PrecisionRun(this);
    m_precisionTable = new PrecisionTableModel(this);
    m_precision = new PrecisionPanel(m_precisionRun, m_precisionTable, this);
    m_precisionDock = new QDockWidget(tr("Precision"), this);
    m_precisionDock->setObjectName(QStringLiteral("precisionDock"));
    m_precisionDock->setWidget(m_precision);
    addDockWidget(Qt::BottomDockWidgetArea, m_precisionDock);
    tabifyDockWidget(m_trainingDock, m_precisionDock);
    m_trainingDock->raise();
    m_precision->setConversion(m_workspace->settings()->options());
    connect(m_precision, &PrecisionPanel::resultChanged, this, &MainWindow::showErrorMarks);
    connect(m_precision, &PrecisionPanel::colourByErrorChanged, this, &MainWindow::showErrorMarks);
    connect(m_precision, &PrecisionPanel::nodeSelected, this, [this](const QString& name) { m_comparison->selectNode(name, true); });
    connect(m_precision, &PrecisionPanel::float32SetFound, this, &MainWindow::keepInFloat32);

    connect(m_workspace->settings(), &ConversionSettings::changed, this, [this] {
        m_training->setConversion(m_workspace->settings()->options());
        m_precision->setConversion(m_workspace->settings()->options());
    });
}

void MainWindow::createActions() {
    QUndoStack* undoStack = m_workspace->settings()->undoStack();

    // --- File ---
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this,
                                    &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open an MXNet model (*-symbol.json, with its *-NNNN.params when present)"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QMenu* examples = file->addMenu(tr("&Examples"));
    const auto exampleList = ConversionWorkspace::examples();
    for (int i = 0; i < exampleList.size(); ++i) {
        QAction* action = examples->addAction(exampleList[i].title, this, [this, i] { openExample(i); });
        action->setStatusTip(tr("Open the bundled example “%1”").arg(exampleList[i].title));
    }
    file->addSeparator();
    QAction* save = file->addAction(QIcon::fromTheme(QStringLiteral("document-save-as")), tr("&Save Converted…"),
                                    this, &MainWindow::saveConverted);
    save->setShortcut(QKeySequence::Save);
    save->setStatusTip(tr("Write the converted model (symbol and parameters) under a new name"));
    m_saveAction = save;
    QAction* report = file->addAction(tr("Export &Report…"), this, &MainWindow::exportReport);
    report->setStatusTip(tr("Write the conversion report (every decision and cast) as JSON"));
    QAction* exportBefore =
        file->addAction(tr("Export &Original View…"), this, [this] { exportView(m_comparison->beforeView()); });
    exportBefore->setStatusTip(tr("Save the original graph as a PNG or SVG image"));
    QAction* exportAfter =
        file->addAction(tr("Export &Converted View…"), this, [this] { exportView(m_comparison->afterView()); });
    exportAfter->setStatusTip(tr("Save the converted graph as a PNG or SVG image"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setStatusTip(tr("Quit AMP Studio"));

    // --- Edit ---
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undoStack->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(QIcon::fromTheme(QStringLiteral("edit-undo")));
    QAction* redo = undoStack->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setIcon(QIcon::fromTheme(QStringLiteral("edit-redo")));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* find = edit->addAction(tr("&Find Node…"), this, [this] {
        m_searchField->setFocus();
        m_searchField->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    find->setStatusTip(tr("Search nodes by name or operator"));
    QAction* findNext = edit->addAction(tr("Find &Next"), this, [this] { search(false); });
    findNext->setShortcut(QKeySequence::FindNext);
    QAction* findPrevious = edit->addAction(tr("Find &Previous"), this, [this] { search(true); });
    findPrevious->setShortcut(QKeySequence::FindPrevious);
    edit->addSeparator();
    QAction* preferences = edit->addAction(tr("Pr&eferences…"), this, &MainWindow::showPreferences);
    preferences->setShortcut(QKeySequence::Preferences);
    preferences->setMenuRole(QAction::PreferencesRole);

    // --- View ---
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(QIcon::fromTheme(QStringLiteral("zoom-fit-best")), tr("&Fit to View"),
                                   m_comparison, &GraphComparison::fitToView);
    fit->setShortcut(Qt::CTRL | Qt::Key_0);
    fit->setStatusTip(tr("Zoom so that the whole graph is visible"));
    QAction* zoomIn = view->addAction(QIcon::fromTheme(QStringLiteral("zoom-in")), tr("Zoom &In"), m_comparison,
                                      &GraphComparison::zoomIn);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(QIcon::fromTheme(QStringLiteral("zoom-out")), tr("Zoom &Out"), m_comparison,
                                       &GraphComparison::zoomOut);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* actualSize = view->addAction(tr("&Actual Size"), m_comparison, &GraphComparison::resetZoom);
    actualSize->setShortcut(Qt::CTRL | Qt::Key_1);
    view->addSeparator();
    m_paneGroup = new QActionGroup(this);
    const auto addPaneAction = [&](const QString& text, const QKeySequence& key, bool before, bool after) {
        QAction* action = view->addAction(text, this, [this, before, after] { m_comparison->showPanes(before, after); });
        action->setCheckable(true);
        action->setShortcut(key);
        m_paneGroup->addAction(action);
        return action;
    };
    addPaneAction(tr("&Both Graphs"), Qt::CTRL | Qt::SHIFT | Qt::Key_B, true, true)->setChecked(true);
    addPaneAction(tr("Original &Only"), Qt::CTRL | Qt::SHIFT | Qt::Key_O, true, false)
        ->setStatusTip(tr("Give the whole width to the original graph"));
    addPaneAction(tr("&Converted Only"), Qt::CTRL | Qt::SHIFT | Qt::Key_C, false, true)
        ->setStatusTip(tr("Give the whole width to the converted graph"));
    view->addSeparator();
    m_groupAction = view->addAction(tr("&Group by Name Scope"), this, [this](bool on) { m_workspace->setGrouped(on); });
    m_groupAction->setObjectName(QStringLiteral("groupByScope"));
    m_groupAction->setCheckable(true);
    m_groupAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    m_groupAction->setStatusTip(tr("One box per name scope (double-click opens one); on at first for large models"));
    view->addSeparator();
    view->addAction(m_editorDock->toggleViewAction());
    view->addAction(m_inspectorDock->toggleViewAction());
    QAction* training = m_trainingDock->toggleViewAction();
    training->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    view->addAction(training);
    QAction* precision = m_precisionDock->toggleViewAction();
    precision->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    view->addAction(precision);

    // --- Help ---
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About AMP Studio"), this, &MainWindow::showAbout)->setMenuRole(QAction::AboutRole);

    // --- Tool bar ---
    QToolBar* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addAction(open);
    tools->addAction(save);
    tools->addSeparator();
    tools->addAction(undo);
    tools->addAction(redo);
    tools->addSeparator();
    tools->addAction(zoomIn);
    tools->addAction(zoomOut);
    tools->addAction(fit);
    tools->addSeparator();
    m_searchField = new QLineEdit(this);
    m_searchField->setObjectName(QStringLiteral("searchField"));
    m_searchField->setPlaceholderText(tr("Find node by name or op"));
    m_searchField->setClearButtonEnabled(true);
    m_searchField->setMaximumWidth(260);
    m_searchField->setStatusTip(tr("Search both graphs; Enter jumps to the next match"));
    tools->addWidget(m_searchField);
    connect(m_searchField, &QLineEdit::textChanged, this, [this](const QString& text) {
        const GraphComparison::Matches matches = m_comparison->findNodes(text);
        if (!text.isEmpty()) {
            statusBar()->showMessage(tr("%n match(es) in the converted graph", nullptr, matches.after) +
                                         tr(", %n in the original", nullptr, matches.before),
                                     4000);
        }
    });
    connect(m_searchField, &QLineEdit::returnPressed, this, [this] { search(false); });
    tools->addAction(findPrevious);
    tools->addAction(findNext);
    findPrevious->setIcon(QIcon::fromTheme(QStringLiteral("go-up")));
    findNext->setIcon(QIcon::fromTheme(QStringLiteral("go-down")));
}

// --- opening ---

bool MainWindow::openFile(const QString& path) {
    QString error;
    if (!m_workspace->openFile(path, &error)) {
        reportLoadFailure(error);
        return false;
    }
    addRecentFile(m_workspace->symbolPath());
    return true;
}

bool MainWindow::openDemo() { return openExample(0); }

bool MainWindow::openExample(int index) {
    const auto examples = ConversionWorkspace::examples();
    if (index < 0 || index >= examples.size()) {
        return false;
    }
    QString error;
    if (!m_workspace->openExample(examples[index], &error)) {
        reportLoadFailure(error);
        return false;
    }
    return true;
}

void MainWindow::chooseAndOpen() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Model"), settings.value(settings::kLastDirectory).toString(),
        tr("Models (*-symbol.json *.json *.params *.onnx);;MXNet models (*-symbol.json *.json *.params);;"
           "ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) {
        settings.setValue(settings::kLastDirectory, QFileInfo(path).absolutePath());
        openFile(path);
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!localModelFile(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = localModelFile(event->mimeData());
    if (path.isEmpty()) {
        return;
    }
    event->acceptProposedAction();
    openFile(path);
}

void MainWindow::reportLoadFailure(const QString& message) {
    emit loadFailed(message);
    reportError(tr("Cannot open model"), message);
}

void MainWindow::reportError(const QString& title, const QString& message) {
    statusBar()->showMessage(message, 10000);
    // Window-modal and non-blocking: the current document stays usable behind it, and nothing
    // spins a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

// --- showing ---

void MainWindow::showDocument() {
    m_selectedName.clear();
    m_inspector->clear();
    m_listEditor->setNodeNames([graph = m_workspace->source()] {  // completion for exclusions
        QStringList names;
        names.reserve(static_cast<qsizetype>(graph->size()));
        for (const Node& node : graph->nodes) names.append(fromStd(node.name));
        return names;
    });
    // Trained weights are suggested beside the model as NAME-trained (an example: in the home folder).
    QString prefix = m_workspace->symbolPath();
    if (prefix.endsWith(QStringLiteral("-symbol.json"))) {
        prefix.chop(int(qstrlen("-symbol.json")));
    } else if (prefix.isEmpty()) {
        prefix = QDir::home().filePath(QFileInfo(m_workspace->displayName()).baseName().replace(QLatin1Char(' '), QLatin1Char('-')).toLower());
    }
    m_training->setModel(m_workspace->source(), m_workspace->params(), m_workspace->displayName(),
                         {m_workspace->symbolPath(), m_workspace->paramsPath()}, prefix);
    m_precision->setModel(m_workspace->source(), m_workspace->params(), m_workspace->document().source);
    setWindowTitle(tr("%1 — AMP Studio").arg(m_workspace->displayName()));
    const bool onnx = m_workspace->document().origin.format == ModelFormat::Onnx;
    const QString params = onnx ? tr("its initializers as parameters")
                           : m_workspace->paramsPath().isEmpty()
                               ? (m_workspace->params() ? tr("bundled parameters") : tr("no parameters"))
                               : QFileInfo(m_workspace->paramsPath()).fileName();
    statusBar()->showMessage(tr("Opened %1 (%2)").arg(m_workspace->displayName(), params), 5000);
}

void MainWindow::showSnapshot() {
    const auto snapshot = m_workspace->snapshot();
    if (!snapshot) {
        return;
    }
    const QString beforeHeader = tr("<b>Original</b> — %n node(s)", nullptr, int(snapshot->source->size()));
    QString afterHeader;
    if (snapshot->conversion) {
        const auto& report = snapshot->conversion->report;
        afterHeader = tr("<b>Converted</b> to %1, %2 mode — %n node(s)", nullptr, int(report.nodesAfter))
                          .arg(fromStd(dtypeName(report.targetDtype)), fromStd(conversionModeName(report.mode)));
    } else {
        afterHeader = tr("<b>Converted</b> — <span style='color:#c0392b'>cannot convert: %1</span>")
                          .arg(snapshot->error.toHtmlEscaped());
    }
    m_comparison->setOnnx(m_workspace->document().origin.format == ModelFormat::Onnx);
    const bool firstOfDocument =
        m_comparison->setDrawings(snapshot->before, snapshot->after, beforeHeader, afterHeader) || m_originalOnly;
    m_originalOnly = false;
    m_countsLabel->setText(countsText());
    {
        const QSignalBlocker quiet(m_groupAction);
        m_groupAction->setChecked(m_workspace->isGrouped());
    }
    // A conversion MXNet could not bind is shown but never saved; the reason stays in the status bar.
    const bool valid = snapshot->conversion && snapshot->conversion->report.dtypeCheck.passed;
    m_saveAction->setEnabled(valid);
    m_saveAction->setToolTip(valid || !snapshot->conversion
                                 ? QString()
                                 : tr("Cannot save: %1").arg(fromStd(snapshot->conversion->report.dtypeCheck.message)));
    if (firstOfDocument) {
        m_comparison->showStartOfGraph();
    }
    if (!m_selectedName.isEmpty()) {
        m_comparison->restoreSelection(m_selectedName);
    }
    updateInspector();
}

// The original of a large model, before its conversion is laid out: shown whole, the converted side
// empty until the snapshot comes (and lays the original out like the conversion).
void MainWindow::showOriginalFirst(const GraphDrawing& drawing) {
    m_comparison->setDrawings(drawing, GraphDrawing{},
                              tr("<b>Original</b> — %n node(s)", nullptr, int(drawing.nodes.size())),
                              tr("<b>Converted</b> — converting and laying out…"));
    m_comparison->beforeView()->fitToView();
    m_originalOnly = true;
}

QString MainWindow::countsText() const {
    const auto snapshot = m_workspace->snapshot();
    if (!snapshot || !snapshot->conversion) {
        return {};
    }
    const auto& r = snapshot->conversion->report;
    const bool onnx = m_workspace->document().origin.format == ModelFormat::Onnx;
    QString text = onnx ? tr("%1 → %2 nodes · %3 Cast · %4% of compute in %5")
                              .arg(r.nodesBefore)
                              .arg(r.nodesAfter)
                              .arg(r.ampCastCount)
                              .arg(QLocale().toString(100.0 * r.targetShare(), 'f', 0))
                              .arg(fromStd(dtypeName(r.targetDtype)))
                        : tr("%1 → %2 nodes · %3 amp_cast · %4 amp_multicast · %5% of compute in %6")
                              .arg(r.nodesBefore)
                              .arg(r.nodesAfter)
                              .arg(r.ampCastCount)
                              .arg(r.ampMulticastCount)
                              .arg(QLocale().toString(100.0 * r.targetShare(), 'f', 0))
                              .arg(fromStd(dtypeName(r.targetDtype)));
    if (r.paramsKnown) {
        text += tr(" · parameters %1 → %2").arg(byteSize(r.paramBytesBefore), byteSize(r.paramBytesAfter));
    }
    if (!r.dtypeCheck.passed) {
        text += QStringLiteral(" · <span style='color:#c0392b'>%1</span>")
                    .arg((onnx ? tr("cannot save: fails %1: %2").arg(fromStd(r.dtypeCheck.stage), fromStd(r.dtypeCheck.message))
                               : tr("cannot save: fails MXNet's dtype check: %1").arg(fromStd(r.dtypeCheck.message)))
                             .toHtmlEscaped());
    } else if (!r.mxnetFailure.empty()) {
        text += tr(" · valid where MXNet 1.9.1's own result is not: %n input(s) wired differently", nullptr,
                   int(r.mxnetDifferences.size()));
        text += tr(", %n parameter(s) stored in another dtype (see the report)", nullptr,
                   int(r.mxnetParamDifferences.size()));
    }
    return text;
}

void MainWindow::showBusy(bool busy) {
    m_stageText.clear();
    m_busyLabel->setText(busy ? tr("Converting…") : QString());
    m_cancelButton->setVisible(busy);
}

void MainWindow::showStage(SnapshotStage stage) {
    m_stageText.clear();  // only the layouts report how far they are
    switch (stage) {
        case SnapshotStage::Converting: m_busyLabel->setText(tr("Converting…")); break;
        case SnapshotStage::LayingOutConverted: m_stageText = tr("Laying out the converted graph…"); break;
        case SnapshotStage::LayingOutOriginal: m_stageText = tr("Laying out the original graph…"); break;
        case SnapshotStage::Drawing: m_busyLabel->setText(tr("Drawing…")); break;
    }
    if (!m_stageText.isEmpty()) m_busyLabel->setText(m_stageText);
}

void MainWindow::updateInspector() {
    const auto snapshot = m_workspace->snapshot();
    if (!snapshot || m_selectedName.isEmpty()) {
        m_inspector->clear();
        return;
    }
    const ScopeGroups* groups = m_selectedInAfter && snapshot->afterGroups ? snapshot->afterGroups.get()
                                                                          : snapshot->beforeGroups.get();
    if (groups) {
        const std::size_t at = groups->find(m_selectedName.toStdString());
        if (at < groups->items.size() && groups->items[at].group) {
            showGroupInInspector(*snapshot, *groups, groups->items[at]);
            return;
        }
    }
    std::shared_ptr<const ConversionIndex> index =
        m_selectedInAfter && snapshot->afterIndex ? snapshot->afterIndex : snapshot->beforeIndex;
    const std::string name = m_selectedName.toStdString();
    std::optional<NodeId> id = index->find(name);
    if (!id && index != snapshot->beforeIndex) {  // e.g. an unreachable node exists only in the original
        index = snapshot->beforeIndex;
        id = index->find(name);
    }
    m_inspector->showNode(index, id ? static_cast<int>(*id) : -1);
    const int row = m_precisionTable->rowOf(m_selectedName);
    m_inspector->showMeasuredError(m_precisionTable->profileAt(row), m_precisionTable->target(), m_precisionTable->inTarget(row));
}

void MainWindow::showGroupInInspector(const WorkspaceSnapshot& snapshot, const ScopeGroups& groups,
                                      const ScopeGroups::Item& item) {
    const bool inAfter = &groups == snapshot.afterGroups.get();
    const GraphDrawing& drawing = inAfter ? snapshot.after : snapshot.before;
    QString precision;
    QStringList mix;  // the op mix, most frequent first, then the variables
    for (const DrawnNode& node : drawing.nodes) {
        if (node.name != m_selectedName) continue;
        precision = tr("mostly %1").arg(GraphView::nodeStyleName(node.style)) + QStringLiteral(" · ") + node.label;
        int variables = 0;
        for (const auto& [op, count] : node.opCounts) {
            if (op.isEmpty()) {
                variables = count;
            } else {
                mix << QStringLiteral("%1 × %2").arg(count).arg(op);
            }
        }
        if (variables > 0) mix << tr("%n variable(s)", nullptr, variables);
    }
    m_inspector->showGroup(m_selectedName, tr("group of %n node(s)", nullptr, int(item.members.size())), precision,
                           mix.join(QStringLiteral(", ")));
}

bool MainWindow::measurePrecision() {
    m_precisionDock->show();
    m_precisionDock->raise();
    return m_precision->measure();
}

void MainWindow::showErrorMarks() {
    const auto marks = m_precision->errorMarks();
    afterView()->setErrorMarks(marks);
    m_comparison->setErrorColouring(m_precision->colourByError() && !marks.isEmpty());
    updateInspector();
}

// Nodes excluded (run in float32) as one undoable step named `undoText`.
void MainWindow::excludeNodes(const QStringList& nodes, const QString& undoText) {
    ConversionOptions options = m_workspace->settings()->options();
    for (const QString& n : nodes) options.excludedSymNames.insert(n.toStdString());
    m_workspace->settings()->edit(options, undoText);
}

void MainWindow::keepInFloat32(const QStringList& nodes) {
    excludeNodes(nodes, tr("Keep %n Node(s) in Float32", nullptr, int(nodes.size())));
    statusBar()->showMessage(tr("%n node(s) kept in float32 (the precision search's set); Undo takes them back", nullptr,
                                int(nodes.size())),
                             8000);
}

// --- node context menu ---

QMenu* MainWindow::createNodeContextMenu(const QString& nodeName, QWidget* parent) {
    const auto source = m_workspace->source();
    const int index = source ? indexOfNode(*source, nodeName.toStdString()) : -1;
    const Node* node = index >= 0 ? &source->nodes[std::size_t(index)] : nullptr;
    QMenu* menu = new NodeContextMenu(nodeName, node, m_workspace->settings(), parent);
    const QString& name = nodeName;
    if (m_workspace->isGrouped()) {
        QAction* first = menu->actions().value(0);
        if (const ScopeGroups::Item* item = groupItem(name)) {
            QAction* open = new QAction(tr("Open Group"), menu);
            open->setObjectName(QStringLiteral("openGroup"));
            connect(open, &QAction::triggered, this, [this, name] { m_workspace->openScope(name); });
            QStringList members;
            for (const NodeId n : item->members) members << QString::fromStdString(m_workspace->source()->nodes[n].name);
            QAction* exclude = new QAction(tr("Exclude Its %n Node(s)", nullptr, int(members.size())), menu);
            exclude->setObjectName(QStringLiteral("excludeGroup"));
            connect(exclude, &QAction::triggered, this, [this, members] {
                excludeNodes(members, tr("Exclude %n Node(s)", nullptr, int(members.size())));
            });
            menu->insertActions(first, {open, exclude});
        }
        QAction* collapse = new QAction(tr("Collapse Scope"), menu);
        collapse->setObjectName(QStringLiteral("collapseScope"));
        connect(collapse, &QAction::triggered, this, [this, name] { m_workspace->collapseScopeOf(name); });
        menu->insertAction(first, collapse);
        if (first) menu->insertSeparator(first);
    }
    return menu;
}

void MainWindow::showNodeContextMenu(const QString& name, const QPoint& globalPos) {
    QMenu* menu = createNodeContextMenu(name, this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(globalPos);
}

// --- saving ---

void MainWindow::saveConverted() {
    if (!m_workspace->hasDocument()) {
        return;
    }
    const QString suggested = m_workspace->suggestedOutputPrefix() + QStringLiteral("-symbol.json");
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Converted Model"), suggested, tr("MXNet symbol (*-symbol.json)"));
    if (path.isEmpty()) {
        return;
    }
    QString prefix = path;
    if (prefix.endsWith(QLatin1String("-symbol.json"))) {
        prefix.chop(int(qstrlen("-symbol.json")));
    } else if (prefix.endsWith(QLatin1String(".json"))) {
        prefix.chop(5);
    }
    QString error;
    QStringList written;
    if (!m_workspace->saveConverted(prefix, &error, &written)) {
        reportError(tr("Cannot save"), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(written.join(tr(" and "))), 8000);
}

void MainWindow::exportReport() {
    if (!m_workspace->hasDocument()) {
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Conversion Report"),
                                                      m_workspace->suggestedOutputPrefix() + QStringLiteral("-report.json"),
                                                      tr("JSON (*.json)"));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (!m_workspace->exportReport(path, &error)) {
        reportError(tr("Cannot export the report"), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 8000);
}

void MainWindow::exportView(GraphView* view) {
    const QString suffix = view == m_comparison->afterView() ? QStringLiteral("-converted") : QStringLiteral("-original");
    QString filter;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Graph Image"), m_workspace->suggestedOutputPrefix() + suffix + QStringLiteral(".png"),
        tr("PNG image (*.png);;SVG drawing (*.svg)"), &filter);
    if (path.isEmpty()) {
        return;
    }
    QString error;
    const bool svg = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
    if (!(svg ? view->exportSvg(path, &error) : view->exportPng(path, &error))) {
        reportError(tr("Cannot export the image"), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 8000);
}

// --- search, preferences, about ---

void MainWindow::search(bool backwards) {
    const QString text = m_searchField->text();
    if (text.isEmpty()) {
        return;
    }
    if (!m_comparison->selectMatch(text, backwards)) {
        statusBar()->showMessage(tr("No node matches “%1”").arg(text), 4000);
    }
}

void MainWindow::showPreferences() {
    PreferencesDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted) {
        dialog.apply();
    }
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About AMP Studio"),
                       tr("<h3>AMP Studio %1</h3><p>Converts FP32 MXNet models to mixed precision (float16, "
                          "bfloat16) as MXNet's AMP does, shows every decision, and trains with dynamic loss "
                          "scaling.</p>")
                           .arg(QApplication::applicationVersion()));
}

// --- settings ---

void MainWindow::addRecentFile(const QString& path) {
    if (path.isEmpty()) {
        return;
    }
    QSettings settings;
    QStringList files = settings::readRecentFiles(settings);
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    settings::writeRecentFiles(settings, files);
    updateRecentFilesMenu();
}

void MainWindow::updateRecentFilesMenu() {
    m_recentMenu->clear();
    QSettings settings;
    const QStringList files = settings::readRecentFiles(settings);
    for (const QString& path : files) {
        QAction* action = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
        action->setStatusTip(path);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("&Clear Menu"), this, [this] {
            QSettings s;
            settings::writeRecentFiles(s, {});
            updateRecentFilesMenu();
        });
    }
}

void MainWindow::readSettings() {
    QSettings settings;
    restoreGeometry(settings.value(settings::kGeometry).toByteArray());
    restoreState(settings.value(settings::kWindowState).toByteArray());
    m_comparison->restoreState(settings.value(settings::kSplitterState).toByteArray());
    updateRecentFilesMenu();
}

void MainWindow::writeSettings() const {
    QSettings settings;
    settings.setValue(settings::kGeometry, saveGeometry());
    settings.setValue(settings::kWindowState, saveState());
    settings.setValue(settings::kSplitterState, m_comparison->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_training->stopTraining();  // joins the engine thread; the window goes after the run
    writeSettings();
    event->accept();
}
