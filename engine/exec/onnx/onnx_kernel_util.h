#pragma once
// What the ONNX kernels share: dispatch on a tensor's dtype to a typed body, and broadcast loops.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdint>
#include <string>

#include "exec/onnx/onnx_ops.h"

namespace ampstudio {

// e^x in float, branch-free so a loop over it vectorises (glibc's expf does not): Cephes' expf
// (a degree-6 polynomial after reducing x by ln 2, as Eigen's and ONNX Runtime's vectorised exp),
// within 2 ulp of expf; 0 below -87.3 (where expf is denormal or 0), NaN kept. Only SSE2 operations
// (the engine's baseline ISA): rounding by adding and subtracting 1.5 * 2^23, no floor.
inline float fastExp(float a) {
    const float x0 = std::min(std::max(a, -88.3762626647949f), 88.3762626647950f);
    const float n = std::max((x0 * 1.44269504088896341f + 12582912.0f) - 12582912.0f, -127.0f);
    const float x = x0 - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * x + 1.3981999507e-3f;
    p = p * x + 8.3334519073e-3f;
    p = p * x + 4.1665795894e-2f;
    p = p * x + 1.6666665459e-1f;
    p = p * x + 5.0000001201e-1f;
    const float y = p * x * x + x + 1.0f;
    // 2^n through the exponent bits; n = -127 gives 0.
    const auto bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return a != a ? a : y * scale;
}

// Where `operand` broadcast to `out` repeats one contiguous block (its dims equal out's on a suffix
// of the axes, 1 on the rest): that block's size; 0 otherwise.
inline int64_t suffixPeriod(const Dims& operand, const Dims& out) {
    if (operand.size() > out.size()) return 0;
    const std::size_t shift = out.size() - operand.size();
    std::size_t k = operand.size();
    int64_t period = 1;
    while (k > 0 && operand[k - 1] == out[shift + k - 1]) period *= operand[--k];
    while (k > 0) {
        if (operand[--k] != 1) return 0;
    }
    return period > 0 ? period : 0;
}

// The sum of term(0) ... term(n - 1): in 16 float lanes (a float reduction the compiler may not
// reorder itself, so the loop vectorises), the lanes and the rest added up in double.
template <typename Term>
inline double sumInLanes(int64_t n, Term&& term) {
    constexpr int64_t kLanes = 16;
    const int64_t whole = n / kLanes * kLanes;
    float acc[kLanes] = {};
    for (int64_t k = 0; k < whole; k += kLanes) {
        for (int64_t l = 0; l < kLanes; ++l) acc[l] += term(k + l);
    }
    double sum = 0.0;
    for (const float v : acc) sum += v;
    for (int64_t k = whole; k < n; ++k) sum += term(k);
    return sum;
}

// The largest of term(0) ... term(n - 1), -inf if none (NaN is never the largest), in 16 lanes.
template <typename Term>
inline float maxInLanes(int64_t n, Term&& term) {
    constexpr int64_t kLanes = 16;
    const int64_t whole = n / kLanes * kLanes;
    float lane[kLanes];
    for (float& v : lane) v = -std::numeric_limits<float>::infinity();
    for (int64_t k = 0; k < whole; k += kLanes) {
        for (int64_t l = 0; l < kLanes; ++l) lane[l] = term(k + l) > lane[l] ? term(k + l) : lane[l];
    }
    float m = -std::numeric_limits<float>::infinity();
    for (const float v : lane) m = v > m ? v : m;
    for (int64_t k = whole; k < n; ++k) m = term(k) > m ? term(k) : m;
    return m;
}

// Calls body.template operator()<T>() with T the C++ type of `dtype`: float, double, the integer
// types, bool. float16 / bfloat16 never reach a kernel that computes in float32 (the runner widens
// them); other kernels that move bytes handle them by size. F selects the families admitted; any
// other dtype is an OnnxUnsupported error naming it.
struct DTypeFamilies {
    bool floats = true;
    bool integers = true;
    bool bools = false;
};

template <DTypeFamilies F = DTypeFamilies{}, typename Body>
void visitDtype(const OnnxKernelContext& ctx, DType dtype, Body&& body) {
    switch (dtype) {
        case DType::F32: if constexpr (F.floats) return body.template operator()<float>(); break;
        case DType::F64: if constexpr (F.floats) return body.template operator()<double>(); break;
        case DType::I8: if constexpr (F.integers) return body.template operator()<int8_t>(); break;
        case DType::U8: if constexpr (F.integers) return body.template operator()<uint8_t>(); break;
        case DType::I16: if constexpr (F.integers) return body.template operator()<int16_t>(); break;
        case DType::U16: if constexpr (F.integers) return body.template operator()<uint16_t>(); break;
        case DType::I32: if constexpr (F.integers) return body.template operator()<int32_t>(); break;
        case DType::U32: if constexpr (F.integers) return body.template operator()<uint32_t>(); break;
        case DType::I64: if constexpr (F.integers) return body.template operator()<int64_t>(); break;
        case DType::U64: if constexpr (F.integers) return body.template operator()<uint64_t>(); break;
        case DType::Bool: if constexpr (F.bools) return body.template operator()<bool>(); break;
        default: break;
    }
    ctx.unsupported("dtype " + std::string(dtypeName(dtype)));
}

inline constexpr DTypeFamilies kAllDtypes{true, true, true};
inline constexpr DTypeFamilies kBoolDtype{false, false, true};
inline constexpr DTypeFamilies kFloatDtypes{true, false, false};

// Bytes per element of `t`, signed for offset arithmetic.
inline int64_t elementBytes(const HostTensor& t) { return static_cast<int64_t>(dtypeSize(t.dtype())); }

// A tensor of its own holding a copy of `x` (for kernels that update a copy in place: Scatter, Trilu).
inline HostTensor copyOf(const HostTensor& x) {
    HostTensor y = HostTensor::uninitialized(x.dtype(), x.dims());
    if (x.bytes()) std::memcpy(y.mutableRaw(), x.raw(), x.bytes());
    return y;
}

// A double in integer type T: NaN as 0, values past T's range saturated (casting them is undefined).
template <typename T>
T saturatingCast(double v) {
    return std::isnan(v) ? T{0}
           : v <= static_cast<double>(std::numeric_limits<T>::lowest()) ? std::numeric_limits<T>::lowest()
           : v >= static_cast<double>(std::numeric_limits<T>::max())    ? std::numeric_limits<T>::max()
                                                                        : static_cast<T>(v);
}

// a * b and a + b of sizes, failing (not overflowing) past int64: a hostile model's shapes and pads.
inline int64_t checkedMul(const OnnxKernelContext& ctx, int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ctx.fail("a size overflows int64");
    return r;
}
inline int64_t checkedAdd(const OnnxKernelContext& ctx, int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) ctx.fail("a size overflows int64");
    return r;
}
// A double as a size: fails for NaN and for values past int64 (casting them is undefined).
inline int64_t sizeFromDouble(const OnnxKernelContext& ctx, double v) {
    if (!(v >= -9.2e18 && v <= 9.2e18)) ctx.fail("a size of " + std::to_string(v));
    return static_cast<int64_t>(v);
}

