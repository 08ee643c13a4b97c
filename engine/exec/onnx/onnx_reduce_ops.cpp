// ONNX reductions (ReduceSum ... ReduceLogSumExp), ArgMax / ArgMin, Softmax / LogSoftmax /
// Hardmax and CumSum. Float reductions accumulate in double (an exact-enough reference for the
// precision comparisons built on these runs); integers in their own type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "exec/onnx/onnx_kernel_util.h"
#include "tensor/parallel_for.h"

namespace ampstudio {
namespace {

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

// The reduced axes of a rank-`rank` input: ReduceSum-13 and every reduction from opset 18 take them
// as an input, the others as an attribute; none means all, unless noop_with_empty_axes.
std::vector<char> reducedAxes(OnnxKernelContext& ctx, int64_t rank, bool axesInput, bool& noop) {
    std::vector<int64_t> axes = axesInput ? (ctx.hasInput(1) ? ctx.input(1).integers() : std::vector<int64_t>{}) : ctx.intsAttr("axes");
    std::vector<char> reduced(static_cast<std::size_t>(rank), axes.empty() ? 1 : 0);
    noop = axes.empty() && ctx.intAttr("noop_with_empty_axes", 0) != 0;
    for (const int64_t a : axes) reduced[static_cast<std::size_t>(ctx.axis(a, rank))] = 1;
    return reduced;
}

template <Reduction R>
void reduce(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const bool axesInput = ctx.opset >= 18 || (R == Reduction::Sum && ctx.opset >= 13);
    bool noop = false;
    const std::vector<char> reduced = reducedAxes(ctx, x.rank(), axesInput, noop);
    const bool keepDims = ctx.intAttr("keepdims", 1) != 0;
    if (noop) return ctx.setOutput(0, x);
    Dims kept, out;  // kept: the output with reduced axes as 1; out: what the node returns
    int64_t count = 1;
    for (std::size_t d = 0; d < reduced.size(); ++d) {
        kept.push_back(reduced[d] ? 1 : x.dims()[d]);
        if (reduced[d]) count *= x.dims()[d];
        if (!reduced[d] || keepDims) out.push_back(kept.back());
    }
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
        const int64_t n = dimsSize(kept);
        Acc init{};
        if constexpr (R == Reduction::Max) init = std::numeric_limits<T>::lowest();
        if constexpr (R == Reduction::Min) init = std::numeric_limits<T>::max();
        if constexpr (R == Reduction::Prod) init = 1;
        if constexpr (R == Reduction::LogSumExp && std::is_floating_point_v<T>) init = -std::numeric_limits<double>::infinity();
        std::vector<Acc> acc(static_cast<std::size_t>(n), init);
        const T* in = x.data<T>();
        const std::array<std::vector<int64_t>, 1> s{broadcastStrides(kept, x.dims())};
        // For LogSumExp, the max first (exp of a large value would overflow), then the shifted sum.
        std::vector<Acc> shift;
        if constexpr (R == Reduction::LogSumExp) {
            forEachBroadcast<1>(x.dims(), s, [&](int64_t i, const std::array<int64_t, 1>& at) {
                acc[at[0]] = std::max<Acc>(acc[at[0]], in[i]);
            });
            shift = acc;
            std::fill(acc.begin(), acc.end(), Acc{0});
        }
        forEachBroadcast<1>(x.dims(), s, [&](int64_t i, const std::array<int64_t, 1>& at) {
            const Acc v = static_cast<Acc>(in[i]);
            Acc& a = acc[at[0]];
            if constexpr (R == Reduction::Sum || R == Reduction::Mean || R == Reduction::LogSum) a += v;
            else if constexpr (R == Reduction::Max) a = (std::isnan(static_cast<double>(v)) || v > a) ? v : a;
            else if constexpr (R == Reduction::Min) a = (std::isnan(static_cast<double>(v)) || v < a) ? v : a;
            else if constexpr (R == Reduction::Prod) a *= v;
            else if constexpr (R == Reduction::L1) a += v < 0 ? -v : v;
            else if constexpr (R == Reduction::L2 || R == Reduction::SumSquare) a += v * v;
            else if constexpr (R == Reduction::LogSumExp) a += std::exp(static_cast<double>(v) - shift[at[0]]);
        });
        HostTensor y = HostTensor::uninitialized(x.dtype(), out);
        T* o = y.mutableData<T>();
        for (int64_t i = 0; i < n; ++i) {
            Acc a = acc[static_cast<std::size_t>(i)];
            if constexpr (R == Reduction::Mean) a = count == 0 ? a : static_cast<Acc>(a / static_cast<Acc>(count));
            if constexpr (R == Reduction::L2 || R == Reduction::LogSum || R == Reduction::LogSumExp) {
                double d = static_cast<double>(a);
                if constexpr (R == Reduction::L2) d = std::sqrt(d);
                if constexpr (R == Reduction::LogSum) d = std::log(d);
                if constexpr (R == Reduction::LogSumExp) d = std::log(d) + static_cast<double>(shift[static_cast<std::size_t>(i)]);
                if constexpr (std::is_integral_v<T>) {
                    o[i] = saturatingCast<T>(d);
                } else {
                    o[i] = static_cast<T>(d);
                }
                continue;
            }
            o[i] = static_cast<T>(a);
        }
        ctx.setOutput(0, std::move(y));
    });
}

