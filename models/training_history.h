#pragma once
// The training monitor's own copy of a run: every step and epoch the metrics sink handed out, kept in
// columns the charts plot directly (x = step), plus the derived ones — the smoothed loss and the
// skipped steps as markers. Appending is amortised O(1) per record; the charts only
// read. One history per run; the monitor keeps the previous run's for the overlay.

#include <cstdint>
#include <string>
#include <vector>

#include "train/metrics_sink.h"

class TrainingHistory {
public:
    // Weight of the exponential moving average behind the smoothed loss (debiased as TensorBoard's
    // smoothing is, so the curve starts at the first loss rather than at zero).
    static constexpr double kSmoothing = 0.97;

    void append(const ampstudio::MetricsBatch& batch);
    void clear();

    std::size_t stepCount() const { return m_steps.size(); }
    const std::vector<ampstudio::StepMetrics>& steps() const { return m_steps; }
    const std::vector<ampstudio::EpochMetrics>& epochs() const { return m_epochs; }
    int64_t skippedCount() const { return static_cast<int64_t>(m_skippedStep.size()); }

    // Columns, one value per step: x, the raw loss (inf/NaN kept; the decimator drops them), the
    // smoothed loss and the loss scale.
    const std::vector<double>& stepX() const { return m_stepX; }
    const std::vector<double>& loss() const { return m_loss; }
    const std::vector<double>& smoothedLoss() const { return m_smoothed; }
    const std::vector<double>& lossScale() const { return m_scale; }
    // One value per skipped step: where it happened and the scale it overflowed at.
    const std::vector<double>& skippedStep() const { return m_skippedStep; }
    const std::vector<double>& skippedScale() const { return m_skippedScale; }
    // One value per epoch, x = the epoch's last step.
    const std::vector<double>& epochX() const { return m_epochX; }
    const std::vector<double>& validationLoss() const { return m_validationLoss; }
    const std::vector<double>& validationAccuracyPercent() const { return m_validationAccuracy; }

    // The step record at `step` (x rounded to the nearest step, clamped); null when empty.
    const ampstudio::StepMetrics* stepNear(double x) const;

    // What the run was, for the overlay's legend ("fp32", "amp" ...).
    std::string label;

    // The metrics as the CLI's --metrics writes them (same header, same rows).
    std::string stepsCsv() const;
    std::string epochsCsv() const;

private:
    std::vector<ampstudio::StepMetrics> m_steps;
    std::vector<ampstudio::EpochMetrics> m_epochs;
    std::vector<double> m_stepX, m_loss, m_smoothed, m_scale;
    std::vector<double> m_skippedStep, m_skippedScale;
    std::vector<double> m_epochX, m_validationLoss, m_validationAccuracy;
    double m_ema = 0.0;
    double m_emaWeight = 0.0;  // 1 - kSmoothing^k over the k finite losses so far: the debias term
};
