#pragma once
// The hash behind value signatures (reused_values.h for graphs, onnx_value_signatures.h for ONNX
// programs): FNV-1a over bytes, then a 64-bit finaliser (splitmix64) between fields, so that neither
// the order of inputs nor the split between a name and an attribute can collide by construction.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ampstudio::signature {

inline constexpr uint64_t kFnvOffset = 1469598103934665603ull;
inline constexpr uint64_t kFnvPrime = 1099511628211ull;

inline uint64_t mix(uint64_t h) {
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

inline void add(uint64_t& h, uint64_t v) { h = mix(h ^ mix(v + 0x9e3779b97f4a7c15ull)); }

inline void add(uint64_t& h, std::span<const std::byte> bytes) {
    uint64_t f = kFnvOffset;
    for (std::byte b : bytes) f = (f ^ static_cast<uint64_t>(b)) * kFnvPrime;
    h = mix(h ^ f ^ (bytes.size() << 1));
}

inline void add(uint64_t& h, std::string_view s) { add(h, std::as_bytes(std::span(s.data(), s.size()))); }

}  // namespace ampstudio::signature
