#include "amp/conversion_index.h"

#include <algorithm>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {

bool isAmpCastOp(std::string_view op) { return op == "amp_cast" || op == "amp_multicast"; }

namespace {
// The ops the passes insert: MXNet's amp_cast / amp_multicast, ONNX's Cast (a Cast is an inserted
// one only where the report names it: a model's own Casts are ordinary nodes).
bool isInsertedCastOp(std::string_view op) { return isAmpCastOp(op) || op == "Cast"; }
}  // namespace

Graph readThroughCasts(const Graph& graph) {
    Graph g = graph;
    // Nodes come in topological order, so one step per edge also collapses chains of casts.
    for (Node& n : g.nodes) {
        for (NodeEntry& e : n.inputs) {
            const Node& source = g.nodes[e.node];
            if (source.op == "amp_cast" && !source.inputs.empty()) {
                e = source.inputs[0];
            } else if (source.op == "amp_multicast" && e.index < source.inputs.size()) {
                e = source.inputs[e.index];
            }
        }
    }
    return g;
}

namespace {

std::string sourceText(const SourceOutput& source) {
    std::string text(source.node);
    if (source.output != 0) {
        text += " (output " + std::to_string(source.output) + ")";
    }
    return text;
}

// "a", "a and b", "a, b and c"
template <typename Items, typename Text>
std::string listed(const Items& items, Text text) {
    std::string result;
    const std::size_t n = std::size(items);
    std::size_t i = 0;
    for (const auto& item : items) {
        result += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + text(item);
        ++i;
    }
    return result;
}

}  // namespace

std::string describeCast(const CastRecord& c) {
    const auto name = [](std::string_view v) { return std::string(v); };
    if (c.op == "amp_multicast") {
        return "brings " + listed(c.multicastSources, sourceText) + " to the widest of their dtypes at run time, for " +
               listed(c.consumers, name);
    }
    std::string text = "casts " + sourceText(c.source) + " to " + std::string(c.dtype);
    if (c.consumers.empty()) {
        return text + (c.feedsGraphOutput ? " for the graph output" : "");
    }
    text += " for " + listed(c.consumers, name);
    return c.feedsGraphOutput ? text + "; it is also a graph output" : text;
}

ConversionIndex::ConversionIndex(std::shared_ptr<const Graph> graph, std::shared_ptr<const ConversionReport> report)
    : m_graph(std::move(graph)), m_report(std::move(report)) {
    const Graph& g = *m_graph;
    m_ids.reserve(g.size());
    for (NodeId id = 0; id < g.size(); ++id) {
        m_ids.emplace(g.nodes[id].name, id);
    }
    m_consumers = g.consumers();
    const bool hasCasts = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return isAmpCastOp(n.op); });
    m_roles = classifyVariables(hasCasts ? readThroughCasts(g) : g);
    if (m_report) {
        m_decisions.reserve(m_report->nodes.size());
        for (const NodeDecision& d : m_report->nodes) {
            m_decisions.emplace(d.name, &d);
        }
        for (const CastRecord& c : m_report->casts) {
            m_castsByName.emplace(c.name, &c);
            if (c.multicastSources.empty()) {
                m_castsBySource.emplace(c.source.node, &c);
            }
            for (const SourceOutput& s : c.multicastSources) {
                m_castsBySource.emplace(s.node, &c);  // a name twice is harmless: castInto checks
            }
        }
    }
    m_graphIsConverted = std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) {
        return isInsertedCastOp(n.op) && m_castsByName.count(n.name) > 0;
    });
}

std::optional<NodeId> ConversionIndex::find(std::string_view name) const {
    const auto it = m_ids.find(name);
    return it == m_ids.end() ? std::nullopt : std::optional<NodeId>(it->second);
}

const NodeDecision* ConversionIndex::decision(std::string_view name) const {
    const auto it = m_decisions.find(name);
    return it == m_decisions.end() ? nullptr : it->second;
}

const CastRecord* ConversionIndex::castRecord(NodeId id) const {
    const Node& node = m_graph->nodes[id];
    if (!m_graphIsConverted || !isInsertedCastOp(node.op)) {
        return nullptr;
    }
    const auto it = m_castsByName.find(node.name);
    return it == m_castsByName.end() ? nullptr : it->second;
}

