// Shape inference of the dense ops: FullyConnected, dot, batch_dot, Embedding.
#include <algorithm>

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

// dot (src/operator/tensor/dot-inl.h DotShape): lhs is read as a matrix (prod(all but last), last),
// or with transpose_a as (first, prod(rest)) transposed; rhs as (first, prod(rest)), or with
// transpose_b as (prod(all but last), last) transposed. The output keeps lhs's free dims (when lhs
// is not 1-D) followed by rhs's (when rhs is not 1-D); two vectors give (1,).
void inferDot(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const bool ta = attrs.getBool("transpose_a", false);
    const bool tb = attrs.getBool("transpose_b", false);
    const Shape& lhs = in[0];
    const Shape& rhs = in[1];
    if (lhs.empty() || rhs.empty()) {
        return;
    }
    if (lhs.size() == 1 && rhs.size() == 1) {
        if (ta || tb) {
            attrs.fail("cannot transpose vectors");
        }
        if (lhs[0] != rhs[0]) {
            attrs.fail("dot shape error: " + shapeString(lhs) + " x " + shapeString(rhs));
        }
        assignShape(attrs, out[0], {1}, "output");
        return;
    }
    const Shape lhsFree = ta ? Shape(lhs.begin() + 1, lhs.end()) : Shape(lhs.begin(), lhs.end() - 1);
    const int64_t lhsK = ta ? lhs.front() : lhs.back();
    const Shape rhsFree = tb ? Shape(rhs.begin(), rhs.end() - 1) : Shape(rhs.begin() + 1, rhs.end());
    const int64_t rhsK = tb ? rhs.back() : rhs.front();
    if (lhsK != rhsK) {
        attrs.fail("dot shape error: " + shapeString(lhs) + " x " + shapeString(rhs) +
                   (ta ? " transpose_a=True" : "") + (tb ? " transpose_b=True" : "") + ": inner dimensions " +
                   std::to_string(lhsK) + " and " + std::to_string(rhsK) + " differ");
    }
    Shape outShape;
    if (lhs.size() > 1) {
        outShape.insert(outShape.end(), lhsFree.begin(), lhsFree.end());
    }
    if (rhs.size() > 1) {
        outShape.insert(outShape.end(), rhsFree.begin(), rhsFree.end());
    }
    assignShape(attrs, out[0], outShape, "output");
}

// batch_dot: (B..., M, K) x (B..., K, N) -> (B..., M, N), both of one rank >= 3 with equal batch
// dims; transpose_a / transpose_b exchange the last two dims of that input.
void inferBatchDot(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const bool ta = attrs.getBool("transpose_a", false);
    const bool tb = attrs.getBool("transpose_b", false);
    const Shape& lhs = in[0];
    const Shape& rhs = in[1];
    if (lhs.empty() || rhs.empty()) {
        return;
    }
    const std::size_t n = lhs.size();
    if (n < 3 || rhs.size() != n) {
        attrs.fail("batch_dot needs two inputs of one rank >= 3, got " + shapeString(lhs) + " x " + shapeString(rhs));
    }
    if (!std::equal(lhs.begin(), lhs.end() - 2, rhs.begin())) {
        attrs.fail("batch_dot shape error (batch dims must be equal): " + shapeString(lhs) + " x " + shapeString(rhs));
    }
    const int64_t m = ta ? lhs[n - 1] : lhs[n - 2];
    const int64_t lhsK = ta ? lhs[n - 2] : lhs[n - 1];
    const int64_t rhsK = tb ? rhs[n - 1] : rhs[n - 2];
    const int64_t cols = tb ? rhs[n - 2] : rhs[n - 1];
    if (lhsK != rhsK) {
        attrs.fail("batch_dot shape error: " + shapeString(lhs) + " x " + shapeString(rhs) +
                   (ta ? " transpose_a=True" : "") + (tb ? " transpose_b=True" : "") + ": inner dimensions " +
                   std::to_string(lhsK) + " and " + std::to_string(rhsK) + " differ");
    }
    Shape outShape(lhs.begin(), lhs.end() - 2);
    outShape.push_back(m);
    outShape.push_back(cols);
    assignShape(attrs, out[0], outShape, "output");
}

// Embedding: indices of any shape, weight (input_dim, output_dim), output indices.shape + (output_dim,).
void inferEmbedding(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out) {
    const int64_t inputDim = attrs.requireInt("input_dim");
    const int64_t outputDim = attrs.requireInt("output_dim");
    if (inputDim <= 0 || outputDim <= 0) {
        attrs.fail("input_dim and output_dim must be positive");
    }
    assignShape(attrs, in[1], {inputDim, outputDim}, "input weight");
    if (in[0].empty()) {
        return;
    }
    Shape outShape = in[0];
    outShape.push_back(outputDim);
    assignShape(attrs, out[0], outShape, "output");
}

}  // namespace

void addDenseOpSpecs(OpSpecTable& table) {
    table.add({"FullyConnected", inferFullyConnected, OpKind::Normal,
               [](const OpAttrs& a) -> std::size_t { return a.getBool("no_bias", false) ? 2 : 3; }});
    auto two = [](const OpAttrs&) -> std::size_t { return 2; };
    table.add({"dot", inferDot, OpKind::Normal, two});
    table.add({"batch_dot", inferBatchDot, OpKind::Normal, two});
    table.add({"Embedding", inferEmbedding, OpKind::Normal, two});
}

}  // namespace ampstudio
