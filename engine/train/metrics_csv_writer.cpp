#include "train/metrics_csv_writer.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "formats/atomic_file.h"

namespace ampstudio {

std::string formatMetric(double value) {
    if (std::isnan(value)) {
        return "nan";  // to_chars may write "-nan"; the sign of a NaN means nothing here
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::string("nan");
}

std::string MetricsCsvWriter::stepHeader() {
    return "step,epoch,loss,loss_scale,skipped,grad_norm,lr,samples_per_s,scale_below_one\n";
}

std::string MetricsCsvWriter::stepRow(const StepMetrics& s) {
    return std::to_string(s.step) + ',' + std::to_string(s.epoch) + ',' + formatMetric(s.loss) + ',' +
           formatMetric(s.lossScale) + ',' + (s.skipped ? '1' : '0') + ',' + formatMetric(s.gradNorm) + ',' +
           formatMetric(s.learningRate) + ',' + formatMetric(s.samplesPerSecond) + ',' +
           (s.scaleBelowOne ? '1' : '0') + '\n';
}

std::string MetricsCsvWriter::epochHeader() {
    return "epoch,train_loss,validation_loss,validation_accuracy\n";
}

std::string MetricsCsvWriter::epochRow(const EpochMetrics& e) {
    return std::to_string(e.epoch) + ',' + formatMetric(e.trainLoss) + ',' + formatMetric(e.validationLoss) +
           ',' + formatMetric(e.validationAccuracy) + '\n';
}

MetricsCsvWriter::MetricsCsvWriter(const std::filesystem::path& stepsPath,
                                   const std::filesystem::path& epochsPath)
    : m_stepsPath(stepsPath), m_epochsPath(epochsPath) {
    errno = 0;
    m_steps.open(stepsPath, std::ios::binary | std::ios::trunc);
    check(m_steps, stepsPath, "opening");
    m_steps << stepHeader() << std::flush;
    check(m_steps, stepsPath, "writing");
    if (!epochsPath.empty()) {
        m_epochs.open(epochsPath, std::ios::binary | std::ios::trunc);
        check(m_epochs, epochsPath, "opening");
        m_epochs << epochHeader() << std::flush;
        check(m_epochs, epochsPath, "writing");
    }
}

void MetricsCsvWriter::write(const MetricsBatch& batch) {
    if (m_steps.is_open() && !batch.steps.empty()) {
        std::string text;
        text.reserve(batch.steps.size() * 64);
        for (const StepMetrics& s : batch.steps) {
            text += stepRow(s);
        }
        m_steps << text << std::flush;
        check(m_steps, m_stepsPath, "writing");
    }
    if (m_epochs.is_open() && !batch.epochs.empty()) {
        std::string text;
        for (const EpochMetrics& e : batch.epochs) {
            text += epochRow(e);
        }
        m_epochs << text << std::flush;
        check(m_epochs, m_epochsPath, "writing");
    }
}

void MetricsCsvWriter::close() {
    if (m_steps.is_open()) {
        m_steps.close();
        check(m_steps, m_stepsPath, "closing");
    }
    if (m_epochs.is_open()) {
        m_epochs.close();
        check(m_epochs, m_epochsPath, "closing");
    }
}

void MetricsCsvWriter::check(std::ofstream& out, const std::filesystem::path& path, const char* step) const {
    if (!out) {
        const int err = errno;
        throw SaveError("cannot write metrics to " + path.string() + ": " + step +
                        (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
    }
}

}  // namespace ampstudio