const CastRecord* ConversionIndex::castInto(std::string_view source, uint32_t output, std::string_view consumer) const {
    if (m_graphIsConverted) {
        return nullptr;
    }
    const auto [begin, end] = m_castsBySource.equal_range(source);
    const SourceOutput wanted{source, output};
    for (auto it = begin; it != end; ++it) {
        const CastRecord& c = *it->second;
        const bool readsIt = c.multicastSources.empty()
                                 ? c.source == wanted
                                 : std::find(c.multicastSources.begin(), c.multicastSources.end(), wanted) !=
                                       c.multicastSources.end();
        if (!readsIt) {
            continue;
        }
        if (consumer.empty() ? c.feedsGraphOutput
                             : std::find(c.consumers.begin(), c.consumers.end(), consumer) != c.consumers.end()) {
            return &c;
        }
    }
    return nullptr;
}

EdgeDtype ConversionIndex::edgeDtype(NodeId sourceId, uint32_t output, std::string_view consumer) const {
    const Node& source = m_graph->nodes[sourceId];
    if (source.op == "amp_cast") {
        const std::string* dtype = source.attr("dtype");
        return {dtype ? *dtype : std::string(), {}};
    }
    if (source.op == "amp_multicast") {
        return {"widest", {}};
    }
    if (const CastRecord* c = source.op == "Cast" ? castRecord(sourceId) : nullptr) {
        return {std::string(c->dtype), {}};
    }
    if (const CastRecord* c = castInto(source.name, output, consumer)) {
        return {c->op == "amp_multicast" ? std::string("widest") : std::string(c->dtype), std::string(c->name)};
    }
    // A decision's dtype is that of output 0; other outputs (BatchNorm's mean, var) may differ.
    const NodeDecision* d = decision(source.name);
    if (d != nullptr && output == 0 && d->dtype != DType::Unknown) {
        return {std::string(dtypeName(d->dtype)), {}};
    }
    return {};
}

std::vector<InputRow> ConversionIndex::inputs(NodeId id) const {
    const Graph& g = *m_graph;
    const Node& node = g.nodes[id];
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    const auto slotNames = node.isVariable() ? std::nullopt : registry.inputNames(node);
    std::vector<InputRow> rows;
    rows.reserve(node.inputs.size());
    for (uint32_t i = 0; i < node.inputs.size(); ++i) {
        const NodeEntry& e = node.inputs[i];
        const Node& source = g.node(e);
        InputRow row;
        row.slot = i;
        row.slotName = slotNames && i < slotNames->size() ? (*slotNames)[i] : std::to_string(i);
        row.source = e.node;
        row.output = e.index;
        if (!source.isVariable()) {
            const auto name = registry.outputName(source, e.index);
            row.outputName = name ? *name : std::to_string(e.index);
        }
        row.entryName = outputEntryName(source, e.index);
        row.dtype = edgeDtype(e.node, e.index, node.name);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<OutputRow> ConversionIndex::outputs(NodeId id) const {
    const Graph& g = *m_graph;
    const Node& node = g.nodes[id];
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    const auto outputName = [&](uint32_t index) {
        if (node.isVariable()) {
            return std::string();
        }
        const auto name = registry.outputName(node, index);
        return name ? *name : std::to_string(index);
    };
    std::vector<OutputRow> rows;
    for (NodeId consumerId : m_consumers[id]) {
        const Node& consumer = g.nodes[consumerId];
        std::vector<uint32_t> read;
        for (const NodeEntry& e : consumer.inputs) {
            if (e.node == id && std::find(read.begin(), read.end(), e.index) == read.end()) {
                read.push_back(e.index);
            }
        }
        std::sort(read.begin(), read.end());
        for (uint32_t index : read) {
            rows.push_back({index, outputName(index), consumerId, edgeDtype(id, index, consumer.name)});
        }
    }
    for (const NodeEntry& head : g.heads) {
        if (head.node == id) {
            rows.push_back({head.index, outputName(head.index), std::nullopt, edgeDtype(id, head.index, {})});
        }
    }
    return rows;
}

}  // namespace ampstudio