// (outer, n, inner) around `axis`.
struct AxisBlocks {
    int64_t outer = 1, n = 1, inner = 1;
};
AxisBlocks blocksAround(const Dims& dims, int64_t axis) {
    AxisBlocks b;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
        (d < axis ? b.outer : d == axis ? b.n : b.inner) *= dims[static_cast<std::size_t>(d)];
    }
    return b;
}

template <bool IsMax>
void argExtreme(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 0), x.rank());
    const bool keepDims = ctx.intAttr("keepdims", 1) != 0, last = ctx.intAttr("select_last_index", 0) != 0;
    Dims out = x.dims();
    if (keepDims) out[static_cast<std::size_t>(axis)] = 1;
    else out.erase(out.begin() + axis);
    const AxisBlocks b = blocksAround(x.dims(), axis);
    HostTensor y = HostTensor::uninitialized(DType::I64, out);
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        for (int64_t o = 0; o < b.outer; ++o) {
            for (int64_t i = 0; i < b.inner; ++i) {
                int64_t best = 0;
                for (int64_t k = 1; k < b.n; ++k) {
                    const T v = in[(o * b.n + k) * b.inner + i], w = in[(o * b.n + best) * b.inner + i];
                    if (IsMax ? (v > w || (last && v == w)) : (v < w || (last && v == w))) best = k;
                }
                y.mutableData<int64_t>()[o * b.inner + i] = best;
            }
        }
    });
    ctx.setOutput(0, std::move(y));
}

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

// Softmax over `rows` contiguous rows of n (the last axis, attention's case), each exponential once
// by fastExp, the maximum and the sum in 16 lanes (float reductions the compiler may not reorder
// itself). Compiled for AVX-512 and AVX2 beside the baseline and picked for the CPU at load time:
// this loop is most of a softmax's time and 4-wide SSE2 a quarter of what the CPU has.
__attribute__((target_clones("avx512f", "avx2", "default")))
void softmaxRows(const float* in, float* out, int64_t rows, int64_t n) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* xs = in + r * n;
        float* ys = out + r * n;
        const float m = maxInLanes(n, [&](int64_t k) { return xs[k]; });
        for (int64_t k = 0; k < n; ++k) ys[k] = fastExp(xs[k] - m);
        const auto scale = static_cast<float>(1.0 / sumInLanes(n, [&](int64_t k) { return ys[k]; }));
        for (int64_t k = 0; k < n; ++k) ys[k] *= scale;
    }
}

