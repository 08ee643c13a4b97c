#pragma once
// Internal to convertGraph(): one run of the pass over a validated source graph. The per-node rules
// of each mode (classic_rules.cpp, typed_rules.cpp) decide; the shared machinery here
// (conversion_pass.cpp) records the decisions as a compact plan: per converted node what it is (a
// copy of a source node, a cast of a source entry, a multicast) and its inputs, as ids. Nothing is
// named or copied until materialize(), which puts the plan into NNVM's DFS order and then writes each
// node once, in that order. (Building nodes first and reordering them after moved every node once
// more, with a cache miss each: a third of the time on a 100k-node graph.)

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "amp/conversion.h"
#include "amp/entry_map.h"
#include "amp/op_list_index.h"
#include "amp/report_storage.h"
#include "graph/graph.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio::amp_detail {

// What a run needs that does not change between the runs of one conversion.
struct PassInput {
    const Graph& source;
    const ConversionOptions& options;
    const OpListIndex& lists;
    const std::vector<uint32_t>& rowPtr;  // source.nodeRowPtr()
    const std::vector<char>& reachable;   // per source node: reachable from the heads
    DType target;
    // Typed mode, second run after MXNet 1.9.1's result failed the dtype check: every node reads
    // its inputs in the dtype its decision needs (MxnetDifference). `storedInTarget`: the parameters
    // the first run stored in the target dtype, which the dtype check takes as such.
    bool repair = false;
    const std::set<std::string>* storedInTarget = nullptr;
};

class ConversionPass {
public:
    // paramsAsData: variables that typed mode's cast_optional_params must treat as data (cast them)
    // in addition to options.dataNames.
    ConversionPass(const PassInput& input, const std::set<std::string>& paramsAsData);

    // Visit every reachable source node in order, then plan the heads.
    void run();
    // The converted graph in NNVM's DFS order, and the report completed (casts, consumers, counts).
    // Call once, after run().
    Graph materialize();

    ConversionReport& report() { return m_report; }
    // Typed mode with cast_optional_params: parameters recorded as target dtype by a target op that
    // some other node also reads as they are (in float32). Storing them in the target dtype would
    // break that reader, so the conversion reruns with them treated as data. Pairs (param, reader).
    std::vector<std::pair<std::string, std::string>> conflictingParams() const;
    // Parameters recorded as target dtype (after the rerun: exactly those to store so).
    std::set<std::string> storedInTargetDtype() const;

private:
    // One node of the converted graph, before it is materialized. Ids of planned nodes ("plan ids")
    // are their positions in m_plan, in creation order (topological: inputs are planned first).
    enum class PlannedKind : uint8_t { Copy, Cast, Multicast };
    struct PlannedNode {
        PlannedKind kind;
        DType dtype;       // Cast: the dtype cast to
        NodeId source;     // Copy: the source node; Cast: the source entry's node; Multicast: the reader
        uint32_t index;    // Cast: the source entry's output index
        uint32_t version;  // Cast: the source entry's version
    };

    // --- shared machinery (conversion_pass.cpp) ---
    const Node& sourceNode(NodeId id) const { return m_in.source.nodes[id]; }
    bool isVariableEntry(const NodeEntry& e) const { return m_in.source.nodes[e.node].isVariable(); }
    // The converted copy of the source entry, with no cast (NNVM: mirror_map + index + version).
    NodeEntry plainMirror(const NodeEntry& e) const { return {m_mirror[e.node], e.index, e.version}; }
    // A new amp_cast of `e` to `dtype`, recorded in `map` so that later readers share it.
    NodeEntry addCast(const NodeEntry& e, DType dtype, EntryMap& map);
    // `map`'s entry for e, or a new cast (the common "use the mirror entry or cast it" step).
    NodeEntry mappedOrCast(const NodeEntry& e, DType dtype, EntryMap& map);
    // One amp_multicast over all inputs of the source node; input i is read from its output i.
    NodeId addMulticast(NodeId id);
    // Repair mode: input i (of dtype `has`, the target dtype) of the multicast for source node `id`
    // is read through a float32 cast (returned), recorded as a difference from MXNet 1.9.1.
    NodeEntry castMulticastInput(NodeId id, uint32_t i, DType has);
    // Plans the copy of source node `id` with m_inputs as its inputs; returns its plan id.
    NodeId appendCopy(NodeId id);
    NodeId plan(const PlannedNode& node, const NodeEntry* inputs, std::size_t count);
    // "<source name><suffix><tail>" into `out`, the suffix "", "_<output name>" or "_<index>" as
    // MXNet's GetSuffix: one allocation per cast name (these names never fit the small buffer).
    void appendCastName(const NodeEntry& e, std::string_view tail, std::string& out) const;
    void recordOutputs(NodeId id, NodeId copy, EntryMap& map);
    void recordOutputsByType(NodeId id, NodeId copy, const std::vector<DType>& outTypes);
    // materialize(): the planned ids in NNVM's DFS order (the converted graph's order).
    std::vector<NodeId> finalOrder() const;
    // materialize(): fills `n` (default-constructed) for a planned id, with inputs in final ids.
    void buildNode(NodeId planId, const std::vector<NodeId>& finalId, Node& n) const;
    void fillCastRecord(const PlannedNode& planned, const Node& node, CastRecord& record);
    void finishCounts(std::size_t convertedSize);
    // The report's copy of a text that recurs (op names, conditional details): stored once.
    std::string_view keepOnce(std::string_view text);
    // The report's text for "<param>=<value>" of a conditional_fp32_ops match.
    std::string_view conditionalDetail(const ConditionalFp32Op& entry, const Node& n);

