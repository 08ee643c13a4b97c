// Reading follows NNVM's LoadJSON (dmlc::JSONReader semantics for repeated keys and optional fields)
// and MXNet's LoadLegacyJSON, but every check dmlc does with a CHECK (abort) or not at all is a
// LoadError here: the file is hostile until proven otherwise.

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "formats/dmlc_json_writer.h"
#include "formats/json_tape.h"
#include "formats/legacy_upgrade.h"
#include "formats/load_error.h"
#include "formats/node_place.h"
#include "formats/symbol_json.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio {

namespace {

using Kind = JsonTape::Kind;

std::string describe(Kind kind) {
    switch (kind) {
        case Kind::Null:
            return "null";
        case Kind::Bool:
            return "a boolean";
        case Kind::Int:
            return "a negative number";
        case Kind::Uint:
            return "a number";
        case Kind::Float:
            return "a non-integer number";
        case Kind::String:
            return "a string";
        case Kind::Object:
            return "an object";
        case Kind::Array:
            return "an array";
    }
    return "a value";
}

// One graph object (the document, or a subgraph inside it) from the tape.
class GraphReader {
public:
    GraphReader(const JsonTape& tape, const std::string& source) : m_tape(tape), m_source(source) {}

    // `place` prefixes every error location inside a subgraph ("node 4 ('loop') subgraph 0").
    // The result is validated and holds only what the heads reach, renumbered in DFS order.
    Graph read(uint32_t at, const std::string& place, bool topLevel);

private:
    struct Fields {
        std::optional<uint32_t> nodes, argNodes, heads, nodeRowPtr, attrs;
    };

    [[noreturn]] void fail(const std::string& place, const std::string& where,
                           const std::string& reason) const {
        std::string full = place;
        if (!where.empty()) {
            full += (full.empty() ? "" : ", ") + where;
        }
        throw LoadError(m_source, full, reason);
    }
    // `where` is a callable that makes the location text: only on failure, as most reads succeed.
    template <typename Where>
    void expect(uint32_t at, Kind kind, const std::string& place, const Where& where) const {
        if (m_tape.kind(at) != kind) {
            fail(place, where(), "expected " + describe(kind) + ", found " + describe(m_tape.kind(at)));
        }
    }
    template <typename Where>
    uint32_t readId(uint32_t at, const std::string& place, const Where& where) const;
    template <typename Where>
    NodeEntry readEntry(uint32_t at, const std::string& place, const Where& where) const;
    template <typename Where>
    void readStringMap(uint32_t at, Attributes& into, const std::string& place, const Where& where) const;
    Node readNode(uint32_t at, NodeId id, const std::string& place);
    std::vector<uint32_t> readOutputCounts(const Fields& fields, const std::vector<Node>& nodes,
                                           const std::vector<NodeEntry>& heads,
                                           const std::string& place) const;
    void readGraphAttrs(uint32_t at, Graph& graph) const;

