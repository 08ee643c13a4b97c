#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>

#include "formats/load_error.h"
#include "formats/symbol_json.h"
#include "node_table_model.h"

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_model(new NodeTableModel(this)), m_table(new QTableView(this)) {
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    setCentralWidget(m_table);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open an MXNet symbol file (*-symbol.json)"));
    QAction* demo = file->addAction(tr("Open &Example (MLP)"), this, &MainWindow::openDemo);
    demo->setStatusTip(tr("Open the bundled three-layer MLP"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    setWindowTitle(tr("AMP Studio"));
    resize(900, 600);
}

bool MainWindow::openFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        reportLoadFailure(tr("%1: %2").arg(path, file.errorString()));
        return false;
    }
    return showSymbolJson(file.readAll(), path);
}

bool MainWindow::openDemo() {
    QFile file(QStringLiteral(":/examples/mlp-symbol.json"));
    file.open(QIODevice::ReadOnly);
    return showSymbolJson(file.readAll(), tr("MLP example"));
}

bool MainWindow::showSymbolJson(const QByteArray& text, const QString& displayName) {
    try {
        m_model->setGraph(ampstudio::parseSymbolJson(std::string_view(text.constData(), std::size_t(text.size())),
                                                     displayName.toStdString()));
    } catch (const ampstudio::LoadError& e) {
        reportLoadFailure(QString::fromStdString(e.what()));
        return false;
    }
    m_table->resizeColumnsToContents();
    const auto& graph = m_model->graph();
    const auto variables = graph.argNodes().size();
    statusBar()->showMessage(tr("%1: %2 nodes (%3 operators, %4 variables)")
                                 .arg(QFileInfo(displayName).fileName())
                                 .arg(graph.size())
                                 .arg(graph.size() - variables)
                                 .arg(variables));
    setWindowTitle(tr("%1 — AMP Studio").arg(QFileInfo(displayName).fileName()));
    return true;
}

void MainWindow::reportLoadFailure(const QString& message) {
    emit loadFailed(message);
    // Window-modal and non-blocking: the current document stays usable behind it, and nothing
    // spins a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open model"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

void MainWindow::chooseAndOpen() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Model"), {}, tr("MXNet symbol (*-symbol.json *.json)"));
    if (!path.isEmpty()) {
        openFile(path);
    }
}
