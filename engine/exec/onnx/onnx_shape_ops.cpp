// ONNX ops that make, move and reshape values without arithmetic: Constant, Shape, Reshape,
// Transpose, Concat, Split, Slice, Gather, Squeeze / Unsqueeze, Expand, Tile, Pad, Range ... They
// move elements by their size, so they take every dtype (float16 included) as stored.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "exec/onnx/onnx_kernel_util.h"

namespace ampstudio {
namespace {

void identity(OnnxKernelContext& ctx) { ctx.setOutput(0, ctx.input(0)); }

void dropout(OnnxKernelContext& ctx) {
    // Inference: the data unchanged (training_mode, opset 12's third input, must be false).
    if (ctx.hasInput(2) && ctx.input(2).integerAt(0) != 0) ctx.unsupported("training_mode true");
    const HostTensor& x = ctx.input(0);
    ctx.setOutput(0, x);
    if (ctx.wantsOutput(1)) {
        HostTensor mask = HostTensor::uninitialized(DType::Bool, x.dims());
        std::fill_n(mask.mutableData<uint8_t>(), mask.size(), uint8_t{1});
        ctx.setOutput(1, std::move(mask));
    }
}

void constant(OnnxKernelContext& ctx) {
    for (const auto& [key, a] : ctx.node.attributes) {
        if (key == "value") {
            if (!a.tensor.defined()) ctx.unsupported("a Constant of a dtype without values here");
            return ctx.setOutput(0, a.tensor);
        }
        if (key == "value_float") return ctx.setOutput(0, HostTensor::fromFloats({a.f}, {}));
        if (key == "value_floats") return ctx.setOutput(0, HostTensor::fromFloats(a.floats, {static_cast<int64_t>(a.floats.size())}));
        if (key == "value_int") return ctx.setOutput(0, HostTensor::fromIntegers({a.i}, {}));
        if (key == "value_ints") return ctx.setOutput(0, HostTensor::fromIntegers(a.ints, {static_cast<int64_t>(a.ints.size())}));
        if (key == "sparse_value" || key == "value_string" || key == "value_strings") ctx.unsupported("Constant " + key);
    }
    ctx.fail("no value attribute");
}

void constantOfShape(OnnxKernelContext& ctx) {
    const Dims dims = ctx.input(0).integers();
    const OnnxAttribute* value = ctx.node.attribute("value");
    HostTensor fill = value ? value->tensor : HostTensor::fromFloats({0.0f}, {1});
    if (!fill.defined() || fill.size() != 1) ctx.fail("value must hold one element");
    HostTensor out = HostTensor::uninitialized(fill.dtype(), dims);
    const int64_t size = elementBytes(out);
    for (int64_t i = 0; i < out.size(); ++i) std::memcpy(out.mutableRaw() + i * size, fill.raw(), static_cast<std::size_t>(size));
    ctx.setOutput(0, std::move(out));
}

void shape(OnnxKernelContext& ctx) {
    const Dims& dims = ctx.input(0).dims();
    const auto rank = static_cast<int64_t>(dims.size());
    const auto clampAxis = [rank](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
    const int64_t start = clampAxis(ctx.intAttr("start", 0));
    const int64_t end = ctx.hasAttr("end") ? clampAxis(ctx.intAttr("end", rank)) : rank;
    const std::vector<int64_t> values(dims.begin() + start, dims.begin() + std::max(start, end));
    ctx.setOutput(0, HostTensor::fromIntegers(values, {static_cast<int64_t>(values.size())}));
}

void size(OnnxKernelContext& ctx) { ctx.setOutput(0, HostTensor::fromIntegers({ctx.input(0).size()}, {})); }

void reshape(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    std::vector<int64_t> target = ctx.opset < 5 ? ctx.intsAttr("shape") : ctx.input(1).integers();
    const bool allowZero = ctx.intAttr("allowzero", 0) != 0;
    int64_t inferred = -1, known = 1;
    for (std::size_t i = 0; i < target.size(); ++i) {
        if (target[i] == 0 && !allowZero) {
            if (i >= x.dims().size()) ctx.fail("shape " + dimsString(target) + ": a 0 past the input's rank");
            target[i] = x.dims()[i];
        }
        if (target[i] == -1) {
            if (inferred >= 0) ctx.fail("shape " + dimsString(target) + " has two -1");
            inferred = static_cast<int64_t>(i);
        } else if (target[i] < 0) {
            ctx.fail("shape " + dimsString(target) + " has a negative size");
        } else {
            known = checkedMul(ctx, known, target[i]);
        }
    }
    if (inferred >= 0) {
        if (known == 0 || x.size() % known != 0) ctx.fail("cannot reshape " + dimsString(x.dims()) + " to " + dimsString(target));
        target[static_cast<std::size_t>(inferred)] = x.size() / known;
    }
    if (dimsSize(target) != x.size()) ctx.fail("cannot reshape " + dimsString(x.dims()) + " to " + dimsString(target));
    ctx.setOutput(0, x.reshaped(target));
}

void flatten(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    int64_t axis = ctx.intAttr("axis", 1);
    if (axis < -rank || axis > rank) ctx.fail("axis " + std::to_string(axis) + " outside the rank");
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dims()[static_cast<std::size_t>(d)];
    ctx.setOutput(0, x.reshaped({outer, outer == 0 ? 0 : x.size() / std::max<int64_t>(outer, 1)}));
}

// Copies the block structure of `x` permuted: out[i] = x[sum(index_d * strides[perm_d])].
HostTensor permute(const OnnxKernelContext& ctx, const HostTensor& x, const std::vector<int64_t>& perm) {
    const Dims& in = x.dims();
    const std::size_t rank = in.size();
    if (perm.size() != rank) ctx.fail("perm " + dimsString(perm) + " does not fit a rank-" + std::to_string(rank) + " input");
    std::vector<char> seen(rank, 0);
    Dims out(rank);
    const std::vector<int64_t> inStrides = stridesOf(in);
    std::vector<int64_t> strides(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const int64_t p = perm[d];
        if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<std::size_t>(p)]) ctx.fail("perm " + dimsString(perm) + " is no permutation");
        seen[static_cast<std::size_t>(p)] = 1;
        out[d] = in[static_cast<std::size_t>(p)];
        strides[d] = inStrides[static_cast<std::size_t>(p)];
    }
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    const int64_t size = elementBytes(x);
    const std::array<std::vector<int64_t>, 1> s{strides};
    const std::byte* src = x.raw();
    std::byte* dst = y.mutableRaw();
    const auto move = [&]<typename E>() {
        const E* from = reinterpret_cast<const E*>(src);
        E* to = reinterpret_cast<E*>(dst);
        forEachBroadcast<1>(out, s, [&](int64_t i, const std::array<int64_t, 1>& at) { to[i] = from[at[0]]; });
    };
    switch (size) {
        case 1: move.template operator()<uint8_t>(); break;
        case 2: move.template operator()<uint16_t>(); break;
        case 4: move.template operator()<uint32_t>(); break;
        default: move.template operator()<uint64_t>(); break;
    }
    return y;
}

void transpose(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    std::vector<int64_t> perm = ctx.intsAttr("perm");
    if (perm.empty()) {
        perm.resize(x.dims().size());
        std::iota(perm.rbegin(), perm.rend(), 0);
    }
    ctx.setOutput(0, permute(ctx, x, perm));
}

void concat(OnnxKernelContext& ctx) {
    const HostTensor& first = ctx.input(0);
    const int64_t rank = first.rank();
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 1), rank);
    Dims out = first.dims();
    out[static_cast<std::size_t>(axis)] = 0;
    for (std::size_t k = 0; k < ctx.inputCount(); ++k) {
        const HostTensor& x = ctx.input(k);
        if (x.dtype() != first.dtype() || x.rank() != rank) ctx.fail("inputs differ in dtype or rank");
        for (int64_t d = 0; d < rank; ++d) {
            if (d != axis && x.dims()[static_cast<std::size_t>(d)] != first.dims()[static_cast<std::size_t>(d)]) {
                ctx.fail("input " + std::to_string(k) + " has dims " + dimsString(x.dims()) + ", input 0 " + dimsString(first.dims()));
            }
        }
        out[static_cast<std::size_t>(axis)] += x.dims()[static_cast<std::size_t>(axis)];
    }
    HostTensor y = HostTensor::uninitialized(first.dtype(), out);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out[static_cast<std::size_t>(d)];
    const int64_t rowBytes = y.size() == 0 ? 0 : static_cast<int64_t>(y.bytes()) / std::max<int64_t>(outer, 1);
    int64_t offset = 0;
    for (std::size_t k = 0; k < ctx.inputCount(); ++k) {
        const HostTensor& x = ctx.input(k);
        const int64_t chunk = outer == 0 ? 0 : static_cast<int64_t>(x.bytes()) / outer;
        for (int64_t o = 0; o < outer; ++o) {
            std::memcpy(y.mutableRaw() + o * rowBytes + offset, x.raw() + o * chunk, static_cast<std::size_t>(chunk));
        }
        offset += chunk;
    }
    ctx.setOutput(0, std::move(y));
}

