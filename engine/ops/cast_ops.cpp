// Shape inference of the cast ops: Cast, amp_cast (one input, one output of the same shape) and
// amp_multicast (n inputs, n outputs, output i shaped as input i).
#include "ops/op_spec.h"

namespace ampstudio {

namespace {

void inferSameShapes(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    if (in.size() != out.size()) {
        attrs.fail("has " + std::to_string(in.size()) + " inputs but " + std::to_string(out.size()) + " outputs");
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        assignShape(attrs, out[i], in[i], "output " + std::to_string(i));
        assignShape(attrs, in[i], out[i], "input " + std::to_string(i));
    }
}

}  // namespace

void addCastOpSpecs(OpSpecTable& table) {
    const auto one = [](const OpAttrs&) -> std::size_t { return 1; };
    table.add({"Cast", inferSameShapes, OpKind::Normal, one});
    table.add({"amp_cast", inferSameShapes, OpKind::Normal, one});
    table.add({"amp_multicast", inferSameShapes, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return static_cast<std::size_t>(a.requireInt("num_outputs")); }});
}

}  // namespace ampstudio
