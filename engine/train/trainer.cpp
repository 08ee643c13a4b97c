#include "train/trainer.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "exec/executor.h"
#include "exec/param_init.h"
#include "ops/mxnet_op_facts.h"
#include "tensor/float_convert.h"
#include "train/batch_iterator.h"
#include "train/training_heads.h"

namespace ampstudio {

namespace {

std::vector<float> recordToFloats(const NDArrayRecord& record) {
    const auto n = static_cast<std::size_t>(record.elementCount());
    std::vector<float> out(n);
    switch (record.dtype) {
        case DType::F32: std::memcpy(out.data(), record.data.data(), n * sizeof(float)); break;
        case DType::F16:
        case DType::BF16: {
            std::vector<uint16_t> bits(n);
            std::memcpy(bits.data(), record.data.data(), n * sizeof(uint16_t));
            record.dtype == DType::F16 ? halfToFloats(bits, out) : bfloat16ToFloats(bits, out);
            break;
        }
        default:
            throw std::invalid_argument("parameter '" + std::string(record.bareName()) + "' is stored as " +
                                        std::string(dtypeName(record.dtype)) + "; only float32, float16 and bfloat16 load");
    }
    return out;
}

// A backend tensor read back as a float32 record.
NDArrayRecord float32Record(Backend& backend, const std::string& name, const Tensor& t) {
    NDArrayRecord r;
    r.name = name;
    r.dtype = DType::F32;
    r.shape = t.shape();
    const std::vector<float> values = downloadFloats(backend, t);
    r.data.resize(values.size() * sizeof(float));
    std::memcpy(r.data.data(), values.data(), r.data.size());
    return r;
}

}  // namespace

std::string_view optimizerName(OptimizerKind kind) {
    switch (kind) {
        case OptimizerKind::Sgd: return "sgd";
        case OptimizerKind::Adam: return "adam";
        case OptimizerKind::AdamW: return "adamw";
    }
    return "sgd";
}

OptimizerKind parseOptimizer(std::string_view text) {
    if (text == "sgd") return OptimizerKind::Sgd;
    if (text == "adam") return OptimizerKind::Adam;
    if (text == "adamw") return OptimizerKind::AdamW;
    throw std::invalid_argument("unknown optimizer '" + std::string(text) + "' (accepted: sgd, adam, adamw)");
}

Trainer::Trainer(const Graph& model, const NDArrayList* params, const Dataset& train, const Dataset* validation,
                 const TrainerSettings& settings, Backend& backend, MetricsSink* sink)
    : m_original(model), m_train(train), m_validation(validation), m_settings(settings), m_backend(backend),
      m_sink(sink) {
    if (settings.batchSize < 1) {
        throw std::invalid_argument("the batch size must be at least 1");
    }
    if (settings.epochs < 1 && settings.maxSteps < 1) {
        throw std::invalid_argument("give at least one epoch or one step");
    }
    if (!(settings.clipNorm >= 0.0)) {
        throw std::invalid_argument("the clipping norm must be positive (or 0 for none)");
    }
    if (train.size() < settings.batchSize) {
        throw std::invalid_argument("the training set '" + train.name + "' has " + std::to_string(train.size()) +
                                    " samples, fewer than one batch of " + std::to_string(settings.batchSize));
    }
    m_original.validate();

    // The loss head, its label, and the one data input.
    TrainingHeads heads = findTrainingHeads(m_original);
    m_lossOp = heads.lossOp;
    m_labelName = heads.labelName;
    m_dataName = heads.dataName;
    const std::set<std::string>& inputs = heads.inputs;
    checkLossFitsTask(m_lossOp, train.task, train.name);
    const bool classification = train.task == DatasetTask::Classification;

    for (const std::string& name : settings.excludedNodes) {
        if (std::none_of(m_original.nodes.begin(), m_original.nodes.end(),
                         [&](const Node& node) { return node.name == name; })) {
            throw std::invalid_argument("the node '" + name + "' to keep in float32 is not in the model");
        }
    }

    // The mode's graph, bound for one batch.
    m_prepared = prepareModel(m_original, settings.precision, settings.lists, inputs, settings.excludedNodes);
    BindOptions bind;
    Shape dataShape{settings.batchSize};
    dataShape.insert(dataShape.end(), train.sampleShape.begin(), train.sampleShape.end());
    bind.shapes[m_dataName] = dataShape;
    bind.dtypes = m_prepared.parameterDtypes;
    bind.forTraining = true;
    m_executor = std::make_unique<Executor>(m_prepared.graph, backend, bind);
    for (NodeEntry head : m_executor->graph().heads) {
        const Node& node = m_executor->graph().nodes[head.node];
        if (!node.isVariable() && MxnetOpFacts::instance().canonicalName(node.op) == m_lossOp) {
            m_lossHead = head;
            break;
        }
    }
    if (!m_labelName.empty()) {
        const Tensor& label = m_executor->value(m_labelName);
        if (label.size() != settings.batchSize) {
            throw std::invalid_argument("the label '" + m_labelName + "' has shape " + shapeString(label.shape()) +
                                        " but the dataset gives one " + (classification ? "class" : "target") +
                                        " per sample");
        }
    }

    // Parameter values: from the file, else by MXNet's conventions; masters and optimizer state in f32.
    std::map<std::string, const std::string*> initAttrs;  // variables' __init__ attributes
    for (const Node& node : m_prepared.graph.nodes) {
        if (node.isVariable()) {
            initAttrs.emplace(node.name, node.attr("__init__"));
        }
    }
    auto initial = [&](const std::string& name, const Shape& shape) {
        if (params != nullptr) {
            const int index = params->find(name);
            if (index >= 0) {
                const NDArrayRecord& record = params->arrays[static_cast<std::size_t>(index)];
                if (record.shape != shape) {
                    throw std::invalid_argument("parameter '" + name + "' has shape " + shapeString(record.shape) +
                                                " in the file but the model needs " + shapeString(shape));
                }
                return recordToFloats(record);
            }
        }
        const auto attr = initAttrs.find(name);
        return initialParameterValues(name, shape, settings.seed, attr != initAttrs.end() ? attr->second : nullptr);
    };
    auto upload = [&](const std::vector<float>& values, const Tensor& dst) {
        if (dst.dtype() == DType::F32) {
            backend.copyFromHost(values.data(), values.size() * sizeof(float), dst);
            return;
        }
        Tensor f32 = backend.allocate(dst.shape(), DType::F32);
        backend.copyFromHost(values.data(), values.size() * sizeof(float), f32);
        backend.convert(f32, dst);
    };
    const bool needsState2 = settings.optimizer.kind != OptimizerKind::Sgd;
    const bool needsState1 = needsState2 || settings.optimizer.momentum != 0.0;
    for (const std::string& name : m_executor->parameterNames()) {
        Parameter p;
        p.name = name;
        p.value = m_executor->value(name);
        p.gradient = m_executor->gradient(name);
        if (!p.gradient) {
            continue;  // not reachable from the loss
        }
        const std::vector<float> values = initial(name, p.value.shape());
        if (p.value.dtype() == DType::F32) {
            p.master = p.value;
            p.masterGradient = p.gradient;
        } else {
            p.master = backend.allocate(p.value.shape(), DType::F32);
            p.masterGradient = backend.allocate(p.value.shape(), DType::F32);
        }
        upload(values, p.master);
        if (p.master.storage() != p.value.storage()) {
            backend.convert(p.master, p.value);
        }
        if (needsState1) {
            p.state1 = backend.allocate(p.value.shape(), DType::F32);
            backend.fill(p.state1, 0.0f);
        }
        if (needsState2) {
            p.state2 = backend.allocate(p.value.shape(), DType::F32);
            backend.fill(p.state2, 0.0f);
        }
        m_gradients.push_back(GradientBuffers{p.gradient, p.masterGradient});
        m_params.push_back(std::move(p));
    }
    for (const std::string& name : m_executor->auxiliaryNames()) {
        const Tensor& value = m_executor->value(name);
        upload(initial(name, value.shape()), value);
    }

    // Loss scaling.
    m_scaler = LossScaler::fromPreset(settings.scalerPreset.empty() ? defaultScalerPreset(settings.precision)
                                                                   : settings.scalerPreset);
    if (settings.initScale) {
        m_scaler.setInitScale(*settings.initScale);
    }
    if (settings.growthInterval) {
        m_scaler.setGrowthInterval(*settings.growthInterval);
    }

    const int64_t perEpoch = train.size() / settings.batchSize;
    m_totalSteps = settings.epochs >= 1 ? perEpoch * settings.epochs : settings.maxSteps;
    if (settings.maxSteps > 0) {
        m_totalSteps = std::min(m_totalSteps, settings.maxSteps);
    }
    m_hostFeatures.resize(static_cast<std::size_t>(m_executor->value(m_dataName).size()));
    m_hostLabels.resize(static_cast<std::size_t>(settings.batchSize));
    for (std::vector<float>& labels : m_stepLabels) {
        labels.resize(m_hostLabels.size());
    }

    // The step's state in backend memory, and the host memory its results come back to.
    m_lastRecord.scaler = m_scaler.state();
    m_record = backend.allocate(Shape{static_cast<int64_t>(sizeof(StepRecord))}, DType::U8);
    backend.copyFromHost(&m_lastRecord, sizeof(StepRecord), m_record);
    m_lossScale = backend.allocate(Shape{1}, DType::F32);
    backend.fill(m_lossScale, static_cast<float>(m_scaler.scale()));
    const Tensor& output = m_executor->entryValue(m_lossHead);
    if (output.dtype() != DType::F32) {
        m_outputF32 = backend.allocate(output.shape(), DType::F32);
    }
    m_outputOffset = (sizeof(StepRecord) + 63) / 64 * 64;
    for (auto& readback : m_readbacks) {
        readback = backend.createReadback(m_outputOffset + static_cast<std::size_t>(output.size()) * sizeof(float));
    }
}

Trainer::~Trainer() = default;

void Trainer::setEpochCallback(std::function<void(const EpochMetrics&, const TrainingSummary&)> callback) {
    m_epochCallback = std::move(callback);
}

void Trainer::requestStop() {
    m_stop = true;
    std::lock_guard lock(m_pauseMutex);
    m_pauseChanged.notify_all();
}

void Trainer::setPaused(bool paused) {
    m_paused = paused;
    std::lock_guard lock(m_pauseMutex);
    m_pauseChanged.notify_all();
}

void Trainer::waitWhilePaused() {
    std::unique_lock lock(m_pauseMutex);
    m_pauseChanged.wait(lock, [&] { return !m_paused.load() || m_stop.load(); });
}

std::string Trainer::describe() const {
    std::ostringstream s;
    s << precisionModeName(m_settings.precision);
    if (m_prepared.castsInserted > 0) s << " (" << m_prepared.castsInserted << " casts)";
    if (!m_settings.excludedNodes.empty()) s << ", " << m_settings.excludedNodes.size() << " nodes kept in float32";
    s << ", loss scale " << m_scaler.presetName() << " from "
      << m_scaler.scale() << ", " << optimizerName(m_settings.optimizer.kind) << " lr " << m_settings.schedule.baseLr
      << " (" << m_settings.schedule.describe() << "), batch " << m_settings.batchSize << ", " << m_totalSteps
      << " steps, on " << m_backend.name();
    return s.str();
}

// Copies `rows` samples (and their labels or targets) into the data and label tensors; rows below
// the batch size are padded with zeros (evaluation of the last batch).
void Trainer::loadBatch(const float* features, const float* targets, int64_t rows) {
    const std::size_t sampleSize = m_hostFeatures.size() / static_cast<std::size_t>(m_settings.batchSize);
    std::fill(m_hostFeatures.begin(), m_hostFeatures.end(), 0.0f);
    std::copy_n(features, static_cast<std::size_t>(rows) * sampleSize, m_hostFeatures.begin());
    auto upload = [&](const std::vector<float>& values, const Tensor& dst) {
        if (dst.dtype() == DType::F32) {
            m_backend.copyFromHost(values.data(), values.size() * sizeof(float), dst);
            return;
        }
        Tensor f32 = m_backend.allocate(dst.shape(), DType::F32);
        m_backend.copyFromHost(values.data(), values.size() * sizeof(float), f32);
        m_backend.convert(f32, dst);
    };
    upload(m_hostFeatures, m_executor->value(m_dataName));
    if (!m_labelName.empty()) {
        std::fill(m_hostLabels.begin(), m_hostLabels.end(), 0.0f);
        std::copy_n(targets, static_cast<std::size_t>(rows), m_hostLabels.begin());
        upload(m_hostLabels, m_executor->value(m_labelName));
    }
}

// The loss of the first `rows` rows of the loss head's output, as the op's gradient implies it:
// cross-entropy for SoftmaxOutput, mean squared error for LinearRegressionOutput, binary
// cross-entropy for LogisticRegressionOutput, mean absolute error for MAERegressionOutput, the mean
// output for MakeLoss. `correct` (classification) receives the count of right argmax predictions.
double Trainer::hostLoss(const float* output, const float* labels, int64_t rows, double* correct) const {
    const int64_t perRow = m_executor->entryValue(m_lossHead).size() / m_settings.batchSize;
    double sum = 0.0;
    int64_t right = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const float* y = output + r * perRow;
        const double label = m_labelName.empty() ? 0.0 : labels[r];
        if (m_lossOp == "SoftmaxOutput") {
            const auto cls = static_cast<int64_t>(label);
            const double p = cls >= 0 && cls < perRow ? y[cls] : 0.0;
            sum += -std::log(std::max(p, 1e-30));
            right += (std::max_element(y, y + perRow) - y) == cls ? 1 : 0;
            continue;
        }
        for (int64_t j = 0; j < perRow; ++j) {
            const double v = y[j];
            if (m_lossOp == "LinearRegressionOutput") {
                sum += (v - label) * (v - label) / static_cast<double>(perRow);
            } else if (m_lossOp == "LogisticRegressionOutput") {
                const double p = std::clamp(v, 1e-12, 1.0 - 1e-12);
                sum += -(label * std::log(p) + (1.0 - label) * std::log(1.0 - p)) / static_cast<double>(perRow);
            } else if (m_lossOp == "MAERegressionOutput") {
                sum += std::abs(v - label) / static_cast<double>(perRow);
            } else {
                sum += v / static_cast<double>(perRow);
            }
        }
    }
    if (correct != nullptr) {
        *correct = static_cast<double>(right);
    }
    return sum / static_cast<double>(std::max<int64_t>(rows, 1));
}

