#include "formats/onnx_checker.h"

#include <onnx/checker.h>
#include <onnx/common/constants.h>
#include <onnx/defs/schema.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "formats/name_tables.h"

namespace ampstudio {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;

// check_graph of libonnx 1.12 for a main graph without subgraphs or sparse initializers: the same
// checks in the same order, the lexical scope a set of views. False at the first failure (the
// caller then asks check_model for the verdict and its message).
bool mainGraphPasses(const GraphProto& graph, const onnx::checker::CheckerContext& ctx) {
    if (graph.name().empty()) return false;
    for (const auto& v : graph.input()) onnx::checker::check_value_info(v, ctx);
    for (const auto& v : graph.output()) onnx::checker::check_value_info(v, ctx);
    NameSet defined;  // lex_ctx: inputs, initializers (IR >= 4), node outputs
    defined.reserve(static_cast<std::size_t>(graph.input_size() + graph.initializer_size() + 2 * graph.node_size()));
    for (const auto& v : graph.input()) {
        if (!defined.insert(v.name()).second) return false;  // an input named twice
    }
    NameSet initializers;
    initializers.reserve(static_cast<std::size_t>(graph.initializer_size()));
    for (const auto& init : graph.initializer()) {
        if (!init.has_name() || init.name().empty()) return false;
        if (!initializers.insert(init.name()).second) return false;  // not unique
        onnx::checker::check_tensor(init, ctx);
        if (ctx.get_ir_version() <= 3) {
            if (!defined.contains(init.name())) return false;  // IR <= 3: initializers are inputs
        } else {
            defined.insert(init.name());
        }
    }
    const onnx::checker::LexicalScopeContext noSubgraphScope;  // (check_node reads it for graph attributes only)
    for (const NodeProto& node : graph.node()) {
        for (const std::string& input : node.input()) {
            if (!input.empty() && !defined.contains(input)) return false;  // not topologically sorted
        }
        onnx::checker::check_node(node, ctx, noSubgraphScope);
        for (const std::string& output : node.output()) {
            if (output.empty()) continue;
            if (!defined.insert(output).second) return false;  // not SSA
        }
    }
    return true;
}

// check_model (libonnx 1.12) with the main graph's loop above. False at the first failure.
bool fastPathPasses(const onnx::ModelProto& model) {
    try {
        if (!model.ir_version() || model.ir_version() > onnx::IR_VERSION) return false;
        if (model.metadata_props_size() > 1) {
            std::unordered_set<std::string> keys;
            for (const auto& entry : model.metadata_props()) {
                if (!keys.insert(entry.key()).second) return false;
            }
        }
        onnx::checker::CheckerContext ctx;
        ctx.set_ir_version(static_cast<int>(model.ir_version()));
        std::unordered_map<std::string, int> opsetImports;
        for (const auto& opset : model.opset_import()) opsetImports[opset.domain()] = static_cast<int>(opset.version());
        if (model.ir_version() >= 3) {
            if (opsetImports.empty()) return false;
        } else {
            if (!opsetImports.empty()) return false;
            opsetImports[onnx::ONNX_DOMAIN] = 1;
        }
        ctx.set_opset_imports(opsetImports);
        if (!mainGraphPasses(model.graph(), ctx)) return false;
        if (ctx.get_ir_version() >= 8) {
            const onnx::checker::LexicalScopeContext modelScope;  // check_model's own (empty) scope
            onnx::checker::check_model_local_functions(model, ctx, modelScope);
        }
        return true;
    } catch (...) {
        return false;  // (check_model says what)
    }
}

}  // namespace

bool checkerHasFastPath(const onnx::ModelProto& model) {
    const GraphProto& graph = model.graph();
    if (graph.sparse_initializer_size() > 0) return false;
    for (const NodeProto& node : graph.node()) {
        for (const AttributeProto& a : node.attribute()) {
            if (a.has_g() || a.graphs_size() > 0) return false;
        }
    }
    return true;
}

std::string checkerFailureByLibonnx(const onnx::ModelProto& model) {
    try {
        onnx::checker::check_model(model);
    } catch (const std::exception& e) {
        return std::string("onnx::checker: ") + e.what();
    } catch (...) {
        return "onnx::checker: an unknown error";
    }
    return {};
}

std::string checkerFailure(const onnx::ModelProto& model) {
    if (checkerHasFastPath(model) && fastPathPasses(model)) return {};
    return checkerFailureByLibonnx(model);
}

}  // namespace ampstudio
