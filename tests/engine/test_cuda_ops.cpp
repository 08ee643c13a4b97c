// Every op the CPU backend has a kernel for, on CUDA against the CPU reference (label gpu): forward
// outputs, mutated inputs (BatchNorm's moving statistics) and, with the same random head gradients,
// every input gradient, in f32, f16 and bf16, on the same random inputs. One test function per op
// family; each row is one case in one dtype ("Convolution stride 2 pad 1 f16"), so a failure names
// the op, the case and the dtype.
//
// Without a device every row still runs, CPU against a second CPU backend (so that a case the CPU
// cannot bind, or a slip in the comparison, shows here and not first on the GPU machine), and then
// skips with "skipped: no CUDA device"; with AMPSTUDIO_REQUIRE_GPU=1 (scripts/gpu-check.sh) it fails.
//
// Inputs follow the CPU suites (test_ops_*.cpp): uniform(-1, 1) by default, positive where the op
// needs it, at least 0.05 from the kinks of relu, abs, clip, LeakyReLU, maximum/minimum and MAE, and
// distinct values 0.05 apart for max pooling (a near tie could pick another argmax on each backend).
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "op_check.h"
#include "ops/mxnet_op_facts.h"

#if AMPSTUDIO_HAVE_CUDA
#include "backend/cuda/cuda_kernel.h"
#endif

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

// ---- tolerances --------------------------------------------------------------------------------------

// |device - cpu| <= atol + rtol * |cpu|, per element. Both backends compute in f32 on the same
// rounded inputs and round each output once to its dtype (cpu_kernel.h, cuda_kernel.h), so they differ
// only by summation order and by the device's transcendental functions:
//   f32   rtol 1e-5: ~80 f32 ulps, room for CUDA's expf/tanhf/erff/powf (<= 4 ulps) and reordered sums;
//         atol 1e-5: a reordered sum of up to ~100 O(1) terms (inputs and head gradients are O(1))
//         differs by ~sqrt(n) ulps of its partial sums, a few 1e-6 at most.
//   f16   rtol 2e-3: the f32 results differ by a hair, so the once-rounded outputs differ by at most
//         one f16 ulp (2^-10 relative at worst), with a factor 2 to spare; atol 1e-3: one ulp at
//         magnitude 1, because a backward pass reuses its own forward's rounded outputs (softmax,
//         sigmoid, tanh, Dropout's mask ...), so an output one ulp apart moves a gradient near zero
//         by about that much.
//   bf16  the same reasoning with bf16's ulp (2^-7): rtol 1.6e-2, atol 8e-3.
// `slack` multiplies atol alone (the absolute floor is where reordering noise lives) for cases that
// sum many terms or whose library algorithms round differently; each such row says why.
struct Tolerance {
    double atol = 0.0;
    double rtol = 0.0;
};

Tolerance toleranceFor(DType t, double slack) {
    switch (t) {
        case DType::F16:
            return {1e-3 * slack, 2e-3};
        case DType::BF16:
            return {8e-3 * slack, 1.6e-2};
        default:
            return {1e-5 * slack, 1e-5};
    }
}

// Close: within the tolerance. Exact: bit-identical values (ops that move or select numbers, and
// Dropout, whose mask is a pure function of seed, step, node name and index on both backends).
// ExactForward: exact outputs, close gradients (Embedding: a gather forward, a scatter-add backward).
enum class Match { Close, Exact, ExactForward };

const char* shortName(DType t) {
    return t == DType::F16 ? "f16" : t == DType::BF16 ? "bf16" : "f32";
}

// ---- cases ---------------------------------------------------------------------------------------------

struct GpuCase {
    std::string name;
    OpCase op;
    Match match = Match::Close;
    double slack = 1.0;
    std::vector<DType> dtypes{DType::F32, DType::F16, DType::BF16};
};

// An attribute value "$dtype" becomes the row's dtype name (Embedding's output dtype follows its weight).
OpCase forDtype(OpCase c, DType t) {
    for (auto& [key, value] : c.attrs) {
        if (value == "$dtype") {
            value = std::string(dtypeName(t));
        }
    }
    return c;
}

std::size_t count(const Shape& s) {
    return static_cast<std::size_t>(shapeSize(s));
}

std::vector<float> uniform(std::size_t n, uint64_t seed, double lo = -1.0, double hi = 1.0) {
    SeededRandom random(seed);
    std::vector<float> v(n);
    for (float& x : v)
        x = static_cast<float>(random.uniform(lo, hi));
    return v;
}

// Uniform in [lo, hi] but at least `margin` from every kink (redrawn until so).
std::vector<float> awayFrom(std::size_t n, uint64_t seed, std::vector<double> kinks, double lo = -2.0,
                            double hi = 2.0, double margin = 0.05) {
    SeededRandom random(seed);
    std::vector<float> v(n);
    for (float& x : v) {
        double d;
        do {
            d = random.uniform(lo, hi);
        } while (std::any_of(kinks.begin(), kinks.end(), [&](double k) { return std::abs(d - k) < margin; }));
        x = static_cast<float>(d);
    }
    return v;
}

std::vector<float> positive(std::size_t n, uint64_t seed) {
    return uniform(n, seed, 0.5, 2.0);
}

// Distinct values spaced 0.05 apart in a scrambled order (test_ops_nn.cpp): no near ties in any
// max-pooling window, even after rounding to bf16 (its ulp stays below 0.05 up to magnitude 8).
std::vector<float> distinctValues(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>((i * 37) % n) * 0.05f - 0.025f * static_cast<float>(n);
    }
    return v;
}

std::vector<float> labels(std::size_t n, int classes, uint64_t seed) {
    SeededRandom random(seed);
    std::vector<float> v(n);
    for (float& x : v)
        x = static_cast<float>(random.below(static_cast<uint64_t>(classes)));
    return v;
}

std::string tuple2(int64_t a) {
    return "(" + std::to_string(a) + ", " + std::to_string(a) + ")";
}

// ---- dense ---------------------------------------------------------------------------------------------