void Trainer::queueReadback(HostReadback& readback, bool withRecord) {
    const Tensor& output = m_executor->entryValue(m_lossHead);
    if (m_outputF32.defined()) {
        m_backend.convert(output, m_outputF32);
    }
    if (withRecord) {
        readback.copy(m_record, 0);
    }
    readback.copy(m_outputF32.defined() ? m_outputF32 : output, m_outputOffset);
}

// Queues one whole step; waits for nothing (unless the backend's upload must).
Trainer::PendingStep Trainer::queueStep(int64_t stepIndex, int64_t epoch, int slot) {
    PendingStep pending;
    pending.index = stepIndex;
    pending.epoch = epoch;
    pending.slot = slot;
    pending.queuedAt = Clock::now();
    pending.learningRate = m_settings.schedule.at(stepIndex, m_totalSteps);
    m_stepLabels[slot] = m_hostLabels;

    ExecContext ctx;
    ctx.training = true;
    ctx.lossScaleTensor = m_lossScale;
    ctx.seed = m_settings.seed;
    ctx.step = stepIndex;
    m_executor->forward(ctx);
    m_executor->backward(ctx);

    GradientPassSettings pass;
    pass.divisor = static_cast<double>(m_settings.batchSize);
    pass.clipNorm = m_settings.clipNorm;
    pass.scaler = m_scaler.settings();
    m_backend.unscaleGradients(m_gradients, pass, m_record, m_lossScale);

    const OptimizerSettings& o = m_settings.optimizer;
    const auto lr = static_cast<float>(pending.learningRate);
    for (const Parameter& p : m_params) {
        OptimizerBuffers buffers;
        buffers.weight = p.master;
        buffers.grad = p.masterGradient;
        buffers.state1 = p.state1;
        buffers.state2 = p.state2;
        if (p.master.storage() != p.value.storage()) {
            buffers.lowPrecision = p.value;
        }
        if (o.kind == OptimizerKind::Sgd) {
            SgdStepParams sgd;
            sgd.learningRate = lr;
            sgd.momentum = static_cast<float>(o.momentum);
            sgd.weightDecay = static_cast<float>(o.weightDecay);
            sgd.nesterov = o.nesterov;
            m_backend.sgdStep(buffers, sgd, m_record);
        } else {
            AdamStepParams adam;
            adam.learningRate = lr;
            adam.beta1 = static_cast<float>(o.beta1);
            adam.beta2 = static_cast<float>(o.beta2);
            adam.epsilon = static_cast<float>(o.epsilon);
            adam.weightDecay = static_cast<float>(o.weightDecay);
            adam.decoupledWeightDecay = o.kind == OptimizerKind::AdamW;
            m_backend.adamStep(buffers, adam, m_record);
        }
    }
    queueReadback(*m_readbacks[slot], true);
    return pending;
}

