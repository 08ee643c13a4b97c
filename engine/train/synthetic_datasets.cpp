#include "train/synthetic_datasets.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "tensor/seeded_random.h"

namespace ampstudio {
namespace {

// Generated sets live in memory: refuse sizes that are surely a typo (or an overflow) up front.
constexpr int64_t kMaxValues = int64_t{1} << 31;

void checkSize(int64_t samples, int64_t features, const char* what) {
    if (samples < 0 || features < 1 || (samples > 0 && features > kMaxValues / samples)) {
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(samples) + " samples of " +
                                    std::to_string(features) + " features is not a sensible size");
    }
}

}  // namespace

Dataset syntheticRegression(const RegressionOptions& o) {
    const auto d = static_cast<int64_t>(o.slope.size());
    checkSize(o.samples, d, "synthetic regression");
    Dataset out;
    out.name = "regression";
    out.task = DatasetTask::Regression;
    out.sampleShape = {d};
    out.features.resize(static_cast<std::size_t>(o.samples * d));
    out.targets.resize(static_cast<std::size_t>(o.samples));
    SeededRandom random(o.seed);
    for (int64_t i = 0; i < o.samples; ++i) {
        double y = o.intercept;
        for (int64_t j = 0; j < d; ++j) {
            const double x = random.uniform(-1.0, 1.0);
            out.features[static_cast<std::size_t>(i * d + j)] = static_cast<float>(x);
            y += static_cast<double>(o.slope[static_cast<std::size_t>(j)]) * x;
        }
        out.targets[static_cast<std::size_t>(i)] = static_cast<float>(y + o.noise * random.normal());
    }
    return out;
}

Dataset twoSpirals(const SpiralOptions& o) {
    checkSize(o.samples, 2, "two spirals");
    if (!(o.turns > 0.0) || !std::isfinite(o.turns)) {
        throw std::invalid_argument("two spirals: turns must be positive");
    }
    Dataset out;
    out.name = "two-spirals";
    out.sampleShape = {2};
    out.classCount = 2;
    out.features.resize(static_cast<std::size_t>(o.samples * 2));
    out.labels.resize(static_cast<std::size_t>(o.samples));
    SeededRandom random(o.seed);
    const double tMax = o.turns * 2.0 * std::numbers::pi;
    for (int64_t i = 0; i < o.samples; ++i) {
        const int32_t c = static_cast<int32_t>(i % 2);
        const double t = std::sqrt(random.uniform01()) * tMax;
        const double r = t / tMax;
        const double phase = t + c * std::numbers::pi;
        out.features[static_cast<std::size_t>(2 * i)] =
            static_cast<float>(r * std::cos(phase) + o.noise * random.normal());
        out.features[static_cast<std::size_t>(2 * i + 1)] =
            static_cast<float>(r * std::sin(phase) + o.noise * random.normal());
        out.labels[static_cast<std::size_t>(i)] = c;
    }
    return out;
}

Dataset gaussianBlobs(const BlobOptions& o) {
    checkSize(o.samples, o.features, "Gaussian blobs");
    if (o.classes < 1 || o.classes > 100000) {
        throw std::invalid_argument("Gaussian blobs: the class count must be between 1 and 100000");
    }
    Dataset out;
    out.name = "blobs";
    out.sampleShape = {o.features};
    out.classCount = o.classes;
    out.features.resize(static_cast<std::size_t>(o.samples * o.features));
    out.labels.resize(static_cast<std::size_t>(o.samples));
    SeededRandom random(o.seed);
    const auto d = static_cast<std::size_t>(o.features);
    std::vector<double> centers(static_cast<std::size_t>(o.classes) * d);
    for (double& c : centers) {
        c = random.uniform(-o.centerBox, o.centerBox);
    }
    for (int64_t i = 0; i < o.samples; ++i) {
        const auto c = static_cast<std::size_t>(i % o.classes);
        for (std::size_t j = 0; j < d; ++j) {
            out.features[static_cast<std::size_t>(i) * d + j] =
                static_cast<float>(centers[c * d + j] + o.spread * random.normal());
        }
        out.labels[static_cast<std::size_t>(i)] = static_cast<int32_t>(c);
    }
    return out;
}

}  // namespace ampstudio