const std::vector<GpuCase>& denseCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto fc = [&](std::string name, Shape data, int64_t hidden, bool bias, bool flatten,
                      double slack = 1.0) {
            int64_t k = flatten ? shapeSize(data) / data[0] : data.back();
            OpCase c{"FullyConnected",
                     {{"num_hidden", std::to_string(hidden)},
                      {"no_bias", bias ? "False" : "True"},
                      {"flatten", flatten ? "True" : "False"}},
                     {data, {hidden, k}}};
            if (bias)
                c.inputShapes.push_back({hidden});
            v.push_back({std::move(name), c, Match::Close, slack});
        };
        fc("FullyConnected bias", {3, 2, 4}, 5, true, true);
        fc("FullyConnected no bias", {3, 2, 4}, 5, false, true);
        fc("FullyConnected no flatten", {3, 2, 4}, 5, true, false);
        fc("FullyConnected no flatten no bias", {2, 3, 2, 6}, 7, false, false);
        // K = 300, a batch of 64: cuBLAS may split K or pick another tiling than oneDNN, and the
        // weight gradient sums over the batch; 3x the reordering floor.
        fc("FullyConnected 64x300x40", {64, 300}, 40, true, true, 3.0);

        auto dot = [&](std::string op, std::string name, bool ta, bool tb, Shape a, Shape b) {
            v.push_back({std::move(name), OpCase{op,
                                                 {{"transpose_a", ta ? "True" : "False"},
                                                  {"transpose_b", tb ? "True" : "False"}},
                                                 {std::move(a), std::move(b)}}});
        };
        dot("dot", "dot a b", false, false, {2, 3}, {3, 4});
        dot("dot", "dot a^T b", true, false, {3, 2}, {3, 4});
        dot("dot", "dot a b^T", false, true, {2, 3}, {4, 3});
        dot("dot", "dot a^T b^T", true, true, {3, 2}, {4, 3});
        dot("dot", "dot 3-D x 2-D", false, false, {2, 3, 4}, {4, 5});
        dot("dot", "dot 2-D x 3-D", false, false, {2, 4}, {4, 3, 2});
        dot("dot", "dot 3-D^T x 2-D", true, false, {4, 2, 3}, {4, 5});
        dot("dot", "dot 2-D x 3-D^T", false, true, {2, 4}, {3, 2, 4});
        dot("dot", "dot vector x matrix", false, false, {3}, {3, 2});
        dot("dot", "dot matrix x vector", false, false, {2, 3}, {3});
        dot("dot", "dot vector x vector", false, false, {7}, {7});
        dot("dot", "dot 33x65x17", false, true, {33, 65}, {17, 65});
        dot("batch_dot", "batch_dot a b", false, false, {3, 2, 4}, {3, 4, 3});
        dot("batch_dot", "batch_dot a^T b", true, false, {3, 4, 2}, {3, 4, 3});
        dot("batch_dot", "batch_dot a b^T", false, true, {3, 2, 4}, {3, 3, 4});
        dot("batch_dot", "batch_dot a^T b^T", true, true, {3, 4, 2}, {3, 3, 4});
        dot("batch_dot", "batch_dot 4-D", false, true, {2, 2, 3, 4}, {2, 2, 5, 4});
        dot("batch_dot", "batch_dot 8x16x24x12", false, false, {8, 16, 24}, {8, 24, 12});

        // Indices as floats (MXNet passes them so); -1 and 7 clip to the first and last rows, 1.7
        // truncates; rows repeat so the weight gradient sums several output rows.
        OpCase emb{
            "Embedding", {{"input_dim", "5"}, {"output_dim", "3"}, {"dtype", "$dtype"}}, {{2, 4}, {5, 3}}};
        emb.inputValues = {{0, 4, 2, 2, 1.7f, -1, 7, 0}};
        emb.noGrad = {0};
        v.push_back({"Embedding clipped and repeated", emb, Match::ExactForward});
        OpCase big{"Embedding",
                   {{"input_dim", "50"}, {"output_dim", "16"}, {"dtype", "$dtype"}},
                   {{8, 32}, {50, 16}}};
        big.inputValues = {labels(256, 50, 3)};
        big.noGrad = {0};
        v.push_back({"Embedding 256 lookups of 50 rows", big, Match::ExactForward});
        return v;
    }();
    return cases;
}

// ---- Convolution, Deconvolution ---------------------------------------------------------------------

struct ConvParams {
    int64_t kernel = 3, stride = 1, pad = 0, dilate = 1, groups = 1, adj = 0;
    bool bias = true;
};

Attributes convAttrs(const ConvParams& p, int64_t filters, bool deconvolution) {
    Attributes a{{"kernel", tuple2(p.kernel)},
                 {"stride", tuple2(p.stride)},
                 {"pad", tuple2(p.pad)},
                 {"dilate", tuple2(p.dilate)},
                 {"num_filter", std::to_string(filters)},
                 {"num_group", std::to_string(p.groups)},
                 {"no_bias", p.bias ? "False" : "True"}};
    if (deconvolution)
        a["adj"] = tuple2(p.adj);
    return a;
}

// cuDNN chooses among implicit GEMM, Winograd and FFT algorithms, whose rounding differs from
// oneDNN's by more than a reordered sum (transforms of the inputs); the weight gradient also sums
// over batch and positions. 4x the absolute floor.
constexpr double kConvSlack = 4.0;

