#include "amp/conversion_pass.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "amp/dfs_order.h"

namespace ampstudio::amp_detail {

namespace {
constexpr std::string_view kAmpCast = "amp_cast";
constexpr std::string_view kAmpMulticast = "amp_multicast";
constexpr NodeId kGraphOutputReader = ~NodeId{0} - 1;
}  // namespace

ConversionPass::ConversionPass(const PassInput& input, const std::set<std::string>& paramsAsData)
    : m_in(input),
      m_registry(MxnetOpFacts::instance()),
      m_paramsAsData(paramsAsData),
      m_trackParams(input.options.mode == ConversionMode::Typed && input.options.castOptionalParams),
      m_storage(std::make_shared<ReportStorage>()),
      m_mirror(input.source.size(), 0),
      m_fp32Map(input.rowPtr),
      m_targetMap(input.rowPtr) {
    const std::size_t n = m_in.source.size();
    m_plan.reserve(n + n / 2);
    m_inputBegin.reserve(n + n / 2 + 1);
    m_inputBegin.push_back(0);
    m_planInputs.reserve(2 * n);
    if (m_trackParams) {
        m_paramInTarget.assign(n, 0);
        m_float32Reader.assign(n, kNoReader);
    }
    if (m_in.repair) {
        m_actualSource.assign(m_in.rowPtr.empty() ? 0 : m_in.rowPtr.back(), DType::Unknown);
    }
    m_report.mode = m_in.options.mode;
    m_report.targetDtype = m_in.target;
    m_report.storage = m_storage;
}

void ConversionPass::run() {
    const Graph& source = m_in.source;
    // Each decision is written once, while its source node is in cache (resizing first would
    // write the whole array twice: a second sweep over memory that large graphs do not cache).
    m_report.nodes.reserve(source.size());
    for (NodeId id = 0; id < source.size(); ++id) {
        const Node& n = source.nodes[id];
        NodeDecision& d = m_report.nodes.emplace_back();
        d.name = m_storage->keep(n.name);
        d.op = keepOnce(n.op);
        if (!m_in.reachable[id]) {
            // MXNet visits only what the outputs reach (DFSVisit from the heads); so does this pass.
            d.rule = DecisionRule::Unreachable;
            continue;
        }
        if (m_in.options.mode == ConversionMode::Classic) {
            classicNode(id);
        } else {
            typedNode(id);
        }
        m_hasControlDeps = m_hasControlDeps || !n.controlDeps.empty();
        // Counted here, while the decision is in cache. Casts already in the graph do not count.
        if (!n.isVariable() && n.op != kAmpCast && n.op != kAmpMulticast) {
            ++m_report.computeNodes;
            if (d.dtype == m_in.target) {
                ++m_report.computeNodesInTarget;
            }
        }
    }
    if (m_in.options.mode == ConversionMode::Classic) {
        // The proposal leaves graph outputs as they are.
        for (const NodeEntry& h : source.heads) {
            m_heads.push_back(plainMirror(h));
        }
    } else {
        typedHeads();
    }
}

NodeId ConversionPass::plan(const PlannedNode& node, const NodeEntry* inputs, std::size_t count) {
    const NodeId id = static_cast<NodeId>(m_plan.size());
    m_plan.push_back(node);
    m_planInputs.insert(m_planInputs.end(), inputs, inputs + count);
    m_inputBegin.push_back(static_cast<uint32_t>(m_planInputs.size()));
    return id;
}

NodeEntry ConversionPass::addCast(const NodeEntry& e, DType dtype, EntryMap& map) {
    const NodeEntry input = plainMirror(e);
    const NodeId id = plan({PlannedKind::Cast, dtype, e.node, e.index, e.version}, &input, 1);
    m_castPlanIds.push_back(id);
    const NodeEntry out{id, 0, 0};
    map.set(e, out);
    return out;
}

NodeEntry ConversionPass::mappedOrCast(const NodeEntry& e, DType dtype, EntryMap& map) {
    if (const NodeEntry* m = map.find(e)) {
        return *m;
    }
    return addCast(e, dtype, map);
}

NodeId ConversionPass::addMulticast(NodeId id) {
    const Node& n = sourceNode(id);
    std::vector<NodeEntry> inputs;
    inputs.reserve(n.inputs.size());
    for (const NodeEntry& e : n.inputs) {
        inputs.push_back(plainMirror(e));
    }
    DType widest = DType::Unknown;
    if (m_in.repair) {
        // amp_multicast's outputs: the widest of its inputs, known when all of them are.
        std::vector<DType> dtypes;
        for (const NodeEntry& e : inputs) {
            dtypes.push_back(actualDtype(e));
        }
        widest = widestDtype(dtypes);
        // AMPMultiCastType fixes the outputs of the inputs it knows from what it knows when it
        // first runs: a narrow input's output becomes narrow if the float32 input is a parameter
        // that only a later sweep types, and binding then fails. Narrow inputs of a multicast that
        // is float32 anyway are cast to float32 before it, so that it never chooses anything else.
        // (Each cast is planned whole before the multicast's inputs are laid out.)
        for (uint32_t i = 0; widest == DType::F32 && i < inputs.size(); ++i) {
            if (dtypes[i] == m_in.target) {
                inputs[i] = castMulticastInput(id, i, dtypes[i]);
            }
        }
    }
    const NodeId mid = plan({PlannedKind::Multicast, widest, id, 0, 0}, inputs.data(), inputs.size());
    m_castPlanIds.push_back(mid);
    return mid;
}

NodeEntry ConversionPass::castMulticastInput(NodeId id, uint32_t i, DType has) {
    const Node& n = sourceNode(id);
    const NodeEntry& e = n.inputs[i];
    MxnetDifference& d = m_report.mxnetDifferences.emplace_back();
    appendCastName(n.inputs.front(), "_amp_multicast", d.node);
    d.input = i;
    appendCastName(e, "", d.source);
    d.sourceDtype = has;
    d.neededDtype = DType::F32;
    appendCastName(e, "_amp_cast_float32", d.cast);
    return mappedOrCast(e, DType::F32, m_fp32Map);
}

NodeId ConversionPass::appendCopy(NodeId id) {
    const NodeId copy = plan({PlannedKind::Copy, DType::Unknown, id, 0, 0}, m_inputs.data(), m_inputs.size());
    m_mirror[id] = copy;
    if (m_in.repair) {
        noteActualOutputs(id);
    }
    return copy;
}

void ConversionPass::appendCastName(const NodeEntry& e, std::string_view tail, std::string& out) const {
    const Node& n = sourceNode(e.node);
    std::optional<std::string> outputName;
    std::string index;
    if (!n.isVariable()) {
        outputName = m_registry.outputName(n, e.index);
        if (!outputName) {
            index = std::to_string(e.index);
        }
    }
    const std::string& suffix = outputName ? *outputName : index;
    out.reserve(n.name.size() + (n.isVariable() ? 0 : 1 + suffix.size()) + tail.size());
    out.append(n.name);
    if (!n.isVariable()) {
        out.append(1, '_').append(suffix);
    }
    out.append(tail);
}

std::string_view ConversionPass::keepOnce(std::string_view text) {
    if (text.empty()) {
        return {};  // a variable's op: half the nodes of most graphs
    }
    const auto it = m_keptOnce.find(text);
    if (it != m_keptOnce.end()) {
        return it->second;
    }
    const std::string_view kept = m_storage->keep(text);
    m_keptOnce.emplace(kept, kept);
    return kept;
}

std::string_view ConversionPass::conditionalDetail(const ConditionalFp32Op& entry, const Node& n) {
    m_scratch.assign(entry.param).append(1, '=').append(*n.attr(entry.param));
    return keepOnce(m_scratch);
}

void ConversionPass::recordOutputs(NodeId id, NodeId copy, EntryMap& map) {
    const uint32_t outputs = sourceNode(id).numOutputs;
    for (uint32_t i = 0; i < outputs; ++i) {
        map.set({id, i, 0}, {copy, i, 0});
    }
}

void ConversionPass::recordOutputsByType(NodeId id, NodeId copy, const std::vector<DType>& outTypes) {
    for (uint32_t i = 0; i < outTypes.size(); ++i) {
        if (outTypes[i] == m_in.target) {
            m_targetMap.set({id, i, 0}, {copy, i, 0});
        } else if (outTypes[i] == DType::F32) {
            m_fp32Map.set({id, i, 0}, {copy, i, 0});
        }
    }
}

void ConversionPass::notePlainRead(const NodeEntry& e, const NodeEntry& used, NodeId reader) {
    if (!m_trackParams || !isVariableEntry(e) || used.node != m_mirror[e.node]) {
        return;
    }
    if (m_float32Reader[e.node] == kNoReader) {
        m_float32Reader[e.node] = reader;
    }
}

void ConversionPass::typedHeads() {
    // MXNet 1.9.1: every output not known to be float32 gets a trailing amp_cast(float32), recorded
    // in the float32 map so that two identical outputs share it.
    for (const NodeEntry& h : m_in.source.heads) {
        if (const NodeEntry* m = m_fp32Map.find(h)) {
            m_heads.push_back(*m);
            notePlainRead(h, *m, kGraphOutputReader);
        } else {
            m_heads.push_back(addCast(h, DType::F32, m_fp32Map));
        }
    }
}

std::vector<NodeId> ConversionPass::finalOrder() const {
    // Edges for the DFS: inputs, then control dependencies (a copy's, mapped to plan ids). Without
    // control dependencies (most graphs) they are the planned inputs, and the source is not read.
    const std::size_t count = m_plan.size();
    std::vector<uint32_t> edgeBegin;
    std::vector<NodeId> edges;
    edges.reserve(m_planInputs.size());
    if (m_hasControlDeps) {
        edgeBegin.assign(count + 1, 0);
        for (NodeId p = 0; p < count; ++p) {
            for (uint32_t i = m_inputBegin[p]; i < m_inputBegin[p + 1]; ++i) {
                edges.push_back(m_planInputs[i].node);
            }
            if (m_plan[p].kind == PlannedKind::Copy) {
                for (NodeId dep : sourceNode(m_plan[p].source).controlDeps) {
                    edges.push_back(m_mirror[dep]);
                }
            }
            edgeBegin[p + 1] = static_cast<uint32_t>(edges.size());
        }
    } else {
        for (const NodeEntry& e : m_planInputs) {
            edges.push_back(e.node);
        }
    }
    std::vector<NodeId> heads;
    heads.reserve(m_heads.size());
    for (const NodeEntry& h : m_heads) {
        heads.push_back(h.node);
    }
    std::vector<NodeId> order = nnvmPostOrder(m_hasControlDeps ? edgeBegin : m_inputBegin, edges, heads);
    if (order.size() != count) {
        // Every planned node is read by a reachable node or is one: nothing may be dropped.
        throw ConversionError("internal error: " + std::to_string(count - order.size()) +
                              " converted nodes are not reachable from the outputs");
    }
    return order;
}

Graph ConversionPass::materialize() {
    // The entry maps, and the DFS's edges (in finalOrder()), are freed before the converted graph is
    // built, so that its names and inputs reuse that memory rather than fresh pages (a 1M-node graph:
    // ~10k fewer page faults).
    m_fp32Map.release();
    m_targetMap.release();
    const std::vector<NodeId> order = finalOrder();
    const std::size_t count = m_plan.size();
    std::vector<NodeId> finalId(count);
    for (NodeId position = 0; position < count; ++position) {
        finalId[order[position]] = position;
    }

    // One sweep in final order writes each node, its cast record (creation order: the record's slot
    // is the cast's rank among casts) and the consumers of the casts it reads, while the node and its
    // source are in cache.
    std::vector<int32_t> castRank(count, -1);
    for (std::size_t rank = 0; rank < m_castPlanIds.size(); ++rank) {
        castRank[m_castPlanIds[rank]] = static_cast<int32_t>(rank);
    }
    m_report.casts.resize(m_castPlanIds.size());
    // Consumers are counted first (plan ids: a reader is counted once per cast, whatever its
    // position), so that all of them fit in one array, each cast's consumers a span of it.
    // consumerNext[rank]: where the cast's next consumer goes.
    std::vector<NodeId> lastReader(m_castPlanIds.size(), ~NodeId{0});
    std::vector<uint32_t> consumerNext(m_castPlanIds.size(), 0);
    {
        for (NodeId p = 0; p < count; ++p) {
            for (uint32_t i = m_inputBegin[p]; i < m_inputBegin[p + 1]; ++i) {
                const int32_t rank = castRank[m_planInputs[i].node];
                if (rank >= 0 && lastReader[rank] != p) {
                    lastReader[rank] = p;
                    ++consumerNext[rank];
                }
            }
        }
        uint32_t total = 0;
        std::size_t multicastSources = 0;
        for (std::size_t rank = 0; rank < consumerNext.size(); ++rank) {
            const uint32_t consumers = consumerNext[rank];
            consumerNext[rank] = total;
            total += consumers;
            const PlannedNode& planned = m_plan[m_castPlanIds[rank]];
            if (planned.kind == PlannedKind::Multicast) {
                multicastSources += sourceNode(planned.source).inputs.size();
            }
        }
        m_storage->consumers.resize(total);
        m_storage->multicastSources.resize(multicastSources);
        const std::string_view* consumers = m_storage->consumers.data();
        for (std::size_t rank = 0; rank < consumerNext.size(); ++rank) {
            const uint32_t end = rank + 1 < consumerNext.size() ? consumerNext[rank + 1] : total;
            m_report.casts[rank].consumers = {consumers + consumerNext[rank], consumers + end};
        }
        std::fill(lastReader.begin(), lastReader.end(), ~NodeId{0});
    }

    Graph converted;
    converted.attrs = m_in.source.attrs;
    // Reserved, not resized: each node is constructed once, in place, and written while in cache.
    converted.nodes.reserve(count);
    for (NodeId position = 0; position < count; ++position) {
        const NodeId p = order[position];
        Node& node = converted.nodes.emplace_back();
        buildNode(p, finalId, node);
        // The report's view of the node's name: a copy keeps its source's name, a cast gets its own.
        std::string_view name;
        if (castRank[p] >= 0) {
            CastRecord& record = m_report.casts[castRank[p]];
            fillCastRecord(m_plan[p], node, record);
            name = record.name;
        } else {
            name = m_report.nodes[m_plan[p].source].name;
        }
        for (uint32_t i = m_inputBegin[p]; i < m_inputBegin[p + 1]; ++i) {
            const int32_t rank = castRank[m_planInputs[i].node];
            if (rank >= 0 && lastReader[rank] != position) {
                lastReader[rank] = position;
                m_storage->consumers[consumerNext[rank]++] = name;
            }
        }
    }
    converted.heads.reserve(m_heads.size());
    for (const NodeEntry& h : m_heads) {
        converted.heads.push_back({finalId[h.node], h.index, h.version});
        if (castRank[h.node] >= 0) {
            m_report.casts[castRank[h.node]].feedsGraphOutput = true;
        }
    }
    finishCounts(count);
    return converted;
}

void ConversionPass::buildNode(NodeId planId, const std::vector<NodeId>& finalId, Node& n) const {
    const PlannedNode& p = m_plan[planId];
    n.inputs.reserve(m_inputBegin[planId + 1] - m_inputBegin[planId]);
    for (uint32_t i = m_inputBegin[planId]; i < m_inputBegin[planId + 1]; ++i) {
        const NodeEntry& e = m_planInputs[i];
        n.inputs.push_back({finalId[e.node], e.index, e.version});
    }
    switch (p.kind) {
        case PlannedKind::Copy: {
            const Node& from = sourceNode(p.source);
            n.op = from.op;
            n.name = from.name;
            n.attrs = from.attrs;
            n.controlDeps.reserve(from.controlDeps.size());
            for (NodeId dep : from.controlDeps) {
                n.controlDeps.push_back(finalId[m_mirror[dep]]);
            }
            n.subgraphs = from.subgraphs;
            n.numOutputs = from.numOutputs;
            break;
        }
        case PlannedKind::Cast: {
            const std::string_view dtype = dtypeName(p.dtype);
            // MXNet 1.9.1 AddCastNode: "<source><suffix>_amp_cast_<dtype>", e.g.
            // conv0_output_amp_cast_float16. The tail is at most "_amp_cast_bfloat16": no allocation.
            char tail[32] = "_amp_cast_";
            const std::size_t tailSize = 10 + dtype.copy(tail + 10, sizeof(tail) - 10);
            appendCastName({p.source, p.index, p.version}, std::string_view(tail, tailSize), n.name);
            n.op = kAmpCast;
            n.attrs.emplace("dtype", dtype);
            break;
        }
        case PlannedKind::Multicast: {
            // MXNet AddMultiCastNode: named after input 0 ("<source><suffix>_amp_multicast"); never shared.
            const NodeEntry& first = sourceNode(p.source).inputs.front();
            appendCastName(first, "_amp_multicast", n.name);
            n.op = kAmpMulticast;
            n.numOutputs = static_cast<uint32_t>(n.inputs.size());
            n.attrs.emplace("num_outputs", std::to_string(n.inputs.size()));
            break;
        }
    }
}

void ConversionPass::fillCastRecord(const PlannedNode& planned, const Node& node, CastRecord& record) {
    // Source names are the decisions' views of them; only the cast's own name is new text.
    record.name = m_storage->keep(node.name);
    if (planned.kind == PlannedKind::Cast) {
        record.op = kAmpCast;
        record.dtype = dtypeName(planned.dtype);
        record.source = {m_report.nodes[planned.source].name, planned.index};
    } else {
        record.op = kAmpMulticast;
        record.dtype = "widest";
        const std::vector<NodeEntry>& inputs = sourceNode(planned.source).inputs;
        SourceOutput* sources = m_storage->multicastSources.data() + m_multicastSourcesUsed;
        m_multicastSourcesUsed += inputs.size();
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            sources[i] = {m_report.nodes[inputs[i].node].name, inputs[i].index};
        }
        record.multicastSources = {sources, inputs.size()};
        record.source = sources[0];
    }
}