// Waits for a queued step's results (the host's one read of the step), mirrors the scale and pushes
// the step's metrics.
Trainer::StepOutcome Trainer::finishStep(const PendingStep& pending, Clock::time_point previousFinish) {
    const std::byte* data = m_readbacks[pending.slot]->wait();
    std::memcpy(&m_lastRecord, data, sizeof(StepRecord));
    const StepRecord& record = m_lastRecord;
    m_scaler.setState(record.scaler);
    StepOutcome outcome;
    outcome.loss = hostLoss(reinterpret_cast<const float*>(data + m_outputOffset), m_stepLabels[pending.slot].data(),
                            m_settings.batchSize, nullptr);
    outcome.applied = record.skipped == 0;

    StepMetrics metrics;
    metrics.step = pending.index;
    metrics.epoch = pending.epoch;
    metrics.loss = outcome.loss;
    metrics.lossScale = record.usedScale;
    metrics.skipped = !outcome.applied;
    metrics.gradNorm = std::sqrt(record.sumOfSquares);
    metrics.learningRate = pending.learningRate;
    metrics.scaleBelowOne = m_scaler.scaleBelowOne();
    // Steady state: one step finishes per step time, however deep the queue.
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - std::max(pending.queuedAt, previousFinish)).count();
    metrics.samplesPerSecond = seconds > 0.0 ? static_cast<double>(m_settings.batchSize) / seconds : 0.0;
    if (m_sink != nullptr) {
        m_sink->push(metrics);
    }
    m_stepsDone = pending.index + 1;
    return outcome;
}

