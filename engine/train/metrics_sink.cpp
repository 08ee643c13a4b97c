#include "train/metrics_sink.h"

#include <utility>

namespace ampstudio {

void MetricsSink::push(const StepMetrics& step) {
    std::unique_lock lock(m_mutex);
    m_pending.steps.push_back(step);
    notify(lock);
}

void MetricsSink::push(const EpochMetrics& epoch) {
    std::unique_lock lock(m_mutex);
    m_pending.epochs.push_back(epoch);
    notify(lock);
}

void MetricsSink::finish() {
    std::unique_lock lock(m_mutex);
    m_pending.finished = true;
    notify(lock);
}

MetricsBatch MetricsSink::takeNew() {
    MetricsBatch out;
    {
        std::lock_guard lock(m_mutex);
        std::swap(out, m_pending);
        m_notified = false;
    }
    return out;
}

void MetricsSink::setDataAvailableCallback(std::function<void()> callback) {
    std::lock_guard lock(m_mutex);
    m_callback = std::move(callback);
}

void MetricsSink::notify(std::unique_lock<std::mutex>& lock) {
    if (m_notified || !m_callback) {
        return;
    }
    m_notified = true;
    // A copy, so that the call happens without the lock (the callback may take the data at once).
    const std::function<void()> callback = m_callback;
    lock.unlock();
    callback();
}

}  // namespace ampstudio
