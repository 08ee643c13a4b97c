#pragma once
// The open document and what is derived from it: the model (symbol + parameters), the user's
// conversion settings (undoable), and the latest WorkspaceSnapshot — conversion, layouts and
// drawings, recomputed off the GUI thread (debounced) after every edit, stale results dropped.
// The main window shows it; tests drive it directly.

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <filesystem>
#include <memory>
#include <vector>

#include "conversion_settings.h"
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

    // Opens a symbol file (its *-NNNN.params sibling too) or a .params file (with its symbol). On
    // failure returns false with a message naming the file and the reason; the document is kept.
    bool openFile(const QString& path, QString* error);
    bool openExample(const ExampleModel& example, QString* error);

    bool hasDocument() const { return m_source != nullptr; }
    QString displayName() const { return m_displayName; }  // file name or example title
    QString symbolPath() const { return m_symbolPath; }     // empty for an example
    QString paramsPath() const { return m_paramsPath; }     // empty when none was loaded
    std::shared_ptr<const ampstudio::Graph> source() const { return m_source; }
    std::shared_ptr<const ampstudio::NDArrayList> params() const { return m_params; }
    // A prefix for the converted files next to the input: "dir/name-fp16" (or bf16).
    QString suggestedOutputPrefix() const;

    // The latest finished computation (null before the first); matches settings() once !isBusy().
    std::shared_ptr<const WorkspaceSnapshot> snapshot() const { return m_snapshot; }
    bool isBusy() const { return m_tracker.isRunning() || m_debounce.isActive(); }

    void setTextMetrics(const NodeTextMetrics& metrics);
    // Starts the computation at once instead of after the debounce delay.
    void recomputeNow();

    // Converts with the current settings and writes PREFIX-symbol.json (+ PREFIX-0000.params)
    // atomically, never over an input; `written` lists the files. False with a message on failure.
    bool saveConverted(const QString& prefix, QString* error, QStringList* written = nullptr);
    // The current conversion's report as JSON (the CLI's --report format), atomically.
    bool exportReport(const QString& path, QString* error);

signals:
    void documentChanged();  // a new model was opened; a snapshot follows
    void snapshotReady();    // snapshot() changed
    void busyChanged(bool busy);

private:
    bool setDocument(std::shared_ptr<const ampstudio::Graph> source, std::shared_ptr<const ampstudio::NDArrayList> params,
                     const QString& displayName, const QString& symbolPath, const QString& paramsPath);
    // The files the open model was read from: never written over (empty for an example).
    std::vector<std::filesystem::path> inputPaths() const;
    void scheduleRecompute();
    void deliver(WorkspaceSnapshot snapshot);

    ConversionSettings* m_settings;
    std::shared_ptr<const ampstudio::Graph> m_source;
    std::shared_ptr<const ampstudio::NDArrayList> m_params;
    QString m_displayName;
    QString m_symbolPath;
    QString m_paramsPath;
    std::shared_ptr<const WorkspaceSnapshot> m_snapshot;
    NodeTextMetrics m_metrics;
    QTimer m_debounce;
    QThreadPool m_pool;
    JobTracker m_tracker{this};
};
