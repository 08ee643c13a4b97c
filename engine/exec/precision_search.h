#pragma once
// The precision debugger's engine: which nodes must stay in float32 for a given accuracy?
//
// One float32 run of the original graph is the reference; it stays bound, so every entry's float32
// value is at hand. Against it, per node that the conversion runs in the target dtype:
//   error   the compare measures of its output in the converted model (created + inherited)
//   own     the node alone in the target dtype on exact float32 inputs (cast as the converted
//           model casts them): the error it creates itself
//   stats   its float32 output's range against the target dtype (max |x|, share beyond the
//           dtype's largest value, share below its smallest normal, inf/NaN)
// The search then finds a small set of such nodes to exclude (keep in float32) for which the
// converted model's outputs meet a tolerance: candidates ranked by own error, a bisection over how
// many of the worst to exclude, then each chosen node dropped again where the tolerance still holds.
// Every attempt is a real conversion (so the dtype check holds) run in full; the same inputs and
// seed give the same set.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amp/conversion.h"
#include "backend/backend.h"
#include "exec/model_compare.h"
#include "exec/model_run.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"

namespace ampstudio {

enum class PrecisionMetric : uint8_t {
    MaxRel,  // max over outputs of max |c - r| / max |r|
    MaxAbs,  // max over outputs of max |c - r|
    Cosine,  // max over outputs of 1 - cosine
    Top1,    // share of rows (first axis) whose argmax differs, over every output
    // numpy.allclose's criterion, element-wise (what onnxconverter-common's auto_convert_mixed_precision
    // validates with): max over every element of max(0, |c - r| - atol) / |r|, so that the tolerance is
    // allclose's rtol (an element with r = 0 counts 0 within atol, +inf beyond).
    AllClose,
};
std::optional<PrecisionMetric> precisionMetricFromName(std::string_view name);  // "max-rel", ..., "allclose"
std::string_view precisionMetricName(PrecisionMetric metric);

// How a float32 tensor's magnitudes spread over binary exponents: bin i counts the finite non-zero
// values with floor(log2 |x|) in [kLowest + 2i, kLowest + 2i + 2); the first and last bins also take
// everything below and above. Zeros are counted apart. Two octaves a bin from 2^-64 to 2^64 show
// float16's whole range (2^-24 .. 2^16) and where bfloat16's ends lie beyond it.
struct MagnitudeHistogram {
    static constexpr int kLowestExponent = -64;
    static constexpr int kOctavesPerBin = 2;
    static constexpr int kBins = 64;
    std::array<int64_t, kBins> bins{};
    int64_t zeros = 0;

