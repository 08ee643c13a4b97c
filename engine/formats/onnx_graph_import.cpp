#include "formats/onnx_graph_import.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <future>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "formats/load_error.h"
#include "formats/name_tables.h"
#include "formats/onnx_tensor_data.h"

namespace ampstudio {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string opOf(const NodeProto& node) {
    return isDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

std::string nodePlace(const NodeProto& node, int index) {
    return "node " + std::to_string(index) + (node.name().empty() ? std::string() : " ('" + node.name() + "')") +
           " (" + node.op_type() + ")";
}

std::string numberText(float value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round trip
    return std::string(buffer, result.ptr);
}

template <typename Range, typename Fn>
std::string listText(const Range& items, Fn&& text) {
    std::string out = "[";
    for (const auto& item : items) {
        out += (out.size() > 1 ? ", " : "") + text(item);
    }
    return out + "]";
}

std::string dimsText(const google::protobuf::RepeatedField<int64_t>& dims) {
    return listText(dims, [](int64_t d) { return std::to_string(d); });
}

std::string typeText(const onnx::TypeProto& type) {
    if (type.has_tensor_type()) {
        const auto& tensor = type.tensor_type();
        std::string text = onnxTypeName(tensor.elem_type());
        if (tensor.has_shape()) {
            text += " " + listText(tensor.shape().dim(), [](const onnx::TensorShapeProto::Dimension& d) {
                        return d.has_dim_value() ? std::to_string(d.dim_value())
                                                 : d.has_dim_param() ? d.dim_param() : std::string("?");
                    });
        }
        return text;
    }
    if (type.has_sequence_type()) return "sequence of " + typeText(type.sequence_type().elem_type());
    if (type.has_optional_type()) return "optional " + typeText(type.optional_type().elem_type());
    if (type.has_map_type()) {
        return "map " + onnxTypeName(type.map_type().key_type()) + " to " + typeText(type.map_type().value_type());
    }
    if (type.has_sparse_tensor_type()) return "sparse " + onnxTypeName(type.sparse_tensor_type().elem_type());
    return "?";
}

std::string tensorText(const onnx::TensorProto& tensor) { return onnxTypeName(tensor.data_type()) + " " + dimsText(tensor.dims()); }

std::string graphText(const GraphProto& graph) {
    return "graph" + (graph.name().empty() ? std::string() : " '" + graph.name() + "'") + " (" +
           std::to_string(graph.node_size()) + " nodes)";
}

// Files from before IR version 0.0.2 leave the type unset: judged from the field that is set.
AttributeProto::AttributeType typeOf(const AttributeProto& attr) {
    if (attr.type() != AttributeProto::UNDEFINED) return attr.type();
    if (attr.has_f()) return AttributeProto::FLOAT;
    if (attr.has_i()) return AttributeProto::INT;
    if (attr.has_s()) return AttributeProto::STRING;
    if (attr.has_t()) return AttributeProto::TENSOR;
    if (attr.has_g()) return AttributeProto::GRAPH;
    if (attr.floats_size() > 0) return AttributeProto::FLOATS;
    if (attr.ints_size() > 0) return AttributeProto::INTS;
    if (attr.strings_size() > 0) return AttributeProto::STRINGS;
    if (attr.tensors_size() > 0) return AttributeProto::TENSORS;
    if (attr.graphs_size() > 0) return AttributeProto::GRAPHS;
    return AttributeProto::UNDEFINED;
}

std::string attributeText(const AttributeProto& attr) {
    if (!attr.ref_attr_name().empty()) return "@" + attr.ref_attr_name();  // a function's parameter
    const auto quoted = [](const std::string& s) { return "'" + s + "'"; };
    switch (typeOf(attr)) {
        case AttributeProto::FLOAT: return numberText(attr.f());
        case AttributeProto::INT: return std::to_string(attr.i());
        case AttributeProto::STRING: return quoted(attr.s());
        case AttributeProto::TENSOR: return "tensor " + tensorText(attr.t());
        case AttributeProto::GRAPH: return graphText(attr.g());
        case AttributeProto::SPARSE_TENSOR: return "sparse tensor " + dimsText(attr.sparse_tensor().dims());
        case AttributeProto::TYPE_PROTO: return typeText(attr.tp());
        case AttributeProto::FLOATS: return listText(attr.floats(), numberText);
        case AttributeProto::INTS: return listText(attr.ints(), [](int64_t i) { return std::to_string(i); });
        case AttributeProto::STRINGS: return listText(attr.strings(), quoted);
        case AttributeProto::TENSORS: return listText(attr.tensors(), tensorText);
        case AttributeProto::GRAPHS: return listText(attr.graphs(), graphText);
        case AttributeProto::SPARSE_TENSORS:
            return listText(attr.sparse_tensors(), [](const onnx::SparseTensorProto& s) { return dimsText(s.dims()); });
        case AttributeProto::TYPE_PROTOS: return listText(attr.type_protos(), typeText);
        default: return "?";
    }
}

template <typename Fn>
void forEachSubgraph(const NodeProto& node, Fn&& fn) {
    for (const AttributeProto& attr : node.attribute()) {
        if (attr.has_g()) fn(attr.g());
        for (const GraphProto& g : attr.graphs()) fn(g);
    }
}

// The values `body` reads that it does not define: what an If / Loop / Scan captures from the
// scopes around it (ONNX IR: "names in a nested graph ... may refer to the outer scope").
void outerNames(const GraphProto& body, std::unordered_set<std::string>& out) {
    std::unordered_set<std::string> defined, used;
    for (const auto& v : body.input()) defined.insert(v.name());
    for (const auto& t : body.initializer()) defined.insert(t.name());
    for (const auto& s : body.sparse_initializer()) defined.insert(s.values().name());
    for (const NodeProto& node : body.node()) {
        for (const std::string& name : node.output()) defined.insert(name);
        for (const std::string& name : node.input()) {
            if (!name.empty()) used.insert(name);
        }
        forEachSubgraph(node, [&](const GraphProto& inner) { outerNames(inner, used); });
    }
    for (const auto& v : body.output()) used.insert(v.name());
    for (const std::string& name : used) {
        if (!defined.contains(name)) out.insert(name);
    }
}

// Where a value comes from before the nodes are numbered: variable `index`, or output `output` of
// the proto's node `index`.
struct Source {
    bool variable = false;
    int index = 0;
    uint32_t output = 0;
};

// What the IR's nodes say that does not depend on which value comes from where: the nodes' names
// (a node keeps its own unless a value or an earlier node has it, then the file order decides),
// their ops and attributes as text, and the variables' types as text; by index in the file.
struct GraphTexts {
    std::vector<std::string> names, ops;
    std::vector<Attributes> attrs;
    std::vector<std::string> inputTypes, initializerTypes, sparseTypes;
};

GraphTexts textsOf(const GraphProto& proto) {
    GraphTexts texts;
    const int count = proto.node_size();
    for (const auto& input : proto.input()) texts.inputTypes.push_back(typeText(input.type()));
    for (const auto& t : proto.initializer()) texts.initializerTypes.push_back(tensorText(t));
    for (const auto& sp : proto.sparse_initializer()) texts.sparseTypes.push_back("sparse " + tensorText(sp.values()));
    // (Views again: of the proto's names, and of `names`' strings, which stay put once taken.)
    NameSet taken;
    taken.reserve(static_cast<std::size_t>(proto.input_size() + proto.initializer_size() + proto.sparse_initializer_size() + count));
    for (const auto& input : proto.input()) taken.insert(input.name());
    for (const auto& t : proto.initializer()) taken.insert(t.name());
    for (const auto& sp : proto.sparse_initializer()) taken.insert(sp.values().name());
    texts.names.resize(static_cast<std::size_t>(count));
    std::vector<char> named(static_cast<std::size_t>(count), 0);
    absl::flat_hash_map<std::string, int> nextSuffix;
    for (int p = 0; p < count; ++p) {
        const std::string& name = proto.node(p).name();
        if (!name.empty() && taken.insert(name).second) named[static_cast<std::size_t>(p)] = 1;
    }
    for (int p = 0; p < count; ++p) {
        std::string& name = texts.names[static_cast<std::size_t>(p)];
        const NodeProto& node = proto.node(p);
        if (named[static_cast<std::size_t>(p)]) {
            name = node.name();
            continue;
        }
        const std::string base = node.name().empty() ? node.op_type() + "_" + std::to_string(p) : node.name();
        name = base;
        // (The next suffix to try per base: a name that thousands of nodes share costs no more.)
        int& k = nextSuffix.try_emplace(base, 1).first->second;
        for (; !taken.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    }
    texts.ops.reserve(static_cast<std::size_t>(count));
    texts.attrs.resize(static_cast<std::size_t>(count));
    for (int p = 0; p < count; ++p) {
        const NodeProto& node = proto.node(p);
        texts.ops.push_back(opOf(node));
        Attributes& attrs = texts.attrs[static_cast<std::size_t>(p)];
        attrs.reserve(static_cast<std::size_t>(node.attribute_size()));
        for (const AttributeProto& attr : node.attribute()) attrs[attr.name()] = attributeText(attr);
    }
    return texts;
}

}  // namespace

std::vector<int> earliestFirstOrder(const std::vector<std::vector<int>>& consumers, std::vector<int> pending) {
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (std::size_t p = 0; p < pending.size(); ++p) {
        if (pending[p] == 0) ready.push(static_cast<int>(p));
    }
    std::vector<int> order;
    order.reserve(pending.size());
    while (!ready.empty()) {
        const int p = ready.top();
        ready.pop();
        order.push_back(p);
        for (const int consumer : consumers[static_cast<std::size_t>(p)]) {
            if (--pending[static_cast<std::size_t>(consumer)] == 0) ready.push(consumer);
        }
    }
    return order;
}

OnnxGraphImport importOnnxGraph(const GraphProto& proto, const std::string& file, bool useSecondCore) {
    // The texts on a second thread while this one resolves every name to its source (each about
    // half of a large graph's import); a failure here waits for it (the future's destructor).
    constexpr int kNodesWorthAThread = 20000;
    std::future<GraphTexts> textsMade;
    if (useSecondCore && proto.node_size() >= kNodesWorthAThread) {
        textsMade = std::async(std::launch::async, [&proto] { return textsOf(proto); });
    }
    // Keyed by views of the proto's own strings (it outlives this call): no name is copied to be
    // looked up, which a 100k-node graph would otherwise do half a million times.
    NameMap<Source> sources;
    sources.reserve(static_cast<std::size_t>(proto.node_size()) * 2 + static_cast<std::size_t>(proto.initializer_size()));
    // The IR's nodes, made in place (variables first, then the nodes in order): never moved.
    OnnxGraphImport result;
    std::vector<Node>& variables = result.graph.nodes;
    variables.reserve(static_cast<std::size_t>(proto.input_size() + proto.initializer_size() + proto.sparse_initializer_size() +
                                               proto.node_size()));
    // The variables by their place in the file (0: an input, 1: an initializer, 2: a sparse one);
    // their types as text come with the texts.
    std::vector<std::pair<int, int>> variablePlaces;
    const auto addVariable = [&](const std::string& name, int kind, int index, bool mayRepeat) {
        if (name.empty()) {
            throw LoadError(file, "graph", "an input or initializer without a name");
        }
        const auto [it, added] = sources.try_emplace(name, Source{true, static_cast<int>(variables.size()), 0});
        if (!added) {
            if (mayRepeat && it->second.variable) return;  // an initializer giving an input its default
            throw LoadError(file, "value '" + name + "'", "defined twice");
        }
        variables.emplace_back().name = name;
        variablePlaces.emplace_back(kind, index);
    };
    for (int i = 0; i < proto.input_size(); ++i) addVariable(proto.input(i).name(), 0, i, false);
    for (int i = 0; i < proto.initializer_size(); ++i) addVariable(proto.initializer(i).name(), 1, i, true);
    for (int i = 0; i < proto.sparse_initializer_size(); ++i) addVariable(proto.sparse_initializer(i).values().name(), 2, i, true);

    const int count = proto.node_size();
    for (int p = 0; p < count; ++p) {
        const NodeProto& node = proto.node(p);
        if (node.op_type().empty()) {
            throw LoadError(file, nodePlace(node, p), "a node without op_type");
        }
        if (node.output_size() == 0) {
            throw LoadError(file, nodePlace(node, p), "a node without outputs");
        }
        for (int o = 0; o < node.output_size(); ++o) {
            const std::string& name = node.output(o);
            if (!name.empty() && !sources.try_emplace(std::string_view(name), Source{false, p, static_cast<uint32_t>(o)}).second) {
                throw LoadError(file, nodePlace(node, p), "value '" + name + "' is defined twice");
            }
        }
    }
    // `where` names the reader, built only for the error.
    const auto sourceOf = [&](const std::string& name, const auto& where) -> const Source& {
        const auto it = sources.find(std::string_view(name));
        if (it == sources.end()) {
            throw LoadError(file, where(), "reads '" + name + "', which no node, graph input or initializer defines");
        }
        return it->second;
    };

    // Inputs and captured values per node; then the order: the file's where every node reads only
    // earlier ones (as ONNX requires, and as nearly every file is), else Kahn's algorithm with the
    // earliest node first.
    std::vector<std::vector<Source>> captured(static_cast<std::size_t>(count));
    // The sources of every node's non-empty inputs, node after node: looked up once.
    std::vector<Source> inputSources;
    std::vector<std::size_t> inputsBegin(static_cast<std::size_t>(count) + 1, 0);
    inputSources.reserve(static_cast<std::size_t>(count) * 2);
    bool fileOrderIsTopological = true;
    for (int p = 0; p < count; ++p) {
        const NodeProto& node = proto.node(p);
        inputsBegin[static_cast<std::size_t>(p)] = inputSources.size();
        const auto read = [&](const Source& source) {
            if (source.variable) return;
            if (source.index == p) throw LoadError(file, nodePlace(node, p), "reads its own output");
            fileOrderIsTopological = fileOrderIsTopological && source.index < p;
        };
        for (const std::string& name : node.input()) {
            if (name.empty()) continue;
            const Source& source = sourceOf(name, [&] { return nodePlace(node, p); });
            read(source);
            inputSources.push_back(source);
        }
        const bool hasBodies = std::any_of(node.attribute().begin(), node.attribute().end(), [](const AttributeProto& a) {
            return a.has_g() || a.graphs_size() > 0;
        });
        if (hasBodies) {
            std::unordered_set<std::string> outer;
            forEachSubgraph(node, [&](const GraphProto& body) { outerNames(body, outer); });
            std::vector<std::string> outerSorted(outer.begin(), outer.end());
            std::sort(outerSorted.begin(), outerSorted.end());
            for (const std::string& name : outerSorted) {
                const Source& source = sourceOf(name, [&] { return nodePlace(node, p) + ": a subgraph"; });
                read(source);
                captured[static_cast<std::size_t>(p)].push_back(source);
            }
        }
    }
    inputsBegin[static_cast<std::size_t>(count)] = inputSources.size();
    std::vector<int> order;
    if (fileOrderIsTopological) {
        order.resize(static_cast<std::size_t>(count));
        for (int p = 0; p < count; ++p) order[static_cast<std::size_t>(p)] = p;
    } else {
        std::vector<std::vector<int>> consumers(static_cast<std::size_t>(count));
        std::vector<int> pending(static_cast<std::size_t>(count), 0);
        std::vector<int> producers;
        for (int p = 0; p < count; ++p) {
            producers.clear();
            const std::size_t begin = inputsBegin[static_cast<std::size_t>(p)];
            const std::size_t end = inputsBegin[static_cast<std::size_t>(p) + 1];
            for (std::size_t k = begin; k < end; ++k) {
                if (!inputSources[k].variable) producers.push_back(inputSources[k].index);
            }
            for (const Source& source : captured[static_cast<std::size_t>(p)]) {
                if (!source.variable) producers.push_back(source.index);
            }
            std::sort(producers.begin(), producers.end());
            producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
            for (const int producer : producers) consumers[static_cast<std::size_t>(producer)].push_back(p);
            pending[static_cast<std::size_t>(p)] = static_cast<int>(producers.size());
        }
        order = earliestFirstOrder(consumers, pending);
    }
    if (order.size() != static_cast<std::size_t>(count)) {
        std::vector<char> placed(static_cast<std::size_t>(count), 0);
        for (const int q : order) placed[static_cast<std::size_t>(q)] = 1;
        int p = 0;
        while (placed[static_cast<std::size_t>(p)]) ++p;
        throw LoadError(file, nodePlace(proto.node(p), p), "lies on a cycle: its inputs depend on its own outputs");
    }

    GraphTexts texts = textsMade.valid() ? textsMade.get() : textsOf(proto);
    for (std::size_t v = 0; v < variables.size(); ++v) {
        const auto [kind, index] = variablePlaces[v];
        std::vector<std::string>& types = kind == 0 ? texts.inputTypes : kind == 1 ? texts.initializerTypes : texts.sparseTypes;
        variables[v].attrs["type"] = std::move(types[static_cast<std::size_t>(index)]);
    }

    Graph& graph = result.graph;
    const auto firstOp = static_cast<NodeId>(variables.size());
    std::vector<NodeId> idOf(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < order.size(); ++k) idOf[static_cast<std::size_t>(order[k])] = firstOp + static_cast<NodeId>(k);
    const auto entryOf = [&](const Source& s) {
        return NodeEntry{s.variable ? static_cast<NodeId>(s.index) : idOf[static_cast<std::size_t>(s.index)], s.output, 0};
    };
    result.protoNodeOf.assign(graph.nodes.size(), -1);
    for (const int p : order) {
        const NodeProto& proto_node = proto.node(p);
        Node& node = graph.nodes.emplace_back();
        node.op = std::move(texts.ops[static_cast<std::size_t>(p)]);
        node.name = std::move(texts.names[static_cast<std::size_t>(p)]);
        node.numOutputs = static_cast<uint32_t>(proto_node.output_size());
        const std::size_t begin = inputsBegin[static_cast<std::size_t>(p)];
        const std::size_t end = inputsBegin[static_cast<std::size_t>(p) + 1];
        node.inputs.reserve(end - begin);
        for (std::size_t k = begin; k < end; ++k) node.inputs.push_back(entryOf(inputSources[k]));
        for (const Source& s : captured[static_cast<std::size_t>(p)]) node.controlDeps.push_back(entryOf(s).node);
        std::sort(node.controlDeps.begin(), node.controlDeps.end());
        node.controlDeps.erase(std::unique(node.controlDeps.begin(), node.controlDeps.end()), node.controlDeps.end());
        node.attrs = std::move(texts.attrs[static_cast<std::size_t>(p)]);
        result.protoNodeOf.push_back(p);
    }
    for (const auto& output : proto.output()) {
        graph.heads.push_back(entryOf(sourceOf(output.name(), [&] { return "graph output '" + output.name() + "'"; })));
    }
    try {
        graph.validate();
    } catch (const GraphError& e) {
        throw LoadError(file, "graph", e.what());
    }
    return result;
}

}  // namespace ampstudio
