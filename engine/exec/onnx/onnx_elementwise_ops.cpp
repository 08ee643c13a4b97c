// Element-wise ONNX ops: unary math and activations, broadcast arithmetic, comparisons and logic,
// Where, Clip, the variadic Sum / Mean / Max / Min, Cast and CastLike.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "exec/onnx/onnx_kernel_util.h"
#include "tensor/float_convert.h"
#include "tensor/parallel_for.h"

namespace ampstudio {
namespace {

// ---- unary ----

template <typename Fn>
void unaryFloat(OnnxKernelContext& ctx, Fn&& fn) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(x.dtype())));
    HostTensor y = HostTensor::uninitialized(DType::F32, x.dims());
    const float* in = x.data<float>();
    float* out = y.mutableData<float>();
    parallelFor(x.size(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = fn(in[i]);
    });
    ctx.setOutput(0, std::move(y));
}

// Abs, Neg, Sign also take integers.
template <typename Fn>
void unaryNumeric(OnnxKernelContext& ctx, Fn&& fn) {
    const HostTensor& x = ctx.input(0);
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        HostTensor y = HostTensor::uninitialized(x.dtype(), x.dims());
        const T* in = x.data<T>();
        T* out = y.mutableData<T>();
        for (int64_t i = 0; i < x.size(); ++i) out[i] = fn(in[i]);
        ctx.setOutput(0, std::move(y));
    });
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// tanh as Eigen's (and so ONNX Runtime's MLAS) fast float tanh computes it: a 13/6 rational
// function on [-7.9, 7.9], clamped outside (where tanh is 1 in float), exact near 0; within a few
// ulp of tanhf (2e-7 relative), branch-free so the loop vectorises (glibc's tanhf does not).
// erf likewise (Eigen's fast float erf): a 13/8 rational function on [-4, 4], within 4e-7 of erf.
float fastErf(float a) {
    const float x = std::clamp(a, -4.0f, 4.0f);
    const float x2 = x * x;
    float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = p * x2 + -2.10102402082508e-06f;
    p = p * x2 + -5.69250639462346e-05f;
    p = p * x2 + -7.34990630326855e-04f;
    p = p * x2 + -2.95459980854025e-03f;
    p = p * x2 + -1.60960333262415e-02f;
    p = x * p;
    float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
    q = q * x2 + -1.68282697438203e-03f;
    q = q * x2 + -7.37332916720468e-03f;
    q = q * x2 + -1.42647390514189e-02f;
    return std::isnan(a) ? a : p / q;
}

float fastTanh(float a) {
    const float x = std::clamp(a, -7.90531110763549805f, 7.90531110763549805f);
    const float x2 = x * x;
    float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
    p = p * x2 + -8.60467152213735e-11f;
    p = p * x2 + 5.12229709037114e-08f;
    p = p * x2 + 1.48572235717979e-05f;
    p = p * x2 + 6.37261928875436e-04f;
    p = p * x2 + 4.89352455891786e-03f;
    p = x * p;
    float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
    q = q * x2 + 2.26843463243900e-03f;
    q = q * x2 + 4.89352518554385e-03f;
    return std::isnan(a) ? a : std::fabs(a) < 0.0004f ? a : p / q;
}

#define AMS_UNARY(NAME, EXPR) \
    {NAME, {[](OnnxKernelContext& ctx) { unaryFloat(ctx, [&](float x) { return EXPR; }); }}}

// ---- binary ----

enum class Result { SameAsInput, Bool };

