#pragma once
// The open document and what is derived from it: the model (symbol + parameters), the user's
// conversion settings (undoable), and the latest WorkspaceSnapshot — conversion, layouts and
// drawings, recomputed off the GUI thread (debounced) after every edit, stale results dropped.
// The main window shows it; tests drive it directly.

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <memory>

#include "conversion_settings.h"
#include "formats/model_file.h"
#include "job_tracker.h"
#include "workspace_snapshot.h"

// A bundled example: the files live in the Qt resources under :/examples/.
struct ExampleModel {
    QString title;       // menu text, translated
    QString symbolPath;  // ":/examples/mlp-symbol.json"
    QString paramsPath;  // empty when the example has no parameters
};

class ConversionWorkspace : public QObject {
    Q_OBJECT
public:
    explicit ConversionWorkspace(QObject* parent = nullptr);
    ~ConversionWorkspace() override;

    static QList<ExampleModel> examples();

    ConversionSettings* settings() const { return m_settings; }

    // Opens a model file of any format model_file.h reads, its companion parameters too (for MXNet a
    // symbol file with its *-NNNN.params sibling, or a .params file with its symbol). On failure
    // returns false with a message naming the file and the reason; the document is kept.
    bool openFile(const QString& path, QString* error);
    bool openExample(const ExampleModel& example, QString* error);

    bool hasDocument() const { return m_document.graph != nullptr; }
    const ampstudio::ModelDocument& document() const { return m_document; }
    QString displayName() const;  // file name or example title
    QString symbolPath() const;   // the model file; empty for an example
    QString paramsPath() const;   // empty when none was loaded
    std::shared_ptr<const ampstudio::Graph> source() const { return m_document.graph; }
    std::shared_ptr<const ampstudio::NDArrayList> params() const { return m_document.params; }
    // A prefix for the converted files next to the input: "dir/name-fp16" (or bf16).
    QString suggestedOutputPrefix() const;

    // The latest finished computation (null before the first); matches settings() once !isBusy().
    std::shared_ptr<const WorkspaceSnapshot> snapshot() const { return m_snapshot; }
    // The snapshot for the current document and settings, finishing the pending computation first
    // when an edit has not been computed yet (it blocks then). Null without a document.
    std::shared_ptr<const WorkspaceSnapshot> currentSnapshot();
    bool isBusy() const { return m_tracker.isRunning() || m_debounce.isActive(); }

    // Stops the computation in flight (a layout stops at its next check) and any pending one; the
    // views keep the last finished snapshot. An edit, or recomputeNow(), starts a new one.
    void cancelComputation();

    // Grouping by name scope: on at first for a large model whose names have scopes. A group opens
    // one level (double-click); collapseScopeOf() closes the innermost open scope around an item.
    // Each recomputes the layouts only; the conversion is reused.
    bool isGrouped() const { return m_grouping == WorkspaceInput::Grouping::On; }
    void setGrouped(bool grouped);
    void openScope(const QString& scope);
    bool collapseScopeOf(const QString& name);

    void setTextMetrics(const NodeTextMetrics& metrics);
    // Starts the computation at once instead of after the debounce delay.
    void recomputeNow();

    // Writes the current conversion (the snapshot's, not a new one) in the model's format, e.g.
    // PREFIX-symbol.json (+ PREFIX-0000.params), atomically, never over an input; `written` lists
    // the files. False with a message on failure.
    bool saveConverted(const QString& prefix, QString* error, QStringList* written = nullptr);
    // The current conversion's report as JSON (the CLI's --report format), atomically.
    bool exportReport(const QString& path, QString* error);

signals:
    void documentChanged();  // a new model was opened; a snapshot follows
    void snapshotReady();    // snapshot() changed
    void busyChanged(bool busy);
    void stageChanged(SnapshotStage stage);  // the computation in flight began this stage
    void layoutProgress(int percent);        // how far the current stage's layout is
    // A large model just opened: its original, laid out on its own, while the conversion is laid
    // out; snapshotReady() follows with both.
    void originalLaidOut(const GraphDrawing& drawing);
    void computationCancelled();

private:
    bool setDocument(ampstudio::ModelDocument document);
    // The current snapshot's conversion, or null with `error` set (no document, conversion failed).
    std::shared_ptr<const ampstudio::ConversionResult> currentConversion(QString* error);
    void scheduleRecompute();
    void deliver(WorkspaceSnapshot snapshot);

    ConversionSettings* m_settings;
    ampstudio::ModelDocument m_document;
    std::shared_ptr<const WorkspaceSnapshot> m_snapshot;
    NodeTextMetrics m_metrics;
    QTimer m_debounce;
    QThreadPool m_pool;
    JobTracker m_tracker{this};
    quint64 m_jobSerial = 0;  // the computation whose stages the GUI shows
    WorkspaceInput::Grouping m_grouping = WorkspaceInput::Grouping::Auto;
    std::set<std::string> m_openScopes;
};
