#pragma once
// Runs one kind of background job at a time and drops stale results: every start bumps a
// generation, a job whose generation is no longer current is told so through its `cancelled` hook
// (so a long layout stops early) and its result is never delivered. Results arrive on the context
// object's thread, guarded by QPointer so that a destroyed receiver gets nothing.
// The pattern of KDAB hotspot's JobTracker, on QThreadPool instead of ThreadWeaver.

#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>

class JobTracker {
public:
    explicit JobTracker(QObject* context) : m_context(context) {}
    ~JobTracker() { cancel(); }
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    // `job(cancelled)` runs on `pool`; `deliver(result)` runs later on the context's thread, only
    // if no other job was started (and cancel() was not called) in between.
    template <typename Job, typename Deliver>
    void startJob(QThreadPool* pool, Job job, Deliver deliver) {
        const quint64 generation = ++*m_generation;
        m_running = true;
        std::shared_ptr<std::atomic<quint64>> current = m_generation;
        QPointer<QObject> context = m_context;
        pool->start([=, this, job = std::move(job), deliver = std::move(deliver)]() mutable {
            const std::function<bool()> cancelled = [current, generation] { return current->load() != generation; };
            if (cancelled()) {
                return;
            }
            auto result = job(cancelled);
            if (cancelled() || !context) {
                return;
            }
            QMetaObject::invokeMethod(
                context.data(),
                [=, this, result = std::move(result), deliver = std::move(deliver)]() mutable {
                    // Checked again here: a newer job may have started while this one was queued,
                    // and `this` lives as long as the context (its owner) does.
                    if (current->load() == generation) {
                        m_running = false;
                        deliver(std::move(result));
                    }
                },
                Qt::QueuedConnection);
        });
    }

    // Stale from now on: a running job stops at its next check and delivers nothing.
    void cancel() {
        ++*m_generation;
        m_running = false;
    }

    // A job was started and has not delivered (nor been cancelled).
    bool isRunning() const { return m_running; }

private:
    QPointer<QObject> m_context;
    std::shared_ptr<std::atomic<quint64>> m_generation = std::make_shared<std::atomic<quint64>>(0);
    bool m_running = false;
};
