#include "exec/graph_inference.h"

#include <algorithm>
#include <set>

#include "backend/backend.h"
#include "ops/graph_dtypes.h"
#include "ops/mxnet_op_facts.h"
#include "ops/op_spec.h"

namespace ampstudio {

void checkSupported(const Graph& graph, const Backend* backend) {
    std::map<std::string, std::vector<std::string>> missing;  // op -> nodes
    for (const Node& node : graph.nodes) {
        if (node.isVariable()) {
            continue;
        }
        if (opSpecs().find(node.op) == nullptr || (backend != nullptr && !backend->hasKernel(node.op))) {
            missing[node.op].push_back(node.name);
        }
    }
    if (missing.empty()) {
        return;
    }
    std::string message = "unsupported ops: ";
    bool first = true;
    for (const auto& [op, nodes] : missing) {
        message += (first ? "" : ", ") + op + (nodes.size() == 1 ? " (node " : " (nodes ");
        first = false;
        for (std::size_t i = 0; i < nodes.size() && i < 3; ++i) {
            message += (i ? ", '" : "'") + nodes[i] + "'";
        }
        if (nodes.size() > 3) {
            message += " and " + std::to_string(nodes.size() - 3) + " more";
        }
        message += ")";
    }
    throw OpError(message);
}

namespace {

void checkInputCount(const Node& node, const OpSpec& spec) {
    if (!spec.numInputs) {
        return;
    }
    const OpAttrs attrs(node);
    const std::size_t expected = spec.numInputs(attrs);
    if (node.inputs.size() != expected) {
        attrs.fail("has " + std::to_string(node.inputs.size()) + " inputs, expected " + std::to_string(expected));
    }
}

void inferShapes(const Graph& graph, EntryTable& table) {
    std::vector<Shape> in, out;
    for (bool changed = true; changed;) {
        changed = false;
        for (NodeId n = 0; n < graph.size(); ++n) {
            const Node& node = graph.nodes[n];
            if (node.isVariable()) {
                continue;
            }
            const OpSpec* spec = opSpecs().find(node.op);
            in.clear();
            for (const NodeEntry& e : node.inputs) {
                in.push_back(table.shape(e));
            }
            out.assign(node.numOutputs, Shape{});
            for (uint32_t i = 0; i < node.numOutputs; ++i) {
                out[i] = table.shapes[table.rowPtr[n] + i];
            }
            const OpAttrs attrs(node);
            spec->inferShape(attrs, in, out);
            for (std::size_t i = 0; i < in.size(); ++i) {
                Shape& slot = table.shapes[table.id(node.inputs[i])];
                if (slot != in[i] && !in[i].empty()) {
                    if (!slot.empty()) {
                        attrs.fail("input " + std::to_string(i) + " has shape " + shapeString(slot) +
                                   ", the op needs " + shapeString(in[i]));
                    }
                    slot = in[i];
                    changed = true;
                }
            }
            for (uint32_t i = 0; i < node.numOutputs; ++i) {
                Shape& slot = table.shapes[table.rowPtr[n] + i];
                if (slot != out[i] && !out[i].empty()) {
                    if (!slot.empty()) {
                        attrs.fail("output " + std::to_string(i) + " has shape " + shapeString(slot) +
                                   ", inferred " + shapeString(out[i]));
                    }
                    slot = out[i];
                    changed = true;
                }
            }
        }
    }
    for (NodeId n = 0; n < graph.size(); ++n) {
        const Node& node = graph.nodes[n];
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            const Shape& s = table.shapes[table.rowPtr[n] + i];
            if (!shapeKnown(s)) {
                if (node.isVariable()) {
                    throw OpError(node, s.empty() ? "shape unknown: give it as an input shape (NAME=SHAPE)"
                                                  : "shape " + shapeString(s) + " has a zero or negative dimension");
                }
                throw OpError(node, "the shape of output " + std::to_string(i) + " cannot be inferred" +
                                        (s.empty() ? "" : " (" + shapeString(s) + ")"));
            }
        }
    }
}

// MXNet's InferType (propagateDtypes); a variable nothing constrains is float32, and every op's
// outputs must end up known.
void inferTypes(const Graph& graph, EntryTable& table) {
    auto propagate = [&] {
        // Our runtime types every variable in the end: an op whose input is not typed yet waits
        // (MXNet's FInferType would throw for some; the conversion's dtype check models that).
        if (const auto conflict = propagateDtypes(graph, table.rowPtr, table.dtypes, false)) {
            throw OpError(graph.nodes[conflict->node],
                          "input dtypes (" + dtypeList(conflict->inputs) + ") are not valid for this op");
        }
    };
    propagate();
    bool defaulted = false;
    for (NodeId n = 0; n < graph.size(); ++n) {
        if (graph.nodes[n].isVariable() && table.dtypes[table.rowPtr[n]] == DType::Unknown) {
            table.dtypes[table.rowPtr[n]] = DType::F32;
            defaulted = true;
        }
    }
    if (defaulted) {
        propagate();
    }
    std::vector<DType> in, out;
    for (NodeId n = 0; n < graph.size(); ++n) {
        const Node& node = graph.nodes[n];
        if (node.isVariable()) {
            continue;
        }
        in.clear();
        std::string inNames;
        for (const NodeEntry& e : node.inputs) {
            in.push_back(table.dtype(e));
            inNames += (inNames.empty() ? "" : ", ") + std::string(dtypeName(table.dtype(e)));
        }
        out.assign(table.dtypes.begin() + table.rowPtr[n], table.dtypes.begin() + table.rowPtr[n] + node.numOutputs);
        const bool ok = MxnetOpFacts::instance().typeInference(node, in, out, false) != TypeInference::Conflict;
        if (!ok || std::count(out.begin(), out.end(), DType::Unknown) != 0) {
            throw OpError(node, "input dtypes (" + inNames + ") are not valid for this op");
        }
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            table.dtypes[table.rowPtr[n] + i] = out[i];
        }
    }
}

}  // namespace

EntryTable inferEntries(const Graph& graph, const std::map<std::string, Shape>& knownShapes,
                        const std::map<std::string, DType>& knownTypes) {
    checkSupported(graph, nullptr);
    EntryTable table;
    table.rowPtr = graph.nodeRowPtr();
    const std::size_t entries = table.rowPtr.empty() ? 0 : table.rowPtr.back();
    table.shapes.assign(entries, Shape{});
    table.dtypes.assign(entries, DType::Unknown);
    std::set<std::string> used;
    for (NodeId n = 0; n < graph.size(); ++n) {
        const Node& node = graph.nodes[n];
        if (!node.isVariable()) {
            checkInputCount(node, *opSpecs().find(node.op));
            continue;
        }
        if (auto it = knownShapes.find(node.name); it != knownShapes.end()) {
            table.shapes[table.rowPtr[n]] = it->second;
            used.insert(node.name);
        } else if (const std::string* s = node.attr("__shape__")) {
            // A variable declared with a shape (mx.sym.var(shape=...)); 0 dims are still unknown.
            const Shape declared = OpAttrs(node).getTuple("__shape__");
            if (shapeKnown(declared)) {
                table.shapes[table.rowPtr[n]] = declared;
            }
            (void)s;
        }
        if (auto it = knownTypes.find(node.name); it != knownTypes.end()) {
            table.dtypes[table.rowPtr[n]] = it->second;
        }
    }
    for (const auto& [name, shape] : knownShapes) {
        if (!used.contains(name)) {
            throw OpError("the graph has no input named '" + name + "'");
        }
    }
    inferShapes(graph, table);
    inferTypes(graph, table);
    return table;
}

}  // namespace ampstudio
