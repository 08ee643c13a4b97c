#pragma once
// What the executor needs to know about an operator independently of any backend: shape inference
// (forward, and backward to parameter shapes from the data shape, as MXNet's simple_bind does) and
// whether the op is a loss head, whose backward starts the gradient itself instead of reading one.
// Kernels live in the backends (backend/cpu/, backend/cuda/); the registry of which ops have a spec
// here is the list of ops the engine can execute at all.
//
// Ops are grouped by kind, one file each: dense_ops.cpp (FullyConnected, dot, batch_dot, Embedding),
// nn_ops.cpp (Convolution, Deconvolution, Pooling, BatchNorm, LayerNorm), elemwise_ops.cpp
// (activations, arithmetic, math, reductions, softmax, Dropout), shape_ops.cpp (Flatten, Reshape,
// transpose, Concat, SliceChannel), loss_ops.cpp (the *Output ops, MakeLoss), cast_ops.cpp (Cast,
// amp_cast, amp_multicast).

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"
#include "ops/op_attrs.h"
#include "tensor/shape.h"

namespace ampstudio {

// Shape inference of one node: `in` has one slot per input, `out` one per output (Node::numOutputs);
// an empty Shape is unknown. The function fills every slot it can deduce from the known ones and the
// attributes, and throws OpError (OpAttrs::fail) on a contradiction or an impossible attribute. It is
// called repeatedly until nothing changes, so it may return with slots still unknown. It must never
// overwrite a known slot with a different shape: use assignShape().
using InferShapeFn = std::function<void(const OpAttrs& attrs, std::vector<Shape>& in, std::vector<Shape>& out)>;

enum class OpKind : uint8_t {
    Normal,
    // A loss head (SoftmaxOutput, LinearRegressionOutput, LogisticRegressionOutput, MakeLoss): its
    // backward ignores the output gradient and produces the loss gradient times the loss scale.
    Loss,
};

struct OpSpec {
    std::string name;
    InferShapeFn inferShape;
    OpKind kind = OpKind::Normal;
    // Input count from the attributes (FullyConnected with no_bias has 2); nullptr: any count. The
    // executor checks a node's inputs against it before anything runs.
    std::function<std::size_t(const OpAttrs&)> numInputs;
};

class OpSpecTable {
public:
    void add(OpSpec spec);
    // By canonical name or alias; nullptr when the engine cannot execute the op.
    const OpSpec* find(std::string_view op) const;
    std::vector<std::string> names() const;  // sorted

private:
    std::unordered_map<std::string, OpSpec> m_specs;
};

// Every op the engine executes.
const OpSpecTable& opSpecs();

// Sets `slot` to `shape` when unknown; when known and different, fails naming `what` ("input weight",
// "output 0") and both shapes.
void assignShape(const OpAttrs& attrs, Shape& slot, const Shape& shape, std::string_view what);

// The axes sum/mean reduce over `shape`, parsed from `axis`, `keepdims` and `exclude` exactly as their shape
// inference parses them; the CPU kernels call this so that the decision lives in one place.
std::vector<bool> elemwiseReducedAxes(const OpAttrs& attrs, const Shape& shape);

// The group registrations, called once by opSpecs().
void addDenseOpSpecs(OpSpecTable& table);
void addNnOpSpecs(OpSpecTable& table);
void addElemwiseOpSpecs(OpSpecTable& table);
void addShapeOpSpecs(OpSpecTable& table);
void addLossOpSpecs(OpSpecTable& table);
void addCastOpSpecs(OpSpecTable& table);

}  // namespace ampstudio
