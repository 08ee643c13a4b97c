#pragma once
// The precision debugger as the GUI runs it: one measurement (the float32 reference, the conversion
// run, every node's error, own error and range) or one search for the float32 set, on a worker
// thread (engine's exec/precision_search). The worker writes its progress into a mutex-guarded
// record that a 100 ms timer on the GUI thread turns into progressChanged(), so a fast search does
// not flood the event loop. stop() is cooperative: the search ends after the current attempt and
// its best set so far still arrives in finished().

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "amp/conversion.h"
#include "backend/backend.h"
#include "exec/precision_search.h"
#include "formats/model_file.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "job_tracker.h"
#include "train/calibration_inputs.h"

struct PrecisionRequest {
    std::shared_ptr<const ampstudio::Graph> source;
    std::shared_ptr<const ampstudio::NDArrayList> params;  // null: seeded initial values
    // The document's format source (ModelDocument::source): an ONNX model runs on the ONNX runner
    // (exec/onnx/onnx_precision_search.h), on the CPU; null for MXNet graphs.
    std::shared_ptr<const ampstudio::FormatSource> formatSource;
    ampstudio::ConversionOptions conversion;               // the conversion measured / searched from
    ampstudio::CalibrationSpec inputs;
    ampstudio::PrecisionMetric metric = ampstudio::PrecisionMetric::MaxRel;
    double tolerance = 1e-2;
    int maxAttempts = 64;
    bool search = false;  // false: measure only
    ampstudio::BackendChoice backend = ampstudio::BackendChoice::Cpu;
};

struct PrecisionProgress {
    enum class Phase { Idle, Preparing, Measuring, Searching };
    Phase phase = Phase::Idle;
    std::size_t nodesDone = 0;
    std::size_t nodesTotal = 0;
    int attempts = 0;  // conversions run, the baseline included
    std::optional<ampstudio::SearchAttempt> last;
    // The smallest set met so far (fewest nodes; the lower figure among equals).
    std::optional<ampstudio::SearchAttempt> best;
};

struct PrecisionOutcome {
    PrecisionRequest request;
    std::optional<ampstudio::PrecisionSearchResult> result;  // absent when it failed
    QString error;                                           // why it failed
    double seconds = 0.0;
};

class PrecisionRun : public QObject {
    Q_OBJECT
public:
    static constexpr int kProgressIntervalMs = 100;

    explicit PrecisionRun(QObject* parent = nullptr);
    ~PrecisionRun() override;  // stops and waits for the worker

    // False (nothing starts) while a run is going.
    bool start(PrecisionRequest request);
    void stop();
    bool isRunning() const { return m_running; }
    // Blocks until the worker is done (tests; the destructor).
    void wait();

    PrecisionProgress progress() const;
    // The last finished run (null before the first).
    std::shared_ptr<const PrecisionOutcome> outcome() const { return m_outcome; }

signals:
    void started();
    void progressChanged();
    void finished();

private:
    void deliver(std::shared_ptr<const PrecisionOutcome> outcome);

    mutable std::mutex m_mutex;
    PrecisionProgress m_progress;  // guarded by m_mutex
    std::shared_ptr<std::atomic<bool>> m_stop = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<const PrecisionOutcome> m_outcome;
    bool m_running = false;
    QTimer m_timer;
    QThreadPool m_pool;
    JobTracker m_tracker{this};
};
