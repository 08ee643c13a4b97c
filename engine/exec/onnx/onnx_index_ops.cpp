// ONNX ops that pick, place or count elements by index: TopK, NonZero, Trilu, OneHot, EyeLike,
// GatherND, ScatterND, ScatterElements (and Scatter), Compress, ReverseSequence, DepthToSpace and
// SpaceToDepth. Like the shape ops they move elements by size, so float16 passes through as stored.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "exec/onnx/onnx_kernel_util.h"

namespace ampstudio {
namespace {

// The row-major index tuple of flat position `i` in `dims`.
void unravel(int64_t i, const Dims& dims, std::vector<int64_t>& at) {
    at.resize(dims.size());
    for (std::size_t d = dims.size(); d-- > 0;) {
        at[d] = dims[d] == 0 ? 0 : i % dims[d];
        i = dims[d] == 0 ? 0 : i / dims[d];
    }
}

void topK(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const int64_t k = ctx.opset < 10 ? ctx.intAttr("k", 1) : ctx.input(1).integerAt(0);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", -1), x.rank());
    const bool largest = ctx.intAttr("largest", 1) != 0;
    const int64_t n = x.dims()[static_cast<std::size_t>(axis)];
    if (k < 0 || k > n) ctx.fail("k " + std::to_string(k) + " outside [0, " + std::to_string(n) + "]");
    Dims out = x.dims();
    out[static_cast<std::size_t>(axis)] = k;
    HostTensor values = HostTensor::uninitialized(x.dtype(), out), indices(DType::I64, out);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) {
        if (d < axis) outer *= x.dims()[static_cast<std::size_t>(d)];
        if (d > axis) inner *= x.dims()[static_cast<std::size_t>(d)];
    }
    visitDtype(ctx, x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        std::vector<int64_t> order(static_cast<std::size_t>(n));
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < inner; ++i) {
                const auto at = [&](int64_t j) { return in[(o * n + j) * inner + i]; };
                std::iota(order.begin(), order.end(), 0);
                // Equal values keep their order (the lower index first), as ONNX Runtime and numpy.
                std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return largest ? at(a) > at(b) : at(a) < at(b); });
                for (int64_t j = 0; j < k; ++j) {
                    values.mutableData<T>()[(o * k + j) * inner + i] = at(order[static_cast<std::size_t>(j)]);
                    indices.mutableData<int64_t>()[(o * k + j) * inner + i] = order[static_cast<std::size_t>(j)];
                }
            }
        }
    });
    ctx.setOutput(0, std::move(values));
    ctx.setOutput(1, std::move(indices));
}

bool nonZeroAt(const HostTensor& x, int64_t i) {
    const std::byte* p = x.raw() + i * elementBytes(x);
    if (x.dtype() == DType::F16 || x.dtype() == DType::BF16) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return (bits & 0x7fff) != 0;
    }
    return x.numberAt(i) != 0.0;
}

void nonZero(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < x.size(); ++i) {
        if (nonZeroAt(x, i)) hits.push_back(i);
    }
    const auto rank = static_cast<int64_t>(std::max<std::size_t>(x.dims().size(), 1));
    HostTensor y = HostTensor::uninitialized(DType::I64, {rank, static_cast<int64_t>(hits.size())});
    std::vector<int64_t> at;
    for (std::size_t h = 0; h < hits.size(); ++h) {
        unravel(hits[h], x.dims().empty() ? Dims{1} : x.dims(), at);
        for (int64_t d = 0; d < rank; ++d) y.mutableData<int64_t>()[d * static_cast<int64_t>(hits.size()) + static_cast<int64_t>(h)] = at[static_cast<std::size_t>(d)];
    }
    ctx.setOutput(0, std::move(y));
}

