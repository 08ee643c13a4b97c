// Resize (opsets 10, 11, 13) and Upsample: nearest, linear and cubic interpolation with every
// coordinate transformation and nearest mode of the specification, as onnx's reference computes
// it (backend/test/case/node/resize.py): separable, one axis after another, each output position
// mapped back to the input, its neighbours' weights from the mode, indices past the edges clamped
// (the reference pads with edge values). What torchvision's segmentation heads export (bilinear,
// align_corners false: half_pixel / pytorch_half_pixel) is among them.
#include <algorithm>
#include <cmath>

#include "exec/onnx/onnx_kernel_util.h"

namespace ampstudio {
namespace {

struct ResizeRule {
    std::string mode = "nearest";          // nearest, linear, cubic
    std::string transform = "half_pixel";  // coordinate_transformation_mode
    std::string nearest = "round_prefer_floor";
    double cubicA = -0.75;
    bool excludeOutside = false;
    float extrapolation = 0.0f;
};

// The input coordinate of output index `x` on one axis, or NaN when it lies outside a
// tf_crop_and_resize crop (the output is then the extrapolation value).
double sourceCoordinate(const ResizeRule& rule, double x, double scale, int64_t in, double outWidth, double roiStart, double roiEnd) {
    const std::string& m = rule.transform;
    if (m == "align_corners") return outWidth == 1.0 ? 0.0 : x * static_cast<double>(in - 1) / (outWidth - 1.0);
    if (m == "asymmetric") return x / scale;
    if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
    if (m == "pytorch_half_pixel") return outWidth == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (m == "tf_crop_and_resize") {
        const double span = (roiEnd - roiStart) * static_cast<double>(in - 1);
        const double v = (outWidth == 1.0 ? span / 2.0 : x * span / (outWidth - 1.0)) + roiStart * static_cast<double>(in - 1);
        return v < 0.0 || v > static_cast<double>(in - 1) ? std::nan("") : v;
    }
    return (x + 0.5) / scale - 0.5;  // half_pixel
}

// The neighbour indices and weights for input coordinate `x` (onnx's reference: the n nearest
// indices, ties to the lower one; for ratio r in (0, 1] of x above the lower neighbour).
void neighbours(const ResizeRule& rule, double x, int64_t in, std::vector<int64_t>& index, std::vector<double>& weight) {
    const double lo = std::ceil(x) - 1.0;  // the neighbour below x (x itself counts as above)
    const double r = x - lo;
    index.clear();
    weight.clear();
    if (rule.mode == "cubic") {
        const double a = rule.cubicA, s = r + 1.0, t = 1.0 - r, u = 2.0 - r;
        const double w[4] = {((a * s - 5 * a) * s + 8 * a) * s - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
                             ((a + 2) * t - (a + 3)) * t * t + 1, ((a * u - 5 * a) * u + 8 * a) * u - 4 * a};
        for (int k = 0; k < 4; ++k) {
            index.push_back(static_cast<int64_t>(lo) - 1 + k);
            weight.push_back(w[k]);
        }
    } else {
        double w0 = 1.0 - r, w1 = r;
        if (rule.mode == "nearest") {
            const bool integral = r == 1.0;
            bool upper = true;
            if (!integral) {
                const std::string& n = rule.nearest;
                upper = n == "ceil" ? true : n == "floor" ? false : n == "round_prefer_ceil" ? r >= 0.5 : r > 0.5;
            }
            w0 = upper ? 0.0 : 1.0;
            w1 = upper ? 1.0 : 0.0;
        }
        index = {static_cast<int64_t>(lo), static_cast<int64_t>(lo) + 1};
        weight = {w0, w1};
    }
    if (rule.excludeOutside) {
        double sum = 0.0;
        for (std::size_t k = 0; k < index.size(); ++k) {
            if (index[k] < 0 || index[k] >= in) weight[k] = 0.0;
            sum += weight[k];
        }
        for (double& w : weight) w = sum == 0.0 ? 0.0 : w / sum;
    }
    for (int64_t& i : index) i = std::clamp<int64_t>(i, 0, in - 1);
}

// Resamples `x` along `axis` to `out` positions.
HostTensor resizeAxis(const HostTensor& x, std::size_t axis, int64_t out, double scale, double outWidth, double roiStart,
                      double roiEnd, const ResizeRule& rule) {
    Dims dims = x.dims();
    const int64_t in = dims[axis];
    dims[axis] = out;
    HostTensor y = HostTensor::uninitialized(DType::F32, dims);
    int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= dims[d];
    for (std::size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
    const float* src = x.data<float>();
    float* dst = y.mutableData<float>();
    std::vector<int64_t> index;
    std::vector<double> weight;
    for (int64_t o = 0; o < out; ++o) {
        const double c = sourceCoordinate(rule, static_cast<double>(o), scale, in, outWidth, roiStart, roiEnd);
        const bool outside = std::isnan(c);
        if (!outside) neighbours(rule, c, in, index, weight);
        for (int64_t b = 0; b < outer; ++b) {
            for (int64_t i = 0; i < inner; ++i) {
                double v = rule.extrapolation;
                if (!outside) {
                    v = 0.0;
                    for (std::size_t k = 0; k < index.size(); ++k) v += weight[k] * src[(b * in + index[k]) * inner + i];
                }
                dst[(b * out + o) * inner + i] = static_cast<float>(v);
            }
        }
    }
    return y;
}

void resizeWith(OnnxKernelContext& ctx, const ResizeRule& rule, std::vector<float> scales, std::vector<int64_t> sizes,
                std::vector<float> roi) {
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(x.dtype())));
    const std::size_t rank = x.dims().size();
    if (rule.mode != "nearest" && rule.mode != "linear" && rule.mode != "cubic") ctx.unsupported("mode '" + rule.mode + "'");
    if (!sizes.empty() && sizes.size() != rank) ctx.fail("sizes " + dimsString(sizes) + " do not fit the rank");
    if (sizes.empty() && scales.size() != rank) ctx.fail("scales do not fit the rank");
    if (!roi.empty() && roi.size() != 2 * rank) ctx.fail("roi does not hold a start and an end per axis");
    HostTensor y = x;
    for (std::size_t d = rank; d-- > 0;) {
        const int64_t in = x.dims()[d];
        double scale = 0.0, width = 0.0;
        int64_t out = 0;
        if (!sizes.empty()) {
            out = sizes[d];
            scale = in == 0 ? 1.0 : static_cast<double>(out) / static_cast<double>(in);
            width = static_cast<double>(out);
        } else {
            scale = scales[d];
            if (scale <= 0.0) ctx.fail("a scale of " + std::to_string(scale));
            width = scale * static_cast<double>(in);
            out = sizeFromDouble(ctx, std::floor(width));
        }
        const double roiStart = roi.empty() ? 0.0 : roi[d], roiEnd = roi.empty() ? 1.0 : roi[d + rank];
        const bool identity = out == in && scale == 1.0 && rule.transform != "tf_crop_and_resize";
        if (!identity) y = resizeAxis(y, d, out, scale, width, roiStart, roiEnd, rule);
    }
    if (y.raw() == x.raw()) {  // nothing resized: still a value of its own
        HostTensor copy = HostTensor::uninitialized(DType::F32, x.dims());
        std::copy_n(x.data<float>(), x.size(), copy.mutableData<float>());
        y = std::move(copy);
    }
    ctx.setOutput(0, std::move(y));
}

void resize(OnnxKernelContext& ctx) {
    ResizeRule rule;
    rule.mode = ctx.stringAttr("mode", "nearest");
    std::vector<float> scales, roi;
    std::vector<int64_t> sizes;
    if (ctx.opset < 11) {
        // Resize-10: scales only, asymmetric coordinates, nearest rounds down (onnx's Resize-10 tests).
        rule.transform = "asymmetric";
        rule.nearest = "floor";
        scales = ctx.input(1).floats();
    } else {
        rule.transform = ctx.stringAttr("coordinate_transformation_mode", "half_pixel");
        rule.nearest = ctx.stringAttr("nearest_mode", "round_prefer_floor");
        rule.cubicA = ctx.floatAttr("cubic_coeff_a", -0.75f);
        rule.excludeOutside = ctx.intAttr("exclude_outside", 0) != 0;
        rule.extrapolation = ctx.floatAttr("extrapolation_value", 0.0f);
        if (ctx.hasInput(1) && ctx.input(1).size() > 0) roi = ctx.input(1).floats();
        if (ctx.hasInput(2) && ctx.input(2).size() > 0) scales = ctx.input(2).floats();
        if (ctx.hasInput(3) && ctx.input(3).size() > 0) sizes = ctx.input(3).integers();
    }
    resizeWith(ctx, rule, scales, sizes, roi);
}

void upsample(OnnxKernelContext& ctx) {
    ResizeRule rule;
    rule.mode = ctx.stringAttr("mode", "nearest");
    rule.transform = "asymmetric";
    rule.nearest = "floor";
    resizeWith(ctx, rule, ctx.opset < 9 ? ctx.floatsAttr("scales") : ctx.input(1).floats(), {}, {});
}

}  // namespace

void addOnnxResizeOps(OnnxOpTable& table) {
    table.push_back({"Resize", {resize}});
    table.push_back({"Upsample", {upsample}});
}

}  // namespace ampstudio
