#pragma once
// The CLI's `--metrics out.csv`: a MetricsSink consumer that writes one row per step
//   step,epoch,loss,loss_scale,skipped,grad_norm,lr,samples_per_s,scale_below_one
// and, when given a second path, one row per epoch
//   epoch,train_loss,validation_loss,validation_accuracy
// Numbers are written in the shortest form that reads back to the same double (std::to_chars: no
// locale, the same bytes for the same values, so two runs with one seed give identical files);
// non-finite values are `inf`, `-inf` and `nan`; booleans 0/1.
//
// Streamed, not written atomically at the end: each write() appends its rows and flushes, so a long
// run can be watched (`tail -f`) and a run that is stopped or crashes keeps every step written so far.
// A metrics log is never an input the program could destroy, so losing atomicity costs nothing. The
// file is truncated when the writer opens it.

#include <filesystem>
#include <fstream>
#include <string>

#include "train/metrics_sink.h"

namespace ampstudio {

class MetricsCsvWriter {
public:
    // Opens (truncates) the files and writes the header rows. Throws SaveError naming the path.
    explicit MetricsCsvWriter(const std::filesystem::path& stepsPath,
                              const std::filesystem::path& epochsPath = {});

    // Appends the batch's rows and flushes. Throws SaveError when the disk refuses.
    void write(const MetricsBatch& batch);
    void close();  // flushes and closes; also done by the destructor (without throwing)

    static std::string stepHeader();
    static std::string stepRow(const StepMetrics& step);
    static std::string epochHeader();
    static std::string epochRow(const EpochMetrics& epoch);

private:
    void check(std::ofstream& out, const std::filesystem::path& path, const char* step) const;

    std::filesystem::path m_stepsPath;
    std::filesystem::path m_epochsPath;
    std::ofstream m_steps;
    std::ofstream m_epochs;
};

// A number as the CSV writes it: shortest round-trip form, `inf`, `-inf` or `nan`.
std::string formatMetric(double value);

}  // namespace ampstudio