void trilu(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("input of rank below 2");
    const int64_t k = ctx.hasInput(1) ? ctx.input(1).integerAt(0) : 0;
    const bool upper = ctx.intAttr("upper", 1) != 0;
    HostTensor y = copyOf(x);
    const int64_t rows = x.dims()[x.dims().size() - 2], cols = x.dims().back(), size = elementBytes(x);
    const int64_t matrices = rows * cols == 0 ? 0 : x.size() / (rows * cols);
    for (int64_t m = 0; m < matrices; ++m) {
        for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j = 0; j < cols; ++j) {
                const bool keep = upper ? j - i >= k : j - i <= k;
                if (!keep) std::memset(y.mutableRaw() + ((m * rows + i) * cols + j) * size, 0, static_cast<std::size_t>(size));
            }
        }
    }
    ctx.setOutput(0, std::move(y));
}

void oneHot(OnnxKernelContext& ctx) {
    const HostTensor& indices = ctx.input(0);
    const int64_t depth = sizeFromDouble(ctx, ctx.input(1).numberAt(0));
    const HostTensor& values = ctx.input(2);
    if (values.size() != 2) ctx.fail("values must hold [off, on]");
    const auto rank = indices.rank() + 1;
    const int64_t axis = ctx.axis(ctx.intAttr("axis", -1), rank);
    Dims out = indices.dims();
    out.insert(out.begin() + axis, depth);
    HostTensor y = HostTensor::uninitialized(values.dtype(), out);
    const int64_t size = elementBytes(values);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < indices.rank(); ++d) (d < axis ? outer : inner) *= indices.dims()[static_cast<std::size_t>(d)];
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < depth; ++j) {
            for (int64_t i = 0; i < inner; ++i) {
                int64_t v = static_cast<int64_t>(indices.numberAt(o * inner + i));
                if (v < 0) v += depth;
                std::memcpy(y.mutableRaw() + ((o * depth + j) * inner + i) * size, values.raw() + (v == j ? size : 0), static_cast<std::size_t>(size));
            }
        }
    }
    ctx.setOutput(0, std::move(y));
}

void eyeLike(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.rank() != 2) ctx.fail("input must be a matrix");
    DType dtype = x.dtype();
    if (ctx.hasAttr("dtype")) {
        const auto d = dtypeOfOnnxElementType(ctx.intAttr("dtype", 1));
        if (!d) ctx.unsupported("dtype " + std::to_string(ctx.intAttr("dtype", 1)));
        dtype = *d;
    }
    const int64_t k = ctx.intAttr("k", 0);
    HostTensor y(dtype, x.dims());  // zeros off the diagonal
    HostTensor unit = HostTensor::uninitialized(dtype, {1});  // the value 1 in `dtype`
    if (isFloat(dtype)) {
        unit = HostTensor::fromFloats({1.0f}, {1}, dtype);
    } else {
        visitDtype<kAllDtypes>(ctx, dtype, [&]<typename T>() { unit.mutableData<T>()[0] = T(1); });
    }
    const int64_t size = elementBytes(y);
    for (int64_t i = 0; i < x.dims()[0]; ++i) {
        const int64_t j = i + k;
        if (j >= 0 && j < x.dims()[1]) std::memcpy(y.mutableRaw() + (i * x.dims()[1] + j) * size, unit.raw(), static_cast<std::size_t>(size));
    }
    ctx.setOutput(0, std::move(y));
}

// Where element i of a tensor `dims` lands at offsets of `strides`.
int64_t offsetOf(const std::vector<int64_t>& at, const std::vector<int64_t>& strides) {
    int64_t o = 0;
    for (std::size_t d = 0; d < at.size(); ++d) o += at[d] * strides[d];
    return o;
}