void ConversionPass::finishCounts(std::size_t convertedSize) {
    // computeNodes and computeNodesInTarget were counted by run().
    m_report.nodesBefore = m_in.source.size();
    m_report.nodesAfter = convertedSize;
    for (NodeId p : m_castPlanIds) {
        ++(m_plan[p].kind == PlannedKind::Cast ? m_report.ampCastCount : m_report.ampMulticastCount);
    }
}

std::vector<std::pair<std::string, std::string>> ConversionPass::conflictingParams() const {
    std::vector<std::pair<std::string, std::string>> conflicts;
    if (!m_trackParams) {
        return conflicts;
    }
    for (NodeId id = 0; id < m_in.source.size(); ++id) {
        if (m_paramInTarget[id] && m_float32Reader[id] != kNoReader) {
            const NodeId reader = m_float32Reader[id];
            conflicts.emplace_back(sourceNode(id).name, reader == kGraphOutputReader
                                                            ? std::string("a graph output")
                                                            : "'" + sourceNode(reader).name + "'");
        }
    }
    return conflicts;
}

std::set<std::string> ConversionPass::storedInTargetDtype() const {
    std::set<std::string> names;
    if (!m_trackParams) {
        return names;
    }
    for (NodeId id = 0; id < m_in.source.size(); ++id) {
        if (m_paramInTarget[id]) {
            names.insert(sourceNode(id).name);
        }
    }
    return names;
}

}  // namespace ampstudio::amp_detail
