// Device code of the element-wise family: the functors of backend/cpu/cpu_elemwise_kernels.cpp,
// written with the same expressions so that each element rounds as the CPU's does, run by the
// generic loops of cuda_walk.cuh. The math library calls are CUDA's f32 ones (expf, logf, ...), which
// may differ from glibc's in the last bit.
#include <cmath>

#include "backend/cuda/ops/cuda_walk.cuh"
#include "backend/dropout_mask.h"

namespace ampstudio::cuda {
namespace {

// ---- unary functions: f(x) and df/dx given x and y = f(x) --------------------------------------

struct Relu {
    __device__ float f(float x) const { return x > 0.0f ? x : 0.0f; }
    __device__ float df(float x, float) const { return x > 0.0f ? 1.0f : 0.0f; }
};
struct Sigmoid {
    __device__ float f(float x) const { return 1.0f / (1.0f + expf(-x)); }
    __device__ float df(float, float y) const { return y * (1.0f - y); }
};
struct Tanh {
    __device__ float f(float x) const { return tanhf(x); }
    __device__ float df(float, float y) const { return 1.0f - y * y; }
};
struct SoftRelu {
    __device__ float f(float x) const { return x > 20.0f ? x : log1pf(expf(x)); }
    __device__ float df(float x, float) const { return 1.0f / (1.0f + expf(-x)); }
};
struct SoftSign {
    __device__ float f(float x) const { return x / (1.0f + fabsf(x)); }
    __device__ float df(float x, float) const {
        const float d = 1.0f + fabsf(x);
        return 1.0f / (d * d);
    }
};
struct Exp {
    __device__ float f(float x) const { return expf(x); }
    __device__ float df(float, float y) const { return y; }
};
struct Log {
    __device__ float f(float x) const { return logf(x); }
    __device__ float df(float x, float) const { return 1.0f / x; }
};
struct Sqrt {
    __device__ float f(float x) const { return sqrtf(x); }
    __device__ float df(float, float y) const { return 0.5f / y; }
};
struct Square {
    __device__ float f(float x) const { return x * x; }
    __device__ float df(float x, float) const { return 2.0f * x; }
};
struct Sin {
    __device__ float f(float x) const { return sinf(x); }
    __device__ float df(float x, float) const { return cosf(x); }
};
struct Cos {
    __device__ float f(float x) const { return cosf(x); }
    __device__ float df(float x, float) const { return -sinf(x); }
};
struct Abs {
    __device__ float f(float x) const { return fabsf(x); }
    __device__ float df(float x, float) const { return static_cast<float>((x > 0.0f) - (x < 0.0f)); }
};
struct Negative {
    __device__ float f(float x) const { return -x; }
    __device__ float df(float, float) const { return -1.0f; }
};
struct Reciprocal {
    __device__ float f(float x) const { return 1.0f / x; }
    __device__ float df(float x, float) const { return -1.0f / (x * x); }
};
// 1 / sqrtf, not rsqrtf: the intrinsic is an approximation.
struct Rsqrt {
    __device__ float f(float x) const { return 1.0f / sqrtf(x); }
    __device__ float df(float x, float y) const { return -0.5f * y / x; }
};

struct PlusScalar {
    float s;
    __device__ float f(float x) const { return x + s; }
    __device__ float df(float, float) const { return 1.0f; }
};
struct MinusScalar {
    float s;
    __device__ float f(float x) const { return x - s; }
    __device__ float df(float, float) const { return 1.0f; }
};
struct RMinusScalar {
    float s;
    __device__ float f(float x) const { return s - x; }
    __device__ float df(float, float) const { return -1.0f; }
};
struct MulScalar {
    float s;
    __device__ float f(float x) const { return x * s; }
    __device__ float df(float, float) const { return s; }
};
struct DivScalar {
    float s;
    __device__ float f(float x) const { return x / s; }
    __device__ float df(float, float) const { return 1.0f / s; }
};
struct RDivScalar {
    float s;
    __device__ float f(float x) const { return s / x; }
    __device__ float df(float x, float) const { return -s / (x * x); }
};
struct PowerScalar {
    float s;
    __device__ float f(float x) const { return powf(x, s); }
    __device__ float df(float x, float) const { return s * powf(x, s - 1.0f); }
};
struct RPowerScalar {
    float s;
    __device__ float f(float x) const { return powf(s, x); }
    __device__ float df(float, float y) const { return y * logf(s); }
};
// MXNet passes the gradient where x >= s (x <= s), ties included.
struct MaximumScalar {
    float s;
    __device__ float f(float x) const { return x > s ? x : s; }
    __device__ float df(float x, float) const { return x >= s ? 1.0f : 0.0f; }
};
struct MinimumScalar {
    float s;
    __device__ float f(float x) const { return x < s ? x : s; }
    __device__ float df(float x, float) const { return x <= s ? 1.0f : 0.0f; }
};
struct Clip {
    float lo, hi;
    __device__ float f(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
    __device__ float df(float x, float) const { return x < lo || x > hi ? 0.0f : 1.0f; }
};

struct Leaky {
    float slope;
    __device__ float f(float x) const { return x > 0.0f ? x : slope * x; }
    __device__ float df(float x, float) const { return x > 0.0f ? 1.0f : slope; }
};
struct Elu {
    float alpha;
    __device__ float f(float x) const { return x > 0.0f ? x : alpha * expm1f(x); }
    __device__ float df(float x, float y) const { return x > 0.0f ? 1.0f : y + alpha; }
};
struct Selu {
    static constexpr float kAlpha = 1.6732632423543772848170429916717f;
    static constexpr float kLambda = 1.0507009873554804934193349852946f;
    __device__ float f(float x) const { return kLambda * (x > 0.0f ? x : kAlpha * expm1f(x)); }
    __device__ float df(float x, float y) const { return x > 0.0f ? kLambda : y + kLambda * kAlpha; }
};
// The CPU's constants, std::numbers::sqrt2 / 2 and inv_sqrtpi / sqrt2, computed in double from the
// same correctly rounded doubles and then rounded to float.
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kInvSqrtPi = 0.56418958354775628695;
constexpr float kHalfSqrt2 = static_cast<float>(kSqrt2 / 2);
constexpr float kInvSqrt2Pi = static_cast<float>(kInvSqrtPi / kSqrt2);
// The exact (erf) form MXNet 1.9.1 uses, not the tanh approximation.
struct Gelu {
    __device__ float f(float x) const { return 0.5f * x * (1.0f + erff(x * kHalfSqrt2)); }
    __device__ float df(float x, float) const {
        return 0.5f * (1.0f + erff(x * kHalfSqrt2)) + x * kInvSqrt2Pi * expf(-0.5f * x * x);
    }
};

// Calls g with the functor of fn.
template <typename G>
void withUnary(const UnaryFn& fn, G&& g) {
    const float p = fn.param0;
    // clang-format off
    switch (fn.op) {
        case UnaryOp::Relu: g(Relu{}); return;
        case UnaryOp::Sigmoid: g(Sigmoid{}); return;
        case UnaryOp::Tanh: g(Tanh{}); return;
        case UnaryOp::SoftRelu: g(SoftRelu{}); return;
        case UnaryOp::SoftSign: g(SoftSign{}); return;
        case UnaryOp::Exp: g(Exp{}); return;
        case UnaryOp::Log: g(Log{}); return;
        case UnaryOp::Sqrt: g(Sqrt{}); return;
        case UnaryOp::Square: g(Square{}); return;
        case UnaryOp::Sin: g(Sin{}); return;
        case UnaryOp::Cos: g(Cos{}); return;
        case UnaryOp::Abs: g(Abs{}); return;
        case UnaryOp::Negative: g(Negative{}); return;
        case UnaryOp::Reciprocal: g(Reciprocal{}); return;
        case UnaryOp::Rsqrt: g(Rsqrt{}); return;
        case UnaryOp::PlusScalar: g(PlusScalar{p}); return;
        case UnaryOp::MinusScalar: g(MinusScalar{p}); return;
        case UnaryOp::RMinusScalar: g(RMinusScalar{p}); return;
        case UnaryOp::MulScalar: g(MulScalar{p}); return;
        case UnaryOp::DivScalar: g(DivScalar{p}); return;
        case UnaryOp::RDivScalar: g(RDivScalar{p}); return;
        case UnaryOp::PowerScalar: g(PowerScalar{p}); return;
        case UnaryOp::RPowerScalar: g(RPowerScalar{p}); return;
        case UnaryOp::MaximumScalar: g(MaximumScalar{p}); return;
        case UnaryOp::MinimumScalar: g(MinimumScalar{p}); return;
        case UnaryOp::Clip: g(Clip{p, fn.param1}); return;
        case UnaryOp::Leaky: g(Leaky{p}); return;
        case UnaryOp::Elu: g(Elu{p}); return;
        case UnaryOp::Selu: g(Selu{}); return;
        case UnaryOp::Gelu: g(Gelu{}); return;
    }
    // clang-format on
    throw std::invalid_argument("unknown element-wise unary op");
}

template <typename T, typename F>
struct UnaryForwardAt {
    F fn;
    const T* x;
    T* y;
    __device__ void operator()(int64_t i) const { y[i] = fromFloat<T>(fn.f(toFloat(x[i]))); }
};

template <typename T, typename F>
struct UnaryBackwardAt {
    F fn;
    const T* x;
    const T* y;
    const T* dy;
    T* dx;
    __device__ void operator()(int64_t i) const {
        dx[i] = fromFloat<T>(toFloat(dy[i]) * fn.df(toFloat(x[i]), toFloat(y[i])));
    }
};

// ---- binary functions: f(a, b) and dy times its partial derivatives ------------------------------

struct Add {
    __device__ static float f(float a, float b) { return a + b; }
    __device__ static float ga(float dy, float, float) { return dy * 1.0f; }
    __device__ static float gb(float dy, float, float) { return dy * 1.0f; }
};
struct Sub {
    __device__ static float f(float a, float b) { return a - b; }
    __device__ static float ga(float dy, float, float) { return dy * 1.0f; }
    __device__ static float gb(float dy, float, float) { return dy * -1.0f; }
};
struct Mul {
    __device__ static float f(float a, float b) { return a * b; }
    __device__ static float ga(float dy, float, float b) { return dy * b; }
    __device__ static float gb(float dy, float a, float) { return dy * a; }
};
// dy * (1 / b), not dy / b: the CPU multiplies by the derivative.
struct Div {
    __device__ static float f(float a, float b) { return a / b; }
    __device__ static float ga(float dy, float, float b) { return dy * (1.0f / b); }
    __device__ static float gb(float dy, float a, float b) { return dy * (-a / (b * b)); }
};
// a = x, b = gamma: the CPU's PReluKernel.
struct PRelu {
    __device__ static float f(float a, float b) { return a > 0.0f ? a : b * a; }
    __device__ static float ga(float dy, float a, float b) { return a > 0.0f ? dy : b * dy; }
    __device__ static float gb(float dy, float a, float) { return a > 0.0f ? 0.0f : a * dy; }
};

template <typename G>
void withBinary(BinaryOp op, G&& g) {
    // clang-format off
    switch (op) {
        case BinaryOp::Add: g(Add{}); return;
        case BinaryOp::Sub: g(Sub{}); return;
        case BinaryOp::Mul: g(Mul{}); return;
        case BinaryOp::Div: g(Div{}); return;
        case BinaryOp::PRelu: g(PRelu{}); return;
    }
    // clang-format on
    throw std::invalid_argument("unknown element-wise binary op");
}

template <typename T, typename F>
struct BinaryForwardAt {
    const T* a;
    const T* b;
    T* y;
    __device__ void operator()(int64_t i) const { y[i] = fromFloat<T>(F::f(toFloat(a[i]), toFloat(b[i]))); }
};

template <typename T, typename F>
struct BinaryBackwardAt {
    const T* a;
    const T* b;
    const T* dy;
    T* ga;
    T* gb;
    __device__ void operator()(int64_t i) const {
        const float d = toFloat(dy[i]), x = toFloat(a[i]), z = toFloat(b[i]);
        if (ga != nullptr)
            ga[i] = fromFloat<T>(F::ga(d, x, z));
        if (gb != nullptr)
            gb[i] = fromFloat<T>(F::gb(d, x, z));
    }
};

template <typename T, typename F>
struct BroadcastForwardAt {
    Walk walk;
    const T* a;
    const T* b;
    T* y;
    __device__ void operator()(int64_t i) const {
        int64_t off[2] = {};
        addWalkOffsets(walk, i, off);
        y[i] = fromFloat<T>(F::f(toFloat(a[off[0]]), toFloat(b[off[1]])));
    }
};

template <typename T, typename F, int Operand>
struct BroadcastGradTerm {
    const T* a;
    const T* b;
    const T* dy;
    __device__ float operator()(const int64_t (&off)[3]) const {
        const float d = toFloat(dy[off[0]]), x = toFloat(a[off[1]]), z = toFloat(b[off[2]]);
        return Operand == 0 ? F::ga(d, x, z) : F::gb(d, x, z);
    }
};

template <typename T>
struct StoreFloat {
    T* y;
    __device__ void operator()(int64_t r, float v) const { y[r] = fromFloat<T>(v); }
};

// ---- sum, mean --------------------------------------------------------------------------------

template <typename T>
struct WidenTerm {
    const T* x;
    __device__ double operator()(const int64_t (&off)[1]) const {
        return static_cast<double>(toFloat(x[off[0]]));
    }
};

// float(sum * scale), then the storage type: the CPU's two roundings.
template <typename T>
struct StoreScaledDouble {
    T* y;
    double scale;
    __device__ void operator()(int64_t r, double v) const {
        y[r] = fromFloat<T>(static_cast<float>(v * scale));
    }
};

template <typename T>
struct BroadcastScaledAt {
    Walk walk;
    const T* x;
    T* y;
    float scale;
    __device__ void operator()(int64_t i) const {
        int64_t off[1] = {};
        addWalkOffsets(walk, i, off);
        y[i] = fromFloat<T>(toFloat(x[off[0]]) * scale);
    }
};

// ---- add_n --------------------------------------------------------------------------------------

struct AddNChunk {
    const void* inputs[kAddNChunk];
    int count;
};

// One chunk of inputs added to the running f32 sum: the first chunk starts from its first input, the
// last rounds into y, the others keep the sum in `acc`.
template <typename T>
struct AddNAt {
    AddNChunk chunk;
    float* acc;
    T* y;
    bool first;
    bool last;
    __device__ void operator()(int64_t i) const {
        int j = 0;
        float s = first ? toFloat(static_cast<const T*>(chunk.inputs[j++])[i]) : acc[i];
        for (; j < chunk.count; ++j)
            s += toFloat(static_cast<const T*>(chunk.inputs[j])[i]);
        if (last) {
            y[i] = fromFloat<T>(s);
        } else {
            acc[i] = s;
        }
    }
};

// ---- Dropout --------------------------------------------------------------------------------------

template <typename T>
struct DropoutAt {
    const T* x;
    T* y;
    T* mask;
    uint64_t key;
    float p;
    float scale;
    __device__ void operator()(int64_t i) const {
        const float u = dropout::uniform(key, i);
        const float m = u >= p ? scale : 0.0f;
        mask[i] = fromFloat<T>(m);
        y[i] = fromFloat<T>(toFloat(x[i]) * m);
    }
};

}  // namespace

void unaryForward(UnaryFn fn, const void* x, void* y, DType type, int64_t n, cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withUnary(fn, [&](auto f) {
            using F = decltype(f);
            forEachIndex(n, UnaryForwardAt<T, F>{f, static_cast<const T*>(x), static_cast<T*>(y)}, stream,
                         "element-wise unary forward");
        });
    });
}

