// Shape inference of the dense ops: FullyConnected (and, in the same group, dot, batch_dot, Embedding).
#include "ops/op_spec.h"

namespace ampstudio {

namespace {

// FullyConnected: data (N, ...) flattened to (N, K) with flatten=True, else (..., K); weight (H, K),
// bias (H,); output (N, H) or (..., H).
void inferFullyConnected(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const int64_t hidden = attrs.requireInt("num_hidden");
    if (hidden <= 0) {
        attrs.fail("num_hidden must be positive");
    }
    const bool noBias = attrs.getBool("no_bias", false);
    const bool flatten = attrs.getBool("flatten", true);
    const Shape& data = in[0];
    if (data.empty()) {
        return;
    }
    if (data.size() < (flatten ? 1u : 1u)) {
        attrs.fail("data must have at least one dimension");
    }
    int64_t k = 1;
    Shape outShape;
    if (flatten) {
        for (std::size_t i = 1; i < data.size(); ++i) {
            k *= data[i];
        }
        outShape = {data[0], hidden};
    } else {
        k = data.back();
        outShape = data;
        outShape.back() = hidden;
    }
    assignShape(attrs, in[1], {hidden, k}, "input weight");
    if (!noBias) {
        assignShape(attrs, in[2], {hidden}, "input bias");
    }
    assignShape(attrs, out[0], outShape, "output");
}

}  // namespace

void addDenseOpSpecs(OpSpecTable& table) {
    table.add({"FullyConnected", inferFullyConnected, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return a.getBool("no_bias", false) ? 2 : 3; }});
}

}  // namespace ampstudio
