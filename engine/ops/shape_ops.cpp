// Shape inference of the shape ops (ops/op_spec.h lists the groups), with MXNet 1.9.1's rules
// (src/operator/tensor/matrix_op-inl.h, nn/concat.cc, slice_channel-inl.h, swapaxis-inl.h):
//   Flatten        (d0, d1 * ... * dn)
//   Reshape        `shape` with the special codes 0, -1, -2, -3, -4 and `reverse`; legacy `target_shape`
//   expand_dims    a 1 inserted at `axis`;  squeeze: the size-1 axes (all, or those in `axis`) removed
//   transpose      `axes` (empty: reversed);  SwapAxis: dim1 and dim2 exchanged
//   Concat         `num_args` inputs joined along `dim`;  SliceChannel: `num_outputs` equal parts of `axis`
//   slice_axis     [begin, end) of `axis`
#include <algorithm>
#include <numeric>
#include <optional>

#include "ops/op_spec.h"

namespace ampstudio {

namespace {

std::string tupleString(const std::vector<int64_t>& v) {
    std::string s = "(";
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += (i == 0 ? "" : ", ") + std::to_string(v[i]);
    }
    return s + ")";
}

// An axis in [-ndim, ndim) as MXNet's CheckAxis accepts it, made non-negative.
int64_t checkedAxis(const OpAttrs& attrs, std::string_view key, int64_t axis, std::size_t ndim) {
    const auto n = static_cast<int64_t>(ndim);
    if (axis < -n || axis >= n) {
        attrs.fail("attribute " + std::string(key) + "=" + std::to_string(axis) + " is out of range for " +
                   std::to_string(n) + " dimensions");
    }
    return axis < 0 ? axis + n : axis;
}

std::size_t oneInput(const OpAttrs&) { return 1; }

// --- Flatten, Reshape, expand_dims, squeeze ---------------------------------------------------

void inferFlatten(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    int64_t rest = 1;
    for (std::size_t i = 1; i < data.size(); ++i) {
        rest *= data[i];
    }
    assignShape(attrs, out[0], {data[0], rest}, "output");
}

// MXNet's InferReshapeShape. With reverse=True both the data shape and the codes are read from the
// right (so 0 and -2 copy trailing dimensions), and the result is reversed back.
Shape reshapeByCodes(const OpAttrs& attrs, std::vector<int64_t> codes, Shape data, bool reverse) {
    const std::string what = "cannot reshape " + shapeString(data) + " with shape=" + tupleString(codes) +
                             (reverse ? " reverse=True" : "") + ": ";
    auto bad = [&](const std::string& why) { attrs.fail(what + why); };
    if (reverse) {
        if (std::find(codes.begin(), codes.end(), -4) != codes.end()) {
            // MXNet reverses the code list as a whole, so a -4 would read its two split dims from the
            // codes before it; no sensible graph relies on that, so it is refused rather than mimicked.
            bad("the split code -4 cannot be combined with reverse=True");
        }
        std::reverse(codes.begin(), codes.end());
        std::reverse(data.begin(), data.end());
    }
    Shape result;
    std::size_t src = 0;
    std::optional<std::size_t> inferred;
    for (std::size_t i = 0; i < codes.size(); ++i) {
        const int64_t code = codes[i];
        if (code > 0) {
            result.push_back(code);
            ++src;
        } else if (code == 0) {
            if (src >= data.size()) {
                bad("code 0 at position " + std::to_string(i) + " has no input dimension to copy");
            }
            result.push_back(data[src++]);
        } else if (code == -1) {
            if (inferred) {
                bad("only one dimension can be -1 (inferred)");
            }
            inferred = result.size();
            result.push_back(1);
            ++src;
        } else if (code == -2) {
            while (src < data.size()) {
                result.push_back(data[src++]);
            }
        } else if (code == -3) {
            if (src + 1 >= data.size()) {
                bad("code -3 at position " + std::to_string(i) + " needs two input dimensions to merge");
            }
            result.push_back(data[src] * data[src + 1]);
            src += 2;
        } else if (code == -4) {
            if (i + 2 >= codes.size()) {
                bad("code -4 must be followed by the two dimensions to split into");
            }
            if (src >= data.size()) {
                bad("code -4 at position " + std::to_string(i) + " has no input dimension to split");
            }
            const int64_t whole = data[src++];
            int64_t d1 = codes[++i];
            int64_t d2 = codes[++i];
            if (d1 == -1 && d2 == -1) {
                bad("the two dimensions of a -4 split cannot both be -1");
            }
            if ((d1 <= 0 && d1 != -1) || (d2 <= 0 && d2 != -1)) {
                bad("the dimensions of a -4 split must be positive or -1");
            }
            if (d1 == -1) {
                d1 = whole / d2;
            }
            if (d2 == -1) {
                d2 = whole / d1;
            }
            if (d1 * d2 != whole) {
                bad("split dims " + std::to_string(d1) + " x " + std::to_string(d2) + " do not make input dim " +
                    std::to_string(whole));
            }
            result.push_back(d1);
            result.push_back(d2);
        } else {
            bad("unknown code " + std::to_string(code));
        }
    }
    const int64_t size = shapeSize(data);
    if (inferred) {
        const int64_t known = shapeSize(result);
        if (known == 0 || size % known != 0) {
            bad("the dimensions given do not divide the input size " + std::to_string(size));
        }
        result[*inferred] = size / known;
    }
    if (result.empty()) {
        bad("the result has no dimensions");
    }
    if (reverse) {
        std::reverse(result.begin(), result.end());
        std::reverse(data.begin(), data.end());
    }
    if (shapeSize(result) != size) {
        bad("the result " + shapeString(result) + " has " + std::to_string(shapeSize(result)) +
            " elements, the input " + std::to_string(size));
    }
    return result;
}

void inferReshape(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    const std::vector<int64_t> codes = attrs.getTuple("shape");
    Shape result;
    if (!codes.empty()) {
        result = reshapeByCodes(attrs, codes, data, attrs.getBool("reverse", false));
    } else if (attrs.has("target_shape") && !attrs.getTuple("target_shape").empty()) {
        // The deprecated form: 0 marks the one dimension to infer; keep_highest keeps data's first dim.
        result = attrs.getTuple("target_shape");
        const bool keepHighest = attrs.getBool("keep_highest", false);
        if (keepHighest) {
            result[0] = data[0];
        }
        const auto zeros = std::count(result.begin() + (keepHighest ? 1 : 0), result.end(), int64_t{0});
        if (zeros == 1) {
            auto zero = std::find(result.begin() + (keepHighest ? 1 : 0), result.end(), int64_t{0});
            *zero = 1;
            const int64_t known = shapeSize(result);
            *zero = known > 0 ? shapeSize(data) / known : 0;
        }
        if (std::any_of(result.begin(), result.end(), [](int64_t d) { return d <= 0; }) ||
            shapeSize(result) != shapeSize(data)) {
            attrs.fail("cannot reshape " + shapeString(data) + " to target_shape=" +
                       tupleString(attrs.getTuple("target_shape")));
        }
    } else {
        attrs.fail("attribute shape is required");
    }
    assignShape(attrs, out[0], result, "output");
}

void inferExpandDims(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    const int64_t axis = attrs.requireInt("axis");
    if (data.empty()) {
        return;
    }
    // The new axis may also go after the last one: [-ndim-1, ndim].
    const auto n = static_cast<int64_t>(data.size());
    if (axis < -n - 1 || axis > n) {
        attrs.fail("attribute axis=" + std::to_string(axis) + " is out of range [" + std::to_string(-n - 1) + ", " +
                   std::to_string(n) + "]");
    }
    Shape result = data;
    result.insert(result.begin() + (axis < 0 ? axis + n + 1 : axis), 1);
    assignShape(attrs, out[0], result, "output");
}

void inferSqueeze(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    std::vector<bool> drop(data.size(), false);
    if (attrs.has("axis")) {
        for (int64_t a : attrs.getTuple("axis")) {
            const auto axis = static_cast<std::size_t>(checkedAxis(attrs, "axis", a, data.size()));
            if (drop[axis]) {
                attrs.fail("axis " + std::to_string(a) + " is given twice");
            }
            if (data[axis] != 1) {
                attrs.fail("cannot squeeze axis " + std::to_string(a) + " of " + shapeString(data) +
                           ": its size is not 1");
            }
            drop[axis] = true;
        }
    } else {
        for (std::size_t i = 0; i < data.size(); ++i) {
            drop[i] = data[i] == 1;
        }
    }
    Shape result;
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (!drop[i]) {
            result.push_back(data[i]);
        }
    }
    if (result.empty()) {
        result = {1};  // MXNet 1.x has no 0-d arrays: squeezing everything leaves (1,)
    }
    assignShape(attrs, out[0], result, "output");
}