    const JsonTape& m_tape;
    const std::string& m_source;
};

template <typename Where>
uint32_t GraphReader::readId(uint32_t at, const std::string& place, const Where& where) const {
    const Kind kind = m_tape.kind(at);
    if (kind != Kind::Uint) {
        fail(place, where(), "expected a non-negative integer, found " + describe(kind));
    }
    const uint64_t value = m_tape.unsignedValue(at);
    if (value > std::numeric_limits<uint32_t>::max()) {
        fail(place, where(), std::to_string(value) + " is out of range");
    }
    return static_cast<uint32_t>(value);
}

// [node_id, index] or [node_id, index, version], as NNVM's JSONNode::Entry reads it.
template <typename Where>
NodeEntry GraphReader::readEntry(uint32_t at, const std::string& place, const Where& where) const {
    expect(at, Kind::Array, place, where);
    const uint32_t n = m_tape.size(at);
    if (n != 2 && n != 3) {
        fail(
            place, where(),
            "expected [node, output] or [node, output, version], found " + std::to_string(n) + " element(s)");
    }
    NodeEntry entry;
    uint32_t e = m_tape.first(at);
    entry.node = readId(e, place, where);
    e = m_tape.next(e);
    entry.index = readId(e, place, where);
    if (n == 3) {
        entry.version = readId(m_tape.next(e), place, where);
    }
    return entry;
}

// dmlc's map reader: starts from an empty map, later duplicates win. Values must be strings, as
// in dmlc; a number is rejected rather than guessed at (1.0 and 1 would read back differently).
template <typename Where>
void GraphReader::readStringMap(uint32_t at, Attributes& into, const std::string& place,
                                const Where& where) const {
    expect(at, Kind::Object, place, where);
    into.clear();
    // Nodes carry a handful of attributes; a hostile object's size is not reserved.
    into.reserve(std::min<uint32_t>(m_tape.size(at), 16));
    for (uint32_t k = m_tape.first(at); k < m_tape.next(at); k = m_tape.next(k + 1)) {
        const std::string_view key = m_tape.text(k);
        if (m_tape.kind(k + 1) != Kind::String) {
            fail(place, where() + " '" + displayNodeName(key) + "'",
                 "expected a string value, found " + describe(m_tape.kind(k + 1)));
        }
        into.insert_or_assign(std::string(key), std::string(m_tape.text(k + 1)));
    }
}

Node GraphReader::readNode(uint32_t at, NodeId id, const std::string& place) {
    const auto idPlace = [id] { return "node " + std::to_string(id); };
    expect(at, Kind::Object, place, idPlace);
    // The name first, so that every later message can carry it.
    std::optional<std::string_view> name;
    for (uint32_t k = m_tape.first(at); k < m_tape.next(at); k = m_tape.next(k + 1)) {
        if (m_tape.text(k) == "name") {
            expect(k + 1, Kind::String, place, [&] { return idPlace() + " name"; });
            name = m_tape.text(k + 1);
        }
    }
    if (!name) {
        fail(place, idPlace(), "missing required field 'name'");
    }
    const auto where = [&] { return nodePlace(id, *name); };

    Node node;
    node.name = *name;
    std::optional<std::string_view> op;
    bool hasInputs = false;
    Attributes param;
    std::vector<uint32_t> subgraphs;
    for (uint32_t k = m_tape.first(at); k < m_tape.next(at); k = m_tape.next(k + 1)) {
        const std::string_view key = m_tape.text(k);
        const uint32_t v = k + 1;
        if (key == "op") {
            expect(v, Kind::String, place, [&] { return where() + " op"; });
            op = m_tape.text(v);
        } else if (key == "inputs") {
            expect(v, Kind::Array, place, [&] { return where() + " inputs"; });
            hasInputs = true;
            node.inputs.clear();
            node.inputs.reserve(m_tape.size(v));
            for (uint32_t e = m_tape.first(v); e < m_tape.next(v); e = m_tape.next(e)) {
                const auto inputWhere = [&] {
                    return where() + " input " + std::to_string(node.inputs.size());
                };
                const NodeEntry entry = readEntry(e, place, inputWhere);
                if (entry.node >= id) {
                    fail(place, inputWhere(),
                         entry.node == id
                             ? "refers to the node itself (a cycle)"
                             : "refers to node " + std::to_string(entry.node) +
                                   ", which is not an earlier node (a forward reference or a cycle)");
                }
                node.inputs.push_back(entry);
            }
        } else if (key == "attrs" || key == "attr") {
            // Both spellings fill the same map and dmlc's map reader clears it: the later one wins.
            readStringMap(v, node.attrs, place, [&] { return where() + " " + std::string(key); });
        } else if (key == "param") {
            readStringMap(v, param, place, [&] { return where() + " param"; });
        } else if (key == "control_deps") {
            expect(v, Kind::Array, place, [&] { return where() + " control_deps"; });
            node.controlDeps.clear();
            for (uint32_t e = m_tape.first(v); e < m_tape.next(v); e = m_tape.next(e)) {
                const auto depWhere = [&] {
                    return where() + " control_deps " + std::to_string(node.controlDeps.size());
                };
                const uint32_t dep = readId(e, place, depWhere);
                if (dep >= id) {
                    fail(place, depWhere(),
                         "refers to node " + std::to_string(dep) + ", which is not an earlier node");
                }
                node.controlDeps.push_back(dep);
            }
        } else if (key == "subgraphs") {
            expect(v, Kind::Array, place, [&] { return where() + " subgraphs"; });
            subgraphs.clear();
            for (uint32_t e = m_tape.first(v); e < m_tape.next(v); e = m_tape.next(e)) {
                subgraphs.push_back(e);
            }
        }
        // "name" was read above; "backward_source_id" (pre-0.9) means nothing now; other keys are
        // not NNVM's and are dropped.
    }
    if (!op) {
        fail(place, where(), "missing required field 'op'");
    }
    if (!hasInputs) {
        fail(place, where(), "missing required field 'inputs'");
    }
    if (op->empty()) {
        fail(place, where(), "empty op name");
    }
    // Pre-0.9 `param` holds the op's parameters; NNVM inserts them without overwriting.
    node.attrs.merge(param);
    if (*op != "null") {
        node.op = MxnetOpFacts::instance().canonicalName(*op);
    } else if (!node.inputs.empty()) {
        fail(place, where(), "a variable ('null' op) cannot have inputs");
    }
    for (std::size_t i = 0; i < subgraphs.size(); ++i) {
        const std::string subPlace =
            (place.empty() ? "" : place + ", ") + where() + " subgraph " + std::to_string(i);
        // Depth is bounded by the tape's nesting limit, so this recursion is too.
        node.subgraphs.push_back(serializeSubgraphJson(read(subgraphs[i], subPlace, false)));
    }
    return node;
}

std::vector<uint32_t> GraphReader::readOutputCounts(const Fields& fields, const std::vector<Node>& nodes,
                                                    const std::vector<NodeEntry>& heads,
                                                    const std::string& place) const {
    std::vector<uint32_t> counts(nodes.size(), 1);
    if (fields.nodeRowPtr) {
        // The file's own count is the truth for that file (it depends on how MXNet was built).
        const uint32_t at = *fields.nodeRowPtr;
        const auto rowPtr = [] { return std::string("node_row_ptr"); };
        expect(at, Kind::Array, place, rowPtr);
        if (m_tape.size(at) != nodes.size() + 1) {
            fail(place, "node_row_ptr",
                 "has " + std::to_string(m_tape.size(at)) + " entries, expected " +
                     std::to_string(nodes.size() + 1) + " (one more than the nodes)");
        }
        uint32_t e = m_tape.first(at);
        uint32_t previous = readId(e, place, [] { return std::string("node_row_ptr 0"); });
        if (previous != 0) {
            fail(place, "node_row_ptr 0", "must be 0, found " + std::to_string(previous));
        }
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            e = m_tape.next(e);
            const auto where = [i] { return "node_row_ptr " + std::to_string(i + 1); };
            const uint32_t row = readId(e, place, where);
            if (row <= previous) {
                fail(place, where(),
                     "gives " + nodePlace(static_cast<NodeId>(i), nodes[i].name) + " " +
                         (row < previous ? "a negative" : "no") + " output count (" +
                         std::to_string(previous) + " then " + std::to_string(row) + ")");
            }
            if (row - previous > kMaxOutputsPerNode) {
                fail(place, where(),
                     "gives " + nodePlace(static_cast<NodeId>(i), nodes[i].name) + " " +
                         std::to_string(row - previous) + " outputs, more than any operator has (" +
                         std::to_string(kMaxOutputsPerNode) + ")");
            }
            counts[i] = row - previous;
            previous = row;
        }
    } else {
        // What the registry says for the op, raised to what the file reads: an op the registry does
        // not know may still have several outputs, and the file is the better witness.
        auto raise = [&](const NodeEntry& entry, const auto& where) {
            if (entry.index >= kMaxOutputsPerNode) {
                fail(place, where(),
                     "reads output " + std::to_string(entry.index) + "; no operator has more than " +
                         std::to_string(kMaxOutputsPerNode) + " outputs");
            }
            counts[entry.node] = std::max(counts[entry.node], entry.index + 1);
        };
        const MxnetOpFacts& registry = MxnetOpFacts::instance();
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            counts[i] = std::max(counts[i], std::min(registry.numOutputs(nodes[i]), kMaxOutputsPerNode));
            for (std::size_t j = 0; j < nodes[i].inputs.size(); ++j) {
                raise(nodes[i].inputs[j], [&] {
                    return nodePlace(static_cast<NodeId>(i), nodes[i].name) + " input " + std::to_string(j);
                });
            }
        }
        for (std::size_t h = 0; h < heads.size(); ++h) {
            raise(heads[h], [h] { return "heads " + std::to_string(h); });
        }
    }
    // Passes keep per-output tables; bound their total so that a small file cannot claim billions.
    uint64_t total = 0;
    for (const uint32_t c : counts) {
        total += c;
    }
    if (total > 64 * static_cast<uint64_t>(nodes.size()) + kMaxOutputsPerNode) {
        fail(place, fields.nodeRowPtr ? "node_row_ptr" : "nodes",
             std::to_string(total) + " outputs in all for " + std::to_string(nodes.size()) +
                 " nodes; no real model has that many");
    }
    return counts;
}