template <typename T, typename Fn>
void broadcastLoop(const HostTensor& a, const HostTensor& b, HostTensor& out, Fn&& fn) {
    using R = std::remove_cvref_t<decltype(fn(T{}, T{}))>;
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    R* z = out.mutableData<R>();
    const int64_t n = out.size();
    if (a.dims() == b.dims()) {
        parallelFor(n, [&](int64_t s, int64_t e) {
            for (int64_t i = s; i < e; ++i) z[i] = fn(x[i], y[i]);
        });
    } else if (b.size() == 1 && a.size() == n) {
        const T v = y[0];
        parallelFor(n, [&](int64_t s, int64_t e) {
            for (int64_t i = s; i < e; ++i) z[i] = fn(x[i], v);
        });
    } else if (a.size() == 1 && b.size() == n) {
        const T v = x[0];
        parallelFor(n, [&](int64_t s, int64_t e) {
            for (int64_t i = s; i < e; ++i) z[i] = fn(v, y[i]);
        });
    } else if (const int64_t p = suffixPeriod(b.dims(), out.dims()); p > 0 && a.size() == n) {
        // A bias or a mask repeated along the outer axes ([128, 768] + [768]): row by row.
        parallelFor(n / p, [&](int64_t s, int64_t e) {
            for (int64_t r = s; r < e; ++r) {
                for (int64_t j = 0; j < p; ++j) z[r * p + j] = fn(x[r * p + j], y[j]);
            }
        });
    } else if (const int64_t q = suffixPeriod(a.dims(), out.dims()); q > 0 && b.size() == n) {
        parallelFor(n / q, [&](int64_t s, int64_t e) {
            for (int64_t r = s; r < e; ++r) {
                for (int64_t j = 0; j < q; ++j) z[r * q + j] = fn(x[j], y[r * q + j]);
            }
        });
    } else {
        const std::array<std::vector<int64_t>, 2> strides{broadcastStrides(a.dims(), out.dims()),
                                                          broadcastStrides(b.dims(), out.dims())};
        forEachBroadcast<2>(out.dims(), strides, [&](int64_t i, const std::array<int64_t, 2>& at) { z[i] = fn(x[at[0]], y[at[1]]); });
    }
}

template <DTypeFamilies F = DTypeFamilies{}, typename Fn>
void binary(OnnxKernelContext& ctx, Result result, Fn&& fn) {
    const HostTensor& a = ctx.input(0);
    const HostTensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) {
        ctx.fail("inputs of " + std::string(dtypeName(a.dtype())) + " and " + std::string(dtypeName(b.dtype())));
    }
    const Dims dims = broadcastDims(ctx, a.dims(), b.dims());
    visitDtype<F>(ctx, a.dtype(), [&]<typename T>() {
        HostTensor out = HostTensor::uninitialized(result == Result::Bool ? DType::Bool : a.dtype(), dims);
        broadcastLoop<T>(a, b, out, [&](T x, T y) { return fn(x, y); });
        ctx.setOutput(0, std::move(out));
    });
}

template <typename T>
T divide(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
        return y == 0 ? T{0} : static_cast<T>(x / y);  // (numpy gives 0 too, with a warning)
    } else {
        return x / y;
    }
}

template <typename T>
T power(T x, T y) {
    return static_cast<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
}

void pow(OnnxKernelContext& ctx) {
    const HostTensor& a = ctx.input(0);
    const HostTensor& b = ctx.input(1);
    // x^2 and x^3 by multiplication (GELU's tanh form has x^3 in every layer): what pow gives for
    // them within an ulp, at a fraction of the time.
    if (a.dtype() == DType::F32 && b.size() == 1 && (b.numberAt(0) == 2.0 || b.numberAt(0) == 3.0)) {
        const bool cube = b.numberAt(0) == 3.0;
        HostTensor y = HostTensor::uninitialized(DType::F32, broadcastDims(ctx, a.dims(), b.dims()));
        const float* x = a.data<float>();
        float* out = y.mutableData<float>();
        parallelFor(y.size(), [&](int64_t s, int64_t e) {
            for (int64_t i = s; i < e; ++i) out[i] = cube ? x[i] * x[i] * x[i] : x[i] * x[i];
        });
        return ctx.setOutput(0, std::move(y));
    }
    if (a.dtype() == b.dtype()) {
        return binary(ctx, Result::SameAsInput, [](auto x, auto y) { return power(x, y); });
    }
    // Pow-12: the exponent may have another numeric type than the base.
    const Dims dims = broadcastDims(ctx, a.dims(), b.dims());
    HostTensor exponent = HostTensor::uninitialized(a.dtype(), b.dims());
    visitDtype(ctx, a.dtype(), [&]<typename T>() {
        for (int64_t i = 0; i < b.size(); ++i) exponent.mutableData<T>()[i] = static_cast<T>(b.numberAt(i));
        HostTensor out = HostTensor::uninitialized(a.dtype(), dims);
        broadcastLoop<T>(a, exponent, out, [](T x, T y) { return power(x, y); });
        ctx.setOutput(0, std::move(out));
    });
}

