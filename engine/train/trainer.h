#pragma once
// The training loop for every precision mode (DESIGN.md §5; precision_mode.h says what each mode
// trains). One step:
//   forward -> loss x scale -> backward -> gradients to f32 (master-weight modes) and unscaled, checked
//   for inf/NaN and summed in one pass -> on overflow skip the step (weights, master weights and
//   optimizer state untouched, the step counted as skipped) -> else clip by global norm -> optimizer
//   step, writing the f16/bf16 copies -> update the scale.
// Everything after the batch upload is queued on the backend and decided there (the found-inf flag,
// the loss scale and Adam's step count live in backend memory: backend/mixed_precision_step.h), so
// the host never waits inside a step. It reads each step's loss-head output and record through a
// HostReadback once the next step is queued, and mirrors the scale into lossScaler() then: metrics
// arrive one step behind the queue, the device never idles for them.
// The gradient is also divided by the batch size in the unscale pass: the loss heads give MXNet's
// un-normalised gradients and MXNet's Module leaves the mean to the optimizer (rescale_grad).
//
// run() blocks; another thread may call requestStop() and setPaused() at any time. Both take effect
// between steps and keep the weights trained so far (parameters() / saveCheckpoint()).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "amp/amp_lists.h"
#include "backend/backend.h"
#include "formats/model_file.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"
#include "train/dataset.h"
#include "train/loss_scaler.h"
#include "train/lr_schedule.h"
#include "train/metrics_sink.h"
#include "train/precision_mode.h"

namespace ampstudio {

class Executor;

enum class OptimizerKind { Sgd, Adam, AdamW };

struct OptimizerSettings {
    OptimizerKind kind = OptimizerKind::Sgd;
    double momentum = 0.9;  // SGD
    bool nesterov = false;  // SGD
    double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // Adam
    double weightDecay = 0.0;
};

struct TrainerSettings {
    PrecisionMode precision = PrecisionMode::Fp32;
    std::optional<AmpLists> lists;  // amp / bf16: replaces the default lists
    std::string scalerPreset;       // empty: defaultScalerPreset(precision)
    std::optional<double> initScale;
    std::optional<int64_t> growthInterval;
    OptimizerSettings optimizer;
    LrSchedule schedule;  // schedule.baseLr is the learning rate
    int64_t batchSize = 64;
    int64_t epochs = 1;
    int64_t maxSteps = 0;   // 0: no limit beyond the epochs
    double clipNorm = 0.0;  // 0: no clipping
    uint64_t seed = 0;      // parameter initialisation, shuffling, Dropout
    // Node names kept in float32 whatever the lists say (the conversion's excluded_sym_names); not
    // used by fp32.
    std::set<std::string> excludedNodes;
};

struct EvaluationResult {
    double loss = 0.0;
    double accuracy = 0.0;  // NaN for regression
    int64_t samples = 0;
};

struct TrainingSummary {
    int64_t steps = 0;
    int64_t skippedSteps = 0;
    int64_t epochsCompleted = 0;
    double finalLoss = 0.0;         // mean training loss of the last epoch's applied steps
    double finalLossScale = 1.0;
    bool stopped = false;           // requestStop() ended the run early
    double samplesPerSecond = 0.0;  // over the whole run
};

class Trainer {
    using Clock = std::chrono::steady_clock;

public:
    // Prepares the mode's graph and binds it for the dataset's sample shape. Parameters come from
    // `params` where given (arg:/aux: names; f16/bf16/f32 values), the rest are initialised by
    // MXNet's naming conventions from the seed. Throws OpError, ConversionError, std::invalid_argument
    // (bad settings, a graph without exactly one data input and a loss head, a dataset that does not
    // fit the model) with a message for the user.
    Trainer(const Graph& model, const NDArrayList* params, const Dataset& train, const Dataset* validation,
            const TrainerSettings& settings, Backend& backend, MetricsSink* sink = nullptr);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // Trains to the end of the epochs (or maxSteps, or a stop request). Pushes one StepMetrics per
    // step and one EpochMetrics per completed epoch into the sink, then finish().
    TrainingSummary run();
    // Called after every epoch with its metrics (the CLI's progress line); set before run().
    void setEpochCallback(std::function<void(const EpochMetrics&, const TrainingSummary&)> callback);

    void requestStop();
    void setPaused(bool paused);
    bool paused() const { return m_paused.load(); }
    // Steps done so far (readable from any thread while run() is going).
    int64_t stepsDone() const { return m_stepsDone.load(); }
    int64_t totalSteps() const { return m_totalSteps; }