void GraphReader::readGraphAttrs(uint32_t at, Graph& graph) const {
    expect(at, Kind::Object, "", [] { return std::string("attrs"); });
    graph.attrs.clear();
    for (uint32_t k = m_tape.first(at); k < m_tape.next(at); k = m_tape.next(k + 1)) {
        std::string text;
        DmlcJsonWriter writer(text, DmlcJsonWriter::Layout::Compact);
        writer.value(m_tape, k + 1);
        graph.attrs.insert_or_assign(std::string(m_tape.text(k)), std::move(text));
    }
}

Graph GraphReader::read(uint32_t at, const std::string& place, bool topLevel) {
    expect(at, Kind::Object, place, [&] { return std::string(place.empty() ? "document" : ""); });
    // dmlc reads the fields in file order; a repeated field is read again and the last one counts.
    Fields fields;
    for (uint32_t k = m_tape.first(at); k < m_tape.next(at); k = m_tape.next(k + 1)) {
        const std::string_view key = m_tape.text(k);
        if (key == "nodes") {
            fields.nodes = k + 1;
        } else if (key == "arg_nodes") {
            fields.argNodes = k + 1;
        } else if (key == "heads") {
            fields.heads = k + 1;
        } else if (key == "node_row_ptr") {
            fields.nodeRowPtr = k + 1;
        } else if (key == "attrs") {
            fields.attrs = k + 1;
        }
    }
    if (!fields.nodes) {
        fail(place, "", "missing required field 'nodes'");
    }
    if (!fields.heads) {
        fail(place, "", "missing required field 'heads'");
    }

    Graph graph;
    expect(*fields.nodes, Kind::Array, place, [] { return std::string("nodes"); });
    if (m_tape.size(*fields.nodes) == 0) {
        fail(place, "nodes", "the graph has no nodes");
    }
    graph.nodes.reserve(m_tape.size(*fields.nodes));
    for (uint32_t e = m_tape.first(*fields.nodes); e < m_tape.next(*fields.nodes); e = m_tape.next(e)) {
        graph.nodes.push_back(readNode(e, static_cast<NodeId>(graph.nodes.size()), place));
    }

    if (fields.argNodes) {
        // Recomputed on save; only checked here.
        expect(*fields.argNodes, Kind::Array, place, [] { return std::string("arg_nodes"); });
        uint32_t i = 0;
        for (uint32_t e = m_tape.first(*fields.argNodes); e < m_tape.next(*fields.argNodes);
             e = m_tape.next(e), ++i) {
            const auto where = [i] { return "arg_nodes " + std::to_string(i); };
            const uint32_t id = readId(e, place, where);
            if (id >= graph.nodes.size()) {
                fail(place, where(), "node " + std::to_string(id) + " does not exist");
            }
        }
    }

    expect(*fields.heads, Kind::Array, place, [] { return std::string("heads"); });
    if (m_tape.size(*fields.heads) == 0) {
        fail(place, "heads", "the graph has no outputs");
    }
    for (uint32_t e = m_tape.first(*fields.heads); e < m_tape.next(*fields.heads); e = m_tape.next(e)) {
        const auto where = [&] { return "heads " + std::to_string(graph.heads.size()); };
        const NodeEntry head = readEntry(e, place, where);
        if (head.node >= graph.nodes.size()) {
            fail(place, where(), "node " + std::to_string(head.node) + " does not exist");
        }
        graph.heads.push_back(head);
    }

    const std::vector<uint32_t> counts = readOutputCounts(fields, graph.nodes, graph.heads, place);
    for (NodeId id = 0; id < graph.nodes.size(); ++id) {
        graph.nodes[id].numOutputs = counts[id];
    }
    for (NodeId id = 0; id < graph.nodes.size(); ++id) {
        const Node& node = graph.nodes[id];
        for (std::size_t j = 0; j < node.inputs.size(); ++j) {
            const NodeEntry& e = node.inputs[j];
            if (e.index >= counts[e.node]) {
                fail(place, nodePlace(id, node.name) + " input " + std::to_string(j),
                     "reads output " + std::to_string(e.index) + " of " +
                         nodePlace(e.node, graph.nodes[e.node].name) + ", which has " +
                         std::to_string(counts[e.node]) + " output(s)");
            }
        }
    }
    for (std::size_t h = 0; h < graph.heads.size(); ++h) {
        const NodeEntry& e = graph.heads[h];
        if (e.index >= counts[e.node]) {
            fail(place, "heads " + std::to_string(h),
                 "reads output " + std::to_string(e.index) + " of " +
                     nodePlace(e.node, graph.nodes[e.node].name) + ", which has " +
                     std::to_string(counts[e.node]) + " output(s)");
        }
    }

    if (topLevel && fields.attrs) {
        readGraphAttrs(*fields.attrs, graph);
    }
    try {
        graph.validate();  // everything above should have caught it; this is the IR's own word
    } catch (const GraphError& e) {
        fail(place, "", e.what());
    }
    // Files MXNet wrote are already pruned and in DFS order; skip the copy then (large graphs).
    if (isInDfsOrder(graph)) {
        return graph;
    }
    return reachableInDfsOrder(graph);
}