void mod(OnnxKernelContext& ctx) {
    const bool fmod = ctx.intAttr("fmod", 0) != 0;
    binary(ctx, Result::SameAsInput, [fmod](auto x, auto y) {
        using T = decltype(x);
        if constexpr (std::is_floating_point_v<T>) {
            if (fmod) return static_cast<T>(std::fmod(x, y));
            T r = std::fmod(x, y);
            return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
        } else {
            if (y == 0) return T{0};
            T r = static_cast<T>(x % y);
            if constexpr (std::is_signed_v<T>) {
                if (!fmod && r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
            }
            return r;
        }
    });
}

void prelu(OnnxKernelContext& ctx) {
    // PRelu before opset 7 (no numpy broadcasting yet) applies a slope of one value per channel
    // along axis 1, as torch.nn.PReLU(num_parameters=C) exported then.
    const HostTensor& x = ctx.input(0);
    const HostTensor& slope = ctx.input(1);
    HostTensor channelSlope;
    if (ctx.opset < 7 && slope.rank() == 1 && x.rank() > 2 && slope.size() == x.dims()[1] && slope.size() > 1) {
        Dims dims(static_cast<std::size_t>(x.rank() - 1), 1);
        dims[0] = slope.size();
        channelSlope = slope.reshaped(dims);
        ctx.inputs[1] = &channelSlope;
    }
    binary(ctx, Result::SameAsInput, [](auto x, auto slope) {
        return x < 0 ? static_cast<decltype(x)>(x * slope) : x;
    });
}

// Sum, Mean, Max, Min over any number of inputs, broadcast together.
template <typename Fn>
void variadic(OnnxKernelContext& ctx, bool mean, Fn&& fn) {
    if (ctx.inputCount() == 0) ctx.fail("no inputs");
    HostTensor acc = ctx.input(0);
    for (std::size_t k = 1; k < ctx.inputCount(); ++k) {
        const HostTensor& next = ctx.input(k);
        if (next.dtype() != acc.dtype()) ctx.fail("inputs of different dtypes");
        const Dims dims = broadcastDims(ctx, acc.dims(), next.dims());
        visitDtype(ctx, acc.dtype(), [&]<typename T>() {
            HostTensor out = HostTensor::uninitialized(acc.dtype(), dims);
            broadcastLoop<T>(acc, next, out, [&](T x, T y) { return static_cast<T>(fn(x, y)); });
            acc = std::move(out);
        });
    }
    if (ctx.inputCount() == 1) {
        HostTensor copy = HostTensor::uninitialized(acc.dtype(), acc.dims());
        std::memcpy(copy.mutableRaw(), acc.raw(), acc.bytes());
        acc = std::move(copy);
    }
    if (mean) {
        visitDtype<kFloatDtypes>(ctx, acc.dtype(), [&]<typename T>() {
            const auto n = static_cast<T>(ctx.inputCount());
            for (int64_t i = 0; i < acc.size(); ++i) acc.mutableData<T>()[i] /= n;
        });
    }
    ctx.setOutput(0, std::move(acc));
}

template <typename T>
T maxOf(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    }
    return x < y ? y : x;
}
template <typename T>
T minOf(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    }
    return y < x ? y : x;
}