TrainingSummary Trainer::run() {
    TrainingSummary summary;
    BatchOptions options;
    options.batchSize = m_settings.batchSize;
    options.shuffle = true;
    options.seed = m_settings.seed;
    options.dropLast = true;
    BatchIterator batches(m_train, options);
    Batch batch;
    std::vector<float> targets(static_cast<std::size_t>(m_settings.batchSize));
    const auto runStart = Clock::now();
    int64_t stepIndex = 0;
    // One step in flight: step N+1 is queued before step N's results are read.
    std::optional<PendingStep> pending;
    auto lastFinish = runStart;
    double lossSum = 0.0;
    int64_t applied = 0;
    auto finishPending = [&] {
        if (!pending) {
            return;
        }
        const StepOutcome outcome = finishStep(*pending, lastFinish);
        lastFinish = Clock::now();
        if (outcome.applied) {
            lossSum += outcome.loss;
            ++applied;
        }
        pending.reset();
    };
    for (int64_t epoch = 0; stepIndex < m_totalSteps && !m_stop; ++epoch) {
        batches.startEpoch(epoch);
        lossSum = 0.0;
        applied = 0;
        while (stepIndex < m_totalSteps && batches.next(batch)) {
            if (m_paused) {
                finishPending();  // the last step's metrics before the pause, not after it
                waitWhilePaused();
                lastFinish = Clock::now();
            }
            if (m_stop) {
                break;
            }
            for (int64_t i = 0; i < batch.size; ++i) {
                targets[static_cast<std::size_t>(i)] = m_train.task == DatasetTask::Classification
                                                           ? static_cast<float>(batch.labels[static_cast<std::size_t>(i)])
                                                           : batch.targets[static_cast<std::size_t>(i)];
            }
            loadBatch(batch.features.data(), targets.data(), batch.size);
            const int slot = static_cast<int>(stepIndex % 2);
            PendingStep queued = queueStep(stepIndex, epoch, slot);
            finishPending();
            pending = queued;
            ++stepIndex;
        }
        finishPending();
        if (m_stop) {
            break;  // a partial epoch gets no epoch record
        }
        summary.finalLoss = applied > 0 ? lossSum / static_cast<double>(applied) : NAN;
        EpochMetrics em;
        em.epoch = epoch;
        em.trainLoss = summary.finalLoss;
        em.validationLoss = NAN;
        em.validationAccuracy = NAN;
        if (m_validation != nullptr && m_validation->size() > 0) {
            const EvaluationResult r = evaluate(*m_validation);
            em.validationLoss = r.loss;
            em.validationAccuracy = r.accuracy;
        }
        ++summary.epochsCompleted;
        summary.steps = stepIndex;
        summary.skippedSteps = m_scaler.skippedSteps();
        summary.finalLossScale = m_scaler.scale();
        if (m_sink != nullptr) {
            m_sink->push(em);
        }
        if (m_epochCallback) {
            m_epochCallback(em, summary);
        }
    }
    finishPending();
    const double seconds = std::chrono::duration<double>(Clock::now() - runStart).count();
    summary.steps = stepIndex;
    summary.skippedSteps = m_scaler.skippedSteps();
    summary.finalLossScale = m_scaler.scale();
    summary.stopped = m_stop;
    summary.samplesPerSecond =
        seconds > 0.0 ? static_cast<double>(stepIndex * m_settings.batchSize) / seconds : 0.0;
    if (m_sink != nullptr) {
        m_sink->finish();
    }
    return summary;
}

