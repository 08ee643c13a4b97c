#include "backend/kernel_params.h"

#include <numeric>
#include <string_view>
#include <utility>

#include "ops/op_attrs.h"
#include "ops/op_spec.h"

namespace ampstudio {

namespace {

int64_t product(Shape::const_iterator begin, Shape::const_iterator end) {
    int64_t p = 1;
    for (auto it = begin; it != end; ++it) {
        p *= *it;
    }
    return p;
}

// `axis` (default `fallback`) made positive and checked against the shape's rank.
std::size_t axisOf(const OpAttrs& attrs, std::string_view key, int64_t fallback, const Shape& shape) {
    const int64_t given = attrs.getInt(key, fallback);
    const int64_t axis = positiveAxis(given, shape.size());
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
        attrs.fail(std::string(key) + " " + std::to_string(given) + " is out of range for " + shapeString(shape));
    }
    return static_cast<std::size_t>(axis);
}

AxisLayout axisLayout(const OpAttrs& attrs, const Shape& shape, int64_t fallbackAxis) {
    AxisLayout l;
    l.axis = axisOf(attrs, "axis", fallbackAxis, shape);
    const auto at = shape.begin() + static_cast<std::ptrdiff_t>(l.axis);
    l.outer = product(shape.begin(), at);
    l.channels = *at;
    l.inner = product(at + 1, shape.end());
    return l;
}

// A 2-D tuple ("(3, 3)"); required when `fallback` is empty.
Pair pairOf(const OpAttrs& attrs, std::string_view key, std::vector<int64_t> fallback) {
    const bool required = fallback.empty();
    const std::vector<int64_t> v = attrs.getTuple(key, std::move(fallback));
    if (v.empty() && required) {
        attrs.fail(std::string(key) + " is required");
    }
    if (v.size() != 2) {
        attrs.fail(std::string(key) + " must have 2 entries (only 2-D is supported), got " +
                   std::to_string(v.size()));
    }
    return {v[0], v[1]};
}

LossNormalization normalizationOf(const OpAttrs& attrs) {
    const std::string n = attrs.getEnum("normalization", "null", {"null", "batch", "valid"});
    return n == "batch" ? LossNormalization::Batch : n == "valid" ? LossNormalization::Valid : LossNormalization::Null;
}

AxisParts axisParts(const Shape& joined, std::size_t axis, const std::vector<int64_t>& extents) {
    AxisParts p;
    const auto at = joined.begin() + static_cast<std::ptrdiff_t>(axis);
    p.outer = product(joined.begin(), at);
    const int64_t inner = product(at + 1, joined.end());
    for (int64_t e : extents) {
        p.slab.push_back(e * inner);
        p.total += e * inner;
    }
    return p;
}

}  // namespace

int64_t positiveAxis(int64_t axis, std::size_t ndim) { return axis < 0 ? axis + static_cast<int64_t>(ndim) : axis; }

// ---- dense ----------------------------------------------------------------------------------------

ProductDims dotDims(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    ProductDims d;
    d.ta = attrs.getBool("transpose_a", false);
    d.tb = attrs.getBool("transpose_b", false);
    const Shape& lhs = setup.inShapes[0];
    const Shape& rhs = setup.inShapes[1];
    d.k = d.ta ? lhs.front() : lhs.back();
    // size / K, computed as the free dims' product so that an empty K needs no division.
    d.m = d.ta ? product(lhs.begin() + 1, lhs.end()) : product(lhs.begin(), lhs.end() - 1);
    d.n = d.tb ? product(rhs.begin(), rhs.end() - 1) : product(rhs.begin() + 1, rhs.end());
    return d;
}

ProductDims batchDotDims(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    ProductDims d;
    d.ta = attrs.getBool("transpose_a", false);
    d.tb = attrs.getBool("transpose_b", false);
    const Shape& lhs = setup.inShapes[0];
    const Shape& rhs = setup.inShapes[1];
    const std::size_t nd = lhs.size();
    d.m = d.ta ? lhs[nd - 1] : lhs[nd - 2];
    d.k = d.ta ? lhs[nd - 2] : lhs[nd - 1];
    d.n = d.tb ? rhs[nd - 2] : rhs[nd - 1];
    for (std::size_t i = 0; i + 2 < nd; ++i) {
        d.batch *= lhs[i];
    }
    return d;
}

bool fullyConnectedHasBias(const Node& node) { return !OpAttrs(node).getBool("no_bias", false); }

// ---- element-wise -------------------------------------------------------------------------------

float scalarOperand(const Node& node) { return static_cast<float>(OpAttrs(node).getFloat("scalar", 1.0)); }

ClipParams clipParams(const Node& node) {
    const OpAttrs attrs(node);
    return {static_cast<float>(attrs.getFloat("a_min", 0.0)), static_cast<float>(attrs.getFloat("a_max", 0.0))};
}

