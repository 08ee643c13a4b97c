#pragma once
// The AMP conversion pass (DESIGN.md section 4): copies an FP32 graph and inserts amp_cast /
// amp_multicast nodes so that each node runs in the precision its operator lists decide, in one of
// two modes: `typed` (MXNet 1.9.1 ReducePrecision, the default) or `classic` (MXNet <= 1.6). The
// result is in NNVM's DFS order with MXNet's cast names, so a saved file diffs cleanly against
// MXNet's own output. O(nodes + edges).

#include <set>
#include <stdexcept>
#include <string>

#include "amp/amp_lists.h"
#include "amp/conversion_mode.h"
#include "amp/conversion_report.h"
#include "graph/graph.h"

namespace ampstudio {

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
    // Graph inputs that carry data rather than parameters; only used with castOptionalParams.
    std::set<std::string> dataNames{"data"};
    // Typed mode only: store parameters read only by target-dtype ops in the target dtype instead of
    // casting them at run time (MXNet's cast_optional_params).
    bool castOptionalParams = false;
};

struct ConversionResult {
    Graph graph;
    ConversionReport report;
    // Variables whose values must be written in the target dtype (cast_optional_params); feed it to
    // applyParamCasting(). Empty in classic mode and without castOptionalParams.
    std::set<std::string> storedInTargetDtype;
};

// Throws ConversionError; the source graph is not modified. Every result carries its dtype check
// (report.dtypeCheck): MXNet's InferType over the converted graph as binding runs it, with the
// data inputs (options.dataNames) float32, the parameters stored in the target dtype so, and
// every variable nothing else decides float32. Typed mode first
// converts as MXNet 1.9.1 does; where that result fails the check (MXNet's pass trusts a dtype it
// believes an entry has while wiring the entry as it is; MXNet then raises after its pass, or its
// result cannot be bound), it converts again with those reads
// repaired and says so in report.mxnetFailure and report.mxnetDifferences. A result whose check
// still fails (classic mode has no repair: it is MXNet 1.6.0's result) must not be saved.
ConversionResult convertGraph(const Graph& source, const ConversionOptions& options);

// The dtype check on its own, for any converted graph.
DtypeCheck checkConvertedDtypes(const Graph& converted, const std::set<std::string>& dataNames,
                                const std::set<std::string>& storedInTargetDtype, DType target);

}  // namespace ampstudio
