#pragma once
// Small generated datasets for demos and tests, seeded through SeededRandom so that the same options
// give the same bytes on every machine. Class labels are assigned round-robin (sample i has class
// i mod classes), so classes are balanced exactly; the noise is what is random.

#include <cstdint>
#include <vector>

#include "train/dataset.h"

namespace ampstudio {

// y = a·x + b + noise·N(0, 1), x uniform in [-1, 1]^D. Regression, sampleShape {D}.
struct RegressionOptions {
    int64_t samples = 1000;
    std::vector<float> slope = {2.0f};  // a: one weight per feature; its size is D
    float intercept = 0.5f;             // b
    float noise = 0.1f;                 // standard deviation of the additive noise
    uint64_t seed = 0;
};
Dataset syntheticRegression(const RegressionOptions& options);

// Two interleaved spirals in the plane (the classic benchmark of Lang & Witbrock 1988): class c's
// point at parameter t = sqrt(u) * turns * 2π (u uniform, so points are uniform along the arc) is
// r·(cos(t + cπ), sin(t + cπ)) with r = t / (turns * 2π) in [0, 1], plus noise·N(0, 1) per coordinate.
// Classification, 2 classes, sampleShape {2}.
struct SpiralOptions {
    int64_t samples = 1000;
    double turns = 1.5;
    double noise = 0.02;
    uint64_t seed = 0;
};
Dataset twoSpirals(const SpiralOptions& options);

// Isotropic Gaussian blobs (as scikit-learn's make_blobs): class centres uniform in
// [-centerBox, centerBox]^D, drawn first; then each sample is its class centre + spread·N(0, I).
// Classification, sampleShape {D}.
struct BlobOptions {
    int64_t samples = 1000;
    int32_t classes = 3;
    int64_t features = 2;
    double spread = 1.0;
    double centerBox = 10.0;
    uint64_t seed = 0;
};
Dataset gaussianBlobs(const BlobOptions& options);

}  // namespace ampstudio
