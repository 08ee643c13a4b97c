#pragma once
// An in-memory training set: N samples of f32 features (a vector [D] or an image [C, H, W]) and, per
// sample, an int32 class label (classification) or an f32 target (regression). Row-major and
// contiguous, so that a batch is a slice or a gather of whole rows.
//
// Where datasets come from: synthetic_datasets.h, csv_dataset.h, idx_file.h / fashion_mnist.h.
// What is done to them: splitting and normalising here, batching in batch_iterator.h. All seeded.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ampstudio {

enum class DatasetTask { Classification, Regression };

struct Dataset {
    std::string name;                  // for messages and the GUI ("two-spirals", a file name ...)
    std::vector<int64_t> sampleShape;  // {D} or {C, H, W}
    std::vector<float> features;       // size() * sampleSize() values, sample after sample
    DatasetTask task = DatasetTask::Classification;
    std::vector<int32_t> labels;            // Classification: size() labels in [0, classCount)
    std::vector<float> targets;             // Regression: size() targets
    int32_t classCount = 0;                 // Classification only
    std::vector<std::string> featureNames;  // CSV column names; empty otherwise
    std::vector<std::string> classNames;    // e.g. Fashion-MNIST's; empty when unknown

    int64_t size() const;        // N
    int64_t sampleSize() const;  // product of sampleShape
    std::span<const float> sample(int64_t i) const;
    // Samples per class (Classification), for balance checks and the GUI.
    std::vector<int64_t> classCounts() const;
};

// The samples at the given indices, in that order (a gather). Throws std::out_of_range.
Dataset subset(const Dataset& data, std::span<const int64_t> indices);

struct TrainValidationSplit {
    Dataset train;
    Dataset validation;
};
// A seeded shuffle, then the first round(N * validationFraction) samples of it become the validation
// set and the rest the training set (each keeps the shuffled order). validationFraction in [0, 1).
TrainValidationSplit splitTrainValidation(const Dataset& data, double validationFraction, uint64_t seed);

// Per-feature standardisation: x' = (x - mean) / std. Fit it on the training set only and apply the
// same numbers to validation and test sets. A constant feature gets std 1 (it becomes 0, not NaN).
struct FeatureNormalization {
    std::vector<float> mean;
    std::vector<float> stddev;
};
FeatureNormalization fitFeatureNormalization(const Dataset& data);  // population std, in f64
void applyFeatureNormalization(Dataset& data, const FeatureNormalization& normalization);

// Images stored as 0..255 become 0..1 (x / 255), the usual scaling for MNIST-style data.
void scalePixelsToUnit(Dataset& data);

}  // namespace ampstudio
