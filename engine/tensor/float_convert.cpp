#include "tensor/float_convert.h"

#include <bit>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#include <stdexcept>
#include <string>

#include "tensor/parallel_for.h"

namespace ampstudio {

#if defined(__FLT16_MAX__)
// float16 goes through the compiler's _Float16 (g++ >= 12 on x86-64): its conversion is IEEE
// round-to-nearest-even with subnormals, infinities and NaNs, so there is nothing to get wrong here.
static_assert(sizeof(_Float16) == 2);

uint16_t floatToHalfBits(float value) {
    return std::bit_cast<uint16_t>(static_cast<_Float16>(value));
}

float halfBitsToFloat(uint16_t bits) {
    return static_cast<float>(std::bit_cast<_Float16>(bits));
}
#else
// Compilers without _Float16 on this target (clang 14 on x86-64, used for the fuzz build): the same
// IEEE conversion in integer form; test_float_convert checks all 65,536 patterns either way.
uint16_t floatToHalfBits(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude >= 0x7F800000u) {  // infinity, or NaN kept quiet with its upper payload
        return sign | (magnitude > 0x7F800000u ? static_cast<uint16_t>(0x7E00u | ((magnitude >> 13) & 0x3FFu)) : 0x7C00u);
    }
    if (magnitude >= 0x477FF000u) {  // >= 65520 rounds to infinity
        return sign | 0x7C00u;
    }
    const uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 13;           // normal: drop 13 mantissa bits
    uint32_t result = 0;
    if (exponent < 113) {          // below 2^-14: a float16 subnormal (or zero)
        shift = 126 - exponent;    // >= 14
        if (shift > 24) {
            return sign;           // below half the smallest subnormal
        }
    } else {
        result = (exponent - 112) << 10;
        mantissa &= 0x7FFFFFu;
    }
    const uint32_t kept = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    result += kept;
    if (rest > half || (rest == half && (kept & 1u) != 0)) {
        ++result;  // a carry into the exponent is the next representable value
    }
    return sign | static_cast<uint16_t>(result);
}

float halfBitsToFloat(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1Fu;
    const uint32_t mantissa = bits & 0x3FFu;
    if (exponent == 0x1F) {
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    }
    if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        return sign != 0 ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
#endif

// bfloat16 is the upper half of a float32 (same exponent range), so float32 -> bfloat16 is a rounding
// of the low 16 bits; g++ 12 has no __bf16 arithmetic type, hence the bit form.
namespace {

void requireSameLength(std::size_t in, std::size_t out, const char* function) {
    if (in != out) {
        throw std::invalid_argument(std::string(function) + ": input has " + std::to_string(in) +
                                    " elements, output " + std::to_string(out));
    }
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__)
// The span conversions run on every f16 and bf16 op of the CPU backend (cpu_op_adapter.cpp), so they
// use F16C (every x86-64 CPU since 2012) and AVX2 (since 2013) where the CPU has them, chosen at run
// time so the build stays baseline x86-64. vcvtps2ph with imm 0 rounds to nearest even and handles subnormals,
// infinities and NaN as IEEE says: bit-identical to the scalar conversion (test_float_convert checks).
namespace {

__attribute__((target("avx,f16c"))) void floatsToHalfF16c(const float* in, uint16_t* out, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(in + i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) {
        out[i] = floatToHalfBits(in[i]);
    }
}

__attribute__((target("avx,f16c"))) void halfToFloatsF16c(const uint16_t* in, float* out, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) {
        out[i] = halfBitsToFloat(in[i]);
    }
}

// bfloat16 has no conversion instruction before AVX-512 BF16, so AVX2 integer lanes do what
// floatToBfloat16Bits does, eight at a time: the same rounding bias, the same quieted NaN.
__attribute__((target("avx2"))) void floatsToBfloat16Avx2(const float* in, uint16_t* out, std::size_t n) {
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i bias = _mm256_set1_epi32(0x7FFF);
    const __m256i absMask = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i infinity = _mm256_set1_epi32(0x7F800000);
    const __m256i quietBit = _mm256_set1_epi32(0x00400000);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(in + i));
        const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), one);
        const __m256i rounded = _mm256_add_epi32(bits, _mm256_add_epi32(bias, odd));
        const __m256i isNan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, absMask), infinity);
        const __m256i kept = _mm256_srli_epi32(_mm256_blendv_epi8(rounded, _mm256_or_si256(bits, quietBit), isNan), 16);
        // packus works within 128-bit lanes; the permute brings the two lanes' halves together.
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(kept, kept), 0xD8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_castsi256_si128(packed));
    }
    for (; i < n; ++i) {
        out[i] = floatToBfloat16Bits(in[i]);
    }
}

__attribute__((target("avx2"))) void bfloat16ToFloatsAvx2(const uint16_t* in, float* out, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
    for (; i < n; ++i) {
        out[i] = bfloat16BitsToFloat(in[i]);
    }
}

bool hasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// CPUID leaf 1, ECX bit 29: __builtin_cpu_supports knows no "f16c" in Clang before 15, and the
// fuzz build uses Clang. F16C instructions use VEX encoding, so AVX must be usable too.
bool hasF16c() {
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0 &&
               __builtin_cpu_supports("avx");
    }();
    return has;
}

}  // namespace
#endif

void floatsToHalf(std::span<const float> in, std::span<uint16_t> out) {
    requireSameLength(in.size(), out.size(), "floatsToHalf");
#if defined(__x86_64__) && defined(__GNUC__)
    if (hasF16c()) {
        parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
            floatsToHalfF16c(in.data() + b, out.data() + b, static_cast<std::size_t>(e - b));
        });
        return;
    }
#endif
    parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            out[i] = floatToHalfBits(in[i]);
        }
    });
}

void halfToFloats(std::span<const uint16_t> in, std::span<float> out) {
    requireSameLength(in.size(), out.size(), "halfToFloats");
#if defined(__x86_64__) && defined(__GNUC__)
    if (hasF16c()) {
        parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
            halfToFloatsF16c(in.data() + b, out.data() + b, static_cast<std::size_t>(e - b));
        });
        return;
    }
#endif
    parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            out[i] = halfBitsToFloat(in[i]);
        }
    });
}

void floatsToBfloat16(std::span<const float> in, std::span<uint16_t> out) {
    requireSameLength(in.size(), out.size(), "floatsToBfloat16");
#if defined(__x86_64__) && defined(__GNUC__)
    if (hasAvx2()) {
        parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
            floatsToBfloat16Avx2(in.data() + b, out.data() + b, static_cast<std::size_t>(e - b));
        });
        return;
    }
#endif
    parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            out[i] = floatToBfloat16Bits(in[i]);
        }
    });
}

void bfloat16ToFloats(std::span<const uint16_t> in, std::span<float> out) {
    requireSameLength(in.size(), out.size(), "bfloat16ToFloats");
#if defined(__x86_64__) && defined(__GNUC__)
    if (hasAvx2()) {
        parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
            bfloat16ToFloatsAvx2(in.data() + b, out.data() + b, static_cast<std::size_t>(e - b));
        });
        return;
    }
#endif
    parallelFor(static_cast<int64_t>(in.size()), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            out[i] = bfloat16BitsToFloat(in[i]);
        }
    });
}

}  // namespace ampstudio