    // Loss and accuracy over a dataset, in inference mode, all samples (the last batch padded).
    EvaluationResult evaluate(const Dataset& data);

    // The current weights in f32 (the master copies where the mode has them), `arg:` and `aux:`
    // names, for any precision mode: the model as the fp32 graph would load it.
    NDArrayList parameters() const;
    // The original (fp32) graph and the current weights in `format` (for MXNet PREFIX-symbol.json and
    // PREFIX-NNNN.params, NNNN = `epoch`), each file written atomically and never over one of
    // `protectedFiles` (SaveError). Returns the files written.
    ModelFiles saveCheckpoint(const std::string& prefix, int64_t epoch, ModelFormat format = ModelFormat::MxnetCheckpoint,
                              std::span<const std::filesystem::path> protectedFiles = {}) const;

    const PreparedModel& preparedModel() const { return m_prepared; }
    // The loss scale as of the last step whose results the host has read (all of them once run()
    // returns).
    const LossScaler& lossScaler() const { return m_scaler; }
    // The optimizer's state in f32, for tests and inspection: "momentum:NAME" (SGD with momentum) or
    // "adam_m:NAME" and "adam_v:NAME", and the optimizer steps taken (skipped steps not counted).
    NDArrayList optimizerState() const;
    int64_t optimizerSteps() const { return m_lastRecord.appliedSteps; }
    const std::string& dataName() const { return m_dataName; }
    const std::string& labelName() const { return m_labelName; }
    Executor& executor() { return *m_executor; }
    std::string describe() const;  // one line: mode, scaler, optimizer, backend

private:
    struct Parameter {
        std::string name;
        Tensor value;     // as the graph stores it (f16/bf16 in master-weight modes)
        Tensor gradient;  // same dtype as value
        Tensor master;    // f32 copy when value is not f32; else == value
        Tensor masterGradient;
        Tensor state1, state2;  // momentum / Adam moments, f32
    };

    // A step whose work is queued and whose results the host has not read yet.
    struct PendingStep {
        int64_t index = 0;
        int64_t epoch = 0;
        double learningRate = 0.0;
        Clock::time_point queuedAt;
        int slot = 0;  // which readback and label buffer
    };
    struct StepOutcome {
        double loss = 0.0;
        bool applied = false;
    };

    void loadBatch(const float* features, const float* targets, int64_t rows);
    // Queues the loss head's output (as f32) and, when withRecord, the step record into `readback`.
    void queueReadback(HostReadback& readback, bool withRecord);
    // The loss of the first `rows` rows of an output the host has read, for the labels it was given.
    double hostLoss(const float* output, const float* labels, int64_t rows, double* correct) const;
    PendingStep queueStep(int64_t stepIndex, int64_t epoch, int slot);
    StepOutcome finishStep(const PendingStep& pending, Clock::time_point previousFinish);
    void waitWhilePaused();

    Graph m_original;
    const Dataset& m_train;
    const Dataset* m_validation;
    TrainerSettings m_settings;
    Backend& m_backend;
    MetricsSink* m_sink;
    PreparedModel m_prepared;
    std::unique_ptr<Executor> m_executor;
    std::string m_dataName, m_labelName;
    NodeEntry m_lossHead{};
    std::string m_lossOp;
    std::vector<Parameter> m_params;
    std::vector<GradientBuffers> m_gradients;  // every parameter's, for the unscale pass
    LossScaler m_scaler;                       // the host's mirror of the scale in m_record
    Tensor m_record;                           // StepRecord in backend memory
    Tensor m_lossScale;                        // f32, the next step's loss scale in backend memory
    StepRecord m_lastRecord;                   // the last one read back
    Tensor m_outputF32;                        // the loss head's output, converted when it is f16/bf16
    std::size_t m_outputOffset = 0;            // where it lies in a readback, after the record
    std::unique_ptr<HostReadback> m_readbacks[2];
    std::vector<float> m_hostFeatures, m_hostLabels;
    std::vector<float> m_stepLabels[2];  // the labels each pending step was given
    int64_t m_totalSteps = 0;
    std::function<void(const EpochMetrics&, const TrainingSummary&)> m_epochCallback;

    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_paused{false};
    std::atomic<int64_t> m_stepsDone{0};
    std::mutex m_pauseMutex;
    std::condition_variable m_pauseChanged;
};

std::string_view optimizerName(OptimizerKind kind);
OptimizerKind parseOptimizer(std::string_view text);  // "sgd", "adam", "adamw"; throws std::invalid_argument

}  // namespace ampstudio
