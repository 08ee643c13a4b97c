#pragma once
// Random numbers that are the same on every machine for the same seed. std::mt19937_64's output
// sequence is fixed by the C++ standard, but std::uniform_real_distribution, std::normal_distribution
// and std::shuffle are not (libstdc++, libc++ and MSVC give different values), so the distributions
// and the shuffle are written here:
//   uniform01   (bits >> 11) * 2^-53: the 53 high bits as a double in [0, 1)
//   below(n)    rejection sampling of the raw 64 bits (no modulo bias)
//   normal      Box-Muller, both values used in turn
//   permutation Fisher-Yates from the last index down, j = below(i + 1)
// The normal draws call std::log, std::sqrt and std::cos/sin: bit-identical wherever the math library
// is (glibc's are correctly rounded in practice); other libms may differ in the last bit.

#include <cstdint>
#include <random>
#include <vector>

namespace ampstudio {

class SeededRandom {
public:
    explicit SeededRandom(uint64_t seed) : m_engine(seed) {}

    uint64_t bits() { return m_engine(); }
    double uniform01();
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
    uint64_t below(uint64_t n);  // uniform in [0, n); n >= 1
    double normal();             // mean 0, standard deviation 1
    double normal(double mean, double stddev) { return mean + stddev * normal(); }

private:
    std::mt19937_64 m_engine;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

// A seeded Fisher-Yates permutation of 0 .. n-1.
std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed);

// A well-mixed 64-bit seed from a base seed and a stream number (SplitMix64's finaliser), so that
// epoch e of a run with seed s has its own shuffle that does not depend on the epochs before it.
uint64_t mixSeed(uint64_t seed, uint64_t stream);

}  // namespace ampstudio
