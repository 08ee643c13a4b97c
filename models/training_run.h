#pragma once
// One training run on its own thread, as the GUI sees it. The engine thread loads the dataset, builds
// the Trainer and trains, pushing every step into a MetricsSink; on the GUI thread a 40 ms timer
// drains the sink into the run's TrainingHistory in one batch and emits metricsArrived(), so the
// charts redraw at most 25 times a second whatever the step rate. Pause and stop are the trainer's
// cooperative ones; stop() joins the thread, and the trained weights stay for saveWeights() until
// the next start.

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "backend/backend.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "train/dataset_source.h"
#include "train/trainer.h"
#include "training_history.h"

struct TrainingRequest {
    std::shared_ptr<const ampstudio::Graph> model;         // the fp32 graph
    std::shared_ptr<const ampstudio::NDArrayList> params;  // null: initialise from the seed
    std::string dataSpec;                                  // as the CLI's --data
    ampstudio::BackendChoice backend = ampstudio::BackendChoice::Auto;
    ampstudio::DataSourceOptions dataOptions;
    ampstudio::TrainerSettings settings;
    QString label;  // "amp", "fp32 (MLP)": for the overlay legend
};

class TrainingRun : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Loading, Training, Paused, Finished, Stopped, Failed };
    Q_ENUM(State)

    static constexpr int kDrainIntervalMs = 40;
    // The engine thread's nice value (Linux): the GUI thread wins the CPU whenever it needs it.
    static constexpr int kEngineNiceness = 5;

    explicit TrainingRun(QObject* parent = nullptr);
    ~TrainingRun() override;  // stops and joins

    // Starts a run (the previous one's thread must be over: call stop() first). Returns false when
    // a run is still going.
    bool start(TrainingRequest request);
    void setPaused(bool paused);
    // Asks the run to stop and waits for the thread (a step, or the dataset load, finishing).
    // Returns the milliseconds it waited.
    double stop();

    State state() const { return m_state; }
    bool isActive() const { return m_state == State::Loading || m_state == State::Training || m_state == State::Paused; }
    QString errorMessage() const { return m_shown.error; }
    QString datasetDescription() const { return m_shown.description; }
    QString trainerDescription() const { return m_shown.trainerDescription; }

    const TrainingHistory& history() const { return m_history; }
    int64_t stepsDone() const;
    int64_t totalSteps() const;  // 0 until the trainer is built
    std::optional<ampstudio::TrainingSummary> summary() const { return m_shown.summary; }

    // Whether trained weights can be saved: the trainer was built and trained at least one step.
    bool hasWeights() const;
    // The original symbol and the weights as PREFIX-symbol.json and PREFIX-NNNN.params, atomically,
    // never over one of `inputs`. False with a message on failure; `paramsPath` gets the params file.
    bool saveWeights(const QString& prefix, const QStringList& inputs, QString* error, QString* paramsPath = nullptr) const;
    // The current weights in f32 (arg:/aux:), as saveWeights writes them.
    ampstudio::NDArrayList parameters() const;

signals:
    void stateChanged(TrainingRun::State state);
    void metricsArrived();  // history() grew

private:
    void work(TrainingRequest request, uint64_t generation);
    void drain();
    void trainerBuilt(uint64_t generation);
    void threadEnded(uint64_t generation);
    void finalize();  // joins the thread and takes its outcome
    void setState(State state);

    // What the engine thread reports: m_outcome, under m_trainerMutex; m_shown is the GUI thread's
    // copy, taken when the trainer is built (the descriptions) and when the thread ends (all of it).
    struct Outcome {
        State final = State::Finished;
        QString error, description, trainerDescription;
        std::optional<ampstudio::TrainingSummary> summary;
    };

    QTimer m_drainTimer;
    std::thread m_thread;
    State m_state = State::Idle;
    Outcome m_shown;
    TrainingHistory m_history;
    uint64_t m_generation = 0;  // which start() a queued report belongs to
    bool m_trainerReady = false;  // the engine thread reported the trainer built
    Outcome m_outcome;

    // Shared with the engine thread. The trainer and the data it refers to are built there and live
    // until the next start (saveWeights reads them).
    ampstudio::MetricsSink m_sink;
    std::unique_ptr<ampstudio::Backend> m_backend;
    std::unique_ptr<ampstudio::TrainingData> m_data;
    std::unique_ptr<ampstudio::Trainer> m_trainer;
    mutable std::mutex m_trainerMutex;  // guards publishing m_trainer to the GUI thread
    std::atomic<bool> m_stopRequested{false};
    std::atomic<bool> m_pauseRequested{false};
};
