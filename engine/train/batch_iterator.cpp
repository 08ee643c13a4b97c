#include "train/batch_iterator.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "tensor/seeded_random.h"

namespace ampstudio {

BatchIterator::BatchIterator(const Dataset& data, const BatchOptions& options)
    : m_data(data), m_options(options) {
    if (options.batchSize < 1) {
        throw std::invalid_argument("the batch size must be at least 1");
    }
    startEpoch(0);
}

void BatchIterator::startEpoch(int64_t epoch) {
    m_epoch = epoch;
    m_position = 0;
    if (m_options.shuffle) {
        m_order = seededPermutation(m_data.size(), mixSeed(m_options.seed, static_cast<uint64_t>(epoch)));
    } else {
        m_order.resize(static_cast<std::size_t>(m_data.size()));
        std::iota(m_order.begin(), m_order.end(), int64_t{0});
    }
}

int64_t BatchIterator::batchesPerEpoch() const {
    const int64_t n = m_data.size();
    const int64_t b = m_options.batchSize;
    return m_options.dropLast ? n / b : (n + b - 1) / b;
}

bool BatchIterator::next(Batch& batch) {
    const auto n = static_cast<int64_t>(m_order.size());
    const int64_t count = std::min(m_options.batchSize, n - m_position);
    if (count <= 0 || (m_options.dropLast && count < m_options.batchSize)) {
        return false;
    }
    const auto d = static_cast<std::size_t>(m_data.sampleSize());
    const bool classification = m_data.task == DatasetTask::Classification;
    batch.size = count;
    batch.shape.assign(1, count);
    batch.shape.insert(batch.shape.end(), m_data.sampleShape.begin(), m_data.sampleShape.end());
    batch.indices.assign(m_order.begin() + m_position, m_order.begin() + m_position + count);
    batch.features.resize(static_cast<std::size_t>(count) * d);
    batch.labels.resize(classification ? static_cast<std::size_t>(count) : 0);
    batch.targets.resize(classification ? 0 : static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < batch.indices.size(); ++k) {
        const auto i = static_cast<std::size_t>(batch.indices[k]);
        std::copy_n(m_data.features.begin() + static_cast<std::ptrdiff_t>(i * d), d,
                    batch.features.begin() + static_cast<std::ptrdiff_t>(k * d));
        if (classification) {
            batch.labels[k] = m_data.labels[i];
        } else {
            batch.targets[k] = m_data.targets[i];
        }
    }
    m_position += count;
    return true;
}

}  // namespace ampstudio