ActivationType activationType(const Node& node) {
    const std::string type =
        OpAttrs(node).getEnum("act_type", "relu", {"relu", "sigmoid", "tanh", "softrelu", "softsign"});
    if (type == "relu") {
        return ActivationType::Relu;
    }
    if (type == "sigmoid") {
        return ActivationType::Sigmoid;
    }
    if (type == "tanh") {
        return ActivationType::Tanh;
    }
    return type == "softrelu" ? ActivationType::SoftRelu : ActivationType::SoftSign;
}

LeakyReluParams leakyReluParams(const Node& node) {
    const OpAttrs attrs(node);
    // rrelu is a valid MXNet act_type, so it gets its own message rather than the list of the others.
    if (attrs.getString("act_type", "leaky") == "rrelu") {
        attrs.fail("act_type rrelu (randomized leaky ReLU) is not supported");
    }
    const std::string type = attrs.getEnum("act_type", "leaky", {"leaky", "elu", "selu", "gelu", "prelu"});
    LeakyReluParams p;
    p.slope = static_cast<float>(attrs.getFloat("slope", 0.25));
    p.type = type == "leaky" ? LeakyReluType::Leaky
             : type == "elu" ? LeakyReluType::Elu
             : type == "selu" ? LeakyReluType::Selu
             : type == "gelu" ? LeakyReluType::Gelu
                              : LeakyReluType::PRelu;
    return p;
}

SoftmaxParams softmaxParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    SoftmaxParams p;
    p.layout = axisLayout(attrs, setup.inShapes[0], -1);
    // "None" (has() is false) means no temperature, as absent.
    p.invTemperature = 1.0f / static_cast<float>(attrs.has("temperature") ? attrs.getFloat("temperature", 1.0) : 1.0);
    return p;
}

ReduceParams reduceParams(const KernelSetup& setup) {
    const Shape& data = setup.inShapes[0];
    ReduceParams p;
    p.reduced = elemwiseReducedAxes(OpAttrs(setup.node), data);
    p.kept = data;
    for (std::size_t d = 0; d < data.size(); ++d) {
        if (p.reduced[d]) {
            p.count *= data[d];
            p.kept[d] = 1;
        }
    }
    return p;
}

DropoutParams dropoutParams(const Node& node) {
    const OpAttrs attrs(node);
    DropoutParams p;
    p.p = static_cast<float>(attrs.getFloat("p", 0.5));
    p.always = attrs.getEnum("mode", "training", {"training", "always"}) == "always";
    return p;
}

// ---- nn -----------------------------------------------------------------------------------------

namespace {

ConvolutionParams convolutionAttrs(const OpAttrs& attrs, bool biasByDefault) {
    ConvolutionParams p;
    p.groups = attrs.getInt("num_group", 1);
    p.hasBias = !attrs.getBool("no_bias", !biasByDefault);
    p.stride = pairOf(attrs, "stride", {1, 1});
    p.pad = pairOf(attrs, "pad", {0, 0});
    p.dilate = pairOf(attrs, "dilate", {1, 1});
    return p;
}

}  // namespace

ConvolutionParams convolutionParams(const Node& node) { return convolutionAttrs(OpAttrs(node), true); }

ConvolutionParams deconvolutionParams(const Node& node) {
    const OpAttrs attrs(node);
    ConvolutionParams p = convolutionAttrs(attrs, false);
    p.adj = pairOf(attrs, "adj", {0, 0});
    return p;
}

PoolingParams poolingParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    PoolingParams p;
    const std::string type = attrs.getEnum("pool_type", "max", {"max", "avg", "sum"});
    p.type = type == "max" ? PoolType::Max : type == "avg" ? PoolType::Avg : PoolType::Sum;
    p.global = attrs.getBool("global_pool", false);
    p.countIncludePad = attrs.getBool("count_include_pad", true);
    const Shape& data = setup.inShapes[0];
    if (data.size() != 4) {
        attrs.fail("Pooling needs 4-D NCHW data, got " + shapeString(data));
    }
    if (p.global) {
        p.kernel = {data[2], data[3]};
    } else {
        p.kernel = pairOf(attrs, "kernel", {});
        p.stride = pairOf(attrs, "stride", {1, 1});
        p.pad = pairOf(attrs, "pad", {0, 0});
    }
    return p;
}

BatchNormParams batchNormParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    BatchNormParams p;
    p.layout = axisLayout(attrs, setup.inShapes[0], 1);
    p.eps = static_cast<float>(attrs.getFloat("eps", 1e-3));
    p.momentum = static_cast<float>(attrs.getFloat("momentum", 0.9));
    p.fixGamma = attrs.getBool("fix_gamma", true);
    p.useGlobalStats = attrs.getBool("use_global_stats", false);
    return p;
}

