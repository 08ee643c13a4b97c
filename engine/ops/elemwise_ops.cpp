// Shape inference of the elemwise ops (ops/op_spec.h lists the groups), with MXNet 1.9.1's rules:
//   Activation, LeakyReLU, the unary math ops, the *_scalar ops, clip, softmax, log_softmax, Dropout
//       every input and output has the data's shape (inferred in both directions, as ElemwiseShape)
//   elemwise_add/sub/mul/div, add_n   all inputs and the output share one shape
//   broadcast_add/sub/mul/div         dims equal or 1 after padding the shorter shape with 1s on the left
//   sum, mean                         reduce `axis` (all when absent), keepdims, exclude
// Attributes are checked here so that a bad one fails at bind time, before any kernel is made.
#include <algorithm>

#include "ops/op_spec.h"

namespace ampstudio {

namespace {

std::size_t oneInput(const OpAttrs&) { return 1; }
std::size_t twoInputs(const OpAttrs&) { return 2; }

// All inputs and outputs have one shape: the first known one is given to the others, and a known
// one that differs is a contradiction assignShape reports.
void inferSameShape(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    Shape known;
    for (const auto* slots : {&in, &out}) {
        for (const Shape& s : *slots) {
            if (!s.empty()) {
                known = s;
                break;
            }
        }
        if (!known.empty()) {
            break;
        }
    }
    if (known.empty()) {
        return;
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        assignShape(attrs, in[i], known, "input " + std::to_string(i));
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        assignShape(attrs, out[i], known, "output " + std::to_string(i));
    }
}

InferShapeFn sameShapeChecking(std::function<void(const OpAttrs&)> check) {
    return [check = std::move(check)](const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
        check(attrs);
        inferSameShape(attrs, in, out);
    };
}

void checkActivation(const OpAttrs& attrs) {
    if (!attrs.has("act_type")) {
        attrs.fail("act_type is required (relu, sigmoid, tanh, softrelu, softsign)");
    }
    attrs.getEnum("act_type", "relu", {"relu", "sigmoid", "tanh", "softrelu", "softsign"});
}

void checkClip(const OpAttrs& attrs) {
    if (!attrs.has("a_min") || !attrs.has("a_max")) {
        attrs.fail("a_min and a_max are required");
    }
    if (attrs.getFloat("a_min", 0.0) > attrs.getFloat("a_max", 0.0)) {
        attrs.fail("a_min must not be greater than a_max");
    }
}

void checkSoftmax(const OpAttrs& attrs) {
    attrs.getInt("axis", -1);
    if (attrs.has("temperature") && attrs.getFloat("temperature", 1.0) == 0.0) {
        attrs.fail("temperature must not be zero");
    }
    if (attrs.getBool("use_length", false)) {
        attrs.fail("use_length=True (a length input) is not supported");
    }
}

// axis given as a negative or positive index must lie in the data's rank.
int64_t normaliseAxis(const OpAttrs& attrs, int64_t axis, std::size_t ndim) {
    const auto n = static_cast<int64_t>(ndim);
    if (axis < -n || axis >= n) {
        attrs.fail("axis " + std::to_string(axis) + " is out of range for " + std::to_string(ndim) + "-d data");
    }
    return axis < 0 ? axis + n : axis;
}

void inferSoftmax(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    checkSoftmax(attrs);
    inferSameShape(attrs, in, out);
    if (!in[0].empty()) {
        normaliseAxis(attrs, attrs.getInt("axis", -1), in[0].size());
    }
}

const char* const kLeakyTypes = "leaky, elu, selu, gelu, prelu";

std::string leakyType(const OpAttrs& attrs) {
    const std::string type = attrs.getString("act_type", "leaky");
    if (type == "rrelu") {
        attrs.fail("act_type rrelu (randomized leaky ReLU) is not supported; use " + std::string(kLeakyTypes));
    }
    return attrs.getEnum("act_type", "leaky", {"leaky", "elu", "selu", "gelu", "prelu"});
}

// LeakyReLU: prelu has a second input gamma, one slope per channel (axis 1), shape (C,) as MXNet
// infers it; a gamma of shape (1,) given explicitly is one slope for everything.
void inferLeakyReLU(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    if (leakyType(attrs) != "prelu") {
        inferSameShape(attrs, in, out);
        return;
    }
    Shape& data = in[0];
    if (data.empty() && !out[0].empty()) {
        data = out[0];
    }
    if (data.empty()) {
        return;
    }
    assignShape(attrs, out[0], data, "output");
    if (data.size() < 2) {
        attrs.fail("prelu needs data with a channel axis (at least 2-d), got " + shapeString(data));
    }
    if (in[1].empty()) {
        in[1] = {data[1]};
    } else if (in[1] != Shape{1}) {
        assignShape(attrs, in[1], {data[1]}, "input gamma");
    }
}

// broadcast_*: MXNet's BinaryBroadcastShape, the shorter shape padded with 1s on the left (as
// numpy), then each dim pair equal or one of them 1.
void inferBroadcast(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const Shape& a = in[0];
    const Shape& b = in[1];
    if (a.empty() || b.empty()) {
        return;
    }
    const std::size_t ndim = std::max(a.size(), b.size());
    Shape result(ndim);
    for (std::size_t i = 0; i < ndim; ++i) {
        const int64_t da = i + a.size() >= ndim ? a[i + a.size() - ndim] : 1;
        const int64_t db = i + b.size() >= ndim ? b[i + b.size() - ndim] : 1;
        if (da != db && da != 1 && db != 1) {
            attrs.fail("operands of shapes " + shapeString(a) + " and " + shapeString(b) +
                       " cannot be broadcast together (dimension " + std::to_string(i) + ": " + std::to_string(da) +
                       " vs " + std::to_string(db) + ")");
        }
        result[i] = da == 1 ? db : da;
    }
    assignShape(attrs, out[0], result, "output");
}

void inferAddN(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    if (in.empty()) {
        attrs.fail("needs at least one input");
    }
    inferSameShape(attrs, in, out);
}

std::size_t addNInputs(const OpAttrs& attrs) {
    const int64_t n = attrs.requireInt("num_args");
    if (n < 1) {
        attrs.fail("num_args must be at least 1");
    }
    return static_cast<std::size_t>(n);
}

// sum/mean: the reduced axes of `shape` (ReduceAxesShapeImpl): `axis` absent or () reduces all;
// exclude reduces the axes not listed. Shared with the kernels through the same attribute parsing.
std::vector<bool> reducedAxes(const OpAttrs& attrs, const Shape& shape) {
    std::vector<bool> reduced(shape.size(), false);
    const std::vector<int64_t> axes = attrs.has("axis") ? attrs.getTuple("axis") : std::vector<int64_t>{};
    const bool exclude = attrs.getBool("exclude", false);
    if (axes.empty()) {
        reduced.assign(shape.size(), true);
        return reduced;
    }
    for (int64_t axis : axes) {
        const auto a = static_cast<std::size_t>(normaliseAxis(attrs, axis, shape.size()));
        if (reduced[a]) {
            attrs.fail("axis " + std::to_string(axis) + " is given twice");
        }
        reduced[a] = true;
    }
    if (exclude) {
        reduced.flip();
    }
    return reduced;
}

void inferReduce(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const bool keepdims = attrs.getBool("keepdims", false);
    if (in[0].empty()) {
        return;
    }
    const std::vector<bool> reduced = reducedAxes(attrs, in[0]);
    Shape result;
    for (std::size_t i = 0; i < in[0].size(); ++i) {
        if (!reduced[i]) {
            result.push_back(in[0][i]);
        } else if (keepdims) {
            result.push_back(1);
        }
    }
    if (result.empty()) {
        result = {1};  // MXNet 1.x has no 0-d arrays: a full reduction is (1,)
    }
    assignShape(attrs, out[0], result, "output");
}

void checkDropout(const OpAttrs& attrs) {
    const double p = attrs.getFloat("p", 0.5);
    if (!(p >= 0.0 && p <= 1.0)) {
        attrs.fail("p must be in [0, 1], got " + std::to_string(p));
    }
    attrs.getEnum("mode", "training", {"training", "always"});
    if (!attrs.getTuple("axes").empty()) {
        attrs.fail("axes (variational dropout sharing a mask along axes) is not supported");
    }
}

}  // namespace

// Also used by the CPU kernels, so that the reduced axes are decided in one place.
std::vector<bool> elemwiseReducedAxes(const OpAttrs& attrs, const Shape& shape) { return reducedAxes(attrs, shape); }

void addElemwiseOpSpecs(OpSpecTable& table) {
    const auto noCheck = [](const OpAttrs&) {};
    table.add({"Activation", sameShapeChecking(checkActivation), OpKind::Normal, oneInput});
    table.add({"LeakyReLU", inferLeakyReLU, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return leakyType(a) == "prelu" ? 2 : 1; }});
    for (const char* op : {"exp", "log", "sqrt", "square", "sin", "cos", "abs", "negative", "reciprocal", "rsqrt",
                           "sigmoid", "tanh", "relu"}) {
        table.add({op, sameShapeChecking(noCheck), OpKind::Normal, oneInput});
    }
    for (const char* op : {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                           "_rdiv_scalar", "_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar"}) {
        table.add({op, sameShapeChecking([](const OpAttrs& a) { a.getFloat("scalar", 1.0); }), OpKind::Normal,
                   oneInput});
    }
    table.add({"clip", sameShapeChecking(checkClip), OpKind::Normal, oneInput});
    for (const char* op : {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"}) {
        table.add({op, sameShapeChecking(noCheck), OpKind::Normal, twoInputs});
    }
    for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div"}) {
        table.add({op, inferBroadcast, OpKind::Normal, twoInputs});
    }
    table.add({"add_n", inferAddN, OpKind::Normal, addNInputs});
    table.add({"softmax", inferSoftmax, OpKind::Normal, oneInput});
    table.add({"log_softmax", inferSoftmax, OpKind::Normal, oneInput});
    table.add({"sum", inferReduce, OpKind::Normal, oneInput});
    table.add({"mean", inferReduce, OpKind::Normal, oneInput});
    table.add({"Dropout", sameShapeChecking(checkDropout), OpKind::Normal, oneInput});
}

}  // namespace ampstudio