EvaluationResult Trainer::evaluate(const Dataset& data) {
    if (data.sampleShape != m_train.sampleShape) {
        throw std::invalid_argument("dataset '" + data.name + "' has samples of shape " + shapeString(data.sampleShape) +
                                    " but the model was bound for " + shapeString(m_train.sampleShape));
    }
    EvaluationResult result;
    const int64_t b = m_settings.batchSize;
    const int64_t sampleSize = data.sampleSize();
    std::vector<float> targets(static_cast<std::size_t>(b));
    double lossSum = 0.0, correctSum = 0.0;
    ExecContext ctx;
    ctx.training = false;
    for (int64_t first = 0; first < data.size(); first += b) {
        const int64_t rows = std::min(b, data.size() - first);
        for (int64_t i = 0; i < rows; ++i) {
            const auto s = static_cast<std::size_t>(first + i);
            targets[static_cast<std::size_t>(i)] =
                data.task == DatasetTask::Classification ? static_cast<float>(data.labels[s]) : data.targets[s];
        }
        loadBatch(data.features.data() + first * sampleSize, targets.data(), rows);
        m_executor->forward(ctx);
        queueReadback(*m_readbacks[0], false);
        const std::byte* output = m_readbacks[0]->wait();
        double correct = 0.0;
        lossSum += hostLoss(reinterpret_cast<const float*>(output + m_outputOffset), m_hostLabels.data(), rows,
                            &correct) *
                   static_cast<double>(rows);
        correctSum += correct;
    }
    result.samples = data.size();
    result.loss = lossSum / static_cast<double>(std::max<int64_t>(data.size(), 1));
    result.accuracy = m_lossOp == "SoftmaxOutput" ? correctSum / static_cast<double>(std::max<int64_t>(data.size(), 1))
                                                   : NAN;
    return result;
}