const std::vector<GpuCase>& convolutionCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto conv = [&](std::string name, ConvParams p, Shape x, int64_t filters) {
            OpCase c{"Convolution",
                     convAttrs(p, filters, false),
                     {x, {filters, x[1] / p.groups, p.kernel, p.kernel}}};
            if (p.bias)
                c.inputShapes.push_back({filters});
            v.push_back({std::move(name), c, Match::Close, kConvSlack});
        };
        conv("Convolution 3x3", {3, 1, 0, 1, 1}, {2, 4, 7, 6}, 4);
        conv("Convolution stride 2 pad 1", {3, 2, 1, 1, 1}, {2, 4, 7, 6}, 4);
        conv("Convolution dilate 2", {3, 1, 1, 2, 1}, {2, 4, 7, 6}, 4);
        conv("Convolution num_group 2", {3, 1, 1, 1, 2}, {2, 4, 7, 6}, 4);
        conv("Convolution depthwise", {3, 1, 1, 1, 4}, {2, 4, 7, 6}, 4);
        conv("Convolution no_bias 2x2 stride 2", {2, 2, 0, 1, 1, 0, false}, {2, 4, 7, 6}, 4);
        conv("Convolution all at once", {3, 2, 1, 2, 2, 0, false}, {2, 4, 7, 6}, 4);
        conv("Convolution 1x1", {1, 1, 0, 1, 1}, {2, 8, 5, 5}, 6);
        conv("Convolution 5x5 LeNet-like", {5, 1, 0, 1, 1}, {4, 3, 14, 14}, 8);
        conv("Convolution 16->32 3x3 pad 1", {3, 1, 1, 1, 1}, {4, 16, 12, 12}, 32);

        auto deconv = [&](std::string name, ConvParams p, Shape x, int64_t filters) {
            OpCase c{"Deconvolution",
                     convAttrs(p, filters, true),
                     {x, {x[1], filters / p.groups, p.kernel, p.kernel}}};
            if (p.bias)
                c.inputShapes.push_back({filters});
            v.push_back({std::move(name), c, Match::Close, kConvSlack});
        };
        deconv("Deconvolution 3x3", {3, 1, 0, 1, 1, 0, false}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution stride 2 pad 1", {3, 2, 1, 1, 1, 0, false}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution stride 2 pad 1 adj 1 bias", {3, 2, 1, 1, 1, 1, true}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution stride 2 adj 1 no pad", {2, 2, 0, 1, 1, 1, false}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution dilate 2", {3, 1, 1, 2, 1, 0, false}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution num_group 2 bias", {3, 2, 1, 1, 2, 1, true}, {2, 4, 4, 3}, 4);
        deconv("Deconvolution 16->8 4x4 stride 2 pad 1", {4, 2, 1, 1, 1, 0, true}, {2, 16, 6, 6}, 8);
        return v;
    }();
    return cases;
}

// ---- Pooling -------------------------------------------------------------------------------------------

const std::vector<GpuCase>& poolingCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto pool = [&](std::string name, std::string type, std::string convention, int kernel, int stride,
                        int pad, bool includePad, bool global, Shape x = {2, 3, 7, 6}) {
            Attributes a{{"pool_type", type},
                         {"pooling_convention", convention},
                         {"count_include_pad", includePad ? "True" : "False"}};
            if (global) {
                a["global_pool"] = "True";
                a["kernel"] = "(1, 1)";
            } else {
                a["kernel"] = tuple2(kernel);
                a["stride"] = tuple2(stride);
                a["pad"] = tuple2(pad);
            }
            OpCase c{"Pooling", a, {x}};
            c.inputValues = {distinctValues(count(x))};
            c.gradOutputs = 1;  // max pooling's second output is its workspace
            v.push_back({std::move(name), c});
        };
        pool("max valid", "max", "valid", 2, 2, 0, true, false);
        pool("max valid pad", "max", "valid", 3, 2, 1, true, false);
        pool("max full", "max", "full", 3, 2, 0, true, false);
        pool("max overlapping stride 1", "max", "valid", 3, 1, 1, true, false);
        pool("avg valid", "avg", "valid", 2, 2, 0, true, false);
        pool("avg valid pad", "avg", "valid", 3, 2, 1, true, false);
        pool("avg full pad", "avg", "full", 3, 2, 1, true, false);
        pool("avg full exclude pad", "avg", "full", 3, 2, 1, false, false);
        pool("avg valid exclude pad", "avg", "valid", 3, 1, 1, false, false);
        pool("sum full", "sum", "full", 2, 2, 1, true, false);
        pool("sum valid pad", "sum", "valid", 3, 2, 1, true, false);
        pool("global max", "max", "valid", 0, 1, 0, true, true);
        pool("global avg", "avg", "valid", 0, 1, 0, true, true);
        pool("global sum", "sum", "valid", 0, 1, 0, true, true);
        pool("max 2x2 over 4x8x12x12", "max", "valid", 2, 2, 0, true, false, {4, 8, 12, 12});
        // A global pool without a kernel has no workspace output (MXNet's MKLDNN build).
        OpCase bare{"Pooling", {{"global_pool", "True"}, {"pool_type", "max"}}, {{2, 3, 4, 5}}};
        bare.inputValues = {distinctValues(120)};
        v.push_back({"global max without kernel", bare});
        return v;
    }();
    return cases;
}

// ---- BatchNorm, LayerNorm ------------------------------------------------------------------------------

const std::vector<GpuCase>& normCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto bn = [&](std::string name, Attributes a, bool training, Shape x, int axis = 1) {
            const int64_t ch =
                x[static_cast<std::size_t>(axis < 0 ? axis + static_cast<int>(x.size()) : axis)];
            const auto channels = static_cast<std::size_t>(ch);
            a["axis"] = std::to_string(axis);
            OpCase c{"BatchNorm", a, {x, {ch}, {ch}, {ch}, {ch}}};
            // Moving statistics: a mean near 0 and a positive variance (inference divides by it).
            c.inputValues = {{},
                             uniform(channels, 21, 0.5, 1.5),
                             {},
                             uniform(channels, 22, -0.3, 0.3),
                             positive(channels, 23)};
            c.noGrad = {3, 4};
            c.gradOutputs = 1;  // the batch mean and inverse std carry no gradient
            c.training = training;
            // cuDNN runs BatchNorm on f16/bf16 data with f32 scale, bias and statistics, as the
            // registry infers them; gamma and beta keep their gradients.
            c.inputDtypes = {{1, DType::F32}, {2, DType::F32}};
            v.push_back({"BatchNorm " + name, c});
        };
        bn("training", {{"fix_gamma", "False"}}, true, {2, 3, 2, 2});
        bn("training fix_gamma", {{"fix_gamma", "True"}}, true, {2, 3, 2, 2});
        bn("training eps momentum", {{"fix_gamma", "False"}, {"eps", "0.01"}, {"momentum", "0.5"}}, true,
           {4, 3, 3, 3});
        bn("training axis -1", {{"fix_gamma", "False"}}, true, {2, 3, 2, 2}, -1);
        bn("training 2-D", {{"fix_gamma", "False"}}, true, {16, 5});
        bn("use_global_stats", {{"fix_gamma", "False"}, {"use_global_stats", "True"}}, true, {2, 3, 2, 2});
        bn("inference", {{"fix_gamma", "False"}}, false, {2, 3, 2, 2});
        bn("inference fix_gamma", {}, false, {2, 3, 2, 2});
        // 800 values per channel: the batch statistics and the backward's two sums are long reductions.
        bn("training 8x16x10x10", {{"fix_gamma", "False"}}, true, {8, 16, 10, 10});

        auto ln = [&](std::string name, int axis, Shape x, Attributes extra = {}) {
            const int64_t ch =
                x[static_cast<std::size_t>(axis < 0 ? axis + static_cast<int>(x.size()) : axis)];
            Attributes a = extra;
            a["axis"] = std::to_string(axis);
            OpCase c{"LayerNorm", a, {x, {ch}, {ch}}};
            c.inputValues = {{}, uniform(static_cast<std::size_t>(ch), 24, 0.5, 1.5), {}};
            c.gradOutputs = 1;  // mean and std carry no gradient
            v.push_back({"LayerNorm " + name, c});
        };
        ln("last", -1, {5, 4, 6});
        ln("middle", 1, {5, 4, 6});
        ln("first", 0, {5, 4, 6});
        ln("eps", -1, {4, 16}, {{"eps", "0.001"}});
        ln("rows of 1024", -1, {8, 1024});
        return v;
    }();
    return cases;
}

