#pragma once
// The questions asked of one graph (the original or the converted one) and its conversion report,
// answered from indexes built once: what a node decided and why; what a cast casts and for whom;
// which cast sits on an original edge after conversion; the dtype every edge carries; a variable's
// role, seen through the casts; a node's inputs and outputs as rows. The node inspector, the graph
// drawing and `ampstudio-cli inspect --node` all ask here, so they never disagree. Building costs
// one pass over the graph and the report; each question then costs in proportion to a node's
// edges, even in a graph of 100,000 nodes. Immutable once built: share it across threads freely.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "amp/conversion_report.h"
#include "graph/graph.h"
#include "ops/variable_roles.h"

namespace ampstudio {

// amp_cast or amp_multicast: the cast nodes a conversion inserts (and a converted file holds).
bool isAmpCastOp(std::string_view op);

// The graph with every read of an amp_cast / amp_multicast output redirected to what it casts, so
// that classifyVariables sees where a variable really goes (fc1_weight is fc1's weight, not the
// input of fc1_weight_amp_cast_float16). Chains of casts collapse too.
Graph readThroughCasts(const Graph& graph);

// Why a cast is there, in a sentence: "casts fc1_weight to float16 for fc1", "brings cos0 and sin0
// to the widest of their dtypes at run time, for _plus0". The GUI says the same in translations.
std::string describeCast(const CastRecord& cast);

// The dtype an edge carries, where the conversion knows it.
struct EdgeDtype {
    std::string dtype;    // "float16", "float32" ...; "widest" for an amp_multicast; empty: unknown
    std::string viaCast;  // on the original graph: the cast the edge goes through after conversion
    bool known() const { return !dtype.empty(); }
};

struct InputRow {
    uint32_t slot = 0;
    std::string slotName;  // the operator's name for the input ("weight"), else its number
    NodeId source = 0;
    uint32_t output = 0;
    std::string outputName;  // the source op's name for that output; empty for a variable
    std::string entryName;   // "fc1_output", as MXNet names the entry
    EdgeDtype dtype;
};

struct OutputRow {
    uint32_t output = 0;
    std::string outputName;          // empty for a variable
    std::optional<NodeId> consumer;  // absent: a graph output
    EdgeDtype dtype;
};

class ConversionIndex {
public:
    // `report` may be null (a graph no conversion has run on).
    ConversionIndex(std::shared_ptr<const Graph> graph, std::shared_ptr<const ConversionReport> report);

    const std::shared_ptr<const Graph>& graph() const { return m_graph; }
    const std::shared_ptr<const ConversionReport>& report() const { return m_report; }
    // True when the graph is the conversion's result (its cast nodes are the report's); false for
    // the original, on whose edges the report's casts sit.
    bool graphIsConverted() const { return m_graphIsConverted; }

    std::optional<NodeId> find(std::string_view name) const;
    const NodeDecision* decision(std::string_view name) const;
    // The report's record of a cast node of the converted graph; null otherwise.
    const CastRecord* castRecord(NodeId id) const;
    // On the original graph: the cast that sits on source[output] -> consumer after conversion (an
    // empty consumer: the graph output). Null on the converted graph or when there is none.
    const CastRecord* castInto(std::string_view source, uint32_t output, std::string_view consumer) const;
    EdgeDtype edgeDtype(NodeId source, uint32_t output, std::string_view consumer) const;
    // A variable's role, through the casts; Input for an operator node.
    VariableRole role(NodeId id) const { return m_roles[id]; }
    const std::vector<NodeId>& consumers(NodeId id) const { return m_consumers[id]; }

    std::vector<InputRow> inputs(NodeId id) const;
    // One row per consumer and output it reads (reading one output twice is one row), in graph
    // order, then one per graph output the node gives.
    std::vector<OutputRow> outputs(NodeId id) const;

private:
    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<const ConversionReport> m_report;
    std::unordered_map<std::string_view, NodeId> m_ids;
    std::vector<std::vector<NodeId>> m_consumers;
    std::vector<VariableRole> m_roles;
    std::unordered_map<std::string_view, const NodeDecision*> m_decisions;
    std::unordered_map<std::string_view, const CastRecord*> m_castsByName;
    std::unordered_multimap<std::string_view, const CastRecord*> m_castsBySource;
    bool m_graphIsConverted = false;
};

}  // namespace ampstudio