void where(OnnxKernelContext& ctx) {
    const HostTensor& c = ctx.input(0);
    const HostTensor& x = ctx.input(1);
    const HostTensor& y = ctx.input(2);
    if (c.dtype() != DType::Bool) ctx.fail("condition is not bool");
    if (x.dtype() != y.dtype()) ctx.fail("X and Y differ in dtype");
    const Dims dims = broadcastDims(ctx, broadcastDims(ctx, c.dims(), x.dims()), y.dims());
    HostTensor out = HostTensor::uninitialized(x.dtype(), dims);
    const std::size_t size = dtypeSize(x.dtype());
    const auto* cond = c.data<uint8_t>();
    std::byte* z = out.mutableRaw();
    // Each operand whole or one block repeated along the outer axes (an attention mask, a scalar):
    // row by row, on both cores. Such blocks are products of out's trailing dims, so the shortest
    // divides the others.
    const int64_t n = out.size();
    const auto periodOf = [&](const HostTensor& t) { return t.size() == n ? n : suffixPeriod(t.dims(), dims); };
    const int64_t pc = periodOf(c), px = periodOf(x), py = periodOf(y);
    if (n > 0 && pc > 0 && px > 0 && py > 0 && (size == 1 || size == 2 || size == 4 || size == 8)) {
        // A row: the shortest block longer than one element (a scalar operand is spread over a row).
        int64_t row = n;
        for (const int64_t p : {pc, px, py}) {
            if (p > 1) row = std::min(row, p);
        }
        const auto run = [&]<typename U>() {
            std::vector<U> xRow, yRow;
            std::vector<uint8_t> cRow;
            const U* xs = reinterpret_cast<const U*>(x.raw());
            const U* ys = reinterpret_cast<const U*>(y.raw());
            if (px == 1 && row > 1) xRow.assign(static_cast<std::size_t>(row), xs[0]), xs = xRow.data();
            if (py == 1 && row > 1) yRow.assign(static_cast<std::size_t>(row), ys[0]), ys = yRow.data();
            if (pc == 1 && row > 1) cRow.assign(static_cast<std::size_t>(row), cond[0]);
            const uint8_t* conds = cRow.empty() ? cond : cRow.data();
            const int64_t pcr = pc == 1 ? row : pc, pxr = px == 1 ? row : px, pyr = py == 1 ? row : py;
            U* zs = reinterpret_cast<U*>(z);
            parallelFor(n / row, [&](int64_t s, int64_t e) {
                for (int64_t r = s; r < e; ++r) {
                    const int64_t at = r * row;
                    const uint8_t* cr = conds + at % pcr;
                    const U* xr = xs + at % pxr;
                    const U* yr = ys + at % pyr;
                    U* zr = zs + at;
                    for (int64_t j = 0; j < row; ++j) zr[j] = cr[j] ? xr[j] : yr[j];
                }
            });
        };
        if (size == 1) run.template operator()<uint8_t>();
        else if (size == 2) run.template operator()<uint16_t>();
        else if (size == 4) run.template operator()<uint32_t>();
        else run.template operator()<uint64_t>();
        return ctx.setOutput(0, std::move(out));
    }
    const std::array<std::vector<int64_t>, 3> strides{broadcastStrides(c.dims(), dims), broadcastStrides(x.dims(), dims),
                                                      broadcastStrides(y.dims(), dims)};
    forEachBroadcast<3>(dims, strides, [&](int64_t i, const std::array<int64_t, 3>& at) {
        const std::byte* from = cond[at[0]] ? x.raw() + at[1] * static_cast<int64_t>(size) : y.raw() + at[2] * static_cast<int64_t>(size);
        std::memcpy(z + i * static_cast<int64_t>(size), from, size);
    });
    ctx.setOutput(0, std::move(out));
}

