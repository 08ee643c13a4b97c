#pragma once
// Test data for the backend suites (test_training_step on the CPU, test_cuda_backend on the GPU):
// seeded random values, and a StepRecord carried to and from a backend as the U8 tensor the
// gradient pass and the optimizer steps take.

#include <cstdint>
#include <random>
#include <vector>

#include "backend/backend.h"
#include "backend/mixed_precision_step.h"

inline std::vector<float> randomFloats(std::size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

inline ampstudio::Tensor recordTensor(ampstudio::Backend& b, const ampstudio::StepRecord& record) {
    const ampstudio::Shape bytes{static_cast<int64_t>(sizeof record)};
    ampstudio::Tensor t = b.allocate(bytes, ampstudio::DType::U8);
    b.copyFromHost(&record, sizeof record, t);
    return t;
}

inline ampstudio::StepRecord readRecord(ampstudio::Backend& b, const ampstudio::Tensor& t) {
    ampstudio::StepRecord record;
    b.copyToHost(t, &record, sizeof record);
    return record;
}
