// Shape inference of the nn ops (ops/op_spec.h lists the groups): Convolution, Deconvolution,
// Pooling, BatchNorm, LayerNorm, with MXNet 1.9.1's attribute names, defaults and output shapes.
// Convolution, Deconvolution and Pooling are 2-D only (NCHW); other ranks and layouts are refused
// with a clear error rather than computed wrongly.
#include <string>

#include "ops/op_spec.h"

namespace ampstudio {

namespace {

// A 2-D tuple attribute ("(3, 3)"): `fallback` when absent; anything but two entries, or an entry
// below `minimum`, is an error naming the key.
std::vector<int64_t> pair(const OpAttrs& attrs, std::string_view key, std::vector<int64_t> fallback, int64_t minimum) {
    const bool required = fallback.empty();
    std::vector<int64_t> v = attrs.getTuple(key, std::move(fallback));
    if (v.empty() && required) {
        attrs.fail(std::string(key) + " is required");
    }
    if (v.size() != 2) {
        attrs.fail(std::string(key) + " must have 2 entries (only 2-D is supported), got " +
                   std::to_string(v.size()));
    }
    for (int64_t x : v) {
        if (x < minimum) {
            attrs.fail(std::string(key) + " entries must be at least " + std::to_string(minimum) + ", got " +
                       std::to_string(x));
        }
    }
    return v;
}

void requireNchw(const OpAttrs& attrs) {
    if (attrs.has("layout") && attrs.getString("layout", "NCHW") != "NCHW") {
        attrs.fail("layout " + attrs.getString("layout", "") + " is not supported (only NCHW)");
    }
}

void requireRank4(const OpAttrs& attrs, const Shape& data, std::string_view what) {
    if (data.size() != 4) {
        attrs.fail(std::string(what) + " needs 4-D NCHW data, got " + shapeString(data));
    }
}

// Convolution (src/operator/nn/convolution-inl.h): data (N, C, H, W), weight (num_filter,
// C/num_group, kh, kw), bias (num_filter,); output size floor((H + 2p - (d(k-1)+1)) / s) + 1.
void inferConvolution(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const auto kernel = pair(attrs, "kernel", {}, 1);
    const auto stride = pair(attrs, "stride", {1, 1}, 1);
    const auto pad = pair(attrs, "pad", {0, 0}, 0);
    const auto dilate = pair(attrs, "dilate", {1, 1}, 1);
    const int64_t filters = attrs.requireInt("num_filter");
    const int64_t groups = attrs.getInt("num_group", 1);
    const bool noBias = attrs.getBool("no_bias", false);
    requireNchw(attrs);
    if (filters <= 0 || groups <= 0) {
        attrs.fail("num_filter and num_group must be positive");
    }
    if (filters % groups != 0) {
        attrs.fail("num_filter " + std::to_string(filters) + " is not a multiple of num_group " +
                   std::to_string(groups));
    }
    if (!noBias) {
        assignShape(attrs, in[2], {filters}, "input bias");
    }
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    requireRank4(attrs, data, "Convolution");
    if (data[1] % groups != 0) {
        attrs.fail("input channels " + std::to_string(data[1]) + " are not a multiple of num_group " +
                   std::to_string(groups));
    }
    assignShape(attrs, in[1], {filters, data[1] / groups, kernel[0], kernel[1]}, "input weight");
    Shape outShape{data[0], filters, 0, 0};
    for (std::size_t i = 0; i < 2; ++i) {
        const int64_t extent = dilate[i] * (kernel[i] - 1) + 1;
        const int64_t padded = data[2 + i] + 2 * pad[i];
        if (padded < extent) {
            attrs.fail("kernel (dilated " + std::to_string(extent) + ") exceeds the padded input " +
                       std::to_string(padded) + " of data " + shapeString(data));
        }
        outShape[2 + i] = (padded - extent) / stride[i] + 1;
    }
    assignShape(attrs, out[0], outShape, "output");
}

// Deconvolution (src/operator/nn/deconvolution-inl.h): data (N, C, H, W), weight (C,
// num_filter/num_group, kh, kw), bias (num_filter,); output size s(H-1) + d(k-1)+1 - 2p + adj.
// target_shape (which derives pad/adj from a wanted output) is not supported.
void inferDeconvolution(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const auto kernel = pair(attrs, "kernel", {}, 1);
    const auto stride = pair(attrs, "stride", {1, 1}, 1);
    const auto pad = pair(attrs, "pad", {0, 0}, 0);
    const auto adj = pair(attrs, "adj", {0, 0}, 0);
    const auto dilate = pair(attrs, "dilate", {1, 1}, 1);
    const int64_t filters = attrs.requireInt("num_filter");
    const int64_t groups = attrs.getInt("num_group", 1);
    const bool noBias = attrs.getBool("no_bias", true);
    requireNchw(attrs);
    for (int64_t t : attrs.getTuple("target_shape", {})) {
        if (t != 0) {
            attrs.fail("target_shape is not supported; give pad and adj instead");
        }
    }
    if (filters <= 0 || groups <= 0) {
        attrs.fail("num_filter and num_group must be positive");
    }
    if (filters % groups != 0) {
        attrs.fail("num_filter " + std::to_string(filters) + " is not a multiple of num_group " +
                   std::to_string(groups));
    }
    for (std::size_t i = 0; i < 2; ++i) {
        if (adj[i] >= stride[i]) {
            attrs.fail("adj must be smaller than stride");
        }
    }
    if (!noBias) {
        assignShape(attrs, in[2], {filters}, "input bias");
    }
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    requireRank4(attrs, data, "Deconvolution");
    if (data[1] % groups != 0) {
        attrs.fail("input channels " + std::to_string(data[1]) + " are not a multiple of num_group " +
                   std::to_string(groups));
    }
    assignShape(attrs, in[1], {data[1], filters / groups, kernel[0], kernel[1]}, "input weight");
    Shape outShape{data[0], filters, 0, 0};
    for (std::size_t i = 0; i < 2; ++i) {
        const int64_t size = stride[i] * (data[2 + i] - 1) + dilate[i] * (kernel[i] - 1) + 1 - 2 * pad[i] + adj[i];
        if (size <= 0) {
            attrs.fail("pad is too large: the output of data " + shapeString(data) + " would be empty");
        }
        outShape[2 + i] = size;
    }
    assignShape(attrs, out[0], outShape, "output");
}

// Pooling (src/operator/nn/pooling-inl.h): output 1 + (H + 2p - k) / s, floored with
// pooling_convention=valid, ceiled with full; global_pool reduces every spatial dim to 1. A max
// pool's hidden workspace output (MxnetOpFacts::numOutputs) gets the output's shape.
void inferPooling(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    attrs.getEnum("pool_type", "max", {"max", "avg", "sum"});
    const std::string convention = attrs.getEnum("pooling_convention", "valid", {"valid", "full"});
    const bool global = attrs.getBool("global_pool", false);
    requireNchw(attrs);
    std::vector<int64_t> kernel, stride, pad;
    if (!global) {
        kernel = pair(attrs, "kernel", {}, 1);
        stride = pair(attrs, "stride", {1, 1}, 1);
        pad = pair(attrs, "pad", {0, 0}, 0);
    }
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    requireRank4(attrs, data, "Pooling");
    Shape outShape{data[0], data[1], 1, 1};
    if (!global) {
        for (std::size_t i = 0; i < 2; ++i) {
            const int64_t span = data[2 + i] + 2 * pad[i] - kernel[i];
            if (span < 0) {
                attrs.fail("kernel " + std::to_string(kernel[i]) + " exceeds the padded input of data " +
                           shapeString(data));
            }
            outShape[2 + i] = 1 + (convention == "full" ? (span + stride[i] - 1) / stride[i] : span / stride[i]);
        }
    }
    for (Shape& o : out) {
        assignShape(attrs, o, outShape, "output");
    }
}

int64_t normalisedAxis(const OpAttrs& attrs, int64_t axis, std::size_t rank) {
    const auto n = static_cast<int64_t>(rank);
    const int64_t a = axis < 0 ? axis + n : axis;
    if (a < 0 || a >= n) {
        attrs.fail("axis " + std::to_string(axis) + " is out of range for " + std::to_string(rank) + "-D data");
    }
    return a;
}

// BatchNorm (src/operator/nn/batch_norm.cc BatchNormShape): gamma, beta, moving_mean, moving_var
// and the mean/var outputs are (C,), C the size of `axis`; the output has the data's shape.
void inferBatchNorm(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        if (!out[0].empty()) {
            assignShape(attrs, in[0], out[0], "input data");
        }
        return;
    }
    const int64_t axis = normalisedAxis(attrs, attrs.getInt("axis", 1), data.size());
    const Shape channels{data[static_cast<std::size_t>(axis)]};
    static const char* kInputs[] = {"", "input gamma", "input beta", "input moving_mean", "input moving_var"};
    for (std::size_t i = 1; i < in.size() && i < 5; ++i) {
        assignShape(attrs, in[i], channels, kInputs[i]);
    }
    assignShape(attrs, out[0], data, "output");
    for (std::size_t i = 1; i < out.size(); ++i) {
        assignShape(attrs, out[i], channels, "output " + std::to_string(i));
    }
}

// LayerNorm (src/operator/nn/layer_norm.cc): gamma and beta (C,), C the size of `axis`; output the
// data's shape; mean and std the data's shape with `axis` reduced to 1.
void inferLayerNorm(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    const auto axis = static_cast<std::size_t>(normalisedAxis(attrs, attrs.getInt("axis", -1), data.size()));
    assignShape(attrs, in[1], {data[axis]}, "input gamma");
    assignShape(attrs, in[2], {data[axis]}, "input beta");
    assignShape(attrs, out[0], data, "output");
    Shape reduced = data;
    reduced[axis] = 1;
    for (std::size_t i = 1; i < out.size(); ++i) {
        assignShape(attrs, out[i], reduced, "output " + std::to_string(i));
    }
}

}  // namespace

void addNnOpSpecs(OpSpecTable& table) {
    table.add({"Convolution", inferConvolution, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return a.getBool("no_bias", false) ? 2 : 3; }});
    table.add({"Deconvolution", inferDeconvolution, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return a.getBool("no_bias", true) ? 2 : 3; }});
    table.add({"Pooling", inferPooling, OpKind::Normal, [](const OpAttrs&) -> std::size_t { return 1; }});
    table.add({"BatchNorm", inferBatchNorm, OpKind::Normal, [](const OpAttrs&) -> std::size_t { return 5; }});
    table.add({"LayerNorm", inferLayerNorm, OpKind::Normal, [](const OpAttrs&) -> std::size_t { return 3; }});
}

}  // namespace ampstudio
