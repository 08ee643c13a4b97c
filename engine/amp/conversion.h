#pragma once
// The AMP conversion pass (DESIGN.md section 4): copies an FP32 graph and inserts amp_cast /
// amp_multicast nodes so that each node runs in the precision its operator lists decide, in one of
// two modes: `typed` (MXNet 1.9.1 ReducePrecision, the default) or `classic` (MXNet <= 1.6). The
// result is in NNVM's DFS order with MXNet's cast names, so a saved file diffs cleanly against
// MXNet's own output. O(nodes + edges).

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "amp/amp_lists.h"
#include "amp/conversion_mode.h"
#include "amp/conversion_report.h"
#include "graph/graph.h"

namespace ampstudio {

class FormatSource;

// Anything that stops a conversion: overlapping lists, an invalid source graph, a widest-type op
// without inputs or with mutable inputs. The message names the list entry or the node.
class ConversionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ConversionOptions {
    AmpLists lists = AmpLists::defaults(DType::F16);  // lists.targetDtype is the target dtype
    ConversionMode mode = ConversionMode::Typed;
    // Node names forced out of the lists: typed mode runs them in float32 (variables included),
    // classic mode copies them unchanged (MXNet's excluded_sym_names).
    std::set<std::string> excludedSymNames;
    // Graph inputs that carry data rather than parameters (MXNet's data_names): float32 in the
    // dtype check, no __dtype__ mark. Every other variable is a model parameter.
    std::set<std::string> dataNames{"data"};
    // Store parameters in the dtype their readers use instead of casting them at run time (MXNet's
    // cast_optional_params): typed mode leaves them uncast for target-dtype ops; both modes then
    // apply MXNet's AMPInferUnknown to parameters whose dtype nothing decides.
    bool castOptionalParams = false;
    // ONNX models: graph inputs and outputs may change to the target dtype (an input when every
    // reader runs in it; an output as its producer computes it). False keeps them float32, so the
    // converted model is a drop-in replacement.
    bool lowPrecisionIo = false;

    friend bool operator==(const ConversionOptions&, const ConversionOptions&) = default;
};

struct ConversionResult {
    Graph graph;
    ConversionReport report;
    // Parameters whose values must be written in the target dtype (their __dtype__ mark, as MXNet
    // sets it after its pass: mostly cast_optional_params, also a parameter a target-dtype op reads
    // uncast, e.g. LeakyReLU's prelu gamma); feed it to applyParamCasting().
    std::set<std::string> storedInTargetDtype;
    // The converted model in its format's terms where the graph does not say all of it (ONNX: the
    // whole ModelProto, initializers already in their new dtypes); null for MXNet.
    std::shared_ptr<const FormatSource> source;
};

// convertGraph for MXNet graphs, convertOnnxModel (amp/onnx_conversion.h) when `source` is an ONNX
// model: what the CLI, the workspace and the search call with a document.
ConversionResult convertModel(const Graph& graph, const FormatSource* source, const ConversionOptions& options);

// Throws ConversionError; the source graph is not modified. Every result carries its dtype check
// (report.dtypeCheck, checkConvertedDtypes below) and, when it passes, MXNet's __dtype__ marks on
// the model parameters. Typed mode first
// converts as MXNet 1.9.1 does; where that result fails the check (MXNet's pass trusts a dtype it
// believes an entry has while wiring the entry as it is; MXNet then raises after its pass, or its
// result cannot be bound), it converts again with those reads
// repaired and says so in report.mxnetFailure and report.mxnetDifferences. A result whose check
// still fails (classic mode has no repair: it is MXNet 1.6.0's result) must not be saved.
ConversionResult convertGraph(const Graph& source, const ConversionOptions& options);

// What the dtype check needs besides the converted graph.
struct ConvertedDtypeInputs {
    std::set<std::string> dataNames;      // float32 data inputs (MXNet's data_names)
    std::set<std::string> pinnedFloat32;  // parameters kept float32 whatever inference finds
    std::set<std::string> storedInTarget;  // parameters known to be stored in the target dtype
    DType target = DType::F16;
    bool castOptionalParams = false;
};

struct ConvertedDtypes {
    DtypeCheck check;
    // Per node of the converted graph: for a model parameter (a variable not in dataNames) the dtype
    // MXNet's convert_symbol marks it with (__dtype__), which convert_model casts the .params to;
    // Unknown elsewhere. Empty when the check failed after the pass.
    std::vector<DType> params;

    // name -> dtype of every parameter (for reports; the vector is what the conversion uses).
    std::map<std::string, DType> byName(const Graph& converted) const;
};

// The dtype check on its own, for any converted graph, as MXNet's convert_symbol and binding run
// it: (1) InferType with the data float32 and the parameters free, as convert_symbol does after
// its pass; (2) each parameter's dtype from that (float32 where unknown; with cast_optional_params,
// MXNet's AMPInferUnknown first); (3) InferType afresh with every input's dtype known, as binding
// the saved model does.
ConvertedDtypes checkConvertedDtypes(const Graph& converted, const ConvertedDtypeInputs& inputs);

}  // namespace ampstudio