// The part of `x` from `begin` with `count` along `axis` (a contiguous block per outer index).
HostTensor sliceAxis(const HostTensor& x, int64_t axis, int64_t begin, int64_t count) {
    Dims out = x.dims();
    out[static_cast<std::size_t>(axis)] = count;
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    int64_t outer = 1, inner = elementBytes(x);
    for (int64_t d = 0; d < axis; ++d) outer *= x.dims()[static_cast<std::size_t>(d)];
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dims()[static_cast<std::size_t>(d)];
    const int64_t extent = x.dims()[static_cast<std::size_t>(axis)];
    for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(y.mutableRaw() + o * count * inner, x.raw() + (o * extent + begin) * inner, static_cast<std::size_t>(count * inner));
    }
    return y;
}

void split(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 0), x.rank());
    const int64_t extent = x.dims()[static_cast<std::size_t>(axis)];
    std::vector<int64_t> sizes = ctx.opset >= 13 ? (ctx.hasInput(1) ? ctx.input(1).integers() : std::vector<int64_t>{})
                                                 : ctx.intsAttr("split");
    const auto parts = static_cast<int64_t>(ctx.node.outputs.size());
    if (sizes.empty()) {
        const int64_t each = (extent + parts - 1) / parts;  // opset 18's num_outputs rule; equal parts before
        for (int64_t k = 0; k < parts; ++k) sizes.push_back(std::max<int64_t>(0, std::min(each, extent - k * each)));
    }
    if (static_cast<int64_t>(sizes.size()) != parts || std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != extent) {
        ctx.fail("split " + dimsString(sizes) + " does not divide " + std::to_string(extent) + " into " + std::to_string(parts));
    }
    int64_t begin = 0;
    for (int64_t k = 0; k < parts; ++k) {
        ctx.setOutput(static_cast<std::size_t>(k), sliceAxis(x, axis, begin, sizes[static_cast<std::size_t>(k)]));
        begin += sizes[static_cast<std::size_t>(k)];
    }
}

