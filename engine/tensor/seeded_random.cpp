#include "tensor/seeded_random.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <utility>

namespace ampstudio {

double SeededRandom::uniform01() {
    return static_cast<double>(m_engine() >> 11) * 0x1.0p-53;
}

uint64_t SeededRandom::below(uint64_t n) {
    if (n <= 1) {
        return 0;
    }
    // Reject the lowest (2^64 mod n) values so that every residue is equally likely.
    const uint64_t threshold = (0 - n) % n;
    for (;;) {
        const uint64_t r = m_engine();
        if (r >= threshold) {
            return r % n;
        }
    }
}

double SeededRandom::normal() {
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    // 1 - u is in (0, 1], so the logarithm is finite.
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    m_spare = radius * std::sin(angle);
    m_hasSpare = true;
    return radius * std::cos(angle);
}

std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed) {
    std::vector<int64_t> order(static_cast<std::size_t>(std::max<int64_t>(n, 0)));
    std::iota(order.begin(), order.end(), int64_t{0});
    SeededRandom random(seed);
    for (std::size_t i = order.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>(random.below(i));
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

uint64_t mixSeed(uint64_t seed, uint64_t stream) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace ampstudio