// ---- activations and element-wise unary ops ---------------------------------------------------------

struct Unary {
    const char* name;
    std::string op;
    Attributes attrs;
    std::vector<double> kinks;  // empty: smooth; positiveOnly below for log and the like
    bool positiveOnly = false;
};

std::vector<GpuCase> unaryCases(const std::vector<Unary>& ops) {
    std::vector<GpuCase> v;
    for (const Unary& u : ops) {
        for (const Shape& shape : {Shape{3, 4}, Shape{7, 300}}) {
            OpCase c{u.op, u.attrs, {shape}};
            c.inputValues = {u.positiveOnly ? positive(count(shape), 31)
                                            : awayFrom(count(shape), 32, u.kinks)};
            // Inputs within ±2: exp, softrelu and the powers stay below ~8 and need no more tolerance.
            if (u.op == "LeakyReLU" && u.attrs.contains("act_type") && u.attrs.at("act_type") == "prelu") {
                c.inputShapes.push_back({shape[1]});
                c.inputValues.push_back(uniform(static_cast<std::size_t>(shape[1]), 33, 0.1, 0.9));
            }
            v.push_back({std::string(u.name) + (shape[0] == 3 ? "" : " 7x300"), c});
        }
    }
    return v;
}

const std::vector<GpuCase>& activationCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v = unaryCases({
            {"Activation relu", "Activation", {{"act_type", "relu"}}, {0.0}},
            {"Activation sigmoid", "Activation", {{"act_type", "sigmoid"}}, {}},
            {"Activation tanh", "Activation", {{"act_type", "tanh"}}, {}},
            {"Activation softrelu", "Activation", {{"act_type", "softrelu"}}, {}},
            {"Activation softsign", "Activation", {{"act_type", "softsign"}}, {0.0}},
            {"relu", "relu", {}, {0.0}},
            {"sigmoid", "sigmoid", {}, {}},
            {"tanh", "tanh", {}, {}},
            {"LeakyReLU default", "LeakyReLU", {}, {0.0}},
            {"LeakyReLU leaky 0.1", "LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.1"}}, {0.0}},
            {"LeakyReLU elu", "LeakyReLU", {{"act_type", "elu"}, {"slope", "0.7"}}, {0.0}},
            {"LeakyReLU selu", "LeakyReLU", {{"act_type", "selu"}}, {0.0}},
            {"LeakyReLU gelu", "LeakyReLU", {{"act_type", "gelu"}}, {}},
            {"LeakyReLU prelu", "LeakyReLU", {{"act_type", "prelu"}}, {0.0}},
        });
        // prelu with one slope shared by every channel.
        OpCase shared{"LeakyReLU", {{"act_type", "prelu"}}, {{2, 3, 4}, {1}}};
        shared.inputValues = {awayFrom(24, 34, {0.0}), {0.3f}};
        v.push_back({"LeakyReLU prelu shared slope", shared});

        auto softmax = [&](std::string op, std::string axis, std::string temperature, Shape x) {
            OpCase c{op, {{"axis", axis}, {"temperature", temperature}}, {x}};
            c.inputValues = {uniform(count(x), 35, -2.0, 2.0)};
            v.push_back({op + " axis " + axis + (temperature == "None" ? "" : " temperature " + temperature) +
                             " " + shapeString(x),
                         c});
        };
        for (const char* op : {"softmax", "log_softmax"}) {
            softmax(op, "-1", "None", {2, 3, 4});
            softmax(op, "0", "None", {2, 3, 4});
            softmax(op, "1", "None", {2, 3, 4});
            softmax(op, "2", "0.5", {2, 3, 4});
            softmax(op, "-1", "None", {4, 1000});  // rows longer than a block
            softmax(op, "1", "2", {3, 257, 5});    // a strided axis
        }
        return v;
    }();
    return cases;
}

const std::vector<GpuCase>& unaryMathCases() {
    static const std::vector<GpuCase> cases = unaryCases({
        {"exp", "exp", {}, {}},
        {"log", "log", {}, {}, true},
        {"sqrt", "sqrt", {}, {}, true},
        {"square", "square", {}, {}},
        {"sin", "sin", {}, {}},
        {"cos", "cos", {}, {}},
        {"abs", "abs", {}, {0.0}},
        {"negative", "negative", {}, {}},
        {"reciprocal", "reciprocal", {}, {}, true},
        {"rsqrt", "rsqrt", {}, {}, true},
        {"_plus_scalar", "_plus_scalar", {{"scalar", "0.7"}}, {}},
        {"_PlusScalar alias", "_PlusScalar", {{"scalar", "0.7"}}, {}},
        {"_minus_scalar", "_minus_scalar", {{"scalar", "0.7"}}, {}},
        {"_rminus_scalar", "_rminus_scalar", {{"scalar", "0.7"}}, {}},
        {"_mul_scalar", "_mul_scalar", {{"scalar", "-1.5"}}, {}},
        {"_div_scalar", "_div_scalar", {{"scalar", "2.5"}}, {}},
        {"_rdiv_scalar", "_rdiv_scalar", {{"scalar", "1.5"}}, {}, true},
        {"_power_scalar 1.5", "_power_scalar", {{"scalar", "1.5"}}, {}, true},
        {"_power_scalar 3", "_power_scalar", {{"scalar", "3"}}, {}},
        {"_rpower_scalar", "_rpower_scalar", {{"scalar", "2"}}, {}},
        {"_maximum_scalar", "_maximum_scalar", {{"scalar", "0.5"}}, {0.5}},
        {"_minimum_scalar", "_minimum_scalar", {{"scalar", "0.5"}}, {0.5}},
        {"clip", "clip", {{"a_min", "-0.5"}, {"a_max", "1.0"}}, {-0.5, 1.0}},
    });
    return cases;
}