void slice(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> starts, ends, axes, steps;
    if (ctx.opset < 10) {
        starts = ctx.intsAttr("starts");
        ends = ctx.intsAttr("ends");
        axes = ctx.intsAttr("axes");
    } else {
        starts = ctx.input(1).integers();
        ends = ctx.input(2).integers();
        if (ctx.hasInput(3)) axes = ctx.input(3).integers();
        if (ctx.hasInput(4)) steps = ctx.input(4).integers();
    }
    if (axes.empty()) {
        axes.resize(starts.size());
        std::iota(axes.begin(), axes.end(), 0);
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
        ctx.fail("starts, ends, axes and steps differ in length");
    }
    std::vector<int64_t> begin(static_cast<std::size_t>(rank), 0), step(static_cast<std::size_t>(rank), 1);
    Dims out = x.dims();
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const int64_t a = ctx.axis(axes[k], rank);
        const int64_t dim = x.dims()[static_cast<std::size_t>(a)];
        const int64_t s = steps[k];
        if (s == 0) ctx.fail("a step of 0");
        int64_t b = starts[k] < 0 ? starts[k] + dim : starts[k];
        int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
        if (s > 0) {
            b = std::clamp<int64_t>(b, 0, dim);
            e = std::clamp<int64_t>(e, 0, dim);
            out[static_cast<std::size_t>(a)] = e > b ? 1 + (e - b - 1) / s : 0;
        } else {
            b = std::clamp<int64_t>(b, 0, dim - 1);
            e = std::clamp<int64_t>(e, -1, dim - 1);
            const int64_t back = s == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -s;
            out[static_cast<std::size_t>(a)] = b > e ? 1 + (b - e - 1) / back : 0;
        }
        begin[static_cast<std::size_t>(a)] = b;
        step[static_cast<std::size_t>(a)] = s;
    }
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    const std::vector<int64_t> inStrides = stridesOf(x.dims());
    std::vector<int64_t> strides(static_cast<std::size_t>(rank));
    int64_t base = 0;
    for (std::size_t d = 0; d < static_cast<std::size_t>(rank); ++d) {
        strides[d] = inStrides[d] * step[d];
        base += begin[d] * inStrides[d];
    }
    const int64_t size = elementBytes(x);
    const std::array<std::vector<int64_t>, 1> s{strides};
    forEachBroadcast<1>(out, s, [&](int64_t i, const std::array<int64_t, 1>& at) {
        std::memcpy(y.mutableRaw() + i * size, x.raw() + (base + at[0]) * size, static_cast<std::size_t>(size));
    });
    ctx.setOutput(0, std::move(y));
}

