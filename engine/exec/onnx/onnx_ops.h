#pragma once
// The ONNX operators the runner (onnx_runner.h) executes, and how a kernel is written. A kernel gets
// its node, the opset of its domain and its input values, and makes its outputs; output shapes come
// from the actual inputs (values included: Reshape's shape, Slice's starts), so shape subgraphs and
// dynamic axes need nothing at bind time.
//
// float16 and bfloat16 (the engine's rule, DESIGN.md §5): an op marked computesInFloat32 sees its
// f16/bf16 inputs (and f64 ones, unless it computes in double) as float32 and writes float32; the runner rounds each float32 output once to
// the dtype its inputs had (OnnxKernelContext::storeAs, which a kernel changes where the schema
// says otherwise). Ops whose output dtype is an attribute (Cast, ConstantOfShape) see their inputs
// as stored.
//
// Ops are grouped by kind, one file each: onnx_elementwise_ops.cpp (unary math and activations,
// broadcast arithmetic, comparisons and logic, Where, Clip, Cast), onnx_shape_ops.cpp (Shape,
// Reshape, Transpose, Concat, Slice, Gather ...), onnx_reduce_ops.cpp (the reductions, Softmax,
// ArgMax, CumSum), onnx_nn_ops.cpp (MatMul, Gemm, Conv, pooling, the normalisations on oneDNN),
// onnx_control_flow_ops.cpp (If, Loop), onnx_recurrent_ops.cpp (LSTM, GRU, RNN),
// onnx_resize_ops.cpp (Resize, Upsample), onnx_index_ops.cpp (TopK, NonZero, Trilu, OneHot, the
// Gather / Scatter family, DepthToSpace ...).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/onnx_program.h"
#include "tensor/host_tensor.h"