    static int binOf(int exponent);                     // clamped to [0, kBins)
    static int lowerExponent(int bin) { return kLowestExponent + kOctavesPerBin * bin; }
};

// A float32 tensor's range against a low-precision dtype.
struct RangeStats {
    double maxAbs = 0.0;
    double beyondMax = 0.0;    // share of finite values whose magnitude exceeds the dtype's largest
    double belowNormal = 0.0;  // share of non-zero finite values below its smallest normal
    int64_t nonFinite = 0;
    int64_t count = 0;         // every value, finite or not
    MagnitudeHistogram histogram;
};
RangeStats rangeStats(const std::vector<float>& values, DType target);

// The largest finite value and the smallest normal of float16 or bfloat16.
double dtypeLargestFinite(DType t);
double dtypeSmallestNormal(DType t);

// ModelOpt AutoCast keeps a node in float32 when its activations pass `data_max` (512 by default);
// the precision debugger warns at the same threshold, and measures instead of deciding by it.
inline constexpr double kActivationWarningThreshold = 512.0;
// A reduction over more elements than this accumulates in the low dtype at a loss (float16 adds
// lose every bit below 2^-11 of the running sum).
inline constexpr int64_t kDeepReductionThreshold = 4096;

// Why a node computing in `target` deserves a look, in words (see NodeErrorProfile::warnings): from
// its float32 range, its parameter inputs' largest magnitudes (by name) and, for a reduction, how
// many elements each output value sums (0: not a reduction).
std::vector<std::string> rangeWarnings(const RangeStats& stats, DType target,
                                       const std::vector<std::pair<std::string, double>>& paramMaxAbs,
                                       int64_t reducedPerOutput);
// Whether `op` (an MXNet or an ONNX op) sums in its dtype: the reductions, softmax and the norms.
bool isReductionOp(std::string_view op);

struct NodeErrorProfile {
    std::string name;
    std::string op;
    TensorDifference error;              // output 0 in the converted model against float32
    std::optional<TensorDifference> own;  // alone in the target dtype on float32 inputs
    RangeStats stats;                    // of its float32 output 0
    // Range warnings in words, as ModelOpt AutoCast's reasons read: values beyond the dtype's
    // largest, activations past kActivationWarningThreshold, values below the smallest normal, a
    // parameter input beyond the dtype's largest, a deep reduction. Empty when nothing stands out.
    std::vector<std::string> warnings;
};

struct SearchAttempt {
    std::vector<std::string> fp32Nodes;
    double value = 0.0;  // the metric over the outputs (+inf where undefined)
    bool meets = false;
};

struct PrecisionSearchOptions {
    ConversionOptions conversion;  // its excludedSymNames are kept and added to
    PrecisionMetric metric = PrecisionMetric::MaxRel;
    double tolerance = 1e-2;
    double atol = 0.0;        // AllClose's absolute tolerance
    uint64_t seed = 1;        // parameters' initial values where no .params are given
    int maxAttempts = 64;     // conversions run by the search, the baseline included
    // Stop after measuring (the float32 reference, the baseline, every node's figures): what the
    // error view shows before anyone asks for a search.
    bool measureOnly = false;
    // Attempts after the baseline compute only what differs from the float32 reference and the
    // baseline (exec/reused_values): the same figures, in a fraction of the work. Off: every attempt
    // runs its whole model (what the tests compare against).
    bool reuseValues = true;
    // Called after every attempt; returning false stops the search (its best set so far stands).
    std::function<bool(const SearchAttempt&)> progress;
    // Called as nodes are measured (done of total); returning false stops the measurement, and the
    // result then holds the nodes measured so far and no search.
    std::function<bool(std::size_t done, std::size_t total)> nodeProgress;
};

struct PrecisionSearchResult {
    std::vector<NodeErrorProfile> nodes;     // the target-dtype nodes, worst own error first
    // The other compute nodes (output float32 in the converted model), in graph order: error they
    // inherit only, no own error; what the error view colours downstream of the casts.
    std::vector<NodeErrorProfile> float32Nodes;
    std::vector<std::string> fp32Nodes;   // the set found (excluded in `conversion`)
    std::vector<SearchAttempt> attempts;  // in order, the baseline (nothing excluded) first
    // The baseline conversion's outputs against the float32 reference, heads in order: where the
    // reference itself is not finite (referenceFinite()), every figure is over the finite pairs only.
    std::vector<TensorDifference> outputs;
    double value = 0.0;                   // the metric with fp32Nodes excluded
    bool meets = false;                   // false when even excluding every candidate does not
    bool stopped = false;                 // progress() stopped it
    ConversionResult conversion;          // with fp32Nodes excluded
    // Wall seconds: the float32 reference, the baseline conversion run, every node's figures (own
    // errors), the search's further attempts.
    double referenceSeconds = 0.0, baselineSeconds = 0.0, nodesSeconds = 0.0, searchSeconds = 0.0;
    // The search's attempts after the baseline: op nodes in their converted graphs, and those run
    // (fewer where values were reused).
    std::size_t searchNodes = 0, searchNodesRun = 0;
};

// The metric over the outputs of a run (host values, heads in order) against the reference's.
double precisionMetricValue(PrecisionMetric metric, const std::vector<std::vector<float>>& reference,
                            const std::vector<std::vector<float>>& converted, const std::vector<Shape>& shapes,
                            double atol = 0.0);

// Throws ConversionError, OpError or std::invalid_argument (bad inputs, a graph that cannot run).
PrecisionSearchResult searchFloat32Set(const Graph& source, const NDArrayList* params,
                                       const std::map<std::string, HostArray>& inputs, Backend& backend,
                                       const PrecisionSearchOptions& options);

}  // namespace ampstudio