void gatherNd(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& indices = ctx.input(1);
    const auto b = static_cast<std::size_t>(ctx.intAttr("batch_dims", 0));
    const Dims& xd = x.dims();
    const Dims& id = indices.dims();
    if (id.empty()) ctx.fail("indices of rank 0");
    if (id.back() < 0 || b >= id.size() || b + static_cast<std::size_t>(id.back()) > xd.size()) {
        ctx.fail("indices address more axes than data has");
    }
    const auto last = static_cast<std::size_t>(id.back());
    for (std::size_t d = 0; d < b; ++d) {
        if (id[d] != xd[d]) ctx.fail("indices " + dimsString(id) + " and data " + dimsString(xd) + " differ in their batch dims");
    }
    Dims out(id.begin(), id.end() - 1);
    out.insert(out.end(), xd.begin() + static_cast<std::ptrdiff_t>(b + last), xd.end());
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    int64_t slice = elementBytes(x);
    for (std::size_t d = b + last; d < xd.size(); ++d) slice *= xd[d];
    int64_t batch = 1;
    for (std::size_t d = 0; d < b; ++d) batch *= xd[d];
    const std::vector<int64_t> xs = stridesOf(xd);
    const int64_t tuples = dimsSize(Dims(id.begin(), id.end() - 1));
    const int64_t perBatch = batch == 0 ? 0 : tuples / batch;
    const int64_t batchStride = b == 0 ? 0 : xs[b - 1];
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t offset = (perBatch == 0 ? 0 : t / perBatch) * batchStride;
        for (std::size_t k = 0; k < last; ++k) {
            int64_t v = indices.integerAt(t * static_cast<int64_t>(last) + static_cast<int64_t>(k));
            const int64_t dim = xd[b + k];
            if (v < 0) v += dim;
            if (v < 0 || v >= dim) ctx.fail("index outside the data");
            offset += v * xs[b + k];
        }
        std::memcpy(y.mutableRaw() + t * slice, x.raw() + offset * elementBytes(x), static_cast<std::size_t>(slice));
    }
    ctx.setOutput(0, std::move(y));
}

// Combines an update into the element at `dst` as `reduction` says.
template <typename T>
void combine(T* dst, T update, const std::string& reduction) {
    if (reduction == "add") *dst = static_cast<T>(*dst + update);
    else if (reduction == "mul") *dst = static_cast<T>(*dst * update);
    else if (reduction == "max") *dst = std::max(*dst, update);
    else if (reduction == "min") *dst = std::min(*dst, update);
    else *dst = update;
}

void scatterNd(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& indices = ctx.input(1);
    const HostTensor& updates = ctx.input(2);
    const std::string reduction = ctx.stringAttr("reduction", "none");
    if (indices.rank() == 0 || indices.dims().back() < 0 || indices.dims().back() > x.rank()) {
        ctx.fail("indices " + dimsString(indices.dims()) + " do not address data " + dimsString(x.dims()));
    }
    HostTensor y = copyOf(x);
    const auto last = static_cast<std::size_t>(indices.dims().back());
    int64_t slice = 1;
    for (std::size_t d = last; d < x.dims().size(); ++d) slice *= x.dims()[d];
    const std::vector<int64_t> xs = stridesOf(x.dims());
    const int64_t tuples = last == 0 ? indices.size() == 0 ? 0 : dimsSize(Dims(indices.dims().begin(), indices.dims().end() - 1))
                                     : indices.size() / static_cast<int64_t>(last);
    if (updates.dtype() != x.dtype() || updates.size() != tuples * slice) {
        ctx.fail("updates " + dimsString(updates.dims()) + " do not fit indices " + dimsString(indices.dims()) + " into data " +
                 dimsString(x.dims()));
    }
    visitDtype<kAllDtypes>(ctx, x.dtype(), [&]<typename T>() {
        for (int64_t t = 0; t < tuples; ++t) {
            int64_t offset = 0;
            for (std::size_t k = 0; k < last; ++k) {
                int64_t v = indices.integerAt(t * static_cast<int64_t>(last) + static_cast<int64_t>(k));
                if (v < 0) v += x.dims()[k];
                if (v < 0 || v >= x.dims()[k]) ctx.fail("index outside the data");
                offset += v * xs[k];
            }
            for (int64_t e = 0; e < slice; ++e) combine(y.mutableData<T>() + offset + e, updates.data<T>()[t * slice + e], reduction);
        }
    });
    ctx.setOutput(0, std::move(y));
}