// ---- binary ops, add_n -----------------------------------------------------------------------------------

const std::vector<GpuCase>& binaryCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        for (const char* op :
             {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_plus", "_Mul"}) {
            for (const Shape& s : {Shape{2, 3}, Shape{5, 1001}}) {
                OpCase c{op, {}, {s, s}};
                c.inputValues = {uniform(count(s), 41), awayFrom(count(s), 42, {0.0}, -2.0, 2.0, 0.3)};
                v.push_back({std::string(op) + " " + shapeString(s), c});
            }
        }
        const std::vector<std::pair<Shape, Shape>> shapes = {
            {{2, 3, 4}, {1, 3, 1}},  // per channel, like a bias
            {{2, 3, 4}, {4}},        // numpy rank extension on the left
            {{3, 1}, {1, 4}},        // both operands broadcast
            {{2, 1, 4}, {2, 3, 1}},
            {{2, 3}, {2, 3}},  // no broadcasting at all
            {{1}, {2, 3}},
            {{8, 64, 1, 1}, {8, 64, 9, 9}},  // a long reduction of the lhs gradient
            {{4, 1, 300}, {1, 5, 1}},
        };
        for (const char* op :
             {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_plus"}) {
            for (const auto& [a, b] : shapes) {
                OpCase c{op, {}, {a, b}};
                // Divisors away from 0 so that the quotient and its gradient stay moderate.
                c.inputValues = {uniform(count(a), 43), positive(count(b), 44)};
                v.push_back({std::string(op) + " " + shapeString(a) + "x" + shapeString(b), c});
            }
        }
        for (int n : {1, 3, 7}) {
            OpCase c{"add_n",
                     {{"num_args", std::to_string(n)}},
                     std::vector<Shape>(static_cast<std::size_t>(n), Shape{3, 401})};
            v.push_back({"add_n " + std::to_string(n), c});
        }
        OpCase alias{"ElementWiseSum", {{"num_args", "2"}}, {{4, 5}, {4, 5}}};
        v.push_back({"ElementWiseSum alias", alias});
        return v;
    }();
    return cases;
}

// ---- reductions ------------------------------------------------------------------------------------------

const std::vector<GpuCase>& reduceCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto reduce = [&](std::string op, std::string axis, bool keepdims, bool exclude, Shape x,
                          double slack = 1.0) {
            Attributes a{{"keepdims", keepdims ? "True" : "False"}, {"exclude", exclude ? "True" : "False"}};
            if (!axis.empty())
                a["axis"] = axis;
            v.push_back({op + " " + (axis.empty() ? "all" : axis) + (keepdims ? " keepdims" : "") +
                             (exclude ? " exclude" : "") + " " + shapeString(x),
                         OpCase{op, a, {x}}, Match::Close, slack});
        };
        for (const char* op : {"sum", "mean"}) {
            reduce(op, "", false, false, {2, 3, 4});
            reduce(op, "(0, 2)", false, false, {2, 3, 4});
            reduce(op, "1", true, false, {2, 3, 4});
            reduce(op, "1", false, true, {2, 3, 4});
            reduce(op, "-1", false, false, {6, 5, 7});
            reduce(op, "(0, 1)", true, false, {4, 5, 6, 3});
        }
        reduce("sum_axis", "1", false, false, {2, 3, 4});
        // 40000 and 8192 terms: the CPU sums in double, a GPU tree in f32; a sum of n O(1) terms of
        // either sign is ~sqrt(n/3) in size and its f32 partial sums round at ~1e-6 of that, so the
        // sums get 30x the floor (3e-4 absolute); a mean divides the error by n.
        reduce("sum", "", false, false, {200, 200}, 30.0);
        reduce("sum", "0", false, false, {8192, 3}, 30.0);
        reduce("mean", "", false, false, {200, 200});
        reduce("mean", "(0, 2)", true, false, {64, 3, 128});
        return v;
    }();
    return cases;
}

// ---- Dropout ----------------------------------------------------------------------------------------------

const std::vector<GpuCase>& dropoutCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto dropout = [&](std::string name, Attributes a, bool training, Shape x, int64_t step = 0) {
            OpCase c{"Dropout", a, {x}};
            c.training = training;
            c.step = step;
            c.seed = 77;
            c.gradOutputs = 1;  // the mask carries no gradient
            v.push_back({"Dropout " + name, c, Match::Exact});
        };
        dropout("p 0.5 training", {{"p", "0.5"}}, true, {4, 5});
        dropout("p 0.3 training step 9", {{"p", "0.3"}}, true, {3, 1000}, 9);
        dropout("p 0.9 training", {{"p", "0.9"}}, true, {70000});
        dropout("p 0 training", {{"p", "0"}}, true, {4, 5});
        dropout("inference", {{"p", "0.5"}}, false, {4, 5});
        dropout("mode always in inference", {{"p", "0.4"}, {"mode", "always"}}, false, {6, 7});
        return v;
    }();
    return cases;
}

// ---- shape ops --------------------------------------------------------------------------------------------

