#include "training_history.h"

#include <algorithm>
#include <cmath>

#include "train/metrics_csv_writer.h"

using namespace ampstudio;

void TrainingHistory::append(const MetricsBatch& batch) {
    for (const StepMetrics& s : batch.steps) {
        m_steps.push_back(s);
        m_stepX.push_back(static_cast<double>(s.step));
        m_loss.push_back(s.loss);
        if (std::isfinite(s.loss)) {
            m_ema = kSmoothing * m_ema + (1.0 - kSmoothing) * s.loss;
            m_emaWeight = kSmoothing * m_emaWeight + (1.0 - kSmoothing);
        }
        m_smoothed.push_back(m_emaWeight > 0.0 ? m_ema / m_emaWeight : std::nan(""));
        m_scale.push_back(s.lossScale);
        if (s.skipped) {
            m_skippedStep.push_back(static_cast<double>(s.step));
            m_skippedScale.push_back(s.lossScale);
        }
    }
    for (const EpochMetrics& e : batch.epochs) {
        m_epochs.push_back(e);
        m_epochX.push_back(m_stepX.empty() ? 0.0 : m_stepX.back());
        m_validationLoss.push_back(e.validationLoss);
        m_validationAccuracy.push_back(100.0 * e.validationAccuracy);
    }
}

void TrainingHistory::clear() {
    const std::string keep = label;
    *this = TrainingHistory();
    label = keep;
}

const StepMetrics* TrainingHistory::stepNear(double x) const {
    if (m_steps.empty() || !std::isfinite(x)) {
        return nullptr;
    }
    // Steps are 0, 1, 2 ... in order, so the index is the step.
    const double clamped = std::clamp(std::round(x), 0.0, static_cast<double>(m_steps.size() - 1));
    return &m_steps[static_cast<std::size_t>(clamped)];
}

std::string TrainingHistory::stepsCsv() const {
    std::string out = MetricsCsvWriter::stepHeader();
    for (const StepMetrics& s : m_steps) {
        out += MetricsCsvWriter::stepRow(s);
    }
    return out;
}

std::string TrainingHistory::epochsCsv() const {
    std::string out = MetricsCsvWriter::epochHeader();
    for (const EpochMetrics& e : m_epochs) {
        out += MetricsCsvWriter::epochRow(e);
    }
    return out;
}