void scatterElements(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& indices = ctx.input(1);
    const HostTensor& updates = ctx.input(2);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", 0), x.rank());
    const std::string reduction = ctx.stringAttr("reduction", "none");
    if (updates.dims() != indices.dims() || updates.dtype() != x.dtype() || indices.rank() != x.rank()) {
        ctx.fail("updates " + dimsString(updates.dims()) + " must have the dims of indices " + dimsString(indices.dims()) +
                 ", the rank and the dtype of data");
    }
    for (int64_t d = 0; d < x.rank(); ++d) {
        if (d != axis && indices.dims()[static_cast<std::size_t>(d)] > x.dims()[static_cast<std::size_t>(d)]) {
            ctx.fail("indices " + dimsString(indices.dims()) + " reach past data " + dimsString(x.dims()));
        }
    }
    HostTensor y = copyOf(x);
    const std::vector<int64_t> xs = stridesOf(x.dims());
    std::vector<int64_t> at;
    visitDtype<kAllDtypes>(ctx, x.dtype(), [&]<typename T>() {
        for (int64_t i = 0; i < indices.size(); ++i) {
            unravel(i, indices.dims(), at);
            int64_t v = indices.integerAt(i);
            const int64_t dim = x.dims()[static_cast<std::size_t>(axis)];
            if (v < 0) v += dim;
            if (v < 0 || v >= dim) ctx.fail("index outside the axis");
            at[static_cast<std::size_t>(axis)] = v;
            combine(y.mutableData<T>() + offsetOf(at, xs), updates.data<T>()[i], reduction);
        }
    });
    ctx.setOutput(0, std::move(y));
}

void compress(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& condition = ctx.input(1);
    const bool flat = !ctx.hasAttr("axis");
    const HostTensor source = flat ? x.reshaped({x.size()}) : x;
    const int64_t axis = flat ? 0 : ctx.axis(ctx.intAttr("axis", 0), x.rank());
    const int64_t n = source.dims()[static_cast<std::size_t>(axis)];
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < std::min(n, condition.size()); ++i) {
        if (condition.numberAt(i) != 0.0) kept.push_back(i);
    }
    Dims out = source.dims();
    out[static_cast<std::size_t>(axis)] = static_cast<int64_t>(kept.size());
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    int64_t outer = 1, inner = elementBytes(x);
    for (int64_t d = 0; d < source.rank(); ++d) {
        if (d < axis) outer *= source.dims()[static_cast<std::size_t>(d)];
        if (d > axis) inner *= source.dims()[static_cast<std::size_t>(d)];
    }
    for (int64_t o = 0; o < outer; ++o) {
        for (std::size_t k = 0; k < kept.size(); ++k) {
            std::memcpy(y.mutableRaw() + (o * static_cast<int64_t>(kept.size()) + static_cast<int64_t>(k)) * inner,
                        source.raw() + (o * n + kept[k]) * inner, static_cast<std::size_t>(inner));
        }
    }
    ctx.setOutput(0, std::move(y));
}

