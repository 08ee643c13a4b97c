#include "backend/kernel_params.h"

#include <numeric>
#include <utility>

#include "ops/op_attrs.h"

namespace ampstudio {

int64_t positiveAxis(int64_t axis, std::size_t ndim) { return axis < 0 ? axis + static_cast<int64_t>(ndim) : axis; }

ProductDims dotDims(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    ProductDims d;
    d.ta = attrs.getBool("transpose_a", false);
    d.tb = attrs.getBool("transpose_b", false);
    const Shape& lhs = setup.inShapes[0];
    const Shape& rhs = setup.inShapes[1];
    d.k = d.ta ? lhs.front() : lhs.back();
    // size / K, computed as the free dims' product so that an empty K needs no division.
    auto product = [](Shape::const_iterator begin, Shape::const_iterator end) {
        int64_t p = 1;
        for (auto it = begin; it != end; ++it) {
            p *= *it;
        }
        return p;
    };
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
    d.batch = 1;
    for (std::size_t i = 0; i + 2 < nd; ++i) {
        d.batch *= lhs[i];
    }
    return d;
}

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
    const std::size_t ndim = setup.inShapes[0].size();
    std::vector<int64_t> perm(ndim);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::swap(perm[static_cast<std::size_t>(positiveAxis(attrs.getInt("dim1", 0), ndim))],
              perm[static_cast<std::size_t>(positiveAxis(attrs.getInt("dim2", 0), ndim))]);
    return perm;
}

SoftmaxOutputParams softmaxOutputParams(const KernelSetup& setup) {
    const OpAttrs attrs(setup.node);
    const Shape& data = setup.inShapes[0];
    SoftmaxOutputParams p;
    p.gradScale = static_cast<float>(attrs.getFloat("grad_scale", 1.0));
    p.ignoreLabel = static_cast<float>(attrs.getFloat("ignore_label", -1.0));
    p.useIgnore = attrs.getBool("use_ignore", false);
    p.smoothAlpha = static_cast<float>(attrs.getFloat("smooth_alpha", 0.0));
    p.normalization = attrs.getEnum("normalization", "null", {"null", "batch", "valid"});
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

}  // namespace ampstudio
