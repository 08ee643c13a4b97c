// Writing follows NNVM's SaveJSON: JSONGraph and JSONNode saved through dmlc::JSONWriter, whose layout
// DmlcJsonWriter reproduces. The multi-line choices below are the ones dmlc's handlers make for the
// C++ types NNVM declares (see dmlc_json_writer.h).

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/atomic_file.h"
#include "formats/dmlc_json_writer.h"
#include "formats/json_tape.h"
#include "formats/load_error.h"
#include "formats/symbol_json.h"

namespace ampstudio {

namespace {

// std::vector<uint32_t>: plain old data, so inline up to 10 elements.
void writeIds(DmlcJsonWriter& w, const std::vector<uint32_t>& ids) {
    w.beginArray(ids.size() > 10);
    for (const uint32_t id : ids) {
        w.item();
        w.number(id);
    }
    w.endArray();
}

// std::vector<JSONNode::Entry>: the entry struct is plain old data; each entry is an inline array.
void writeEntries(DmlcJsonWriter& w, const std::vector<NodeEntry>& entries) {
    w.beginArray(entries.size() > 10);
    for (const NodeEntry& e : entries) {
        w.item();
        w.beginArray(false);
        w.item();
        w.number(e.node);
        w.item();
        w.number(e.index);
        w.item();
        w.number(e.version);
        w.endArray();
    }
    w.endArray();
}

void writeGraph(DmlcJsonWriter& w, const Graph& graph, bool withAttrs, bool compact);

// A subgraph's canonical compact text, laid out as writeGraph() would lay out the graph it holds. Reading
// each nested level into a Graph instead would re-read the levels below it once per level above.
void writeCanonicalEntries(DmlcJsonWriter& w, const JsonTape& tape, uint32_t at) {
    w.beginArray(tape.size(at) > 10);
    for (uint32_t e = tape.first(at); e < tape.next(at); e = tape.next(e)) {
        w.item();
        w.value(tape, e);  // an array of three numbers: inline
    }
    w.endArray();
}

void writeCanonicalGraph(DmlcJsonWriter& w, const JsonTape& tape, uint32_t at) {
    w.beginObject(true);
    for (uint32_t k = tape.first(at); k < tape.next(at); k = tape.next(k + 1)) {
        const std::string_view key = tape.text(k);
        w.key(key);
        if (key == "heads") {
            writeCanonicalEntries(w, tape, k + 1);
        } else if (key == "nodes") {
            w.beginArray(true);
            for (uint32_t n = tape.first(k + 1); n < tape.next(k + 1); n = tape.next(n)) {
                w.item();
                w.beginObject(true);
                for (uint32_t f = tape.first(n); f < tape.next(n); f = tape.next(f + 1)) {
                    const std::string_view field = tape.text(f);
                    w.key(field);
                    if (field == "inputs") {
                        writeCanonicalEntries(w, tape, f + 1);
                    } else if (field == "subgraphs") {
                        w.beginArray(true);
                        for (uint32_t g = tape.first(f + 1); g < tape.next(f + 1); g = tape.next(g)) {
                            w.item();
                            writeCanonicalGraph(w, tape, g);
                        }
                        w.endArray();
                    } else {
                        w.value(tape, f + 1);  // strings, the attribute map, control_deps
                    }
                }
                w.endObject();
            }
            w.endArray();
        } else {
            w.value(tape, k + 1);  // arg_nodes, node_row_ptr
        }
    }
    w.endObject();
}

void writeNode(DmlcJsonWriter& w, const Node& node, std::size_t id, bool compact) {
    w.beginObject(true);
    w.key("op");
    w.string(node.isVariable() ? "null" : node.op);
    w.key("name");
    w.string(node.name);
    if (!node.attrs.empty()) {
        w.key("attrs");
        w.beginObject(node.attrs.size() > 1);  // sorted keys (Attributes)
        for (const auto& [key, value] : node.attrs) {
            w.key(key);
            w.string(value);
        }
        w.endObject();
    }
    w.key("inputs");
    writeEntries(w, node.inputs);
    if (!node.controlDeps.empty()) {
        w.key("control_deps");
        writeIds(w, node.controlDeps);
    }
    if (!node.subgraphs.empty()) {
        w.key("subgraphs");
        w.beginArray(true);  // std::vector<JSONGraph>: not plain old data
        for (std::size_t i = 0; i < node.subgraphs.size(); ++i) {
            if (compact) {
                // Already canonical compact text: re-reading it at every level of nesting would make
                // loading nested subgraphs quadratic in the depth.
                w.item();
                w.raw(node.subgraphs[i]);
                continue;
            }
            // Validated and made canonical first; then laid out from one tape, nested levels included.
            std::string canonical;
            try {
                canonical = serializeSubgraphJson(parseSubgraphJson(node.subgraphs[i], "subgraph"));
            } catch (const LoadError& e) {
                throw std::invalid_argument("node " + std::to_string(id) + " subgraph " + std::to_string(i) +
                                            " is not a symbol JSON: " + e.what());
            }
            w.item();
            writeCanonicalGraph(w, JsonTape::parse(canonical, kSymbolJsonMaxDepth), 0);
        }
        w.endArray();
    }
    w.endObject();
}

// Graph attributes are written as NNVM writes `any` values: an inline ["type", value] pair.
void writeGraphAttr(DmlcJsonWriter& w, const std::string& json) {
    JsonTape tape;
    try {
        tape = JsonTape::parse(json, kSymbolJsonMaxDepth);
    } catch (const JsonSyntaxError& e) {
        throw std::invalid_argument("graph attribute is not JSON: " + json);
    }
    if (tape.kind(0) == JsonTape::Kind::Array && tape.size(0) == 2 &&
        tape.kind(1) == JsonTape::Kind::String) {
        w.beginArray(false);
        w.item();
        w.string(tape.text(1));
        w.item();
        w.value(tape, 2);
        w.endArray();
    } else {
        w.value(tape, 0);
    }
}

void writeGraph(DmlcJsonWriter& w, const Graph& graph, bool withAttrs, bool compact) {
    w.beginObject(true);
    w.key("nodes");
    w.beginArray(true);  // std::vector<JSONNode>
    for (std::size_t id = 0; id < graph.nodes.size(); ++id) {
        w.item();
        writeNode(w, graph.nodes[id], id, compact);
    }
    w.endArray();
    w.key("arg_nodes");
    writeIds(w, graph.argNodes());
    w.key("node_row_ptr");
    writeIds(w, graph.nodeRowPtr());
    w.key("heads");
    writeEntries(w, graph.heads);
    if (withAttrs) {
        // MXSymbolSaveToJSON sets mxnet_version to the running MXNet's; the rest is kept as loaded.
        std::map<std::string, std::string> attrs = graph.attrs;
        attrs["mxnet_version"] = "[\"int\"," + std::to_string(kMxnetVersionWritten) + "]";
        w.key("attrs");
        w.beginObject(attrs.size() > 1);
        for (const auto& [key, value] : attrs) {
            w.key(key);
            writeGraphAttr(w, value);
        }
        w.endObject();
    }
    w.endObject();
}

std::string serialize(const Graph& graph, DmlcJsonWriter::Layout layout, bool withAttrs) {
    graph.validate();
    std::string out;
    out.reserve(graph.nodes.size() * 160 + 256);
    DmlcJsonWriter w(out, layout);
    writeGraph(w, graph, withAttrs, layout == DmlcJsonWriter::Layout::Compact);
    return out;
}

}  // namespace

std::string serializeSymbolJson(const Graph& graph) {
    return serialize(graph, DmlcJsonWriter::Layout::Dmlc, true);
}

std::string serializeSubgraphJson(const Graph& graph) {
    return serialize(graph, DmlcJsonWriter::Layout::Compact, false);
}

void writeSymbolJsonFile(const std::filesystem::path& path, const Graph& graph) {
    writeFileAtomically(path, serializeSymbolJson(graph));
}

}  // namespace ampstudio