NDArrayList Trainer::parameters() const {
    NDArrayList list;
    auto record = [&](const std::string& name, const Tensor& t) {
        list.arrays.push_back(float32Record(m_backend, name, t));
    };
    for (const Parameter& p : m_params) {
        record("arg:" + p.name, p.master);
    }
    for (const std::string& name : m_executor->auxiliaryNames()) {
        record("aux:" + name, m_executor->value(name));
    }
    return list;
}

NDArrayList Trainer::optimizerState() const {
    NDArrayList list;
    auto record = [&](const std::string& name, const Tensor& t) {
        list.arrays.push_back(float32Record(m_backend, name, t));
    };
    const bool adam = m_settings.optimizer.kind != OptimizerKind::Sgd;
    for (const Parameter& p : m_params) {
        if (p.state1.defined()) {
            record((adam ? "adam_m:" : "momentum:") + p.name, p.state1);
        }
        if (p.state2.defined()) {
            record("adam_v:" + p.name, p.state2);
        }
    }
    return list;
}

ModelFiles Trainer::saveCheckpoint(const std::string& prefix, int64_t epoch, ModelFormat format,
                                  std::span<const std::filesystem::path> protectedFiles) const {
    const NDArrayList weights = parameters();
    return saveModelFile(format, prefix, m_original, &weights, protectedFiles, epoch);
}

}  // namespace ampstudio