void clip(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
        if (ctx.opset < 11) {
            if constexpr (!std::is_floating_point_v<T>) ctx.unsupported("Clip-6 of " + std::string(dtypeName(x.dtype())));
            lo = static_cast<T>(ctx.floatAttr("min", -std::numeric_limits<float>::max()));
            hi = static_cast<T>(ctx.floatAttr("max", std::numeric_limits<float>::max()));
        } else {
            for (std::size_t k = 1; k < 3; ++k) {
                if (ctx.hasInput(k) && (ctx.input(k).size() != 1 || ctx.input(k).dtype() != x.dtype())) {
                    ctx.fail("min and max must be scalars of the input's dtype");
                }
            }
            if (ctx.hasInput(1)) lo = ctx.input(1).data<T>()[0];
            if (ctx.hasInput(2)) hi = ctx.input(2).data<T>()[0];
        }
        HostTensor y = HostTensor::uninitialized(x.dtype(), x.dims());
        const T* in = x.data<T>();
        T* out = y.mutableData<T>();
        for (int64_t i = 0; i < x.size(); ++i) {
            const T v = in[i];
            out[i] = v < lo ? lo : hi < v ? hi : v;  // NaN stays NaN
        }
        ctx.setOutput(0, std::move(y));
    });
}

// ---- casts ----

// `x` as `to`: numbers convert as C++ does (float -> int truncates, as numpy's astype), float16 and
// bfloat16 round to nearest even, anything -> bool is "non-zero".
HostTensor castTo(const OnnxKernelContext& ctx, const HostTensor& x, DType to) {
    HostTensor y(to, x.dims());
    const int64_t n = x.size();
    if (x.dtype() == to) {
        std::memcpy(y.mutableRaw(), x.raw(), x.bytes());
        return y;
    }
    const std::vector<float> asFloats = (to == DType::F16 || to == DType::BF16) ? x.floats() : std::vector<float>{};
    if (to == DType::F16) {
        floatsToHalf(asFloats, {y.mutableData<uint16_t>(), asFloats.size()});
        return y;
    }
    if (to == DType::BF16) {
        floatsToBfloat16(asFloats, {y.mutableData<uint16_t>(), asFloats.size()});
        return y;
    }
    const bool fromFloat = isFloat(x.dtype());
    visitDtype<kAllDtypes>(ctx, to, [&]<typename T>() {
        T* out = y.mutableData<T>();
        for (int64_t i = 0; i < n; ++i) {
            if (fromFloat || std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
                const double v = x.numberAt(i);
                if constexpr (std::is_same_v<T, bool>) {
                    out[i] = v != 0.0;
                } else if constexpr (std::is_floating_point_v<T>) {
                    out[i] = static_cast<T>(v);
                } else {
                    out[i] = saturatingCast<T>(v);  // (numpy on x86 for the common cases)
                }
            } else {
                out[i] = static_cast<T>(x.integerAt(i));  // integer to integer wraps, as numpy
            }
        }
    });
    return y;
}

void cast(OnnxKernelContext& ctx) {
    const int64_t to = ctx.intAttr("to", 0);
    const std::optional<DType> dtype = dtypeOfOnnxElementType(to);
    if (!dtype) ctx.unsupported("Cast to ONNX type " + std::to_string(to));
    ctx.setOutput(0, castTo(ctx, ctx.input(0), *dtype));
}

void castLike(OnnxKernelContext& ctx) { ctx.setOutput(0, castTo(ctx, ctx.input(0), ctx.input(1).dtype())); }

// ---- predicates ----

void isNaN(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(x.dtype())));
    HostTensor y = HostTensor::uninitialized(DType::Bool, x.dims());
    for (int64_t i = 0; i < x.size(); ++i) y.mutableData<bool>()[i] = std::isnan(x.data<float>()[i]);
    ctx.setOutput(0, std::move(y));
}

void isInf(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(x.dtype())));
    const bool pos = ctx.intAttr("detect_positive", 1) != 0, neg = ctx.intAttr("detect_negative", 1) != 0;
    HostTensor y = HostTensor::uninitialized(DType::Bool, x.dims());
    for (int64_t i = 0; i < x.size(); ++i) {
        const float v = x.data<float>()[i];
        y.mutableData<bool>()[i] = std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg));
    }
    ctx.setOutput(0, std::move(y));
}

