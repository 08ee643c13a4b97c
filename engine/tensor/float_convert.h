#pragma once
// float32 <-> float16 / bfloat16 conversion, bit-exact with IEEE 754 round-to-nearest-even: infinities
// and NaNs are kept (a NaN stays a NaN, quieted), overflow gives infinity, and subnormals are produced
// and read correctly. Half-precision values travel as their raw 16 bits (uint16_t), the way .params
// files and device buffers hold them. The span functions are the bulk form used by parameter casting
// and the CPU backend; input and output must have the same length.

#include <bit>
#include <cstdint>
#include <span>

namespace ampstudio {

uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);

// Inline: the CPU kernels that compute on bfloat16 as stored call them per element in their loops.
inline uint16_t floatToBfloat16Bits(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
        // NaN: truncating could clear every mantissa bit (giving infinity), so keep the upper
        // payload and set the quiet bit, as IEEE conversions quiet a signalling NaN.
        return static_cast<uint16_t>((bits >> 16) | 0x0040u);
    }
    // Round to nearest, ties to even: add just under half an ulp, plus one more when the kept
    // part is odd. A carry out of the mantissa moves into the exponent, which is exactly the next
    // representable value (and 0x7F80 = infinity past the largest finite value).
    const uint32_t roundingBias = 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

inline float bfloat16BitsToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// Throw std::invalid_argument when the spans differ in length.
void floatsToHalf(std::span<const float> in, std::span<uint16_t> out);
void halfToFloats(std::span<const uint16_t> in, std::span<float> out);
void floatsToBfloat16(std::span<const float> in, std::span<uint16_t> out);
void bfloat16ToFloats(std::span<const uint16_t> in, std::span<float> out);

}  // namespace ampstudio