const std::vector<GpuCase>& shapeCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        auto add = [&](std::string name, std::string op, Attributes a, std::vector<Shape> inputs) {
            v.push_back(
                {std::move(name), OpCase{std::move(op), std::move(a), std::move(inputs)}, Match::Exact});
        };
        add("Flatten", "Flatten", {}, {{2, 3, 2}});
        add("flatten alias", "flatten", {}, {{2, 3, 2, 2}});
        add("Reshape -4", "Reshape", {{"shape", "(-4,1,2,-2)"}}, {{2, 3, 2}});
        add("Reshape reverse", "Reshape", {{"shape", "(-1,0)"}, {"reverse", "True"}}, {{2, 3, 2}});
        add("reshape alias", "reshape", {{"shape", "(-1, 4)"}}, {{2, 3, 4}});
        add("expand_dims", "expand_dims", {{"axis", "1"}}, {{2, 3}});
        add("squeeze", "squeeze", {}, {{2, 1, 3}});
        add("squeeze axis", "squeeze", {{"axis", "2"}}, {{1, 3, 1, 2}});
        add("transpose", "transpose", {}, {{2, 3, 4}});
        add("transpose axes", "transpose", {{"axes", "(2,0,1,3)"}}, {{2, 3, 2, 2}});
        add("transpose negative axes", "transpose", {{"axes", "(-1, 0, 1)"}}, {{2, 3, 2}});
        add("transpose 5-D", "transpose", {{"axes", "(4,2,0,3,1)"}}, {{2, 3, 4, 2, 3}});
        add("transpose 64x96", "transpose", {}, {{64, 96}});
        add("SwapAxis", "SwapAxis", {{"dim1", "1"}, {"dim2", "2"}}, {{2, 3, 4}});
        add("swapaxes alias", "swapaxes", {{"dim1", "0"}, {"dim2", "-1"}}, {{2, 3, 5}});
        add("Concat dim 1", "Concat", {{"num_args", "3"}}, {{2, 1, 2}, {2, 3, 2}, {2, 2, 2}});
        add("Concat dim 0", "Concat", {{"num_args", "2"}, {"dim", "0"}}, {{1, 3}, {2, 3}});
        add("Concat dim -1", "Concat", {{"num_args", "2"}, {"dim", "-1"}}, {{2, 1, 1}, {2, 1, 2}});
        add("Concat one input", "Concat", {{"num_args", "1"}}, {{2, 3}});
        add("concat alias", "concat", {{"num_args", "2"}, {"dim", "0"}}, {{1, 2}, {2, 2}});
        add("SliceChannel", "SliceChannel", {{"num_outputs", "3"}}, {{2, 6}});
        add("SliceChannel squeeze", "SliceChannel",
            {{"num_outputs", "2"}, {"axis", "0"}, {"squeeze_axis", "1"}}, {{2, 3, 2}});
        add("SliceChannel axis -1", "SliceChannel", {{"num_outputs", "2"}, {"axis", "-1"}}, {{2, 1, 4}});
        add("split alias", "split", {{"num_outputs", "3"}, {"axis", "0"}, {"squeeze_axis", "True"}},
            {{3, 2}});
        add("slice_axis", "slice_axis", {{"axis", "0"}, {"begin", "1"}, {"end", "3"}}, {{4, 3}});
        add("slice_axis end None", "slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}}, {{2, 4}});
        add("slice_axis negative", "slice_axis", {{"axis", "-2"}, {"begin", "-2"}, {"end", "-1"}}, {{3, 2}});
        return v;
    }();
    return cases;
}

// ---- loss heads
// ---------------------------------------------------------------------------------------------

const std::vector<GpuCase>& lossCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        // The backward ignores head gradients and starts from the loss scale: 8 shows it is applied.
        auto loss = [&](std::string name, std::string op, Attributes a, Shape x, Shape label,
                        std::vector<float> l, std::vector<float> data = {}) {
            OpCase c{op, a, {x, label}};
            c.inputValues = {std::move(data), std::move(l)};
            c.noGrad = {1};
            c.lossScale = 8.0f;
            v.push_back({std::move(name), c});
        };
        loss("SoftmaxOutput", "SoftmaxOutput", {}, {4, 5}, {4}, labels(4, 5, 51));
        loss("SoftmaxOutput batch", "SoftmaxOutput", {{"normalization", "batch"}}, {6, 10}, {6},
             labels(6, 10, 52));
        loss("SoftmaxOutput valid ignore", "SoftmaxOutput",
             {{"normalization", "valid"}, {"use_ignore", "True"}, {"ignore_label", "1"}}, {8, 3}, {8},
             {0, 1, 1, 2, 1, 0, 2, 1});
        loss("SoftmaxOutput null ignore not used", "SoftmaxOutput", {{"ignore_label", "1"}}, {4, 3}, {4},
             {0, 1, 1, 2});
        loss("SoftmaxOutput grad_scale smooth_alpha", "SoftmaxOutput",
             {{"grad_scale", "0.5"}, {"smooth_alpha", "0.1"}}, {5, 4}, {5}, labels(5, 4, 53));
        loss("SoftmaxOutput 4-D as (N, rest)", "SoftmaxOutput", {}, {2, 3, 2, 2}, {2}, {5, 11});
        loss("SoftmaxOutput multi_output", "SoftmaxOutput", {{"multi_output", "True"}}, {2, 4, 3, 3},
             {2, 3, 3}, labels(18, 4, 54));
        loss("SoftmaxOutput preserve_shape", "SoftmaxOutput", {{"preserve_shape", "True"}}, {2, 3, 5}, {2, 3},
             labels(6, 5, 55));
        loss("SoftmaxOutput probability labels", "SoftmaxOutput", {}, {3, 4}, {3, 4},
             uniform(12, 56, 0.0, 0.5));
        loss("SoftmaxOutput 256x1000", "SoftmaxOutput", {{"normalization", "batch"}}, {256, 1000}, {256},
             labels(256, 1000, 57));
        for (const char* op : {"LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"}) {
            loss(op, op, {{"grad_scale", "2"}}, {4, 3}, {4, 3}, uniform(12, 58));
            loss(std::string(op) + " 1-D label", op, {}, {6, 1}, {6, 1}, uniform(6, 59));
        }
        // MAE's sign(out - label) has a kink where they meet: data and labels at least 0.2 apart.
        {
            std::vector<float> label = uniform(20, 60), data(20);
            for (std::size_t i = 0; i < data.size(); ++i)
                data[i] = label[i] + (i % 2 == 0 ? 0.3f : -0.2f);
            loss("MAERegressionOutput away from the kink", "MAERegressionOutput", {}, {5, 4}, {5, 4}, label,
                 data);
        }
        auto makeLoss = [&](std::string name, Attributes a, Shape x, std::vector<float> data = {}) {
            OpCase c{"MakeLoss", a, {x}};
            c.inputValues = {std::move(data)};
            c.lossScale = 8.0f;
            v.push_back({"MakeLoss " + name, c});
        };
        makeLoss("default", {}, {4, 3});
        makeLoss("batch grad_scale", {{"grad_scale", "0.5"}, {"normalization", "batch"}}, {4, 3});
        // valid counts the entries above valid_thresh; they are kept 0.05 away from it.
        makeLoss("valid", {{"normalization", "valid"}, {"valid_thresh", "0.2"}}, {5, 6},
                 awayFrom(30, 61, {0.2}, -1, 1));
        return v;
    }();
    return cases;
}

