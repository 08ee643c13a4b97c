#pragma once
// Dropout's mask, the same on every backend: a pure function of (seed, step, node name, element
// index), counter-based rather than a stateful generator, so a forward pass can be repeated exactly
// (gradient checks, recomputation), two Dropout nodes draw different masks, and the CPU and CUDA
// backends drop the same elements. C++17 and usable in device code: nvcc includes it too.
#include <cstdint>
#include <string_view>

#include "backend/host_device.h"

namespace ampstudio::dropout {

AMS_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// FNV-1a of the node's name: what tells two Dropout nodes apart.
inline uint64_t nameHash(std::string_view name) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    }
    return h;
}

// The key of one forward pass of one node.
inline uint64_t passKey(uint64_t seed, uint64_t nodeHash, int64_t step) {
    return splitmix64(splitmix64(seed ^ nodeHash) ^ static_cast<uint64_t>(step));
}

// Element i's uniform draw in [0, 1): the top 24 bits times 2^-24, exact in float, so u >= p keeps
// with probability 1 - p and every backend gets the same bits.
AMS_HOST_DEVICE inline float uniform(uint64_t key, int64_t i) {
    return static_cast<float>(splitmix64(key + static_cast<uint64_t>(i)) >> 40) * 0x1p-24f;
}

}  // namespace ampstudio::dropout