void logicalNot(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::Bool) ctx.fail("input is not bool");
    HostTensor y = HostTensor::uninitialized(DType::Bool, x.dims());
    for (int64_t i = 0; i < x.size(); ++i) y.mutableData<bool>()[i] = !x.data<bool>()[i];
    ctx.setOutput(0, std::move(y));
}

}  // namespace

void addOnnxElementwiseOps(OnnxOpTable& table) {
    const OnnxOpTable ops = {
        AMS_UNARY("Relu", std::isnan(x) ? x : std::max(x, 0.0f)),
        AMS_UNARY("Sigmoid", sigmoid(x)),
        AMS_UNARY("Tanh", fastTanh(x)),
        AMS_UNARY("Exp", std::exp(x)),
        AMS_UNARY("Log", std::log(x)),
        AMS_UNARY("Sqrt", std::sqrt(x)),
        AMS_UNARY("Reciprocal", 1.0f / x),
        AMS_UNARY("Erf", fastErf(x)),
        AMS_UNARY("Floor", std::floor(x)),
        AMS_UNARY("Ceil", std::ceil(x)),
        AMS_UNARY("Round", std::nearbyint(x)),  // half to even, the rounding mode never changes here
        AMS_UNARY("Sin", std::sin(x)),
        AMS_UNARY("Cos", std::cos(x)),
        AMS_UNARY("Tan", std::tan(x)),
        AMS_UNARY("Asin", std::asin(x)),
        AMS_UNARY("Acos", std::acos(x)),
        AMS_UNARY("Atan", std::atan(x)),
        AMS_UNARY("Sinh", std::sinh(x)),
        AMS_UNARY("Cosh", std::cosh(x)),
        AMS_UNARY("Asinh", std::asinh(x)),
        AMS_UNARY("Acosh", std::acosh(x)),
        AMS_UNARY("Atanh", std::atanh(x)),
        AMS_UNARY("Softplus", std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0f)),
        AMS_UNARY("Softsign", x / (1.0f + std::fabs(x))),
        AMS_UNARY("Mish", x * std::tanh(std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0f))),
        {"HardSigmoid", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 0.2f), beta = ctx.floatAttr("beta", 0.5f);
             unaryFloat(ctx, [=](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
         }}},
        AMS_UNARY("HardSwish", x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f))),
        {"LeakyRelu", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 0.01f);
             unaryFloat(ctx, [=](float x) { return x < 0.0f ? alpha * x : x; });
         }}},
        {"Elu", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 1.0f);
             unaryFloat(ctx, [=](float x) { return x < 0.0f ? alpha * std::expm1(x) : x; });
         }}},
        {"Celu", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 1.0f);
             unaryFloat(ctx, [=](float x) { return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha)); });
         }}},
        {"Selu", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 1.67326319217681884765625f);
             const float gamma = ctx.floatAttr("gamma", 1.05070102214813232421875f);
             unaryFloat(ctx, [=](float x) { return x <= 0.0f ? gamma * alpha * std::expm1(x) : gamma * x; });
         }}},
        {"ThresholdedRelu", {[](OnnxKernelContext& ctx) {
             const float alpha = ctx.floatAttr("alpha", 1.0f);
             unaryFloat(ctx, [=](float x) { return x > alpha ? x : 0.0f; });
         }}},
        {"Gelu", {[](OnnxKernelContext& ctx) {  // opset 20; exporters of earlier opsets write Erf
             if (ctx.stringAttr("approximate", "none") == "tanh") {
                 unaryFloat(ctx, [](float x) {
                     return 0.5f * x * (1.0f + fastTanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
                 });
             } else {
                 unaryFloat(ctx, [](float x) { return 0.5f * x * (1.0f + fastErf(x * 0.70710678118654752f)); });
             }
         }}},
        {"Abs", {[](OnnxKernelContext& ctx) {
             unaryNumeric(ctx, [](auto x) {
                 if constexpr (std::is_unsigned_v<decltype(x)>) return x;
                 else return static_cast<decltype(x)>(x < 0 ? -x : x);
             });
         }, true, false}},
        {"Neg", {[](OnnxKernelContext& ctx) { unaryNumeric(ctx, [](auto x) { return static_cast<decltype(x)>(-x); }); }, true, false}},
        {"Sign", {[](OnnxKernelContext& ctx) {
             unaryNumeric(ctx, [](auto x) { return static_cast<decltype(x)>((x > decltype(x){0}) - (x < decltype(x){0})); });
         }, true, false}},
        {"Add", {[](OnnxKernelContext& ctx) { binary(ctx, Result::SameAsInput, [](auto x, auto y) { return static_cast<decltype(x)>(x + y); }); }, true, false}},
        {"Sub", {[](OnnxKernelContext& ctx) { binary(ctx, Result::SameAsInput, [](auto x, auto y) { return static_cast<decltype(x)>(x - y); }); }, true, false}},
        {"Mul", {[](OnnxKernelContext& ctx) { binary(ctx, Result::SameAsInput, [](auto x, auto y) { return static_cast<decltype(x)>(x * y); }); }, true, false}},
        {"Div", {[](OnnxKernelContext& ctx) { binary(ctx, Result::SameAsInput, [](auto x, auto y) { return divide(x, y); }); }, true, false}},
        {"Pow", {pow, true, false}},
        {"Mod", {mod, true, false}},
        {"PRelu", {prelu}},
        {"Equal", {[](OnnxKernelContext& ctx) { binary<kAllDtypes>(ctx, Result::Bool, [](auto x, auto y) { return x == y; }); }, true, false}},
        {"Less", {[](OnnxKernelContext& ctx) { binary(ctx, Result::Bool, [](auto x, auto y) { return x < y; }); }, true, false}},
        {"Greater", {[](OnnxKernelContext& ctx) { binary(ctx, Result::Bool, [](auto x, auto y) { return x > y; }); }, true, false}},
        {"LessOrEqual", {[](OnnxKernelContext& ctx) { binary(ctx, Result::Bool, [](auto x, auto y) { return x <= y; }); }, true, false}},
        {"GreaterOrEqual", {[](OnnxKernelContext& ctx) { binary(ctx, Result::Bool, [](auto x, auto y) { return x >= y; }); }, true, false}},
        {"And", {[](OnnxKernelContext& ctx) { binary<kBoolDtype>(ctx, Result::Bool, [](auto x, auto y) { return x && y; }); }}},
        {"Or", {[](OnnxKernelContext& ctx) { binary<kBoolDtype>(ctx, Result::Bool, [](auto x, auto y) { return x || y; }); }}},
        {"Xor", {[](OnnxKernelContext& ctx) { binary<kBoolDtype>(ctx, Result::Bool, [](auto x, auto y) { return x != y; }); }}},
        {"Not", {logicalNot}},
        {"Sum", {[](OnnxKernelContext& ctx) { variadic(ctx, false, [](auto x, auto y) { return x + y; }); }, true, false}},
        {"Mean", {[](OnnxKernelContext& ctx) { variadic(ctx, true, [](auto x, auto y) { return x + y; }); }, true, false}},
        {"Max", {[](OnnxKernelContext& ctx) { variadic(ctx, false, [](auto x, auto y) { return maxOf(x, y); }); }, true, false}},
        {"Min", {[](OnnxKernelContext& ctx) { variadic(ctx, false, [](auto x, auto y) { return minOf(x, y); }); }, true, false}},
        {"Where", {where, false}},
        {"Clip", {clip, true, false}},
        {"IsNaN", {isNaN}},
        {"IsInf", {isInf}},
        {"Cast", {cast, false}},
        {"CastLike", {castLike, false}},
    };
    table.insert(table.end(), ops.begin(), ops.end());
}

}  // namespace ampstudio