// ---- casts
// --------------------------------------------------------------------------------------------------

const std::vector<GpuCase>& castCases() {
    static const std::vector<GpuCase> cases = [] {
        std::vector<GpuCase> v;
        // Each row runs with inputs in f32, f16 and bf16: every source and target pair. Values past
        // f16's range become inf in f16, values below its subnormals become 0.
        for (const char* op : {"amp_cast", "Cast"}) {
            for (const char* target : {"float32", "float16", "bfloat16"}) {
                OpCase c{op, {{"dtype", target}}, {{3, 5}}};
                c.inputValues = {{70000.f, -70000.f, 1e-8f, -1e-8f, 1.0f / 3, 65504.f, 65520.f, 0.0f, -0.0f,
                                  3e38f, 2.5f, -1.75f, 1e-5f, 6e-8f, 12345.678f}};
                v.push_back({std::string(op) + " to " + target, c, Match::Exact});
            }
        }
        OpCase big{"amp_cast", {{"dtype", "float16"}}, {{1000, 37}}};
        big.inputValues = {uniform(37000, 71, -100.0, 100.0)};
        v.push_back({"amp_cast 1000x37 to float16", big, Match::Exact});
        // amp_multicast: every output the widest input dtype (narrowest with cast_narrow).
        OpCase same{"amp_multicast", {{"num_outputs", "2"}}, {{2, 2}, {3}}};
        v.push_back({"amp_multicast same dtypes", same, Match::Exact});
        for (const char* narrow : {"False", "True"}) {
            OpCase mixed{
                "amp_multicast", {{"num_outputs", "3"}, {"cast_narrow", narrow}}, {{2, 3}, {4}, {2, 2}}};
            mixed.inputDtypes = {{1, DType::F32}, {2, DType::F16}};
            // Not in bf16: f16 against bf16 has no narrower of the two.
            v.push_back({std::string("amp_multicast with an f32 and an f16 input, cast_narrow ") + narrow,
                         mixed,
                         Match::Exact,
                         1.0,
                         {DType::F32, DType::F16}});
        }
        return v;
    }();
    return cases;
}

// ---- running a case on both backends ------------------------------------------------------------------

// The backend the cases run on besides the CPU reference: CUDA when there is a device, else a second
// CPU backend (the self-check of the cases and of the comparison described at the top).
Backend& deviceBackend() {
    static const std::unique_ptr<Backend> backend =
        cudaDeviceCount() > 0 ? makeCudaBackend() : makeCpuBackend();
    return *backend;
}

bool bitEqual(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

// Empty when every element matches; else which tensor, how many elements differ, the worst one.
QString compareValues(const QString& what, const std::vector<float>& device, const std::vector<float>& cpu,
                      bool exact, const Tolerance& tol) {
    if (device.size() != cpu.size()) {
        return QString("%1: %2 elements on the device, %3 on the CPU")
            .arg(what)
            .arg(device.size())
            .arg(cpu.size());
    }
    std::size_t bad = 0, worstIndex = 0;
    double worst = 0.0;  // the error as a multiple of the allowed error
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        const double a = device[i], b = cpu[i];
        bool ok;
        double ratio = 0.0;
        if (exact || !std::isfinite(b)) {
            ok = bitEqual(device[i], cpu[i]);
            ratio = ok ? 0.0 : INFINITY;
        } else {
            const double allowed = tol.atol + tol.rtol * std::abs(b);
            ratio = std::isfinite(a) ? std::abs(a - b) / allowed : INFINITY;
            ok = ratio <= 1.0;
        }
        if (!ok) {
            if (bad == 0 || ratio > worst) {
                worst = ratio;
                worstIndex = i;
            }
            ++bad;
        }
    }
    if (bad == 0) {
        return {};
    }
    return QString("%1: %2 of %3 elements differ%4; worst [%5]: device %6, cpu %7")
        .arg(what)
        .arg(bad)
        .arg(cpu.size())
        .arg(exact ? " (bit-exact expected)"
                   : QString(" beyond %1 + %2 |cpu|").arg(tol.atol, 0, 'g', 3).arg(tol.rtol, 0, 'g', 3))
        .arg(worstIndex)
        .arg(device[worstIndex], 0, 'g', 9)
        .arg(cpu[worstIndex], 0, 'g', 9);
}

// Forward outputs, mutated inputs after the forward pass, then every input gradient; the first
// difference found, or an empty string.
QString compareOnBothBackends(const GpuCase& g, DType dtype, Backend& device) {
    const OpCase c = forDtype(g.op, dtype);
    OpRunner cpu(c, dtype, true);
    OpRunner dev(c, dtype, true, &device);
    const Tolerance tol = toleranceFor(dtype, g.slack);
    const bool exactForward = g.match != Match::Close;
    const bool exactBackward = g.match == Match::Exact;
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        dev.setInput(i, cpu.input(i));
    }
    const auto refOut = cpu.forward(c.training);
    const auto devOut = dev.forward(c.training);
    if (refOut.size() != devOut.size()) {
        return QString("%1 outputs on the device, %2 on the CPU").arg(devOut.size()).arg(refOut.size());
    }
    for (std::size_t k = 0; k < refOut.size(); ++k) {
        const QString error =
            compareValues(QString("output %1").arg(k), devOut[k], refOut[k], exactForward, tol);
        if (!error.isEmpty())
            return error;
    }
    const Node& node = cpu.executor().graph().nodes.back();
    for (uint32_t i : MxnetOpFacts::instance().mutableInputs(node)) {
        const std::string name = "in" + std::to_string(i);
        const QString error =
            compareValues(QString("input %1 after forward (mutated)").arg(i),
                          download(dev.backend(), dev.executor().value(name)),
                          download(cpu.backend(), cpu.executor().value(name)), exactForward, tol);
        if (!error.isEmpty())
            return error;
    }
    // The same random head gradient on both; zero for outputs without one (gradOutputs).
    SeededRandom random(c.seed + 1000);
    std::vector<std::vector<float>> heads;
    for (std::size_t k = 0; k < refOut.size(); ++k) {
        std::vector<float> w(refOut[k].size());
        for (float& x : w)
            x = k < c.gradOutputs ? static_cast<float>(random.uniform(-1.0, 1.0)) : 0.0f;
        heads.push_back(std::move(w));
    }
    const auto refGrad = cpu.backward(heads, c.training);
    const auto devGrad = dev.backward(heads, c.training);
    for (std::size_t i = 0; i < refGrad.size(); ++i) {
        if (refGrad[i].empty() != devGrad[i].empty()) {
            return QString("input %1 has a gradient on only one backend").arg(i);
        }
        const QString error =
            compareValues(QString("gradient of input %1").arg(i), devGrad[i], refGrad[i], exactBackward, tol);
        if (!error.isEmpty())
            return error;
    }
    return {};
}

