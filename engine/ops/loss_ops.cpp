// Shape inference of the loss heads: SoftmaxOutput, LinearRegressionOutput,
// LogisticRegressionOutput, MAERegressionOutput and MakeLoss. Each outputs its prediction (softmax
// probabilities, the identity, the sigmoid) and starts the backward pass itself (OpKind::Loss).
#include "ops/op_spec.h"

namespace ampstudio {

namespace {

// The label SoftmaxOutput expects: one class index per softmax row (MXNet's softmax_output-inl.h).
Shape softmaxLabelShape(const OpAttrs& attrs, const Shape& data) {
    if (attrs.getBool("multi_output", false)) {
        if (data.size() < 2) {
            attrs.fail("multi_output needs data of shape (N, C, ...)");
        }
        Shape label{data[0]};
        label.insert(label.end(), data.begin() + 2, data.end());
        return label;
    }
    if (attrs.getBool("preserve_shape", false)) {
        return Shape(data.begin(), data.end() - 1);
    }
    return {data[0]};
}

void inferSoftmaxOutput(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    assignShape(attrs, out[0], in[0], "output");
    assignShape(attrs, in[0], out[0], "input data");
    if (in[0].empty()) {
        return;
    }
    if (in[1].empty()) {
        in[1] = softmaxLabelShape(attrs, in[0]);
    } else if (in[1] != in[0] && in[1] != softmaxLabelShape(attrs, in[0])) {
        // A label as probabilities (the data's shape) is accepted too, as MXNet does.
        attrs.fail("label has shape " + shapeString(in[1]) + ", expected " +
                   shapeString(softmaxLabelShape(attrs, in[0])) + " or " + shapeString(in[0]));
    }
}

void inferRegressionOutput(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    assignShape(attrs, out[0], in[0], "output");
    assignShape(attrs, in[0], out[0], "input data");
    if (in[0].empty()) {
        return;
    }
    if (in[1].empty()) {
        in[1] = in[0];
    } else if (shapeSize(in[1]) != shapeSize(in[0]) || in[1][0] != in[0][0]) {
        attrs.fail("label has shape " + shapeString(in[1]) + ", expected " + shapeString(in[0]));
    }
}

void inferMakeLoss(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    attrs.getEnum("normalization", "null", {"null", "batch", "valid"});
    assignShape(attrs, out[0], in[0], "output");
    assignShape(attrs, in[0], out[0], "input data");
}

}  // namespace

void addLossOpSpecs(OpSpecTable& table) {
    const auto two = [](const OpAttrs&) -> std::size_t { return 2; };
    table.add({"SoftmaxOutput", inferSoftmaxOutput, OpKind::Loss, two});
    table.add({"LinearRegressionOutput", inferRegressionOutput, OpKind::Loss, two});
    table.add({"LogisticRegressionOutput", inferRegressionOutput, OpKind::Loss, two});
    table.add({"MAERegressionOutput", inferRegressionOutput, OpKind::Loss, two});
    table.add({"MakeLoss", inferMakeLoss, OpKind::Loss, [](const OpAttrs&) -> std::size_t { return 1; }});
}

}  // namespace ampstudio
