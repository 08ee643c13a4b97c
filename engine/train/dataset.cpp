#include "train/dataset.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tensor/seeded_random.h"

namespace ampstudio {

int64_t Dataset::sampleSize() const {
    int64_t n = 1;
    for (int64_t d : sampleShape) {
        n *= d;
    }
    return n;
}

int64_t Dataset::size() const {
    return task == DatasetTask::Classification ? static_cast<int64_t>(labels.size())
                                               : static_cast<int64_t>(targets.size());
}

std::span<const float> Dataset::sample(int64_t i) const {
    if (i < 0 || i >= size()) {
        throw std::out_of_range("sample " + std::to_string(i) + " of a dataset of " + std::to_string(size()));
    }
    const auto d = static_cast<std::size_t>(sampleSize());
    return std::span<const float>(features).subspan(static_cast<std::size_t>(i) * d, d);
}

std::vector<int64_t> Dataset::classCounts() const {
    std::vector<int64_t> counts(static_cast<std::size_t>(std::max(classCount, 0)), 0);
    for (int32_t label : labels) {
        if (label >= 0 && label < classCount) {
            ++counts[static_cast<std::size_t>(label)];
        }
    }
    return counts;
}

Dataset subset(const Dataset& data, std::span<const int64_t> indices) {
    Dataset out;
    out.name = data.name;
    out.sampleShape = data.sampleShape;
    out.task = data.task;
    out.classCount = data.classCount;
    out.featureNames = data.featureNames;
    out.classNames = data.classNames;
    const int64_t n = data.size();
    const auto d = static_cast<std::size_t>(data.sampleSize());
    out.features.resize(indices.size() * d);
    if (data.task == DatasetTask::Classification) {
        out.labels.resize(indices.size());
    } else {
        out.targets.resize(indices.size());
    }
    for (std::size_t k = 0; k < indices.size(); ++k) {
        const int64_t i = indices[k];
        if (i < 0 || i >= n) {
            throw std::out_of_range("sample index " + std::to_string(i) + " outside a dataset of " +
                                    std::to_string(n));
        }
        const auto src = data.features.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * d);
        std::copy(src, src + static_cast<std::ptrdiff_t>(d),
                  out.features.begin() + static_cast<std::ptrdiff_t>(k * d));
        if (data.task == DatasetTask::Classification) {
            out.labels[k] = data.labels[static_cast<std::size_t>(i)];
        } else {
            out.targets[k] = data.targets[static_cast<std::size_t>(i)];
        }
    }
    return out;
}

TrainValidationSplit splitTrainValidation(const Dataset& data, double validationFraction, uint64_t seed) {
    if (!(validationFraction >= 0.0 && validationFraction < 1.0)) {
        throw std::invalid_argument("the validation fraction must be in [0, 1)");
    }
    const std::vector<int64_t> order = seededPermutation(data.size(), seed);
    const auto validationCount =
        static_cast<std::size_t>(std::llround(static_cast<double>(order.size()) * validationFraction));
    const std::span<const int64_t> all(order);
    TrainValidationSplit split{subset(data, all.subspan(validationCount)),
                               subset(data, all.first(validationCount))};
    split.validation.name = data.name + " (validation)";
    return split;
}

FeatureNormalization fitFeatureNormalization(const Dataset& data) {
    const auto d = static_cast<std::size_t>(data.sampleSize());
    const auto n = static_cast<std::size_t>(data.size());
    std::vector<double> sum(d, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j) {
            sum[j] += data.features[i * d + j];
        }
    }
    FeatureNormalization out{std::vector<float>(d, 0.0f), std::vector<float>(d, 1.0f)};
    if (n == 0) {
        return out;
    }
    std::vector<double> mean(d);
    std::vector<double> squares(d, 0.0);
    for (std::size_t j = 0; j < d; ++j) {
        mean[j] = sum[j] / static_cast<double>(n);
    }
    // Two passes: subtracting the mean first keeps the variance accurate for large offsets.
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j) {
            const double delta = data.features[i * d + j] - mean[j];
            squares[j] += delta * delta;
        }
    }
    for (std::size_t j = 0; j < d; ++j) {
        const double stddev = std::sqrt(squares[j] / static_cast<double>(n));
        out.mean[j] = static_cast<float>(mean[j]);
        out.stddev[j] = stddev > 1e-12 ? static_cast<float>(stddev) : 1.0f;
    }
    return out;
}

void applyFeatureNormalization(Dataset& data, const FeatureNormalization& normalization) {
    const auto d = static_cast<std::size_t>(data.sampleSize());
    if (normalization.mean.size() != d || normalization.stddev.size() != d) {
        throw std::invalid_argument("normalisation fitted on " + std::to_string(normalization.mean.size()) +
                                    " features applied to samples of " + std::to_string(d));
    }
    for (std::size_t k = 0; k < data.features.size(); ++k) {
        const std::size_t j = k % d;
        data.features[k] = (data.features[k] - normalization.mean[j]) / normalization.stddev[j];
    }
}

void scalePixelsToUnit(Dataset& data) {
    for (float& x : data.features) {
        x /= 255.0f;
    }
}

}  // namespace ampstudio
