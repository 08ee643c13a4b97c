#pragma once
// What a conversion did and why: per original node the precision it runs in and the rule that
// decided it, every inserted cast with the edge it sits on, counts, and parameter bytes. The GUI's
// highlighting and the CLI's --report both read this; toJson() is the CLI's file format.
//
// The names in `nodes` and `casts` are views (std::string_view, std::span) into text the report
// owns (ConversionReport::storage) or into static strings, not strings of their own: a report
// describes every node of a graph, and a std::string per name was 40% of the allocations of a
// 1M-node conversion. Copies of a report share the storage, so views taken from any copy stay
// valid while one of them lives. Use .data() and .size() (or std::string(view)) to turn a view into
// another string type.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "amp/amp_lists.h"
#include "amp/conversion_mode.h"
#include "tensor/dtype.h"

namespace ampstudio {

enum class NodePrecision : uint8_t {
    Variable,   // a graph input (data, parameter or auxiliary state)
    Target,     // runs in float16 / bfloat16
    Float32,    // runs in float32
    Widest,     // runs in the widest dtype of its inputs (resolved in NodeDecision::dtype when known)
    Unchanged,  // runs in whatever it receives
};

// Which rule of the pass decided a node.
enum class DecisionRule : uint8_t {
    Variable,
    TargetList,       // op in target_dtype_ops
    Fp32List,         // op in fp32_ops
    WidestList,       // op in widest_dtype_ops
    ConditionalFp32,  // a conditional_fp32_ops entry matched the node's attribute
    Excluded,         // the node's name is excluded by the options
    NeutralList,      // op in neutral_ops: no rule applies, dtypes pass through
    NoList,           // op in no list: no rule applies, dtypes pass through
    Unreachable,      // not reachable from the graph outputs: dropped, as MXNet drops it
};

struct NodeDecision {
    std::string_view name;
    std::string_view op;  // empty for a variable
    NodePrecision precision = NodePrecision::Unchanged;
    DecisionRule rule = DecisionRule::NoList;
    // The dtype the node runs in (or, for a variable, is stored in) when the pass knows it; for
    // Unchanged nodes in typed mode the dtype of output 0 that propagated to it. Unknown otherwise.
    DType dtype = DType::Unknown;
    // Rule-specific facts for reason(): "act_type=softrelu" (ConditionalFp32); for WidestList
    // "inputs float16 and float32 → float32" or "input dtypes not all known → amp_multicast".
    std::string_view detail;

