#pragma once
// Where the trainer's numbers go (DESIGN.md §5): the trainer thread pushes one StepMetrics per step
// and one EpochMetrics per epoch; consumers (the GUI's training monitor, the CLI's --metrics CSV)
// take everything new in one call. PlotJuggler's pattern: the producer appends under a mutex, the
// consumer swaps the buffer out, so neither waits on the other for more than a vector append or swap,
// and the consumer works on whole batches (one chart replace per series, not one call per point).
//
// One consumer per sink: takeNew() hands each record out once.

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace ampstudio {

struct StepMetrics {
    int64_t step = 0;   // 0-based, counting skipped steps too
    int64_t epoch = 0;  // 0-based
    double loss = 0.0;  // unscaled; may be inf/NaN on an overflow step
    double lossScale = 1.0;
    bool skipped = false;   // the gradients overflowed; the step was not applied
    double gradNorm = 0.0;  // global L2 norm of the unscaled gradients (inf/NaN when skipped)
    double learningRate = 0.0;
    double samplesPerSecond = 0.0;
    bool scaleBelowOne = false;  // warning: the loss scale fell below 1 (LossScaler::scaleBelowOne)
};

struct EpochMetrics {
    int64_t epoch = 0;
    double trainLoss = 0.0;           // mean over the epoch's applied steps
    double validationLoss = 0.0;      // NaN when there is no validation set
    double validationAccuracy = 0.0;  // in [0, 1]; NaN for regression or no validation set
};

struct MetricsBatch {
    std::vector<StepMetrics> steps;
    std::vector<EpochMetrics> epochs;
    bool finished = false;  // the producer called finish() since the previous take: the run is over
    bool empty() const { return steps.empty() && epochs.empty(); }
};

class MetricsSink {
public:
    // Producer side (the trainer thread).
    void push(const StepMetrics& step);
    void push(const EpochMetrics& epoch);
    void finish();  // the run is over (done, stopped or failed); later pushes are still accepted

    // Consumer side: everything pushed since the last call, in push order.
    MetricsBatch takeNew();

    // Called on the producer's thread after a push when new data is waiting, at most once until the
    // next takeNew(), so a GUI can post one queued event and coalesce. Never called with the lock held:
    // it may call takeNew() itself. Set it before the producer starts.
    void setDataAvailableCallback(std::function<void()> callback);

private:
    void notify(std::unique_lock<std::mutex>& lock);

    std::mutex m_mutex;
    MetricsBatch m_pending;
    std::function<void()> m_callback;
    bool m_notified = false;
};

}  // namespace ampstudio