    // cast_optional_params bookkeeping: a variable read as it is by a node that does not want it in
    // the target dtype (`used` is what the reader got for source entry `e`).
    void notePlainRead(const NodeEntry& e, const NodeEntry& used, NodeId reader);

    // --- classic mode (classic_rules.cpp) ---
    void classicNode(NodeId id);
    void classicCastAll(NodeId id, DType dtype, EntryMap& map);

    // --- typed mode (typed_rules.cpp) ---
    void typedNode(NodeId id);
    void typedFloat32(NodeId id, bool excluded);
    // Plans the inputs of a node that runs in float32: the fp32 map's entry when there is one, else the
    // input as it is where keepAsIs(i, e) says so, else a float32 cast. (Defined in typed_rules.cpp.)
    template <typename KeepAsIs>
    void planFloat32Inputs(NodeId id, KeepAsIs keepAsIs);
    void typedTarget(NodeId id);
    void typedWidest(NodeId id);
    void typedConditional(NodeId id, const ConditionalFp32Op& entry);
    void typedPassThrough(NodeId id, const OpClass& cls);
    void typedHeads();
    bool isOptionalParam(const NodeEntry& e) const;

    // --- repair mode (typed_rules.cpp): the dtypes entries of the converted graph really have ---
    // A planned entry's dtype: a copy's from m_actualSource, a cast's its own, a multicast's the
    // widest of its inputs'. Unknown where the dtype check would infer it from its readers.
    DType actualDtype(const NodeEntry& planned) const;
    // Replaces the inputs (m_inputs) of source node `id` whose dtype is known and differs from
    // `needed` (per input; only float32 and the target dtype are needed) by casts, and records each.
    void repairInputs(NodeId id, const std::vector<DType>& needed, const std::vector<uint32_t>& mutableInputs);
    // The dtypes of the copy's outputs from those of its inputs (m_inputs); called by appendCopy().
    void noteActualOutputs(NodeId id);

    const PassInput& m_in;
    const MxnetOpFacts& m_registry;
    const std::set<std::string>& m_paramsAsData;
    const bool m_trackParams;  // typed mode with cast_optional_params
    ConversionReport m_report;
    // What the report's views point into (m_report.storage, writable here), and the texts stored
    // once: op names, conditional details.
    std::shared_ptr<ReportStorage> m_storage;
    std::unordered_map<std::string_view, std::string_view> m_keptOnce;
    std::string m_scratch;                   // conditionalDetail()
    std::size_t m_multicastSourcesUsed = 0;  // of m_storage->multicastSources, by fillCastRecord()

    std::vector<NodeId> m_mirror;  // source node -> plan id of its copy
    std::vector<PlannedNode> m_plan;
    std::vector<uint32_t> m_inputBegin;   // plan id -> first of its inputs in m_planInputs (CSR)
    std::vector<NodeEntry> m_planInputs;  // entries of plan ids
    std::vector<NodeId> m_castPlanIds;    // casts and multicasts in creation order
    std::vector<NodeEntry> m_heads;       // entries of plan ids
    bool m_hasControlDeps = false;        // some planned copy has control dependencies
    EntryMap m_fp32Map;
    EntryMap m_targetMap;
    std::vector<NodeEntry> m_inputs;  // inputs of the node being copied
    std::vector<DType> m_inTypes;     // scratch for MxnetOpFacts::inferType
    std::vector<DType> m_outTypes;
    // Per source node (variables only): recorded as stored in the target dtype by a target op, and
    // the first node that reads it as it is while wanting another dtype (kNoReader if none).
    std::vector<char> m_paramInTarget;
    std::vector<NodeId> m_float32Reader;
    static constexpr NodeId kNoReader = ~NodeId{0};
    // Repair mode: per source entry (m_in.rowPtr), the dtype its copy really has.
    std::vector<DType> m_actualSource;
    std::vector<DType> m_needed;  // scratch for repairInputs()
};

// Throws ConversionError for overlapping lists or a target dtype that is not float16 / bfloat16:
// what both passes (MXNet graphs, ONNX models) check before anything else.
void checkListsAndTarget(const ConversionOptions& options);

}  // namespace ampstudio::amp_detail
