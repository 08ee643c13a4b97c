#include "training_run.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <exception>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "backend/backend.h"
#include "formats/atomic_file.h"

using namespace ampstudio;

TrainingRun::TrainingRun(QObject* parent) : QObject(parent) {
    m_drainTimer.setInterval(kDrainIntervalMs);
    connect(&m_drainTimer, &QTimer::timeout, this, &TrainingRun::drain);
}

TrainingRun::~TrainingRun() {
    blockSignals(true);  // whoever listens may be half destroyed already
    stop();
}

bool TrainingRun::start(TrainingRequest request) {
    if (isActive()) {
        return false;
    }
    if (m_thread.joinable()) {
        m_thread.join();
    }
    {
        std::lock_guard lock(m_trainerMutex);
        m_trainer.reset();  // before the data and backend it refers to
        m_data.reset();
        m_backend.reset();
        m_outcome = Outcome{};
    }
    m_sink.takeNew();
    m_history.clear();
    m_history.label = request.label.toStdString();
    m_shown = Outcome{};
    m_stopRequested = false;
    m_pauseRequested = false;
    m_trainerReady = false;
    const uint64_t generation = ++m_generation;
    setState(State::Loading);
    m_drainTimer.start();
    m_thread = std::thread([this, generation, request = std::move(request)]() mutable {
        work(std::move(request), generation);
    });
    return true;
}

// The engine thread: dataset, trainer, training. What it tells the GUI goes into m_outcome and two
// queued calls tagged with the run's generation, so a late report of an earlier run is ignored; Qt
// drops them if this object is gone (the destructor joins first anyway).
void TrainingRun::work(TrainingRequest request, uint64_t generation) {
#ifdef __linux__
    // Below the GUI thread: the engine uses every core (oneDNN's and our OpenMP team, created by and
    // inheriting from this thread), and the window must still answer at once. Idle GUI time still
    // goes to training.
    setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kEngineNiceness);
#endif
    Outcome outcome;
    try {
        auto data = std::make_unique<TrainingData>(loadTrainingData(request.dataSpec, request.dataOptions));
        auto backend = makeBackend(request.backend, request.model.get());
        auto trainer = std::make_unique<Trainer>(*request.model, request.params.get(), data->train,
                                                 data->validation.size() > 0 ? &data->validation : nullptr,
                                                 request.settings, *backend, &m_sink);
        outcome.description = QString::fromStdString(data->description);
        outcome.trainerDescription = QString::fromStdString(trainer->describe());
        Trainer* raw = trainer.get();
        {
            std::lock_guard lock(m_trainerMutex);
            m_data = std::move(data);
            m_backend = std::move(backend);
            m_trainer = std::move(trainer);
            m_outcome.description = outcome.description;
            m_outcome.trainerDescription = outcome.trainerDescription;
            raw->setPaused(m_pauseRequested.load());
        }
        QMetaObject::invokeMethod(this, [this, generation] { trainerBuilt(generation); }, Qt::QueuedConnection);
        if (!m_stopRequested) {
            outcome.summary = raw->run();
            outcome.final = outcome.summary->stopped ? State::Stopped : State::Finished;
        } else {
            outcome.final = State::Stopped;
        }
    } catch (const std::exception& e) {
        outcome.final = State::Failed;
        outcome.error = QString::fromUtf8(e.what());
    }
    {
        std::lock_guard lock(m_trainerMutex);
        m_outcome = outcome;
    }
    QMetaObject::invokeMethod(this, [this, generation] { threadEnded(generation); }, Qt::QueuedConnection);
}

void TrainingRun::trainerBuilt(uint64_t generation) {
    if (generation != m_generation || !isActive()) return;
    m_trainerReady = true;
    {
        std::lock_guard lock(m_trainerMutex);
        m_shown.description = m_outcome.description;
        m_shown.trainerDescription = m_outcome.trainerDescription;
    }
    setState(m_pauseRequested ? State::Paused : State::Training);
}

void TrainingRun::threadEnded(uint64_t generation) {
    if (generation == m_generation && isActive()) finalize();
}

void TrainingRun::finalize() {
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_drainTimer.stop();
    drain();
    {
        std::lock_guard lock(m_trainerMutex);
        m_shown = m_outcome;
    }
    setState(m_shown.final);
}

void TrainingRun::setPaused(bool paused) {
    if (!isActive()) return;
    m_pauseRequested = paused;
    {
        std::lock_guard lock(m_trainerMutex);
        if (m_trainer) m_trainer->setPaused(paused);
    }
    setState(paused ? State::Paused : m_trainerReady ? State::Training : State::Loading);
}

double TrainingRun::stop() {
    QElapsedTimer timer;
    timer.start();
    m_stopRequested = true;
    {
        std::lock_guard lock(m_trainerMutex);
        if (m_trainer) m_trainer->requestStop();
    }
    if (m_thread.joinable()) {
        finalize();  // the thread's queued report is then ignored
    }
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void TrainingRun::drain() {
    MetricsBatch batch = m_sink.takeNew();
    if (batch.empty()) return;
    m_history.append(batch);
    emit metricsArrived();
}

void TrainingRun::setState(State state) {
    if (m_state == state) return;
    m_state = state;
    emit stateChanged(state);
}

int64_t TrainingRun::stepsDone() const {
    std::lock_guard lock(m_trainerMutex);
    return m_trainer ? m_trainer->stepsDone() : 0;
}

int64_t TrainingRun::totalSteps() const {
    std::lock_guard lock(m_trainerMutex);
    return m_trainer ? m_trainer->totalSteps() : 0;
}

bool TrainingRun::hasWeights() const {
    std::lock_guard lock(m_trainerMutex);
    return !isActive() && m_trainer != nullptr && m_trainer->stepsDone() > 0;
}

NDArrayList TrainingRun::parameters() const {
    std::lock_guard lock(m_trainerMutex);
    return m_trainer && !isActive() ? m_trainer->parameters() : NDArrayList{};
}

bool TrainingRun::saveWeights(const QString& prefix, const QStringList& inputs, QString* error,
                              QString* paramsPath) const {
    if (!hasWeights()) {
        if (error) *error = tr("There are no trained weights to save.");
        return false;
    }
    const QString symbolFile = prefix + QStringLiteral("-symbol.json");
    for (const QString& input : inputs) {
        if (input.isEmpty()) continue;
        // The params file's epoch number is not known here; any PREFIX-NNNN.params that is an input
        // counts.
        const QFileInfo in(input);
        const QFileInfo out(prefix);
        const bool sameSymbol = sameFile(symbolFile.toStdString(), input.toStdString());
        const bool paramsOfPrefix = in.absolutePath() == out.absolutePath() &&
                                    in.fileName().startsWith(out.fileName() + QLatin1Char('-')) &&
                                    in.fileName().endsWith(QStringLiteral(".params"));
        if (sameSymbol || paramsOfPrefix) {
            if (error) *error = tr("%1 is the model you opened; choose another name so that it is not overwritten.").arg(input);
            return false;
        }
    }
    try {
        std::lock_guard lock(m_trainerMutex);
        const int64_t epochs = m_shown.summary ? m_shown.summary->epochsCompleted : 0;
        const auto written = m_trainer->saveCheckpoint(prefix.toStdString(), epochs);
        if (paramsPath) *paramsPath = QString::fromStdString(written.params->string());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}