void unaryBackward(UnaryFn fn, const void* x, const void* y, const void* dy, void* dx, DType type, int64_t n,
                   cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withUnary(fn, [&](auto f) {
            using F = decltype(f);
            forEachIndex(n,
                         UnaryBackwardAt<T, F>{f, static_cast<const T*>(x), static_cast<const T*>(y),
                                               static_cast<const T*>(dy), static_cast<T*>(dx)},
                         stream, "element-wise unary backward");
        });
    });
}

void binaryForward(BinaryOp op, const void* a, const void* b, void* y, DType type, int64_t n,
                   cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withBinary(op, [&](auto f) {
            using F = decltype(f);
            forEachIndex(
                n,
                BinaryForwardAt<T, F>{static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y)},
                stream, "element-wise binary forward");
        });
    });
}

void binaryBackward(BinaryOp op, const void* a, const void* b, const void* dy, void* ga, void* gb, DType type,
                    int64_t n, cudaStream_t stream) {
    if (ga == nullptr && gb == nullptr)
        return;
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withBinary(op, [&](auto f) {
            using F = decltype(f);
            forEachIndex(
                n,
                BinaryBackwardAt<T, F>{static_cast<const T*>(a), static_cast<const T*>(b),
                                       static_cast<const T*>(dy), static_cast<T*>(ga), static_cast<T*>(gb)},
                stream, "element-wise binary backward");
        });
    });
}