LayerNormParams layerNormParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    LayerNormParams p;
    p.layout = axisLayout(attrs, setup.inShapes[0], -1);
    p.eps = static_cast<float>(attrs.getFloat("eps", 1e-5));
    return p;
}

// ---- loss heads ---------------------------------------------------------------------------------

SoftmaxOutputParams softmaxOutputParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    SoftmaxOutputParams p;
    p.gradScale = static_cast<float>(attrs.getFloat("grad_scale", 1.0));
    p.ignoreLabel = static_cast<float>(attrs.getFloat("ignore_label", -1.0));
    p.useIgnore = attrs.getBool("use_ignore", false);
    p.smoothAlpha = static_cast<float>(attrs.getFloat("smooth_alpha", 0.0));
    p.normalization = normalizationOf(attrs);
    p.batch = data[0];
    auto& l = p.layout;
    if (attrs.getBool("multi_output", false)) {
        l.outer = data[0];
        l.classes = data[1];
        l.inner = shapeSize(data) / (data[0] * data[1]);
    } else if (attrs.getBool("preserve_shape", false)) {
        l.classes = data.back();
        l.outer = shapeSize(data) / l.classes;
    } else {
        l.outer = data[0];
        l.classes = shapeSize(data) / data[0];
    }
    p.labelIsDistribution = setup.inShapes[1] == data && data.size() > 1 && shapeSize(setup.inShapes[1]) != l.outer * l.inner;
    return p;
}

RegressionParams regressionParams(const KernelSetup& setup) {
    const Shape& label = setup.inShapes[1];
    RegressionParams p;
    p.gradScale = static_cast<float>(OpAttrs(setup.node).getFloat("grad_scale", 1.0));
    // An empty batch has no gradient to scale; its 0 / 0 must not trap.
    p.numOutput = label.empty() || label[0] == 0 ? 1.0f : static_cast<float>(shapeSize(label) / label[0]);
    return p;
}

MakeLossParams makeLossParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    MakeLossParams p;
    p.gradScale = static_cast<float>(attrs.getFloat("grad_scale", 1.0));
    p.validThresh = static_cast<float>(attrs.getFloat("valid_thresh", 0.0));
    p.normalization = normalizationOf(attrs);
    p.batch = setup.inShapes[0][0];
    return p;
}

// ---- shape --------------------------------------------------------------------------------------

std::vector<int64_t> transposePerm(const KernelSetup& setup) {
    const std::size_t ndim = setup.inShapes[0].size();
    std::vector<int64_t> axes = OpAttrs(setup.node).getTuple("axes");
    if (axes.empty()) {
        axes.resize(ndim);
        std::iota(axes.rbegin(), axes.rend(), int64_t{0});
    }
    for (int64_t& a : axes) {
        a = positiveAxis(a, ndim);
    }
    return axes;
}

std::vector<int64_t> swapAxisPerm(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    std::vector<int64_t> perm(data.size());
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::swap(perm[axisOf(attrs, "dim1", 0, data)], perm[axisOf(attrs, "dim2", 0, data)]);
    return perm;
}

AxisParts concatParts(const KernelSetup& setup) {
    const Shape& joined = setup.outShapes[0];
    const std::size_t axis = axisOf(OpAttrs(setup.node), "dim", 1, joined);
    std::vector<int64_t> extents;
    for (const Shape& s : setup.inShapes) {
        extents.push_back(s[axis]);
    }
    return axisParts(joined, axis, extents);
}

AxisParts sliceChannelParts(const KernelSetup& setup) {
    const Shape& joined = setup.inShapes[0];
    const std::size_t axis = axisOf(OpAttrs(setup.node), "axis", 1, joined);
    // With squeeze_axis the outputs lack the axis, but their data is laid out exactly as unsqueezed.
    const auto count = static_cast<int64_t>(setup.outShapes.size());
    return axisParts(joined, axis, std::vector<int64_t>(setup.outShapes.size(), joined[axis] / count));
}

SliceAxisLayout sliceAxisLayout(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    const int64_t given = attrs.requireInt("axis");
    const int64_t axis = positiveAxis(given, data.size());
    if (axis < 0 || axis >= static_cast<int64_t>(data.size())) {
        attrs.fail("axis " + std::to_string(given) + " is out of range for " + shapeString(data));
    }
    const auto at = data.begin() + axis;
    SliceAxisLayout l;
    l.outer = product(data.begin(), at);
    l.inner = product(at + 1, data.end());
    l.size = *at;
    l.len = setup.outShapes[0][static_cast<std::size_t>(axis)];
    l.begin = attrs.requireInt("begin");
    l.begin = l.begin < 0 ? l.begin + l.size : l.begin;
    return l;
}

}  // namespace ampstudio