// `["int", N]` as NNVM stores an int graph attribute.
int versionOf(const Graph& graph, const std::string& source) {
    const auto it = graph.attrs.find("mxnet_version");
    if (it == graph.attrs.end()) {
        return kMxnetVersionAssumed;
    }
    const auto bad = [&]() -> int {
        throw LoadError(source, "attrs 'mxnet_version'", "expected [\"int\", version], found " + it->second);
    };
    const JsonTape tape = JsonTape::parse(it->second, kSymbolJsonMaxDepth);
    if (tape.kind(0) != Kind::Array || tape.size(0) != 2 || tape.kind(1) != Kind::String ||
        tape.text(1) != "int" || tape.kind(2) != Kind::Uint ||
        tape.unsignedValue(2) > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
        return bad();
    }
    return static_cast<int>(tape.unsignedValue(2));
}

std::string lineAndColumn(std::string_view text, std::size_t byte) {
    byte = std::min(byte, text.size());
    const auto before = text.substr(0, byte);
    const auto line = std::count(before.begin(), before.end(), '\n') + 1;
    const auto lastNewline = before.rfind('\n');
    const auto column = byte - (lastNewline == std::string_view::npos ? 0 : lastNewline + 1) + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
           std::to_string(byte) + ")";
}

JsonTape parseTape(std::string_view text, const std::string& source) {
    try {
        return JsonTape::parse(text, kSymbolJsonMaxDepth);
    } catch (const JsonSyntaxError& e) {
        throw LoadError(source, lineAndColumn(text, e.byte()), e.what());
    }
}

}  // namespace