// body(outIndex, offsets) over every element of `out` in row-major order, with offsets[k] the
// element of input k (strides from broadcastStrides). The innermost axis runs as a plain loop.
template <std::size_t N, typename Body>
void forEachBroadcast(const Dims& out, const std::array<std::vector<int64_t>, N>& strides, Body&& body) {
    const int64_t total = dimsSize(out);
    if (total == 0) return;
    const std::size_t rank = out.size();
    if (rank == 0) {
        std::array<int64_t, N> at{};
        body(int64_t{0}, at);
        return;
    }
    const int64_t inner = out[rank - 1];
    std::vector<int64_t> index(rank, 0);
    std::array<int64_t, N> base{};
    for (int64_t i = 0; i < total; i += inner) {
        std::array<int64_t, N> at = base;
        for (int64_t j = 0; j < inner; ++j) {
            body(i + j, at);
            for (std::size_t k = 0; k < N; ++k) at[k] += strides[k][rank - 1];
        }
        // Next row: carry through the outer axes.
        for (std::size_t d = rank - 1; d-- > 0;) {
            ++index[d];
            for (std::size_t k = 0; k < N; ++k) base[k] += strides[k][d];
            if (index[d] < out[d]) break;
            for (std::size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * out[d];
            index[d] = 0;
        }
    }
}

}  // namespace ampstudio