template <SoftmaxKind K>
void softmax(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(x.dtype())));
    const bool coerced = ctx.opset < 13;  // before 13: the input as 2-d at `axis`, normalised over all of the rest
    const int64_t axis = ctx.axis(ctx.intAttr("axis", coerced ? 1 : -1), x.rank());
    AxisBlocks b = blocksAround(x.dims(), axis);
    if (coerced) b = {b.outer, b.n * b.inner, 1};
    HostTensor y = HostTensor::uninitialized(DType::F32, x.dims());
    const float* in = x.data<float>();
    float* out = y.mutableData<float>();
    // Row by row on both cores (attention's softmax is thousands of rows); each exponential once,
    // by fastExp. A row's elements lie `stride` apart: 1 for the last axis, which gets its own copy
    // of the loops so that they vectorise.
    const auto rowOf = [&]<int64_t Fixed>(int64_t stride, const float* xs, float* ys) {
        if constexpr (Fixed > 0) stride = Fixed;
        if constexpr (K == SoftmaxKind::Hardmax) {
            float m = -std::numeric_limits<float>::infinity();
            int64_t arg = 0;
            for (int64_t k = 0; k < b.n; ++k) {
                if (xs[k * stride] > m) m = xs[k * stride], arg = k;
            }
            for (int64_t k = 0; k < b.n; ++k) ys[k * stride] = k == arg ? 1.0f : 0.0f;
            return;
        }
        const float m = maxInLanes(b.n, [&](int64_t k) { return xs[k * stride]; });
        if constexpr (K == SoftmaxKind::Softmax) {
            for (int64_t k = 0; k < b.n; ++k) ys[k * stride] = fastExp(xs[k * stride] - m);
            const auto scale = static_cast<float>(1.0 / sumInLanes(b.n, [&](int64_t k) { return ys[k * stride]; }));
            for (int64_t k = 0; k < b.n; ++k) ys[k * stride] *= scale;
        } else {
            const auto logSum = static_cast<float>(std::log(sumInLanes(b.n, [&](int64_t k) { return fastExp(xs[k * stride] - m); })));
            for (int64_t k = 0; k < b.n; ++k) ys[k * stride] = (xs[k * stride] - m) - logSum;
        }
    };
    if (K == SoftmaxKind::Softmax && b.inner == 1) {
        parallelFor(b.outer, [&](int64_t begin, int64_t end) { softmaxRows(in + begin * b.n, out + begin * b.n, end - begin, b.n); });
        return ctx.setOutput(0, std::move(y));
    }
    parallelFor(b.outer * b.inner, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
            const int64_t o = row / b.inner, i = row % b.inner;
            const int64_t first = o * b.n * b.inner + i;
            if (b.inner == 1) {
                rowOf.template operator()<1>(1, in + first, out + first);
            } else {
                rowOf.template operator()<0>(b.inner, in + first, out + first);
            }
        }
    });
    ctx.setOutput(0, std::move(y));
}

void cumSum(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t axis = ctx.axis(ctx.input(1).integerAt(0), x.rank());
    const bool exclusive = ctx.intAttr("exclusive", 0) != 0, reverse = ctx.intAttr("reverse", 0) != 0;
    const AxisBlocks b = blocksAround(x.dims(), axis);
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
        HostTensor y = HostTensor::uninitialized(x.dtype(), x.dims());
        const T* in = x.data<T>();
        T* out = y.mutableData<T>();
        for (int64_t o = 0; o < b.outer; ++o) {
            for (int64_t i = 0; i < b.inner; ++i) {
                Acc sum{};
                for (int64_t j = 0; j < b.n; ++j) {
                    const int64_t k = reverse ? b.n - 1 - j : j;
                    const int64_t at = (o * b.n + k) * b.inner + i;
                    if (exclusive) {
                        out[at] = static_cast<T>(sum);
                        sum += in[at];
                    } else {
                        sum += in[at];
                        out[at] = static_cast<T>(sum);
                    }
                }
            }
        }
        ctx.setOutput(0, std::move(y));
    });
}

}  // namespace

void addOnnxReduceOps(OnnxOpTable& table) {
    const OnnxOpTable ops = {
        {"ReduceSum", {reduce<Reduction::Sum>, true, false}},
        {"ReduceMean", {reduce<Reduction::Mean>, true, false}},
        {"ReduceMax", {reduce<Reduction::Max>, true, false}},
        {"ReduceMin", {reduce<Reduction::Min>, true, false}},
        {"ReduceProd", {reduce<Reduction::Prod>, true, false}},
        {"ReduceL1", {reduce<Reduction::L1>, true, false}},
        {"ReduceL2", {reduce<Reduction::L2>, true, false}},
        {"ReduceLogSum", {reduce<Reduction::LogSum>, true, false}},
        {"ReduceLogSumExp", {reduce<Reduction::LogSumExp>, true, false}},
        {"ReduceSumSquare", {reduce<Reduction::SumSquare>, true, false}},
        {"ArgMax", {argExtreme<true>, true, false}},
        {"ArgMin", {argExtreme<false>, true, false}},
        {"Softmax", {softmax<SoftmaxKind::Softmax>}},
        {"LogSoftmax", {softmax<SoftmaxKind::LogSoftmax>}},
        {"Hardmax", {softmax<SoftmaxKind::Hardmax>}},
        {"CumSum", {cumSum, true, false}},
    };
    table.insert(table.end(), ops.begin(), ops.end());
}

}  // namespace ampstudio