Graph parseSymbolJson(std::string_view text, const std::string& source) {
    Graph graph;
    {
        // The tape is several times the size of the text; free it before the graph grows again.
        const JsonTape tape = parseTape(text, source);
        graph = GraphReader(tape, source).read(0, "", true);
    }
    const int version = versionOf(graph, source);
    graph.attrs["mxnet_version"] = "[\"int\"," + std::to_string(version) + "]";
    // read() validated the graph; only an upgrade can have changed it since.
    if (upgradeLegacySymbol(graph, version, source)) {
        try {
            graph.validate();
        } catch (const GraphError& e) {
            throw LoadError(source, "after the legacy upgrade", e.what());
        }
    }
    return graph;
}

Graph parseSubgraphJson(std::string_view text, const std::string& source) {
    const JsonTape tape = parseTape(text, source);
    return GraphReader(tape, source).read(0, "", false);
}

Graph readSymbolJsonFile(const std::filesystem::path& path) {
    const std::string source = path.string();
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error) {
        throw LoadError(source, "", "cannot read: " + error.message());
    }
    if (size >= std::numeric_limits<uint32_t>::max()) {
        throw LoadError(source, "", "the file is larger than 4 GiB");
    }
    std::ifstream in(path, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size))) {
        throw LoadError(source, "", std::string("cannot read: ") + std::strerror(errno));
    }
    return parseSymbolJson(text, source);
}

}  // namespace ampstudio
