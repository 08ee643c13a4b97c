#pragma once
// What a node's attributes and shapes mean to a kernel, worked out once for every backend: the CPU
// and CUDA kernels of an op must read them identically, so they call these instead of each parsing
// the attributes on its own. Shape inference (ops/) has already checked the graphs the executor
// binds; a malformed attribute that reaches these anyway throws OpError naming the node, never
// crashes.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace ampstudio {

// A negative axis counted from the end.
int64_t positiveAxis(int64_t axis, std::size_t ndim);

// A 2-D attribute tuple of Convolution, Deconvolution and Pooling: (rows, columns).
using Pair = std::array<int64_t, 2>;

// A shape seen as (outer, channels, inner) around one axis: what BatchNorm, LayerNorm and the
// softmaxes normalise along.
struct AxisLayout {
    std::size_t axis = 0;
    int64_t outer = 1, channels = 1, inner = 1;
};

// ---- dense ----------------------------------------------------------------------------------------

// dot and batch_dot as batch x (M,K) x (K,N) products, with the transposes applied to the stored
// operands (ops/dense_ops.cpp gives the shapes).
struct ProductDims {
    int64_t batch = 1, m = 1, k = 1, n = 1;
    bool ta = false, tb = false;
};
// dot: lhs as (prod(all but last), last), or with transpose_a (first, prod(rest)) transposed; rhs as
// (first, prod(rest)), or with transpose_b (prod(all but last), last) transposed.
ProductDims dotDims(const KernelSetup& setup);
ProductDims batchDotDims(const KernelSetup& setup);

// FullyConnected adds a bias unless no_bias.
bool fullyConnectedHasBias(const Node& node);

// ---- element-wise -------------------------------------------------------------------------------

// The `scalar` of the _plus_scalar, _mul_scalar, ... family (default 1).
float scalarOperand(const Node& node);

struct ClipParams {
    float min = 0.0f, max = 0.0f;  // a_min, a_max
};
ClipParams clipParams(const Node& node);

enum class ActivationType { Relu, Sigmoid, Tanh, SoftRelu, SoftSign };
ActivationType activationType(const Node& node);  // Activation's act_type

// LeakyReLU (leaky_relu-inl.h): `slope` is leaky's slope and elu's alpha; selu and gelu have fixed
// constants, prelu learns its slopes (input 1). rrelu (randomised) is refused.
enum class LeakyReluType { Leaky, Elu, Selu, Gelu, PRelu };
struct LeakyReluParams {
    LeakyReluType type = LeakyReluType::Leaky;
    float slope = 0.25f;
};
LeakyReluParams leakyReluParams(const Node& node);

// softmax and log_softmax over `axis` (default -1) of x / temperature.
struct SoftmaxParams {
    AxisLayout layout;
    float invTemperature = 1.0f;
};
SoftmaxParams softmaxParams(const KernelSetup& setup);

// sum and mean: which axes of the input are reduced (ops/op_spec.h decides), the input's shape with
// those axes set to 1 (the output with keepdims) and how many elements each output sums.
struct ReduceParams {
    std::vector<bool> reduced;
    Shape kept;
    int64_t count = 1;
};
ReduceParams reduceParams(const KernelSetup& setup);

struct DropoutParams {
    float p = 0.5f;
    bool always = false;  // mode=always: also outside training
};
DropoutParams dropoutParams(const Node& node);

// ---- nn -----------------------------------------------------------------------------------------

// Convolution and Deconvolution. Deconvolution's bias is off by default (no_bias=True), and only
// it has adj, the extra output rows and columns.
struct ConvolutionParams {
    int64_t groups = 1;
    bool hasBias = true;
    Pair stride{1, 1}, pad{0, 0}, dilate{1, 1}, adj{0, 0};
};
ConvolutionParams convolutionParams(const Node& node);
ConvolutionParams deconvolutionParams(const Node& node);

// Pooling of 4-D NCHW data; with global_pool the window is the whole plane, stride 1, no padding.
enum class PoolType { Max, Avg, Sum };
struct PoolingParams {
    PoolType type = PoolType::Max;
    bool global = false;
    bool countIncludePad = true;
    Pair kernel{1, 1}, stride{1, 1}, pad{0, 0};
};
PoolingParams poolingParams(const KernelSetup& setup);

// BatchNorm over `axis` (default 1).
struct BatchNormParams {
    AxisLayout layout;
    float eps = 1e-3f;
    float momentum = 0.9f;
    bool fixGamma = true;
    bool useGlobalStats = false;
};
BatchNormParams batchNormParams(const KernelSetup& setup);

// LayerNorm over `axis` (default -1).
struct LayerNormParams {
    AxisLayout layout;
    float eps = 1e-5f;
};
LayerNormParams layerNormParams(const KernelSetup& setup);

// ---- loss heads ---------------------------------------------------------------------------------

// What a loss head's gradient is divided by: 1, the batch size, or the count of valid entries.
enum class LossNormalization { Null, Batch, Valid };

// SoftmaxOutput's attributes and how it sees its data: `outer` rows of `classes` values, `inner`
// apart (the spatial size with multi_output, else 1).
struct SoftmaxOutputParams {
    float gradScale = 1.0f;
    float ignoreLabel = -1.0f;
    bool useIgnore = false;
    float smoothAlpha = 0.0f;
    LossNormalization normalization = LossNormalization::Null;
    int64_t batch = 1;
    struct Layout {
        int64_t outer = 1, classes = 1, inner = 1;
    } layout;
    bool labelIsDistribution = false;  // the label has the data's shape: class probabilities
};
SoftmaxOutputParams softmaxOutputParams(const KernelSetup& setup);

// Linear-, Logistic- and MAERegressionOutput: the gradient is grad_scale / numOutput * (out - label),
// numOutput the label's elements per batch row.
struct RegressionParams {
    float gradScale = 1.0f;
    float numOutput = 1.0f;
};
RegressionParams regressionParams(const KernelSetup& setup);

// MakeLoss: "valid" counts the data's elements above valid_thresh.
struct MakeLossParams {
    float gradScale = 1.0f;
    float validThresh = 0.0f;
    LossNormalization normalization = LossNormalization::Null;
    int64_t batch = 1;
};
MakeLossParams makeLossParams(const KernelSetup& setup);

// ---- shape --------------------------------------------------------------------------------------

// The output axis order of transpose (`axes`, reversed when empty) and SwapAxis (dim1, dim2).
std::vector<int64_t> transposePerm(const KernelSetup& setup);
std::vector<int64_t> swapAxisPerm(const KernelSetup& setup);

// The layout shared by Concat (along `dim`) and SliceChannel (along `axis`): `outer` blocks, in each
// of which the joined tensor holds part 0's slab, then part 1's, ...; part i's slab is its extent
// along the axis times the elements after the axis (in elements, not bytes).
struct AxisParts {
    int64_t outer = 1;
    std::vector<int64_t> slab;
    int64_t total = 0;  // sum of slab
};
AxisParts concatParts(const KernelSetup& setup);        // the parts are the inputs
AxisParts sliceChannelParts(const KernelSetup& setup);  // the parts are the outputs

// slice_axis: in each of `outer` blocks, `len` slabs of `inner` elements starting at `begin` of the
// `size` along the axis.
struct SliceAxisLayout {
    int64_t outer = 1, inner = 1, size = 0, begin = 0, len = 0;
};
SliceAxisLayout sliceAxisLayout(const KernelSetup& setup);

}  // namespace ampstudio