void gather(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& indices = ctx.input(1);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 0), x.rank());
    const int64_t extent = x.dims()[static_cast<std::size_t>(axis)];
    Dims out(x.dims().begin(), x.dims().begin() + axis);
    out.insert(out.end(), indices.dims().begin(), indices.dims().end());
    out.insert(out.end(), x.dims().begin() + axis + 1, x.dims().end());
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    int64_t outer = 1, inner = elementBytes(x);
    for (int64_t d = 0; d < axis; ++d) outer *= x.dims()[static_cast<std::size_t>(d)];
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dims()[static_cast<std::size_t>(d)];
    const std::vector<int64_t> index = indices.integers();
    for (int64_t o = 0; o < outer; ++o) {
        for (std::size_t k = 0; k < index.size(); ++k) {
            int64_t i = index[k] < 0 ? index[k] + extent : index[k];
            if (i < 0 || i >= extent) ctx.fail("index " + std::to_string(index[k]) + " outside [0, " + std::to_string(extent) + ")");
            std::memcpy(y.mutableRaw() + (o * static_cast<int64_t>(index.size()) + static_cast<int64_t>(k)) * inner,
                        x.raw() + (o * extent + i) * inner, static_cast<std::size_t>(inner));
        }
    }
    ctx.setOutput(0, std::move(y));
}

void gatherElements(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& indices = ctx.input(1);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 0), x.rank());
    if (indices.rank() != x.rank()) ctx.fail("indices and data differ in rank");
    for (int64_t d = 0; d < x.rank(); ++d) {
        if (d != axis && indices.dims()[static_cast<std::size_t>(d)] > x.dims()[static_cast<std::size_t>(d)]) {
            ctx.fail("indices " + dimsString(indices.dims()) + " reach past data " + dimsString(x.dims()));
        }
    }
    HostTensor y = HostTensor::uninitialized(x.dtype(), indices.dims());
    const std::vector<int64_t> xs = stridesOf(x.dims());
    const int64_t size = elementBytes(x);
    const int64_t extent = x.dims()[static_cast<std::size_t>(axis)];
    const std::vector<int64_t> index = indices.integers();
    std::vector<int64_t> at(indices.dims().size(), 0);
    for (int64_t i = 0; i < indices.size(); ++i) {
        int64_t offset = 0;
        for (std::size_t d = 0; d < at.size(); ++d) {
            int64_t v = at[d];
            if (static_cast<int64_t>(d) == axis) {
                v = index[static_cast<std::size_t>(i)] < 0 ? index[static_cast<std::size_t>(i)] + extent : index[static_cast<std::size_t>(i)];
                if (v < 0 || v >= extent) ctx.fail("index outside the axis");
            }
            offset += v * xs[d];
        }
        std::memcpy(y.mutableRaw() + i * size, x.raw() + offset * size, static_cast<std::size_t>(size));
        for (std::size_t d = at.size(); d-- > 0;) {
            if (++at[d] < indices.dims()[d]) break;
            at[d] = 0;
        }
    }
    ctx.setOutput(0, std::move(y));
}

std::vector<int64_t> axesOf(OnnxKernelContext& ctx) {
    if (ctx.opset >= 13) return ctx.hasInput(1) ? ctx.input(1).integers() : std::vector<int64_t>{};
    return ctx.intsAttr("axes");
}