struct SliceRange {
    int64_t axis = 0, begin = 0, end = 0;
};

std::vector<int64_t> transposePermutation(const OpAttrs& attrs, std::size_t ndim) {
    std::vector<int64_t> axes = attrs.getTuple("axes");
    if (axes.empty()) {
        axes.resize(ndim);
        std::iota(axes.rbegin(), axes.rend(), int64_t{0});
        return axes;
    }
    if (axes.size() != ndim) {
        attrs.fail("attribute axes=" + tupleString(axes) + " does not have one entry per dimension (" +
                   std::to_string(ndim) + ")");
    }
    std::vector<bool> seen(ndim, false);
    for (int64_t& a : axes) {
        a = checkedAxis(attrs, "axes", a, ndim);
        if (seen[static_cast<std::size_t>(a)]) {
            attrs.fail("attribute axes=" + attrs.getString("axes", "") + " is not a permutation");
        }
        seen[static_cast<std::size_t>(a)] = true;
    }
    return axes;
}

std::vector<int64_t> swapAxisPermutation(const OpAttrs& attrs, std::size_t ndim) {
    const int64_t d1 = checkedAxis(attrs, "dim1", attrs.getInt("dim1", 0), ndim);
    const int64_t d2 = checkedAxis(attrs, "dim2", attrs.getInt("dim2", 0), ndim);
    std::vector<int64_t> perm(ndim);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::swap(perm[static_cast<std::size_t>(d1)], perm[static_cast<std::size_t>(d2)]);
    return perm;
}