void broadcastForward(BinaryOp op, const Walk& out, const void* a, const void* b, void* y, DType type,
                      cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withBinary(op, [&](auto f) {
            using F = decltype(f);
            forEachIndex(walkCount(out),
                         BroadcastForwardAt<T, F>{out, static_cast<const T*>(a), static_cast<const T*>(b),
                                                  static_cast<T*>(y)},
                         stream, "broadcast forward");
        });
    });
}

void broadcastBackward(BinaryOp op, int operand, const Walk& kept, const Walk& reduced, const void* a,
                       const void* b, const void* dy, void* g, DType type, cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        withBinary(op, [&](auto f) {
            using F = decltype(f);
            const auto* pa = static_cast<const T*>(a);
            const auto* pb = static_cast<const T*>(b);
            const auto* pdy = static_cast<const T*>(dy);
            const StoreFloat<T> store{static_cast<T*>(g)};
            if (operand == 0) {
                reduceWalk<float, 3>(kept, reduced, BroadcastGradTerm<T, F, 0>{pa, pb, pdy}, store, stream,
                                     "broadcast backward");
            } else {
                reduceWalk<float, 3>(kept, reduced, BroadcastGradTerm<T, F, 1>{pa, pb, pdy}, store, stream,
                                     "broadcast backward");
            }
        });
    });
}