void unsqueeze(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const std::vector<int64_t> axes = axesOf(ctx);
    const auto rank = static_cast<int64_t>(x.dims().size() + axes.size());
    std::vector<char> inserted(static_cast<std::size_t>(rank), 0);
    for (const int64_t a : axes) {
        const int64_t axis = ctx.axis(a, rank);
        if (inserted[static_cast<std::size_t>(axis)]) ctx.fail("axis " + std::to_string(a) + " given twice");
        inserted[static_cast<std::size_t>(axis)] = 1;
    }
    Dims out;
    std::size_t next = 0;
    for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[static_cast<std::size_t>(d)] ? 1 : x.dims()[next++]);
    ctx.setOutput(0, x.reshaped(out));
}

void squeeze(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const std::vector<int64_t> axes = axesOf(ctx);
    std::vector<char> removed(x.dims().size(), 0);
    for (const int64_t a : axes) {
        const int64_t axis = ctx.axis(a, x.rank());
        if (x.dims()[static_cast<std::size_t>(axis)] != 1) ctx.fail("axis " + std::to_string(a) + " is not 1 in " + dimsString(x.dims()));
        removed[static_cast<std::size_t>(axis)] = 1;
    }
    Dims out;
    for (std::size_t d = 0; d < x.dims().size(); ++d) {
        if (axes.empty() ? x.dims()[d] != 1 : !removed[d]) out.push_back(x.dims()[d]);
    }
    ctx.setOutput(0, x.reshaped(out));
}

// Copies `x` broadcast to `out` (Expand, Tile's building block).
HostTensor broadcastTo(const HostTensor& x, const Dims& out) {
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    const int64_t size = elementBytes(x);
    const std::array<std::vector<int64_t>, 1> s{broadcastStrides(x.dims(), out)};
    forEachBroadcast<1>(out, s, [&](int64_t i, const std::array<int64_t, 1>& at) {
        std::memcpy(y.mutableRaw() + i * size, x.raw() + at[0] * size, static_cast<std::size_t>(size));
    });
    return y;
}

void expand(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    ctx.setOutput(0, broadcastTo(x, broadcastDims(ctx, x.dims(), ctx.input(1).integers())));
}

void tile(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const std::vector<int64_t> repeats = ctx.input(1).integers();
    if (static_cast<int64_t>(repeats.size()) != x.rank()) ctx.fail("repeats " + dimsString(repeats) + " do not fit the rank");
    // As a broadcast: x viewed (1, d0, 1, d1 ...) expanded to (r0, d0, r1, d1 ...), then permuted.
    Dims view, expanded, out;
    std::vector<int64_t> perm;
    for (std::size_t d = 0; d < repeats.size(); ++d) {
        if (repeats[d] < 0) ctx.fail("a negative repeat");
        view.insert(view.end(), {1, x.dims()[d]});
        expanded.insert(expanded.end(), {repeats[d], x.dims()[d]});
        out.push_back(checkedMul(ctx, repeats[d], x.dims()[d]));
    }
    ctx.setOutput(0, broadcastTo(x.reshaped(view), expanded).reshaped(out));
}

void range(OnnxKernelContext& ctx) {
    const HostTensor& start = ctx.input(0);
    for (std::size_t k = 0; k < 3; ++k) {
        if (ctx.input(k).size() != 1 || ctx.input(k).dtype() != start.dtype()) ctx.fail("start, limit and delta must be scalars of one dtype");
    }
    visitDtype(ctx, start.dtype(), [&]<typename T>() {
        const T s = start.data<T>()[0], limit = ctx.input(1).data<T>()[0], delta = ctx.input(2).data<T>()[0];
        if (delta == 0) ctx.fail("delta 0");
        const int64_t n = sizeFromDouble(ctx, std::max(0.0, std::ceil((static_cast<double>(limit) - static_cast<double>(s)) /
                                                                     static_cast<double>(delta))));
        HostTensor y = HostTensor::uninitialized(start.dtype(), {n});
        for (int64_t i = 0; i < n; ++i) y.mutableData<T>()[i] = static_cast<T>(s + static_cast<T>(i) * delta);
        ctx.setOutput(0, std::move(y));
    });
}