// MXNet's GetSliceAxisParams: negative begin/end count from the end, end=None is the whole axis.
SliceRange sliceAxisRange(const OpAttrs& attrs, const Shape& data) {
    SliceRange r;
    r.axis = checkedAxis(attrs, "axis", attrs.requireInt("axis"), data.size());
    const int64_t size = data[static_cast<std::size_t>(r.axis)];
    r.begin = attrs.requireInt("begin");
    r.end = attrs.has("end") ? attrs.getInt("end", size) : size;
    if (r.begin < 0) {
        r.begin += size;
    }
    if (r.end < 0) {
        r.end += size;
    }
    if (r.begin < 0 || r.end > size || r.begin >= r.end) {
        attrs.fail("slice [" + attrs.getString("begin", "") + ", " + attrs.getString("end", "None") +
                   ") is empty or outside axis " + std::to_string(r.axis) + " of size " + std::to_string(size));
    }
    return r;
}

// --- transpose, SwapAxis ----------------------------------------------------------------------

void inferTranspose(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    const std::vector<int64_t> perm = transposePermutation(attrs, data.size());
    Shape result(data.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        result[i] = data[static_cast<std::size_t>(perm[i])];
    }
    assignShape(attrs, out[0], result, "output");
}

void inferSwapAxis(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    const std::vector<int64_t> perm = swapAxisPermutation(attrs, data.size());
    Shape result(data.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        result[i] = data[static_cast<std::size_t>(perm[i])];
    }
    assignShape(attrs, out[0], result, "output");
}

// --- Concat, SliceChannel, slice_axis ---------------------------------------------------------

std::size_t concatInputs(const OpAttrs& attrs) {
    const int64_t n = attrs.requireInt("num_args");
    if (n < 1) {
        attrs.fail("num_args must be at least 1");
    }
    return static_cast<std::size_t>(n);
}