void reduceSum(const Walk& kept, const Walk& reduced, const void* x, void* y, double scale, DType type,
               cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        reduceWalk<double, 1>(kept, reduced, WidenTerm<T>{static_cast<const T*>(x)},
                              StoreScaledDouble<T>{static_cast<T*>(y), scale}, stream, "sum");
    });
}

void broadcastScaled(const Walk& out, const void* x, void* y, float scale, DType type, cudaStream_t stream) {
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        forEachIndex(walkCount(out),
                     BroadcastScaledAt<T>{out, static_cast<const T*>(x), static_cast<T*>(y), scale}, stream,
                     "sum backward");
    });
}

void addN(const void* const* inputs, int count, void* y, DType type, int64_t n, float* scratch,
          cudaStream_t stream) {
    if (count <= 0 || n <= 0)
        return;
    if (count > kAddNChunk && scratch == nullptr) {
        throw std::invalid_argument("add_n of more than " + std::to_string(kAddNChunk) +
                                    " inputs needs scratch");
    }
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        for (int begin = 0; begin < count; begin += kAddNChunk) {
            AddNChunk chunk{};
            chunk.count = std::min(kAddNChunk, count - begin);
            for (int j = 0; j < chunk.count; ++j)
                chunk.inputs[j] = inputs[begin + j];
            const bool first = begin == 0;
            const bool last = begin + chunk.count == count;
            forEachIndex(n, AddNAt<T>{chunk, scratch, static_cast<T*>(y), first, last}, stream, "add_n");
        }
    });
}

void dropoutForward(const void* x, void* y, void* mask, DType type, int64_t n, uint64_t key, float p,
                    cudaStream_t stream) {
    const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        forEachIndex(
            n,
            DropoutAt<T>{static_cast<const T*>(x), static_cast<T*>(y), static_cast<T*>(mask), key, p, scale},
            stream, "Dropout");
    });
}

}  // namespace ampstudio::cuda
