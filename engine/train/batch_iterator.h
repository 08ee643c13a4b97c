#pragma once
// Batches of a dataset, one epoch at a time, each gathered into contiguous buffers that can be copied
// to a device in one transfer. With shuffling, epoch e visits the samples in the order
// seededPermutation(N, mixSeed(seed, e)): every sample exactly once per epoch, the same order for the
// same (seed, epoch) on every machine, and an epoch's order does not depend on the epochs before it
// (a resumed run shuffles as an uninterrupted one). The last batch is smaller unless dropLast.

#include <cstdint>
#include <vector>

#include "train/dataset.h"

namespace ampstudio {

struct Batch {
    int64_t size = 0;              // samples in this batch
    std::vector<int64_t> shape;    // {size, sampleShape...}
    std::vector<float> features;   // size * sampleSize values
    std::vector<int32_t> labels;   // Classification
    std::vector<float> targets;    // Regression
    std::vector<int64_t> indices;  // which samples of the dataset, in batch order
};

struct BatchOptions {
    int64_t batchSize = 32;  // >= 1
    bool shuffle = true;
    uint64_t seed = 0;
    bool dropLast = false;  // drop a final batch smaller than batchSize
};

class BatchIterator {
public:
    // The dataset must outlive the iterator. Throws std::invalid_argument for a batch size below 1.
    BatchIterator(const Dataset& data, const BatchOptions& options);

    // Starts epoch `epoch` (0-based): fixes its order and rewinds.
    void startEpoch(int64_t epoch);
    // Fills `batch` (reusing its buffers) with the next batch of the epoch; false when it is over.
    bool next(Batch& batch);

    int64_t batchesPerEpoch() const;
    int64_t epoch() const { return m_epoch; }
    const std::vector<int64_t>& order() const { return m_order; }

private:
    const Dataset& m_data;
    BatchOptions m_options;
    int64_t m_epoch = 0;
    std::vector<int64_t> m_order;
    int64_t m_position = 0;
};

}  // namespace ampstudio