void inferConcat(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const int64_t dim = attrs.getInt("dim", 1);
    // Any known shape fixes the rank and every dimension but `dim`.
    const Shape* known = !out[0].empty() ? &out[0] : nullptr;
    for (const Shape& s : in) {
        known = known != nullptr ? known : (!s.empty() ? &s : nullptr);
    }
    if (known == nullptr) {
        return;
    }
    const std::size_t ndim = known->size();
    const auto axis = static_cast<std::size_t>(checkedAxis(attrs, "dim", dim, ndim));
    int64_t sum = 0;
    std::size_t unknown = 0, unknownAt = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i].empty()) {
            ++unknown;
            unknownAt = i;
            continue;
        }
        bool fits = in[i].size() == ndim;
        for (std::size_t d = 0; fits && d < ndim; ++d) {
            fits = d == axis || in[i][d] == (*known)[d];
        }
        if (!fits) {
            attrs.fail("input " + std::to_string(i) + " has shape " + shapeString(in[i]) +
                       ", which does not match " + shapeString(*known) + " outside dim " + std::to_string(dim));
        }
        sum += in[i][axis];
    }
    if (unknown == 0) {
        Shape result = *known;
        result[axis] = sum;
        assignShape(attrs, out[0], result, "output");
    } else if (unknown == 1 && !out[0].empty() && out[0][axis] > sum) {
        // The one missing input takes what the output has left along `dim`.
        Shape result = out[0];
        result[axis] = out[0][axis] - sum;
        assignShape(attrs, in[unknownAt], result, "input " + std::to_string(unknownAt));
    }
}

int64_t sliceChannelOutputs(const OpAttrs& attrs) {
    const int64_t n = attrs.requireInt("num_outputs");
    if (n < 1) {
        attrs.fail("num_outputs must be at least 1");
    }
    return n;
}

void inferSliceChannel(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const int64_t n = sliceChannelOutputs(attrs);
    const int64_t axisAttr = attrs.getInt("axis", 1);
    const bool squeeze = attrs.getBool("squeeze_axis", false);
    if (static_cast<int64_t>(out.size()) != n) {
        attrs.fail("has " + std::to_string(out.size()) + " outputs, num_outputs is " + std::to_string(n));
    }
    if (in[0].empty()) {
        // The data from any output: its axis n times as long (or, squeezed, re-inserted as n).
        const auto given = std::find_if(out.begin(), out.end(), [](const Shape& s) { return !s.empty(); });
        if (given == out.end()) {
            return;
        }
        Shape data = *given;
        const std::size_t ndim = data.size() + (squeeze ? 1 : 0);
        const auto axis = static_cast<std::size_t>(checkedAxis(attrs, "axis", axisAttr, ndim));
        if (squeeze) {
            data.insert(data.begin() + static_cast<std::ptrdiff_t>(axis), n);
        } else {
            data[axis] *= n;
        }
        assignShape(attrs, in[0], data, "input data");
    }
    const Shape& data = in[0];
    const auto axis = static_cast<std::size_t>(checkedAxis(attrs, "axis", axisAttr, data.size()));
    if (data[axis] % n != 0) {
        attrs.fail("dimension " + std::to_string(axis) + " of " + shapeString(data) + " cannot be split into " +
                   std::to_string(n) + " equal parts");
    }
    Shape part = data;
    part[axis] /= n;
    if (squeeze) {
        if (part[axis] != 1) {
            attrs.fail("squeeze_axis needs dimension " + std::to_string(axis) + " of " + shapeString(data) +
                       " to equal num_outputs");
        }
        if (part.size() > 1) {
            part.erase(part.begin() + static_cast<std::ptrdiff_t>(axis));
        }
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        assignShape(attrs, out[i], part, "output " + std::to_string(i));
    }
}

void inferSliceAxis(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    const SliceRange r = sliceAxisRange(attrs, data);
    Shape result = data;
    result[static_cast<std::size_t>(r.axis)] = r.end - r.begin;
    assignShape(attrs, out[0], result, "output");
}

}  // namespace

void addShapeOpSpecs(OpSpecTable& table) {
    table.add({"Flatten", inferFlatten, OpKind::Normal, oneInput});
    table.add({"Reshape", inferReshape, OpKind::Normal, oneInput});
    table.add({"expand_dims", inferExpandDims, OpKind::Normal, oneInput});
    table.add({"squeeze", inferSqueeze, OpKind::Normal, oneInput});
    table.add({"transpose", inferTranspose, OpKind::Normal, oneInput});
    table.add({"SwapAxis", inferSwapAxis, OpKind::Normal, oneInput});
    table.add({"Concat", inferConcat, OpKind::Normal, concatInputs});
    table.add({"SliceChannel", inferSliceChannel, OpKind::Normal, oneInput});
    table.add({"slice_axis", inferSliceAxis, OpKind::Normal, oneInput});
}

}  // namespace ampstudio
