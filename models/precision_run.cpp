#include "precision_run.h"

#include <chrono>
#include <exception>

#include "amp/onnx_conversion.h"
#include "exec/onnx/onnx_precision_search.h"
#include "formats/load_error.h"
#include "formats/onnx_program.h"

using namespace ampstudio;

PrecisionRun::PrecisionRun(QObject* parent) : QObject(parent) {
    m_pool.setMaxThreadCount(1);
    m_timer.setInterval(kProgressIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &PrecisionRun::progressChanged);
}

PrecisionRun::~PrecisionRun() {
    stop();
    m_tracker.cancel();
    m_pool.waitForDone();
}

void PrecisionRun::wait() { m_pool.waitForDone(); }

PrecisionProgress PrecisionRun::progress() const {
    std::lock_guard lock(m_mutex);
    return m_progress;
}

void PrecisionRun::stop() { m_stop->store(true); }

bool PrecisionRun::start(PrecisionRequest request) {
    if (m_running || !request.source) {
        return false;
    }
    m_running = true;
    m_stop = std::make_shared<std::atomic<bool>>(false);
    {
        std::lock_guard lock(m_mutex);
        m_progress = PrecisionProgress{};
        m_progress.phase = PrecisionProgress::Phase::Preparing;
    }
    std::shared_ptr<std::atomic<bool>> stopFlag = m_stop;
    auto job = [this, request, stopFlag](const std::function<bool()>& cancelled) {
        auto outcome = std::make_shared<PrecisionOutcome>();
        outcome->request = request;
        const auto t0 = std::chrono::steady_clock::now();
        const auto goOn = [&] { return !stopFlag->load() && !cancelled(); };
        try {
            PrecisionSearchOptions o;
            o.conversion = request.conversion;
            o.metric = request.metric;
            o.tolerance = request.tolerance;
            o.maxAttempts = request.maxAttempts;
            o.seed = request.inputs.seed;
            o.measureOnly = !request.search;
            o.nodeProgress = [this, &goOn](std::size_t done, std::size_t total) {
                std::lock_guard lock(m_mutex);
                m_progress.phase = PrecisionProgress::Phase::Measuring;
                m_progress.nodesDone = done;
                m_progress.nodesTotal = total;
                return goOn();
            };
            o.progress = [this, &goOn](const SearchAttempt& a) {
                std::lock_guard lock(m_mutex);
                m_progress.phase = m_progress.attempts == 0 ? PrecisionProgress::Phase::Measuring
                                                            : PrecisionProgress::Phase::Searching;
                ++m_progress.attempts;
                m_progress.last = a;
                const auto& best = m_progress.best;
                if (a.meets && (!best || a.fp32Nodes.size() < best->fp32Nodes.size() ||
                                (a.fp32Nodes.size() == best->fp32Nodes.size() && a.value < best->value))) {
                    m_progress.best = a;
                }
                return goOn();
            };
            if (isOnnxSource(request.formatSource.get())) {
                const ModelDocument document{request.source, request.params, {}, request.formatSource};
                const auto inputs = onnxCalibrationInputs(*onnxProgramOf(document), request.inputs);
                outcome->result = searchOnnxFloat32Set(document, inputs, o);
            } else {
                const auto inputs = calibrationInputs(*request.source, request.inputs);
                auto backend = makeBackend(request.backend, request.source.get());
                outcome->result = searchFloat32Set(*request.source, request.params.get(), inputs, *backend, o);
            }
        } catch (const LoadError& e) {
            outcome->error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            outcome->error = QString::fromStdString(e.what());
        }
        outcome->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::shared_ptr<const PrecisionOutcome>(std::move(outcome));
    };
    m_tracker.startJob(&m_pool, job, [this](std::shared_ptr<const PrecisionOutcome> outcome) { deliver(std::move(outcome)); });
    m_timer.start();
    emit started();
    return true;
}

void PrecisionRun::deliver(std::shared_ptr<const PrecisionOutcome> outcome) {
    m_timer.stop();
    m_outcome = std::move(outcome);
    m_running = false;
    {
        std::lock_guard lock(m_mutex);
        m_progress.phase = PrecisionProgress::Phase::Idle;
    }
    emit progressChanged();
    emit finished();
}
