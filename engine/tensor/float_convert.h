#pragma once
// float32 <-> float16 / bfloat16 conversion, bit-exact with IEEE 754 round-to-nearest-even: infinities
// and NaNs are kept (a NaN stays a NaN, quieted), overflow gives infinity, and subnormals are produced
// and read correctly. Half-precision values travel as their raw 16 bits (uint16_t), the way .params
// files and device buffers hold them. The span functions are the bulk form used by parameter casting
// and the CPU backend; input and output must have the same length.

#include <cstdint>
#include <span>

namespace ampstudio {

uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);

uint16_t floatToBfloat16Bits(float value);
float bfloat16BitsToFloat(uint16_t bits);

// Throw std::invalid_argument when the spans differ in length.
void floatsToHalf(std::span<const float> in, std::span<uint16_t> out);
void halfToFloats(std::span<const uint16_t> in, std::span<float> out);
void floatsToBfloat16(std::span<const float> in, std::span<uint16_t> out);
void bfloat16ToFloats(std::span<const uint16_t> in, std::span<float> out);

}  // namespace ampstudio