void addRows(const std::vector<GpuCase>& cases) {
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("dtype");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        for (DType t : cases[i].dtypes) {
            QTest::newRow(qPrintable(QString::fromStdString(cases[i].name) + " " + shortName(t)))
                << static_cast<int>(i) << static_cast<int>(t);
        }
    }
}

}  // namespace

// scripts/gpu-check.sh sets AMPSTUDIO_REQUIRE_GPU=1: on the GPU machine a skip would hide a broken
// driver or build, so it fails instead. Here the row has already run CPU against CPU.
#define SKIP_WITHOUT_CUDA_DEVICE()                                     \
    do {                                                               \
        if (cudaDeviceCount() == 0) {                                  \
            if (qEnvironmentVariableIntValue("AMPSTUDIO_REQUIRE_GPU")) \
                QFAIL("no CUDA device");                               \
            QSKIP("skipped: no CUDA device");                          \
        }                                                              \
    } while (0)

#define RUN_ROW(cases)                                                                    \
    do {                                                                                  \
        QFETCH(int, index);                                                               \
        QFETCH(int, dtype);                                                               \
        const GpuCase& g = (cases)[static_cast<std::size_t>(index)];                      \
        QString error;                                                                    \
        try {                                                                             \
            error = compareOnBothBackends(g, static_cast<DType>(dtype), deviceBackend()); \
        } catch (const std::exception& e) {                                               \
            error = QString("threw: ") + e.what();                                        \
        }                                                                                 \
        if (!error.isEmpty())                                                             \
            QFAIL(qPrintable(QString::fromStdString(g.op.op) + ": " + error));            \
        SKIP_WITHOUT_CUDA_DEVICE();                                                       \
    } while (0)

class TestCudaOps : public QObject {
    Q_OBJECT

private slots:
    // Every op with a CPU kernel has a CUDA kernel: the table is checked without a device, the
    // backend's hasKernel with one.
    void everyCpuOpHasACudaKernel() {
#if AMPSTUDIO_HAVE_CUDA
        auto cpu = makeCpuBackend();
        QStringList missing;
        int checked = 0;
        for (const std::string& op : MxnetOpFacts::instance().opNames()) {
            if (!cpu->hasKernel(op))
                continue;
            ++checked;
            if (cudaKernels().find(op) == nullptr)
                missing << QString::fromStdString(op);
        }
        QVERIFY2(checked >= 60, qPrintable(QString("only %1 ops with CPU kernels found").arg(checked)));
        QVERIFY2(missing.isEmpty(), qPrintable("no CUDA kernel for: " + missing.join(", ")));
        // Aliases resolve like the CPU's.
        for (const char* alias :
             {"_plus", "_Mul", "flatten", "swapaxes", "split", "ElementWiseSum", "_PlusScalar"}) {
            QVERIFY2(!cpu->hasKernel(alias) || cudaKernels().find(alias) != nullptr, alias);
        }
        SKIP_WITHOUT_CUDA_DEVICE();
        for (const std::string& op : MxnetOpFacts::instance().opNames()) {
            if (cpu->hasKernel(op))
                QVERIFY2(deviceBackend().hasKernel(op), op.c_str());
        }
#else
        QSKIP("skipped: built without the CUDA backend");
#endif
    }

    // Every op the CPU has a kernel for appears in some case below (so a new op cannot go untested).
    void everyCpuOpHasACase() {
        auto cpu = makeCpuBackend();
        std::set<std::string> covered;
        for (const auto* cases : {&denseCases(), &convolutionCases(), &poolingCases(), &normCases(),
                                  &activationCases(), &unaryMathCases(), &binaryCases(), &reduceCases(),
                                  &dropoutCases(), &shapeCases(), &lossCases(), &castCases()}) {
            for (const GpuCase& g : *cases)
                covered.insert(std::string(MxnetOpFacts::instance().canonicalName(g.op.op)));
        }
        QStringList missing;
        for (const std::string& op : MxnetOpFacts::instance().opNames()) {
            if (cpu->hasKernel(op) && !covered.contains(op))
                missing << QString::fromStdString(op);
        }
        QVERIFY2(missing.isEmpty(), qPrintable("no case for: " + missing.join(", ")));
    }

    void dense_data() {
        addRows(denseCases());
    }
    void dense() {
        RUN_ROW(denseCases());
    }

    void convolution_data() {
        addRows(convolutionCases());
    }
    void convolution() {
        RUN_ROW(convolutionCases());
    }

    void pooling_data() {
        addRows(poolingCases());
    }
    void pooling() {
        RUN_ROW(poolingCases());
    }

    void normalization_data() {
        addRows(normCases());
    }
    void normalization() {
        RUN_ROW(normCases());
    }

    void activation_data() {
        addRows(activationCases());
    }
    void activation() {
        RUN_ROW(activationCases());
    }

    void unaryMath_data() {
        addRows(unaryMathCases());
    }
    void unaryMath() {
        RUN_ROW(unaryMathCases());
    }

    void binary_data() {
        addRows(binaryCases());
    }
    void binary() {
        RUN_ROW(binaryCases());
    }

    void reduce_data() {
        addRows(reduceCases());
    }
    void reduce() {
        RUN_ROW(reduceCases());
    }

    void dropout_data() {
        addRows(dropoutCases());
    }
    void dropout() {
        RUN_ROW(dropoutCases());
    }

    void shape_data() {
        addRows(shapeCases());
    }
    void shape() {
        RUN_ROW(shapeCases());
    }

    void loss_data() {
        addRows(lossCases());
    }
    void loss() {
        RUN_ROW(lossCases());
    }

    void cast_data() {
        addRows(castCases());
    }
    void cast() {
        RUN_ROW(castCases());
    }
};

QTEST_GUILESS_MAIN(TestCudaOps)
#include "test_cuda_ops.moc"