void pad(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    const std::string mode = ctx.stringAttr("mode", "constant");
    std::vector<int64_t> pads;
    HostTensor value;
    if (ctx.opset < 11) {
        pads = ctx.intsAttr("pads", ctx.intsAttr("paddings"));
    } else {
        pads = ctx.input(1).integers();
        if (ctx.hasInput(2) && ctx.input(2).size() > 0) value = ctx.input(2);
    }
    std::vector<int64_t> axes;
    if (ctx.hasInput(3)) {
        for (const int64_t a : ctx.input(3).integers()) axes.push_back(ctx.axis(a, rank));
    } else {
        axes.resize(static_cast<std::size_t>(rank));
        std::iota(axes.begin(), axes.end(), 0);
    }
    if (pads.size() != 2 * axes.size()) ctx.fail("pads " + dimsString(pads) + " do not fit the axes");
    std::vector<int64_t> before(static_cast<std::size_t>(rank), 0), after(static_cast<std::size_t>(rank), 0);
    for (std::size_t k = 0; k < axes.size(); ++k) {
        before[static_cast<std::size_t>(axes[k])] = pads[k];
        after[static_cast<std::size_t>(axes[k])] = pads[k + axes.size()];
    }
    Dims out(static_cast<std::size_t>(rank));
    for (std::size_t d = 0; d < out.size(); ++d) {
        out[d] = checkedAdd(ctx, checkedAdd(ctx, x.dims()[d], before[d]), after[d]);
        if (out[d] < 0) ctx.fail("pads remove more than the axis holds");
    }
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    const int64_t size = elementBytes(x);
    std::vector<std::byte> fill(static_cast<std::size_t>(size));
    if (ctx.opset < 11 && mode == "constant") {
        const float v = ctx.floatAttr("value", 0.0f);
        if (x.dtype() != DType::F32) ctx.unsupported("Pad-2 of " + std::string(dtypeName(x.dtype())));
        std::memcpy(fill.data(), &v, sizeof v);
    } else if (value.defined()) {
        if (value.dtype() != x.dtype()) ctx.fail("constant_value differs in dtype");
        std::memcpy(fill.data(), value.raw(), static_cast<std::size_t>(size));
    }
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") ctx.unsupported("mode '" + mode + "'");
    const std::vector<int64_t> xs = stridesOf(x.dims());
    std::vector<int64_t> at(static_cast<std::size_t>(rank), 0);
    for (int64_t i = 0; i < y.size(); ++i) {
        int64_t offset = 0;
        bool outside = false;
        for (std::size_t d = 0; d < at.size(); ++d) {
            int64_t v = at[d] - before[d];
            const int64_t n = x.dims()[d];
            if (v < 0 || v >= n) {
                if (mode == "constant" || n == 0) {
                    outside = true;
                    break;
                }
                if (mode == "edge") {
                    v = std::clamp<int64_t>(v, 0, n - 1);
                } else if (mode == "wrap") {
                    v = ((v % n) + n) % n;
                } else {  // reflect, without repeating the edge
                    const int64_t period = std::max<int64_t>(2 * (n - 1), 1);
                    v = ((v % period) + period) % period;
                    if (v >= n) v = period - v;
                }
            }
            offset += v * xs[d];
        }
        std::memcpy(y.mutableRaw() + i * size, outside ? fill.data() : x.raw() + offset * size, static_cast<std::size_t>(size));
        for (std::size_t d = at.size(); d-- > 0;) {
            if (++at[d] < out[d]) break;
            at[d] = 0;
        }
    }
    ctx.setOutput(0, std::move(y));
}

}  // namespace

void addOnnxShapeOps(OnnxOpTable& table) {
    const OnnxOpTable ops = {
        {"Identity", {identity, false}},
        {"Dropout", {dropout, false}},
        {"Constant", {constant, false}},
        {"ConstantOfShape", {constantOfShape, false}},
        {"Shape", {shape, false}},
        {"Size", {size, false}},
        {"Reshape", {reshape, false}},
        {"Flatten", {flatten, false}},
        {"Transpose", {transpose, false}},
        {"Concat", {concat, false}},
        {"Split", {split, false}},
        {"Slice", {slice, false}},
        {"Gather", {gather, false}},
        {"GatherElements", {gatherElements, false}},
        {"Unsqueeze", {unsqueeze, false}},
        {"Squeeze", {squeeze, false}},
        {"Expand", {expand, false}},
        {"Tile", {tile, false}},
        {"Range", {range, true, false}},
        {"Pad", {pad, false}},
    };
    table.insert(table.end(), ops.begin(), ops.end());
}

}  // namespace ampstudio