    // Human-readable: "FullyConnected is in target_dtype_ops", "excluded by name; runs in float32",
    // "conditional FP32: act_type=softrelu", "not in any list; inputs pass through", "variable", ...
    std::string reason() const;
    // "variable", "float16", "bfloat16", "float32", "widest" (unresolved) or "unchanged".
    std::string precisionName() const;
};

// An output of an original node. Equality compares the name's text.
struct SourceOutput {
    std::string_view node;
    uint32_t output = 0;
    friend bool operator==(const SourceOutput&, const SourceOutput&) = default;
};

struct CastRecord {
    std::string_view name;
    std::string_view op;     // "amp_cast" or "amp_multicast"
    std::string_view dtype;  // "float32", "float16", "bfloat16"; "widest" for amp_multicast
    SourceOutput source;     // what it casts (an amp_multicast: its input 0)
    // amp_multicast only: every input, in order (output i carries input i); empty for amp_cast.
    std::span<const SourceOutput> multicastSources;
    std::span<const std::string_view> consumers;  // nodes of the converted graph that read it, in graph order
    bool feedsGraphOutput = false;                // a trailing cast on a graph output (typed mode)
};

// The converted graph's dtypes checked as MXNet checks them when it binds the graph: InferType with
// the data inputs float32 and the parameters stored in the target dtype given, then the variables
// nothing decided float32. A graph that fails it is one MXNet would refuse; it is never saved.
struct DtypeCheck {
    bool passed = true;
    std::string node;  // the node whose dtype rule the inferred dtypes contradict
    std::string op;
    std::vector<DType> inputs;  // what it was given (Unknown where nothing was known)
    std::string message;        // "Convolution 'conv1' cannot take inputs (float32, float16, float16)"
    std::string stage;          // "after the pass" (MXNet's convert_symbol raises) or "binding"
};

// Typed mode where MXNet 1.9.1's own result fails its dtype check: one input that is wired
// differently from MXNet so that the converted graph is valid. MXNet's pass decides a node from
// the dtype it believes an entry has, but wires the node to the entry as it is; here it gets an
// amp_cast to the dtype its decision needs (MXNet's own cast of that entry where there is one).
struct MxnetDifference {
    std::string node;                     // the node of the converted graph
    uint32_t input = 0;                   // its input position
    std::string source;                   // what MXNet 1.9.1 wires there: "relu3" or "split0_output1"
    DType sourceDtype = DType::Unknown;   // that entry's real dtype
    DType neededDtype = DType::Unknown;   // the dtype the node's decision needs there
    std::string cast;                     // the amp_cast it reads instead
};

// The text and arrays the views of a report point into (defined in amp/report_storage.h).
class ReportStorage;

struct ConversionReport {
    ConversionMode mode = ConversionMode::Typed;
    DType targetDtype = DType::F16;
    std::vector<NodeDecision> nodes;  // one per original node, in original order
    // ONNX models: the decisions inside If / Loop / Scan bodies, which are no nodes of the Graph IR,
    // in the order the pass walked them; each named by its place, "<node>/<attribute>/<body node>"
    // ("then_branch", "body"; nested bodies nest; a GRAPHS attribute's entry as "<attribute>[i]").
    std::vector<NodeDecision> bodyNodes;
    std::vector<CastRecord> casts;    // in creation order
    // Owns what the views in `nodes` and `casts` point into; shared by copies of the report.
    std::shared_ptr<const ReportStorage> storage;
    std::size_t nodesBefore = 0;
    std::size_t nodesAfter = 0;
    std::size_t ampCastCount = 0;
    std::size_t ampMulticastCount = 0;
    // Reachable original nodes that compute (not variables, not existing amp_cast/amp_multicast), and
    // how many of them run in the target dtype (known to, in classic mode only target-list ops).
    std::size_t computeNodes = 0;
    std::size_t computeNodesInTarget = 0;
    // Parameter names written in the target dtype (cast_optional_params), sorted.
    std::vector<std::string> storedInTargetDtype;
    // Filled by applyParamCasting(); paramsKnown stays false when no .params were given.
    bool paramsKnown = false;
    uint64_t paramBytesBefore = 0;
    uint64_t paramBytesAfter = 0;
    std::vector<std::string> warnings;
    std::vector<UnmatchableListEntry> unmatchableListEntries;
    // The converted graph's dtype check; a conversion whose check failed must not be saved.
    DtypeCheck dtypeCheck;
    // Typed mode: what makes MXNet 1.9.1's own result of this conversion invalid (its dtype check's
    // message; empty when MXNet's result is valid and this one equals it), and the inputs wired
    // differently from MXNet to give a valid graph instead.
    std::string mxnetFailure;
    std::vector<MxnetDifference> mxnetDifferences;
    // ... and the parameters whose __dtype__ differs from MXNet's marks for its own result (MXNet
    // infers them after its pass; the repair keeps those it stores in the target dtype so).
    std::vector<std::string> mxnetParamDifferences;

    // computeNodesInTarget / computeNodes (0 for a graph without compute nodes).
    double targetShare() const;
    // Pretty JSON with keys: mode, target_dtype, nodes_before, nodes_after, amp_cast, amp_multicast,
    // compute_nodes, compute_nodes_in_target, target_share, params_known, param_bytes_before,
    // param_bytes_after, stored_in_target_dtype, warnings, unmatchable_list_entries,
    // dtype_check {passed, node, op, inputs, message}, mxnet_1_9_1 {result_valid, failure,
    // differences [{node, input, source, source_dtype, needed_dtype, cast}]},
    // nodes [{name, op, precision, dtype, rule, reason}],
    // casts [{name, op, dtype, source, source_output, sources [{node, output}], consumers, graph_output}].
    std::string toJson() const;
};

std::string_view decisionRuleName(DecisionRule rule);  // "target_dtype_ops", "excluded", ...

}  // namespace ampstudio