void reverseSequence(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const std::vector<int64_t> lengths = ctx.input(1).integers();
    const int64_t batchAxis = ctx.intAttr("batch_axis", 1), timeAxis = ctx.intAttr("time_axis", 0);
    if (x.rank() < 2 || (batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) || batchAxis == timeAxis ||
        static_cast<int64_t>(lengths.size()) != x.dims()[static_cast<std::size_t>(batchAxis)]) {
        ctx.fail("batch_axis, time_axis or sequence_lens do not fit input " + dimsString(x.dims()));
    }
    for (const int64_t len : lengths) {
        if (len < 0 || len > x.dims()[static_cast<std::size_t>(timeAxis)]) ctx.fail("a sequence length outside the time axis");
    }
    HostTensor y = copyOf(x);
    const std::vector<int64_t> xs = stridesOf(x.dims());
    const int64_t size = elementBytes(x);
    std::vector<int64_t> at;
    for (int64_t i = 0; i < x.size(); ++i) {
        unravel(i, x.dims(), at);
        const int64_t len = lengths[static_cast<std::size_t>(at[static_cast<std::size_t>(batchAxis)])];
        int64_t& t = at[static_cast<std::size_t>(timeAxis)];
        if (t >= len) continue;
        const int64_t from = i;
        t = len - 1 - t;
        std::memcpy(y.mutableRaw() + offsetOf(at, xs) * size, x.raw() + from * size, static_cast<std::size_t>(size));
    }
    ctx.setOutput(0, std::move(y));
}

// DepthToSpace / SpaceToDepth as a reshape, a transpose and a reshape (the specification's own
// definition), the transpose by index arithmetic.
HostTensor permuted(const HostTensor& x, const Dims& view, const std::vector<int64_t>& perm) {
    const HostTensor v = x.reshaped(view);
    Dims out(view.size());
    const std::vector<int64_t> vs = stridesOf(view);
    std::vector<int64_t> strides(view.size());
    for (std::size_t d = 0; d < view.size(); ++d) {
        out[d] = view[static_cast<std::size_t>(perm[d])];
        strides[d] = vs[static_cast<std::size_t>(perm[d])];
    }
    HostTensor y = HostTensor::uninitialized(x.dtype(), out);
    const int64_t size = elementBytes(x);
    const std::array<std::vector<int64_t>, 1> s{strides};
    forEachBroadcast<1>(out, s, [&](int64_t i, const std::array<int64_t, 1>& at) {
        std::memcpy(y.mutableRaw() + i * size, v.raw() + at[0] * size, static_cast<std::size_t>(size));
    });
    return y;
}

void depthToSpace(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.fail("input must be 4-d");
    const int64_t b = ctx.intAttr("blocksize", 0), n = x.dims()[0], c = x.dims()[1], h = x.dims()[2], w = x.dims()[3];
    if (b <= 0 || c % (b * b) != 0) ctx.fail("channels do not divide by blocksize squared");
    const bool crd = ctx.stringAttr("mode", "DCR") == "CRD";
    const HostTensor y = crd ? permuted(x, {n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3})
                             : permuted(x, {n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2});
    ctx.setOutput(0, y.reshaped({n, c / (b * b), h * b, w * b}));
}

void spaceToDepth(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.fail("input must be 4-d");
    const int64_t b = ctx.intAttr("blocksize", 0), n = x.dims()[0], c = x.dims()[1], h = x.dims()[2], w = x.dims()[3];
    if (b <= 0 || h % b != 0 || w % b != 0) ctx.fail("spatial dims do not divide by blocksize");
    const HostTensor y = permuted(x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
    ctx.setOutput(0, y.reshaped({n, c * b * b, h / b, w / b}));
}

}  // namespace

void addOnnxIndexOps(OnnxOpTable& table) {
    const OnnxOpTable ops = {
        {"TopK", {topK, true, false}},
        {"NonZero", {nonZero, false}},
        {"Trilu", {trilu, false}},
        {"OneHot", {oneHot, false}},
        {"EyeLike", {eyeLike, false}},
        {"GatherND", {gatherNd, false}},
        {"ScatterND", {scatterNd, false}},
        {"ScatterElements", {scatterElements, false}},
        {"Scatter", {scatterElements, false}},
        {"Compress", {compress, false}},
        {"ReverseSequence", {reverseSequence, false}},
        {"DepthToSpace", {depthToSpace, false}},
        {"SpaceToDepth", {spaceToDepth, false}},
    };
    table.insert(table.end(), ops.begin(), ops.end());
}

}  // namespace ampstudio
