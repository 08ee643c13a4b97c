#pragma once
// The composition root of the GUI. For now: open a model and list its nodes; the conversion
// workspace (graph views, list editor, inspector) grows here.

#include <QMainWindow>

class NodeTableModel;
class QTableView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Loads a symbol JSON file; on failure shows a dialog naming the file and the reason and keeps
    // the current document. Returns whether it loaded.
    bool openFile(const QString& path);
    // Loads the bundled MLP example.
    bool openDemo();

    const NodeTableModel* nodeModel() const { return m_model; }

signals:
    // A file failed to load; the message names the file and the reason (also shown in a dialog).
    void loadFailed(const QString& message);

private:
    void reportLoadFailure(const QString& message);
    bool showSymbolJson(const QByteArray& text, const QString& displayName);
    void chooseAndOpen();

    NodeTableModel* m_model;
    QTableView* m_table;
};