namespace ampstudio {

// A node that cannot run: names the node and the reason.
class OnnxRunError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What the node asks that the runner does not do (a dtype an op has no kernel for, an attribute
// value not implemented): an OnnxRunError that says "not supported".
class OnnxUnsupported : public OnnxRunError {
public:
    using OnnxRunError::OnnxRunError;
};

// A float32 value a layout-aware kernel (Conv) left in oneDNN's layout for the next one: the runner
// keeps it beside the value (whose HostTensor then only carries the dims) when every reader of the
// value is such a kernel (onnx_runner.cpp). Defined in onnx_nn_ops.cpp, opaque elsewhere.
struct OnnxBlockedValue;
class OnnxKernelContext;

// Writes a blocked value into `plain` (a float32 tensor of its dims) in the plain layout: what a
// reader that cannot take the layout gets (the runner calls it, once per value).
void materializeBlocked(const OnnxBlockedValue& value, HostTensor& plain);
// Relu, and Add of two float32 values of the same dims, on blocked inputs as they lie (element-wise,
// so the layout does not matter where it has no padding): sets output 0 (blocked where
// ctx.outputMayStayBlocked, else plain) and returns true; false when it cannot (the runner then
// materializes the inputs and runs the op's kernel).
bool runBlockedElementwise(OnnxKernelContext& ctx);
// MaxPool (2-d, undilated, no Indices) on a blocked input whose channels are innermost (NHWC, or
// blocks of 8 or 16 channels): the same maxima as the plain kernel, in the same layout (blocked
// where ctx.outputMayStayBlocked, else plain); false when it cannot.
bool runBlockedMaxPool(OnnxKernelContext& ctx);

class OnnxKernelContext {
public:
    const OnnxProgramNode& node;
    int64_t opset = 0;
    std::vector<const HostTensor*> inputs;  // per node input; nullptr where omitted ("")
    std::vector<HostTensor> outputs;        // per node output, made by the kernel
    std::vector<DType> storeAs;             // per output: the dtype a float32 output is rounded to
    // Set by the runner for a layout-aware node (Conv, and Relu / Add on blocked inputs): per input,
    // its value in oneDNN's layout where it is kept so (its HostTensor then holds the dims but no
    // values); whether output 0 may stay so (every reader takes the layout), and the node's value
    // there when it did; and a Relu that read a Conv's output alone, fused into it (the output is
    // then the Relu's).
    std::vector<std::shared_ptr<const OnnxBlockedValue>> blockedInputs;
    bool outputMayStayBlocked = false;
    std::shared_ptr<const OnnxBlockedValue> blockedOutput;
    bool fusedRelu = false;
    // A Conv with a residual Add in its plan: the Add's other operand (plain, or in a blocked layout),
    // whether its buffer may take the sum (nothing else reads it later), whether a Relu follows the
    // Add; the Conv sets residualAdded when it ran them (float32 operands of its output's dims).
    const HostTensor* residual = nullptr;
    std::shared_ptr<const OnnxBlockedValue> residualBlocked;
    bool residualMayBeOverwritten = false;
    bool reluAfterResidual = false;
    bool residualOutputMayStayBlocked = false;  // outputMayStayBlocked for the Add's (or its Relu's) output
    bool residualAdded = false;
    // Runs a nested graph (If / Loop bodies) with `arguments` as its inputs; returns its outputs.
    std::function<std::vector<HostTensor>(const OnnxGraphProgram&, std::vector<HostTensor> arguments)> runGraph;

    OnnxKernelContext(const OnnxProgramNode& n, int64_t set) : node(n), opset(set) {}

    std::size_t inputCount() const { return inputs.size(); }
    bool hasInput(std::size_t i) const { return i < inputs.size() && inputs[i] != nullptr; }
    // Throws OnnxRunError when the input is omitted.
    const HostTensor& input(std::size_t i) const;
    // Sets output i (the runner checks every non-omitted output was made).
    void setOutput(std::size_t i, HostTensor value);
    bool wantsOutput(std::size_t i) const { return i < node.outputs.size() && !node.outputs[i].empty(); }

    bool hasAttr(std::string_view key) const { return node.attribute(key) != nullptr; }
    int64_t intAttr(std::string_view key, int64_t fallback) const;
    float floatAttr(std::string_view key, float fallback) const;
    std::string stringAttr(std::string_view key, std::string fallback) const;
    std::vector<int64_t> intsAttr(std::string_view key, std::vector<int64_t> fallback = {}) const;
    std::vector<float> floatsAttr(std::string_view key) const;
    const OnnxAttribute& attr(std::string_view key) const;  // throws OnnxRunError when absent

    [[noreturn]] void fail(const std::string& reason) const;
    [[noreturn]] void unsupported(const std::string& what) const;
    // An axis in [-rank, rank) made non-negative; fails naming `what` outside it.
    int64_t axis(int64_t value, int64_t rank, std::string_view what = "axis") const;
};

using OnnxKernelFn = void (*)(OnnxKernelContext&);

struct OnnxOpDef {
    OnnxKernelFn run = nullptr;
    bool computesInFloat32 = true;
    // With computesInFloat32: float64 inputs are narrowed to float32 too, unless the kernel computes
    // in double itself (arithmetic, comparisons, reductions: float64 models keep float64's range).
    bool float64InFloat32 = true;
};

// By op as the program spells it ("Conv", "com.microsoft.Gelu"); nullptr when not supported.
const OnnxOpDef* findOnnxOp(std::string_view op);
std::vector<std::string> onnxSupportedOps();  // sorted

// The group registrations, called once by findOnnxOp's table.
using OnnxOpTable = std::vector<std::pair<std::string, OnnxOpDef>>;
void addOnnxElementwiseOps(OnnxOpTable& table);
void addOnnxShapeOps(OnnxOpTable& table);
void addOnnxReduceOps(OnnxOpTable& table);
void addOnnxNnOps(OnnxOpTable& table);
void addOnnxControlFlowOps(OnnxOpTable& table);
void addOnnxRecurrentOps(OnnxOpTable& table);
void addOnnxResizeOps(OnnxOpTable& table);
void addOnnxIndexOps(OnnxOpTable& table);

// Multidirectional (numpy) broadcasting of two shapes; fails with the context on a mismatch.
Dims broadcastDims(const OnnxKernelContext& ctx, const Dims& a, const Dims& b);
// The strides of `dims` seen as `out` (rank-aligned on the right): 0 along broadcast axes.
std::vector<int64_t> broadcastStrides(const Dims& dims, const Dims& out);
// Row-major strides.
std::vector<int64_t> stridesOf(const Dims& dims);

}  // namespace ampstudio
