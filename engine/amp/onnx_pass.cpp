// The AMP pass on ONNX models (amp/onnx_conversion.h). One walk over each graph in topological
// order, If / Loop / Scan bodies inside it, deciding per node from the lists and per input from the
// op's schema; then the constants and graph inputs whose readers disagree, the graph outputs, and
// the checks. O(nodes + edges) plus the tensors converted.
//
// The rules, where the issue leaves a choice:
// - An input is cast only where the schema binds it to a type variable (a "group": all inputs and
//   outputs of one variable share one type) that admits float32 and the target dtype, and only when
//   every member of the group is float32 or the target now. Everything else (fixed-type inputs such
//   as Resize's scales, integer and bool tensors, heterogeneous variadics like Loop's carried
//   values, ops libonnx has no schema for) gets the type it had in the original model, cast back
//   if a producer changed it.
// - Target-list ops run every switchable group in the target dtype where the schema admits it (in
//   float32 where it does not: Conv before opset 13 has no bfloat16; the report says so); float32
//   ops in float32; widest ops in the widest type of their inputs; all others pass through the type
//   their inputs agree on (float32 where they disagree).
// - Constants (initializers of the main graph and its Constant nodes) are never cast at run time:
//   their readers' needs are collected and, when all want the target dtype, the tensor is converted
//   in place; when both precisions read it, it stays exact in float32 and a converted copy
//   `<name>_amp_cast_<dtype>` is added. A constant does not count towards a widest or pass-through
//   decision (it takes whatever type its reader needs). Values beyond the target's range (|x| >
//   65504 for float16, beyond bfloat16's largest finite for bfloat16, e.g. -FLT_MAX attention
//   masks) saturate to the dtype's largest finite value, never inf, with a line in the report.
// - Graph inputs and outputs keep their types unless lowPrecisionIo: then an input changes when all
//   its readers want the target, and an output keeps its producer's type.
// - Bodies keep their interface: inputs and outputs in their original types (cast inside the body).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <absl/container/inlined_vector.h>
#include <onnx/checker.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "amp/conversion_pass.h"
#include "amp/onnx_conversion.h"
#include "amp/op_list_index.h"
#include "amp/report_storage.h"
#include "formats/load_error.h"
#include "formats/name_tables.h"
#include "formats/onnx_checker.h"
#include "formats/onnx_graph_import.h"
#include "formats/onnx_model.h"
#include "formats/onnx_model_copy.h"
#include "formats/onnx_strict_inference.h"
#include "formats/onnx_tensor_data.h"
#include "tensor/float_convert.h"

namespace ampstudio {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;
using onnx::TensorProto;

constexpr int32_t kUnknown = 0;
// Element types of one node's inputs, outputs or type variables: a handful, kept on the stack.
using TypeList = absl::InlinedVector<int32_t, 8>;
constexpr int32_t kFloat = TensorProto::FLOAT;
constexpr NodeId kNoCastNode = static_cast<NodeId>(-1);

// Nodes the pass holds while it reorders a graph: taken out of the GraphProto and put back without
// a copy, at addresses that stay put (a constant's readers are remembered by address).
using NodeList = std::vector<std::unique_ptr<NodeProto>>;

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string opKey(const NodeProto& node) {
    return isDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

std::string typeName(int32_t elemType) { return elemType == kUnknown ? "unknown" : onnxTypeName(elemType); }

// Cast(input) -> output, to `to`: every cast the pass inserts.
NodeProto castNode(const std::string& name, const std::string& input, const std::string& output, int32_t to) {
    NodeProto cast;
    cast.set_name(name);
    cast.set_op_type("Cast");
    cast.add_input(input);
    cast.add_output(output);
    AttributeProto* attr = cast.add_attribute();
    attr->set_name("to");
    attr->set_type(AttributeProto::INT);
    attr->set_i(to);
    return cast;
}

// The bytes of a graph's initializers, from their dims and dtypes.
uint64_t initializerByteCount(const GraphProto& graph) {
    uint64_t bytes = 0;
    for (const TensorProto& t : graph.initializer()) {
        uint64_t n = 1;
        for (const int64_t d : t.dims()) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
        bytes += n * onnxElementSize(t.data_type());
    }
    return bytes;
}

// Every name the pass makes contains this: only the model's names that contain it too can clash
// with one, so the pass's taken-name set holds those alone (none in a model never converted),
// not the hundreds of thousands of names a large model has.
constexpr std::string_view kMadeNameMark = "_amp_";
bool mayClashWithMadeNames(std::string_view name) { return name.find(kMadeNameMark) != std::string_view::npos; }

// AMS_ONNX_PASS_PHASES=1 prints each phase's milliseconds to stderr (for the benchmark's profile).
struct PhaseClock {
    bool on = std::getenv("AMS_ONNX_PASS_PHASES") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void mark(const char* phase) {
        if (!on) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "onnx pass: %-28s %8.1f ms\n", phase,
                     std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
};

// ---------------------------------------------------------------------------------------------
// What a schema says about one node's inputs and outputs.

struct TypeVar {
    bool allowsFloat = false;
    bool allowsF16 = false;
    bool allowsBF16 = false;
    int32_t only = kUnknown;  // the element type when the constraint admits exactly one tensor type
};

struct FormalFacts {
    int var = -1;  // index into SchemaFacts::vars; -1 for a fixed type
    int32_t fixed = kUnknown;  // a fixed type's element type ("tensor(int64)"), when a tensor
    bool variadic = false;
    bool homogeneous = true;
};

// The element type a type string such as "tensor(int64)" names; kUnknown for anything else.
int32_t tensorElemType(const std::string& typeStr) {
    if (typeStr.rfind("tensor(", 0) != 0) return kUnknown;
    try {
        const onnx::TypeProto& type = onnx::Utils::DataTypeUtils::ToTypeProto(onnx::Utils::DataTypeUtils::ToType(typeStr));
        return type.has_tensor_type() ? type.tensor_type().elem_type() : kUnknown;
    } catch (const std::exception&) {
        return kUnknown;
    }
}

struct SchemaFacts {
    const onnx::OpSchema* schema = nullptr;
    std::vector<TypeVar> vars;
    std::vector<std::string> varNames;
    std::vector<FormalFacts> inputs, outputs;

    // The formal parameter actual position `i` binds to (a variadic last formal covers the rest).
    const FormalFacts* formal(const std::vector<FormalFacts>& formals, std::size_t i) const {
        if (i < formals.size()) return &formals[i];
        if (!formals.empty() && formals.back().variadic) return &formals.back();
        return nullptr;
    }
};

SchemaFacts factsOf(const onnx::OpSchema* schema) {
    SchemaFacts facts;
    facts.schema = schema;
    std::unordered_map<std::string, int> index;
    for (const auto& constraint : schema->typeConstraintParams()) {
        TypeVar var;
        for (const std::string& allowed : constraint.allowed_type_strs) {
            if (allowed == "tensor(float)") var.allowsFloat = true;
            if (allowed == "tensor(float16)") var.allowsF16 = true;
            if (allowed == "tensor(bfloat16)") var.allowsBF16 = true;
        }
        if (constraint.allowed_type_strs.size() == 1) var.only = tensorElemType(constraint.allowed_type_strs[0]);
        index[constraint.type_param_str] = static_cast<int>(facts.vars.size());
        facts.vars.push_back(var);
        facts.varNames.push_back(constraint.type_param_str);
    }
    const auto formals = [&](const std::vector<onnx::OpSchema::FormalParameter>& params) {
        std::vector<FormalFacts> out;
        for (const auto& p : params) {
            FormalFacts f;
            const auto it = index.find(p.GetTypeStr());
            f.var = it == index.end() ? -1 : it->second;
            if (f.var < 0) f.fixed = tensorElemType(p.GetTypeStr());
            f.variadic = p.GetOption() == onnx::OpSchema::Variadic;
            f.homogeneous = p.GetIsHomogeneous();
            if (f.variadic && !f.homogeneous) f.var = -1;  // each its own type: never switched
            out.push_back(f);
        }
        return out;
    };
    facts.inputs = formals(schema->inputs());
    facts.outputs = formals(schema->outputs());
    return facts;
}

// ---------------------------------------------------------------------------------------------
// Types and casts of one graph scope (the main graph or a body), with its parent's visible.

struct Flexible;

// What the pass knows of one value: one entry, one lookup, for all of it.
constexpr int32_t kUnset = -1;
struct ValueState {
    int32_t original = kUnknown;  // its type in the original model
    int32_t current = kUnset;     // its type in the converted model (kUnset: the original's)
    Flexible* flexible = nullptr; // a main-graph constant whose readers decide its stored type
    // A main-graph node output's producer in the original's Graph IR (its name there, and which
    // output): what the report names as a cast's source. Null for anything else.
    const std::string* producer = nullptr;
    uint32_t producerOutput = 0;
    int32_t now() const { return current != kUnset ? current : original; }
};

// A value lives in the scope that defines it (ONNX names are unique across a graph and the bodies
// it contains); a body sees its parents' values.
struct Scope {
    Scope* parent = nullptr;
    GraphProto* graph = nullptr;
    NameStore* names = nullptr;  // the pass's: the keys below are its copies
    NameMap<ValueState> values;
    absl::flat_hash_map<std::pair<std::string_view, int32_t>, std::string_view> casts;  // (name, type) -> cast output
    std::vector<int32_t> outputTypes;  // a body's outputs in the original model, once walked
    std::string path;                  // a body's place, "<node>/<attribute>/", for the report

    // The entry for a value of this scope, made when there is none. (A reference into the table:
    // good until the next value is added.)
    ValueState& value(std::string_view name) {
        auto it = values.find(name);
        if (it == values.end()) it = values.emplace(names->keep(name), ValueState{}).first;
        return it->second;
    }
    const ValueState* find(std::string_view name) const {
        for (const Scope* s = this; s; s = s->parent) {
            const auto it = s->values.find(name);
            if (it != s->values.end()) return &it->second;
        }
        return nullptr;
    }
    int32_t originalType(std::string_view name) const {
        const ValueState* v = find(name);
        return v ? v->original : kUnknown;
    }
    int32_t currentType(std::string_view name) const {
        const ValueState* v = find(name);
        return v ? v->now() : kUnknown;
    }
    // Its type in the converted model, where set (kUnknown otherwise).
    int32_t setType(std::string_view name) const {
        const auto it = values.find(name);
        return it == values.end() || it->second.current == kUnset ? kUnknown : it->second.current;
    }
    const std::string_view* findCast(std::string_view name, int32_t type) const {
        for (const Scope* s = this; s; s = s->parent) {
            const auto it = s->casts.find(std::pair(name, type));
            if (it != s->casts.end()) return &it->second;
        }
        return nullptr;
    }
};

// The element types of a node's outputs that its schema's inference function gives from its
// attributes and its inputs' element types alone (Cast's `to`, ConstantOfShape's `value`, a
// Constant): what the original's types need where the outputs bind to no input. Shapes are not
// asked for; an inference function that needs more (or fails) leaves the type unknown.
class ElementTypeContext final : public onnx::InferenceContext {
public:
    ElementTypeContext(const NodeProto& node, const TypeList& inputTypes) : m_node(node) {
        m_inputs.resize(inputTypes.size());
        for (std::size_t i = 0; i < inputTypes.size(); ++i) {
            if (inputTypes[i] != kUnknown) m_inputs[i].mutable_tensor_type()->set_elem_type(inputTypes[i]);
        }
        m_outputs.resize(static_cast<std::size_t>(node.output_size()));
    }
    const AttributeProto* getAttribute(const std::string& name) const override {
        for (const AttributeProto& attr : m_node.attribute()) {
            if (attr.name() == name) return &attr;
        }
        return nullptr;
    }
    size_t getNumInputs() const override { return m_inputs.size(); }
    const onnx::TypeProto* getInputType(size_t i) const override {
        return i < m_inputs.size() && m_inputs[i].has_tensor_type() ? &m_inputs[i] : nullptr;
    }
    const TensorProto* getInputData(size_t) const override { return nullptr; }
    size_t getNumOutputs() const override { return m_outputs.size(); }
    onnx::TypeProto* getOutputType(size_t i) override { return &m_outputs[i]; }
    onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
        throw std::runtime_error("no graph inference here");
    }
    const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
    const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }

    int32_t outputType(std::size_t i) const {
        return m_outputs[i].has_tensor_type() ? m_outputs[i].tensor_type().elem_type() : kUnknown;
    }

private:
    const NodeProto& m_node;
    std::vector<onnx::TypeProto> m_inputs;
    std::vector<onnx::TypeProto> m_outputs;
};

// What shape inference reads of initializers: names, dtypes and dims, and the values of small ones
// (a shape input is never over 4 KiB; weights are).
constexpr std::size_t kShapeInputBytes = 4096;

// Whether libonnx 1.12 knows the model's IR version and every opset it imports.
std::string checkerCannotJudge(const onnx::ModelProto& model) {
    if (model.ir_version() > onnx::IR_VERSION) {
        return "IR version " + std::to_string(model.ir_version()) + " is newer than libonnx " +
               "1.12 knows (" + std::to_string(onnx::IR_VERSION) + ")";
    }
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    for (const auto& opset : model.opset_import()) {
        const std::string domain = isDefaultDomain(opset.domain()) ? std::string() : opset.domain();
        const auto it = ranges.find(domain);
        if (it == ranges.end()) return "opset domain '" + opset.domain() + "' is unknown to libonnx 1.12";
        if (opset.version() > it->second.second) {
            return "opset " + (domain.empty() ? std::string("ai.onnx") : domain) + " " + std::to_string(opset.version()) +
                   " is newer than libonnx 1.12 knows (" + std::to_string(it->second.second) + ")";
        }
    }
    return {};
}

// libonnx's checker, then strict shape inference (check_type, error mode 1; onnx_strict_inference.h)
// once the checker passed: libonnx's inference functions assume a model the checker accepted
// (Scan-9's dereferences a body a malformed Scan lacks: the fuzzer found it), so a model it refuses
// is never inferred. The first failure's message, empty when both pass.
std::string validationFailure(const onnx::ModelProto& model) {
    std::string failure = checkerFailure(model);
    if (!failure.empty()) return failure;
    return strictInferenceFailure(model);
}

// ---------------------------------------------------------------------------------------------

// The largest finite value of the target dtype: what out-of-range constants saturate to.
float largestFinite(int32_t target) {
    return target == TensorProto::FLOAT16 ? 65504.0f : bfloat16BitsToFloat(0x7f7f);
}

// From the midpoint between the target's largest finite value and the next power of two on,
// rounding to nearest even gives inf (the largest finite value's last bit is odd in both dtypes):
// the bits of |x| at that threshold.
uint32_t beyondRangeBits(int32_t target) { return target == TensorProto::FLOAT16 ? 0x477ff000u : 0x7f7f8000u; }

// Whether float32 values (little-endian bytes) hold a finite value the target dtype cannot hold
// (it would round to inf). One unsigned compare per value, no branch: weights scan at memory speed.
// A block of a fixed size, so that the compiler vectorizes the loop at -O2 too.
constexpr std::size_t kScanBlock = 2048;
bool blockOutOfRange(const char* p, uint32_t beyond, uint32_t span) {
    uint32_t found = 0;
    for (std::size_t i = 0; i < kScanBlock; ++i) {
        uint32_t bits;
        std::memcpy(&bits, p + i * sizeof bits, sizeof bits);
        found |= static_cast<uint32_t>(((bits & 0x7fffffffu) - beyond) < span);
    }
    return found != 0;
}

bool holdsOutOfRange(std::string_view bytes, int32_t target) {
    const uint32_t beyond = beyondRangeBits(target);
    const uint32_t span = 0x7f800000u - beyond;  // |x| in [beyond, inf): finite and out of range
    const std::size_t n = bytes.size() / sizeof(uint32_t);
    const char* p = bytes.data();
    std::size_t i = 0;
    for (; i + kScanBlock <= n; i += kScanBlock) {
        if (blockOutOfRange(p + i * sizeof(uint32_t), beyond, span)) return true;
    }
    for (; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, p + i * sizeof bits, sizeof bits);
        if (((bits & 0x7fffffffu) - beyond) < span) return true;
    }
    return false;
}

bool holdsOutOfRange(const TensorProto& tensor, int32_t target) {
    if (!tensor.raw_data().empty()) return holdsOutOfRange(std::string_view(tensor.raw_data()), target);
    const auto& values = tensor.float_data();
    return holdsOutOfRange(std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)),
                           target);
}

// A main-graph constant whose readers decide its stored dtype.
struct Flexible {
    enum class Kind { Initializer, ConstantNode, GraphInput } kind = Kind::Initializer;
    std::string_view name;  // (the pass's copy)
    int index = 0;  // initializer / graph input / node index (in the main graph's final node list)
    bool float32Reader = false;
    bool targetReader = false;
    std::string placeholder;  // the name of its copy in the target dtype, where both precisions read it (made at the end)
    // Holds finite values beyond the target's range (an attention mask of -FLT_MAX): it counts as
    // float32 in widest and pass-through decisions, so arithmetic on it stays in float32 (saturated
    // to the dtype's max, mask + score would still overflow to -inf, and Softmax of -inf rows is NaN).
    bool outOfRange = false;
};

struct NodeOutcome {
    DecisionRule rule = DecisionRule::NoList;
    NodePrecision precision = NodePrecision::Unchanged;
    int32_t dtype = kUnknown;
    std::string detail;
};

class OnnxPass {
public:
    OnnxPass(const OnnxModel& model, const ConversionOptions& options)
        : m_model(model), m_options(options), m_lists(options.lists, options.excludedSymNames) {
        m_target = onnxDataType(options.lists.targetDtype);
        m_targetName = std::string(dtypeName(options.lists.targetDtype));
        for (const auto& opset : model.proto.opset_import()) {
            m_opsets[isDefaultDomain(opset.domain()) ? std::string() : opset.domain()] = static_cast<int>(opset.version());
        }
    }

    ConversionResult run();

private:
    // --- the walk ---
    void convertGraph(Scope& scope, bool main, const std::vector<int32_t>& interfaceTypes = {});
    NodeOutcome convertNode(Scope& scope, NodeProto& node, const std::string& irName, NodeList& emitted);
    const SchemaFacts* schemaOf(const NodeProto& node, const std::string& key);
    TypeList originalOutputTypes(const Scope& scope, const NodeProto& node, const SchemaFacts* facts, const TypeList& inputTypes);
    bool targetAllowed(const TypeVar& var) const {
        return m_castToTarget && (m_target == TensorProto::FLOAT16 ? var.allowsF16 : var.allowsBF16);
    }
    std::string castOf(Scope& scope, const std::string& name, int32_t to, NodeList& emitted);
    // The constant `name`'s entry, made with `kind` and `index` when there is none.
    Flexible& addFlexible(std::string_view name, Flexible::Kind kind, int index);
    const std::string& freshName(const std::string& base);
    void needFrom(const std::string& name, int32_t type, NodeProto& node, int input, Scope& scope,
                  NodeList& emitted);

    // --- after the walk ---
    void settleFlexibles(Scope& main, NodeList& prepended);
    void settleGraphOutputs(Scope& main);
    void applyRenames(GraphProto& graph);
    void fixValueInfo(GraphProto& graph, const Scope& scope);
    void convertTensor(TensorProto& tensor, const TensorProto& source, std::string_view sourceBytes, std::string_view kind,
                       const std::string& name);
    std::string_view initializerBytes(int index) const;
    void buildReport(ConversionResult& result, onnx::ModelProto converted);

    const OnnxModel& m_model;
    const ConversionOptions& m_options;
    amp_detail::OpListIndex m_lists;
    int32_t m_target = TensorProto::FLOAT16;
    std::string m_targetName;
    bool m_castToTarget = true;
    std::unordered_map<std::string, int> m_opsets;
    std::unordered_map<std::string, SchemaFacts> m_schemas;  // by op key; facts.schema null: none
    // The names a made name must not be: the model's that could equal one (mayClashWithMadeNames),
    // as views of the original's proto and Graph IR (which no one changes while the pass runs) and
    // of the converted copy's tensors (which keep their names), and every name made so far, as views
    // of m_newNames, which owns them.
    NameSet m_taken;
    std::deque<std::string> m_newNames;
    NameStore m_names;  // the keys of the scopes' tables
    // The main graph's constants whose readers decide their type (addresses kept: values point at
    // them), and by name.
    std::deque<Flexible> m_flexibles;
    NameMap<Flexible*> m_flexible;
    struct TargetRead {  // input `input` of `node` reads `constant` in the target dtype
        Flexible* constant;
        NodeProto* node;
        int input;
    };
    std::vector<TargetRead> m_targetReads;
    std::unordered_map<std::string, std::string> m_renames;  // main-graph names changed at the end
    onnx::ModelProto m_converted;
    // The main graph's initializers whose bytes the copy left out (m_converted has no raw_data for
    // them until settleFlexibles converts or copies it), and which of them were external.
    std::vector<char> m_dataLeftOut;
    std::vector<const std::vector<std::byte>*> m_externalData;  // per initializer: its external bytes, or null

    // For the report: per main-graph node (index in the file) its outcome; main-graph casts in
    // creation order (node name, source value, type); warnings.
    std::vector<NodeOutcome> m_outcomes;
    struct BodyOutcome {
        std::string name, op;
        NodeOutcome outcome;
    };
    std::vector<BodyOutcome> m_bodyOutcomes;  // the nodes of If / Loop / Scan bodies, in walk order
    struct CastMade {
        std::string name, source;
        int32_t to;
        const std::string* sourceNode = nullptr;  // the source's producer in the original's IR (null: a variable, or made here)
        uint32_t sourceOutput = 0;
    };
    void recordMainCast(const Scope& main, const std::string& name, const std::string& source, int32_t to) {
        const ValueState* state = main.find(source);
        m_mainCasts.push_back({name, source, to, state ? state->producer : nullptr, state ? state->producerOutput : 0});
    }
    std::vector<CastMade> m_mainCasts;
    std::vector<NodeProto> m_outputCasts;
    std::size_t m_bodyCasts = 0;
    std::map<std::string, std::size_t> m_noTargetInSchema;  // "Conv-11" -> nodes run in float32 for it
    std::vector<std::string> m_warnings;
    std::vector<std::string> m_storedInTarget;
    Scope* m_mainScope = nullptr;
    PhaseClock m_clock;
};

// `key` is opKey(node).
const SchemaFacts* OnnxPass::schemaOf(const NodeProto& node, const std::string& key) {
    auto it = m_schemas.find(key);
    if (it == m_schemas.end()) {
        const std::string domain = isDefaultDomain(node.domain()) ? std::string() : node.domain();
        const auto version = m_opsets.find(domain);
        const onnx::OpSchema* schema =
            version == m_opsets.end() ? nullptr : onnx::OpSchemaRegistry::Schema(node.op_type(), version->second, domain);
        it = m_schemas.emplace(key, schema ? factsOf(schema) : SchemaFacts{}).first;
    }
    return it->second.schema ? &it->second : nullptr;
}

Flexible& OnnxPass::addFlexible(std::string_view name, Flexible::Kind kind, int index) {
    if (const auto it = m_flexible.find(name); it != m_flexible.end()) return *it->second;
    Flexible& f = m_flexibles.emplace_back();
    f.kind = kind;
    f.name = m_names.keep(name);
    f.index = index;
    m_flexible.emplace(f.name, &f);
    return f;
}

// (The name stays where it is for the pass's life: tables may key by it.)
const std::string& OnnxPass::freshName(const std::string& base) {
    if (!mayClashWithMadeNames(base)) throw std::logic_error("a name the pass makes without " + std::string(kMadeNameMark));
    std::string name = base;
    for (int k = 1; m_taken.contains(name); ++k) name = base + "_" + std::to_string(k);
    const std::string& kept = m_newNames.emplace_back(std::move(name));
    m_taken.insert(kept);
    return kept;
}

std::string OnnxPass::castOf(Scope& scope, const std::string& name, int32_t to, NodeList& emitted) {
    if (const std::string_view* found = scope.findCast(name, to)) return std::string(*found);
    const std::string& out = freshName(name + "_amp_cast_" + typeName(to));
    emitted.push_back(std::make_unique<NodeProto>(castNode(out, name, out, to)));
    scope.casts.emplace(std::pair(m_names.keep(name), to), out);
    ValueState& state = scope.value(out);
    state.original = to;
    state.current = to;
    if (&scope == m_mainScope) {
        recordMainCast(scope, out, name, to);
    } else {
        ++m_bodyCasts;
    }
    return out;
}

// Input `input` of `node` must read `name` as `type`: a constant records the need (and target
// readers read its placeholder), anything else gets a runtime cast when its type differs.
void OnnxPass::needFrom(const std::string& name, int32_t type, NodeProto& node, int input, Scope& scope,
                        NodeList& emitted) {
    if (type == kUnknown) return;
    const ValueState* state = scope.find(name);
    if (!state) return;  // (unknown type)
    const int32_t now = state->now();
    if (state->flexible && now == kFloat) {
        Flexible& f = *state->flexible;
        if (type == m_target) {
            // It reads `name` as long as the constant is stored in the target dtype; should a float32
            // reader keep it float32, the end points these readers at a converted copy.
            f.targetReader = true;
            m_targetReads.push_back({&f, &node, input});
            return;
        }
        if (type == kFloat) {
            f.float32Reader = true;
            return;
        }
    }
    if (now == type || now == kUnknown) return;
    node.set_input(input, castOf(scope, name, type, emitted));
}

// The node's output element types in the original model (what ONNX type inference would find):
// a declared type (value_info, graph outputs) first; else the one its schema binds it to (a
// constraint of one type, a fixed type, or the type of an input of the same variable); else what
// the schema's inference function finds from the attributes and the inputs' types (Cast's `to`).
// Unknown where none of these says: an unknown type is never cast. If / Loop / Scan outputs come
// from their bodies (convertNode).
TypeList OnnxPass::originalOutputTypes(const Scope& scope, const NodeProto& node, const SchemaFacts* facts,
                                      const TypeList& inputTypes) {
    TypeList types(static_cast<std::size_t>(node.output_size()), kUnknown);
    bool missing = false;
    for (int o = 0; o < node.output_size(); ++o) {
        int32_t& type = types[static_cast<std::size_t>(o)];
        if (node.output(o).empty()) continue;
        type = scope.originalType(node.output(o));
        if (type != kUnknown || !facts) continue;
        const FormalFacts* f = facts->formal(facts->outputs, static_cast<std::size_t>(o));
        if (f && f->var < 0) {
            type = f->fixed;
        } else if (f) {
            type = facts->vars[static_cast<std::size_t>(f->var)].only;
            for (int i = 0; i < node.input_size() && type == kUnknown; ++i) {
                const FormalFacts* in = facts->formal(facts->inputs, static_cast<std::size_t>(i));
                if (in && in->var == f->var) type = inputTypes[static_cast<std::size_t>(i)];
            }
        }
        missing = missing || type == kUnknown;
    }
    const bool hasBodies = std::any_of(node.attribute().begin(), node.attribute().end(), [](const AttributeProto& a) {
        return a.has_g() || a.graphs_size() > 0;
    });
    if (missing && facts && !hasBodies) {
        ElementTypeContext context(node, inputTypes);
        try {
            // Inference functions assume a node its schema accepts (attributes, input counts):
            // one it refuses keeps its output types unknown.
            facts->schema->Verify(node);
            facts->schema->GetTypeAndShapeInferenceFunction()(context);
        } catch (const std::exception&) {
            // Whatever it found before it stopped still counts; the rest stays unknown.
        }
        for (std::size_t o = 0; o < types.size(); ++o) {
            if (types[o] == kUnknown) types[o] = context.outputType(o);
        }
    }
    return types;
}

NodeOutcome OnnxPass::convertNode(Scope& scope, NodeProto& node, const std::string& irName,
                                  NodeList& emitted) {
    NodeOutcome out;
    const std::string key = opKey(node);
    const amp_detail::OpClass& cls = m_lists.classify(key);
    bool wantFloat32 = false, wantTarget = false, wantWidest = false;
    if (m_lists.isExcluded(irName)) {
        out.rule = DecisionRule::Excluded;
        wantFloat32 = true;
    } else if (cls.target) {
        out.rule = DecisionRule::TargetList;
        wantTarget = true;
    } else if (cls.fp32) {
        out.rule = DecisionRule::Fp32List;
        wantFloat32 = true;
    } else {
        for (const ConditionalFp32Op* entry : cls.conditional) {
            for (const AttributeProto& attr : node.attribute()) {
                if (attr.name() != entry->param) continue;
                const std::string value = attr.type() == AttributeProto::INT ? std::to_string(attr.i()) : attr.s();
                if (std::find(entry->values.begin(), entry->values.end(), value) != entry->values.end()) {
                    out.rule = DecisionRule::ConditionalFp32;
                    out.detail = entry->param + "=" + value;
                    wantFloat32 = true;
                }
            }
            if (wantFloat32) break;
        }
        if (!wantFloat32) {
            if (cls.widest) {
                out.rule = DecisionRule::WidestList;
                wantWidest = true;
            } else {
                out.rule = cls.neutral ? DecisionRule::NeutralList : DecisionRule::NoList;
            }
        }
    }
    out.precision = wantFloat32 ? NodePrecision::Float32
                    : wantTarget ? NodePrecision::Target
                    : wantWidest ? NodePrecision::Widest
                                 : NodePrecision::Unchanged;

    const SchemaFacts* facts = schemaOf(node, key);
    TypeList inputTypes(static_cast<std::size_t>(node.input_size()), kUnknown);
    for (int i = 0; i < node.input_size(); ++i) {
        if (!node.input(i).empty()) inputTypes[static_cast<std::size_t>(i)] = scope.originalType(node.input(i));
    }
    TypeList originalOut = originalOutputTypes(scope, node, facts, inputTypes);
    // Per type variable: the type its group resolves to (kUnknown: not switched).
    TypeList resolved(facts ? facts->vars.size() : 0, kUnknown);
    if (facts) {
        // Group the inputs by variable; a group switches only when all its members are float32 or
        // the target now (constants, which take any type, do not count).
        struct Group {
            bool member = false, usable = true, any = false, hasFloat = false, hasTarget = false;
        };
        absl::InlinedVector<Group, 8> groups(facts->vars.size());
        for (int i = 0; i < node.input_size(); ++i) {
            if (node.input(i).empty()) continue;
            const FormalFacts* f = facts->formal(facts->inputs, static_cast<std::size_t>(i));
            if (!f || f->var < 0) continue;
            Group& g = groups[static_cast<std::size_t>(f->var)];
            g.member = true;
            const ValueState* state = scope.find(node.input(i));
            const int32_t now = state ? state->now() : kUnknown;
            const bool flexible = state && state->flexible && !state->flexible->outOfRange && now == kFloat;
            if (now != kFloat && now != m_target) {
                g.usable = false;
            } else if (!flexible) {
                g.any = true;
                (now == kFloat ? g.hasFloat : g.hasTarget) = true;
            }
        }
        bool fellBack = false;
        for (std::size_t v = 0; v < groups.size(); ++v) {
            const Group& g = groups[v];
            const TypeVar& var = facts->vars[v];
            if (!g.member || !g.usable || !var.allowsFloat) continue;
            int32_t type = kFloat;
            if (wantTarget) {
                if (targetAllowed(var)) {
                    type = m_target;
                } else {
                    fellBack = true;
                }
            } else if (wantFloat32) {
                type = kFloat;
            } else {
                // Widest and pass-through alike: the one type the inputs agree on, else float32.
                type = g.any && g.hasTarget && !g.hasFloat ? m_target : kFloat;
            }
            if (type == m_target && !targetAllowed(var)) type = kFloat;
            resolved[v] = type;
        }
        if (fellBack) {
            const std::string schemaName = node.op_type() + "-" + std::to_string(facts->schema->since_version());
            ++m_noTargetInSchema[schemaName];
            out.precision = NodePrecision::Float32;
            out.detail = schemaName + " admits no " + m_targetName + ": runs in float32";
        }
        if (wantWidest) {
            bool both = false;
            for (std::size_t v = 0; v < groups.size(); ++v) both = both || (groups[v].hasFloat && groups[v].hasTarget);
            if (both) out.detail = "inputs " + m_targetName + " and float32 → float32";
        }
    } else if (wantTarget || wantFloat32 || wantWidest) {
        out.detail = "libonnx has no schema for " + key + " at this opset: its inputs keep their types";
        out.precision = NodePrecision::Unchanged;
    }

    // Inputs: a switched group's type, else the type the original model gave it.
    for (int i = 0; i < node.input_size(); ++i) {
        const std::string& name = node.input(i);  // (needFrom changes it only after its last use)
        if (name.empty()) continue;
        const FormalFacts* f = facts ? facts->formal(facts->inputs, static_cast<std::size_t>(i)) : nullptr;
        int32_t type = f && f->var >= 0 ? resolved[static_cast<std::size_t>(f->var)] : kUnknown;
        if (type == kUnknown) type = inputTypes[static_cast<std::size_t>(i)];
        needFrom(name, type, node, i, scope, emitted);
    }

    // Bodies, with this scope's types and casts visible; their interfaces keep the original types.
    // A body input without a declared type has its node input's (Loop: iteration count, condition,
    // then the carried values; Scan: its states and scanned inputs, after Scan-8's sequence_lens).
    const bool isLoop = node.op_type() == "Loop" && isDefaultDomain(node.domain());
    const bool isScan = node.op_type() == "Scan" && isDefaultDomain(node.domain());
    const int scanOffset = isScan && facts && facts->schema->since_version() < 9 ? 1 : 0;
    std::vector<int32_t> interfaceTypes;
    if (isLoop) {
        interfaceTypes = {TensorProto::INT64, TensorProto::BOOL};
        for (std::size_t i = 2; i < inputTypes.size(); ++i) interfaceTypes.push_back(inputTypes[i]);
    } else if (isScan) {
        interfaceTypes.assign(inputTypes.begin() + std::min<std::ptrdiff_t>(scanOffset, std::ssize(inputTypes)), inputTypes.end());
    }
    int bodyNodes = 0;
    for (int a = 0; a < node.attribute_size(); ++a) {
        AttributeProto& attr = *node.mutable_attribute(a);
        const auto convertBody = [&](GraphProto& body, int g) {
            Scope inner;
            inner.names = &m_names;
            inner.path = scope.path + (irName.empty() ? node.op_type() : irName) + "/" + attr.name() + (g >= 0 ? "[" + std::to_string(g) + "]" : "") + "/";
            inner.parent = &scope;
            inner.graph = &body;
            convertGraph(inner, false, interfaceTypes);
            bodyNodes += body.node_size();
            // The node's outputs from the body's (If: either branch; Loop: after the condition).
            const int skip = isLoop ? 1 : 0;
            for (std::size_t o = 0; o < originalOut.size(); ++o) {
                const std::size_t from = o + static_cast<std::size_t>(skip);
                if (originalOut[o] == kUnknown && from < inner.outputTypes.size()) originalOut[o] = inner.outputTypes[from];
            }
        };
        if (attr.has_g()) convertBody(*attr.mutable_g(), -1);
        for (int g = 0; g < attr.graphs_size(); ++g) convertBody(*attr.mutable_graphs(g), g);
    }
    if (isLoop || isScan) {
        // Carried values and states leave with the types they came in with.
        const std::size_t offset = isLoop ? 2 : static_cast<std::size_t>(scanOffset);
        for (std::size_t o = 0; o < originalOut.size() && o + offset < inputTypes.size(); ++o) {
            if (originalOut[o] == kUnknown) originalOut[o] = inputTypes[o + offset];
        }
    }
    if (bodyNodes > 0) out.detail = "its bodies converted with the same lists (" + std::to_string(bodyNodes) + " nodes)";

    // Outputs: a switched group's type, else the original type (a Cast keeps its `to`).
    for (int o = 0; o < node.output_size(); ++o) {
        const std::string& name = node.output(o);
        if (name.empty()) continue;
        const FormalFacts* f = facts ? facts->formal(facts->outputs, static_cast<std::size_t>(o)) : nullptr;
        const int32_t switched = f && f->var >= 0 ? resolved[static_cast<std::size_t>(f->var)] : kUnknown;
        int32_t original = originalOut[static_cast<std::size_t>(o)];
        if (original == kUnknown && switched != kUnknown) original = kFloat;  // bound to a float group
        // One variable, one type: an output bound to a switched group has the group's type.
        const int32_t type = switched != kUnknown ? switched : original;
        ValueState& state = scope.value(name);
        if (&scope == m_mainScope) {
            state.producer = &irName;
            state.producerOutput = static_cast<uint32_t>(o);
        }
        if (original != kUnknown) state.original = original;
        state.current = type;
        if (o == 0) out.dtype = type;
    }
    if (out.precision == NodePrecision::Target && out.dtype != m_target) {
        // A target op whose inputs could not switch (integer inputs, or none bound to a float type).
        for (const int32_t t : resolved) {
            if (t == m_target) out.dtype = m_target;
        }
    }
    return out;
}

// Kahn's algorithm with the earliest node first (the file's order when it is topological). Values
// not defined in this graph count as available (outer scope or graph inputs); a node with bodies
// also waits for the values its bodies read from this graph.
std::vector<int> topologicalOrder(const GraphProto& graph) {
    const int count = graph.node_size();
    NameMap<int> producer;
    for (int p = 0; p < count; ++p) {
        for (const std::string& name : graph.node(p).output()) {
            if (!name.empty()) producer.emplace(name, p);
        }
    }
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(count));
    std::vector<int> pending(static_cast<std::size_t>(count), 0);
    const std::function<void(const GraphProto&, std::vector<int>&)> bodyReads = [&](const GraphProto& body,
                                                                                   std::vector<int>& out) {
        for (const NodeProto& n : body.node()) {
            for (const std::string& name : n.input()) {
                if (const auto it = producer.find(name); it != producer.end()) out.push_back(it->second);
            }
            for (const AttributeProto& attr : n.attribute()) {
                if (attr.has_g()) bodyReads(attr.g(), out);
                for (const GraphProto& g : attr.graphs()) bodyReads(g, out);
            }
        }
        for (const auto& v : body.output()) {
            if (const auto it = producer.find(v.name()); it != producer.end()) out.push_back(it->second);
        }
    };
    for (int p = 0; p < count; ++p) {
        const NodeProto& node = graph.node(p);
        std::vector<int> from;
        for (const std::string& name : node.input()) {
            if (const auto it = producer.find(name); it != producer.end()) from.push_back(it->second);
        }
        for (const AttributeProto& attr : node.attribute()) {
            if (attr.has_g()) bodyReads(attr.g(), from);
            for (const GraphProto& g : attr.graphs()) bodyReads(g, from);
        }
        std::sort(from.begin(), from.end());
        from.erase(std::unique(from.begin(), from.end()), from.end());
        for (const int q : from) {
            if (q == p) continue;  // a body naming its own node's output: not a dependency we can honour
            consumers[static_cast<std::size_t>(q)].push_back(p);
            ++pending[static_cast<std::size_t>(p)];
        }
    }
    std::vector<int> order = earliestFirstOrder(consumers, std::move(pending));
    // A cycle (a body reading a value produced after its node): the rest in file order, as read.
    if (order.size() < static_cast<std::size_t>(count)) {
        std::vector<char> placed(static_cast<std::size_t>(count), 0);
        for (const int p : order) placed[static_cast<std::size_t>(p)] = 1;
        for (int p = 0; p < count; ++p) {
            if (!placed[static_cast<std::size_t>(p)]) order.push_back(p);
        }
    }
    return order;
}

void OnnxPass::convertGraph(Scope& scope, bool main, const std::vector<int32_t>& interfaceTypes) {
    GraphProto& graph = *scope.graph;
    // The declared types; the walk adds every node output's (originalOutputTypes).
    const auto declare = [&](const onnx::ValueInfoProto& v) {
        if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != kUnknown) {
            scope.value(v.name()).original = v.type().tensor_type().elem_type();
        }
    };
    // (About one output per node, the inputs and initializers, the casts: no rehash on the way.)
    scope.values.reserve(static_cast<std::size_t>(graph.node_size() * 3 / 2 + graph.initializer_size() + graph.input_size()));
    for (const auto& v : graph.value_info()) declare(v);
    for (const auto& v : graph.output()) declare(v);
    for (int i = 0; i < graph.input_size(); ++i) {
        declare(graph.input(i));
        if (static_cast<std::size_t>(i) < interfaceTypes.size() && interfaceTypes[static_cast<std::size_t>(i)] != kUnknown) {
            ValueState& state = scope.value(graph.input(i).name());
            if (state.original == kUnknown) state.original = interfaceTypes[static_cast<std::size_t>(i)];
        }
    }
    for (const auto& t : graph.initializer()) scope.value(t.name()).original = t.data_type();
    if (main) {
        for (Flexible& f : m_flexibles) scope.value(f.name).flexible = &f;  // initializers, graph inputs
    }

    // The main graph in the order of the original's Graph IR (the same earliest-first sort, done
    // when the model was read); a body sorted here.
    std::vector<int> order;
    if (main) {
        order.reserve(static_cast<std::size_t>(graph.node_size()));
        for (const int p : m_model.protoNodeOf) {
            if (p >= 0) order.push_back(p);
        }
    } else {
        order = topologicalOrder(graph);
    }
    NodeList nodes(static_cast<std::size_t>(graph.node_size()));
    {
        std::vector<NodeProto*> released(nodes.size());
        graph.mutable_node()->ExtractSubrange(0, graph.node_size(), released.data());
        for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].reset(released[i]);
    }
    NodeList emitted;
    emitted.reserve(nodes.size() + 16);
    if (main) m_outcomes.assign(static_cast<std::size_t>(nodes.size()), NodeOutcome{});
    std::vector<const std::string*> irNames;
    if (main) {
        irNames.assign(static_cast<std::size_t>(nodes.size()), nullptr);
        for (std::size_t id = 0; id < m_model.protoNodeOf.size(); ++id) {
            const int p = m_model.protoNodeOf[id];
            if (p >= 0) irNames[static_cast<std::size_t>(p)] = &m_model.graph->nodes[id].name;
        }
    }
    for (const int p : order) {
        NodeProto& node = *nodes[static_cast<std::size_t>(p)];
        // Constants of the main graph: their readers decide their stored type.
        Flexible* constant = nullptr;
        if (main && node.op_type() == "Constant" && isDefaultDomain(node.domain()) && node.output_size() == 1 &&
            !m_lists.isExcluded(*irNames[static_cast<std::size_t>(p)])) {
            for (const AttributeProto& attr : node.attribute()) {
                if (attr.name() == "value" && attr.has_t() && attr.t().data_type() == kFloat) {
                    constant = &addFlexible(node.output(0), Flexible::Kind::ConstantNode, static_cast<int>(emitted.size()));
                    constant->outOfRange = holdsOutOfRange(attr.t(), m_target);
                    if (constant->outOfRange) {
                        m_warnings.push_back("Constant '" + node.output(0) + "' holds values beyond " + m_targetName +
                                             "'s range: widest and pass-through nodes that read it run in float32");
                    }
                    scope.value(node.output(0)).flexible = constant;
                }
            }
        }
        // (For the main graph the IR's own string, which outlives the pass.)
        const std::string& irName = main ? *irNames[static_cast<std::size_t>(p)] : node.name();
        // The converted model names every node as the original's Graph IR did (an unnamed node's
        // IR name depends on its place in the file, which casts shift): both views then share names.
        if (main && node.name() != irName) node.set_name(irName);
        NodeOutcome outcome = convertNode(scope, node, irName, emitted);
        if (constant) constant->index = static_cast<int>(emitted.size());  // after the casts emitted before it
        if (main) {
            m_outcomes[static_cast<std::size_t>(p)] = std::move(outcome);
        } else {
            // (An unnamed body node is named for the report as the IR names nodes: op and place.)
            const std::string name = irName.empty() ? node.op_type() + "_" + std::to_string(p) : irName;
            m_bodyOutcomes.push_back({scope.path + name, opKey(node), std::move(outcome)});
        }
        emitted.push_back(std::move(nodes[static_cast<std::size_t>(p)]));
    }
    for (auto& node : emitted) graph.mutable_node()->AddAllocated(node.release());

    if (!main) {
        for (const auto& v : graph.output()) scope.outputTypes.push_back(scope.originalType(v.name()));
        // The body's outputs in their declared types: cast inside the body and renamed to the cast.
        NodeList tail;
        for (auto& v : *graph.mutable_output()) {
            if (const ValueState* state = scope.find(v.name()); state && state->flexible) state->flexible->float32Reader = true;
            const int32_t declared = v.type().has_tensor_type() ? v.type().tensor_type().elem_type() : kUnknown;
            const int32_t now = scope.currentType(v.name());
            if (declared == kUnknown || now == kUnknown || now == declared) continue;
            v.set_name(castOf(scope, v.name(), declared, tail));
        }
        for (auto& node : tail) graph.mutable_node()->AddAllocated(node.release());
        fixValueInfo(graph, scope);
    }
}

// The float32 bytes of main-graph initializer `index` in the original (raw or external); empty
// when it keeps them in float_data.
std::string_view OnnxPass::initializerBytes(int index) const {
    if (const std::vector<std::byte>* data = m_externalData[static_cast<std::size_t>(index)]) {
        return {reinterpret_cast<const char*>(data->data()), data->size()};
    }
    return m_model.proto.graph().initializer(index).raw_data();
}

// `tensor` (a float32 tensor, or a copy of one without its data) to the target dtype, from
// `sourceBytes` when given, else from `source`'s own fields. Values beyond the target's range
// saturate to its largest finite value.
void OnnxPass::convertTensor(TensorProto& tensor, const TensorProto& source, std::string_view sourceBytes,
                             std::string_view kind, const std::string& name) {
    std::vector<std::byte> owned;
    if (sourceBytes.empty()) {
        owned = onnxTensorBytes(source, nullptr, "the ONNX model");
        sourceBytes = {reinterpret_cast<const char*>(owned.data()), owned.size()};
    }
    const std::size_t n = sourceBytes.size() / sizeof(float);
    const float limit = largestFinite(m_target);
    const bool saturate = holdsOutOfRange(sourceBytes, m_target);
    const uint32_t beyond = beyondRangeBits(m_target);
    std::size_t saturated = 0;
    std::string raw(n * 2, '\0');
    const auto convert = [&](std::span<const float> values, std::size_t begin) {
        const std::span<uint16_t> out(reinterpret_cast<uint16_t*>(raw.data()) + begin, values.size());
        if (m_target == TensorProto::FLOAT16) {
            floatsToHalf(values, out);
        } else {
            floatsToBfloat16(values, out);
        }
    };
    const bool aligned = reinterpret_cast<std::uintptr_t>(sourceBytes.data()) % alignof(float) == 0;
    if (!saturate && aligned) {  // (raw_data and external data are heap buffers: aligned)
        convert(std::span(reinterpret_cast<const float*>(sourceBytes.data()), n), 0);
    } else {
        // In blocks that stay in cache: copy (aligned), saturate where needed, convert.
        std::vector<float> block(std::min<std::size_t>(n, 16384));
        for (std::size_t begin = 0; begin < n; begin += block.size()) {
            const std::size_t count = std::min(block.size(), n - begin);
            const std::span<float> values(block.data(), count);
            std::memcpy(values.data(), sourceBytes.data() + begin * sizeof(float), count * sizeof(float));
            if (saturate) {
                for (float& v : values) {
                    const uint32_t bits = std::bit_cast<uint32_t>(v) & 0x7fffffffu;
                    if (bits >= beyond && bits < 0x7f800000u) {
                        v = std::copysign(limit, v);
                        ++saturated;
                    }
                }
            }
            convert(values, begin);
        }
    }
    tensor.clear_float_data();
    tensor.clear_int32_data();
    tensor.clear_external_data();
    tensor.clear_data_location();
    tensor.set_data_type(m_target);
    tensor.set_raw_data(std::move(raw));
    if (saturated > 0) {
        m_warnings.push_back(std::string(kind) + " '" + name + "': " + std::to_string(saturated) + " value(s) beyond " + m_targetName +
                             "'s range saturated to ±" + std::to_string(static_cast<double>(limit)) +
                             " (not inf)");
    }
}

void OnnxPass::settleFlexibles(Scope& main, NodeList& prepended) {
    GraphProto& graph = *main.graph;
    // In the order they were found (initializers in file order, then Constants in walk order).
    // Those read in both precisions get their copy's name; their target readers read the copy.
    for (Flexible& f : m_flexibles) {
        if (f.targetReader && f.float32Reader) f.placeholder = freshName(std::string(f.name) + "_amp_cast_" + m_targetName);
    }
    for (const TargetRead& r : m_targetReads) {
        if (r.constant->float32Reader) r.node->set_input(r.input, r.constant->placeholder);
    }
    NameMap<onnx::ValueInfoProto*> inputs;  // IR < 4: initializers are inputs too
    for (auto& input : *graph.mutable_input()) inputs.emplace(input.name(), &input);
    for (Flexible& flexible : m_flexibles) {
        if (!flexible.targetReader) continue;
        Flexible* f = &flexible;
        const std::string name(f->name);
        const bool inPlace = !f->float32Reader;
        switch (f->kind) {
            case Flexible::Kind::Initializer: {
                TensorProto& tensor = *graph.mutable_initializer(f->index);
                const TensorProto& source = m_model.proto.graph().initializer(f->index);
                const std::string_view bytes = initializerBytes(f->index);
                if (inPlace) {
                    convertTensor(tensor, source, bytes, "initializer", name);
                    m_dataLeftOut[static_cast<std::size_t>(f->index)] = 0;
                    m_storedInTarget.push_back(name);
                    if (const auto it = inputs.find(f->name); it != inputs.end()) {
                        it->second->mutable_type()->mutable_tensor_type()->set_elem_type(m_target);
                    }
                } else {
                    TensorProto copy;
                    copyTensorWithoutData(tensor, copy);
                    copy.set_name(f->placeholder);
                    copy.clear_doc_string();
                    convertTensor(copy, source, bytes, "initializer", f->placeholder);
                    m_storedInTarget.push_back(f->placeholder);
                    if (m_converted.ir_version() < 4) {  // initializers were graph inputs then
                        onnx::ValueInfoProto* input = graph.add_input();
                        input->set_name(f->placeholder);
                        auto* tensorType = input->mutable_type()->mutable_tensor_type();
                        tensorType->set_elem_type(m_target);
                        for (const int64_t d : copy.dims()) tensorType->mutable_shape()->add_dim()->set_dim_value(d);
                    }
                    *graph.add_initializer() = std::move(copy);
                    m_warnings.push_back("initializer '" + name + "' is read in float32 and in " + m_targetName +
                                         ": kept exact in float32, with a " + m_targetName + " copy '" + f->placeholder + "'");
                }
                main.value(name).current = inPlace ? m_target : kFloat;
                break;
            }
            case Flexible::Kind::ConstantNode: {
                NodeProto& node = *graph.mutable_node(f->index);
                if (inPlace) {
                    for (auto& attr : *node.mutable_attribute()) {
                        if (attr.name() == "value") convertTensor(*attr.mutable_t(), attr.t(), {}, "Constant", name);
                    }
                } else {
                    NodeProto copy = node;
                    copy.set_name(freshName(f->placeholder));
                    copy.set_output(0, f->placeholder);
                    for (auto& attr : *copy.mutable_attribute()) {
                        if (attr.name() == "value") {
                            convertTensor(*attr.mutable_t(), attr.t(), {}, "Constant", f->placeholder);
                        }
                    }
                    prepended.push_back(std::make_unique<NodeProto>(std::move(copy)));
                }
                main.value(name).current = inPlace ? m_target : kFloat;
                break;
            }
            case Flexible::Kind::GraphInput: {
                if (inPlace) {
                    graph.mutable_input(f->index)->mutable_type()->mutable_tensor_type()->set_elem_type(m_target);
                    main.value(name).current = m_target;
                } else {
                    prepended.push_back(std::make_unique<NodeProto>(castNode(f->placeholder, name, f->placeholder, m_target)));
                    recordMainCast(main, f->placeholder, name, m_target);
                }
                break;
            }
        }
    }
}

void OnnxPass::settleGraphOutputs(Scope& main) {
    GraphProto& graph = *main.graph;
    for (auto& output : *graph.mutable_output()) {
        const std::string name = output.name();
        const int32_t declared = output.type().has_tensor_type() ? output.type().tensor_type().elem_type() : kUnknown;
        const int32_t now = main.currentType(name);
        if (declared == kUnknown || now == kUnknown || now == declared) continue;
        if (m_options.lowPrecisionIo) {
            output.mutable_type()->mutable_tensor_type()->set_elem_type(now);
            continue;
        }
        if (m_renames.contains(name)) continue;  // a second output of the same value
        // The producer's value under a new name; the output's name goes to a cast to the declared
        // type: the one internal float32 readers already use where there is one, else a new one.
        const std::string lowName = freshName(name + "_amp_" + typeName(now));
        m_renames[name] = lowName;
        main.value(lowName).current = now;
        if (const auto it = main.casts.find(std::pair(std::string_view(name), declared)); it != main.casts.end()) {
            m_renames[std::string(it->second)] = name;
            continue;
        }
        NodeProto cast = castNode(freshName(name + "_amp_cast_" + typeName(declared)), lowName, name, declared);
        recordMainCast(main, cast.name(), name, declared);
        m_outputCasts.push_back(std::move(cast));  // added after the renames
    }
}

void OnnxPass::applyRenames(GraphProto& graph) {
    if (m_renames.empty()) return;
    const auto renamed = [&](std::string* name) {
        if (const auto it = m_renames.find(*name); it != m_renames.end()) *name = it->second;
    };
    for (NodeProto& node : *graph.mutable_node()) {
        for (std::string& input : *node.mutable_input()) renamed(&input);
        for (std::string& output : *node.mutable_output()) renamed(&output);
        for (AttributeProto& attr : *node.mutable_attribute()) {
            if (attr.has_g()) applyRenames(*attr.mutable_g());
            for (GraphProto& g : *attr.mutable_graphs()) applyRenames(g);
        }
    }
    // Body outputs that name a main-graph value follow it; the main graph's outputs keep their names.
    if (&graph != m_mainScope->graph) {
        for (auto& v : *graph.mutable_output()) renamed(v.mutable_name());
    }
}

void OnnxPass::fixValueInfo(GraphProto& graph, const Scope& scope) {
    for (auto& v : *graph.mutable_value_info()) {
        if (!v.type().has_tensor_type()) continue;
        const int32_t type = scope.setType(v.name());
        if (type == kUnknown) continue;
        v.mutable_type()->mutable_tensor_type()->set_elem_type(type);
    }
}

ConversionResult OnnxPass::run() {
    const std::string file = "the ONNX model";
    // The copy leaves the main graph's large initializers without their bytes: settleFlexibles
    // converts those the target reads straight from the original's, and copies the rest.
    m_converted = copyWithoutInitializerData(m_model.proto, kShapeInputBytes);
    {
        const GraphProto& from = m_model.proto.graph();
        m_externalData = initializerExternalData(m_model);
        m_dataLeftOut.assign(static_cast<std::size_t>(from.initializer_size()), 0);
        for (int i = 0; i < from.initializer_size(); ++i) {
            m_dataLeftOut[static_cast<std::size_t>(i)] =
                from.initializer(i).raw_data().size() > kShapeInputBytes || m_externalData[static_cast<std::size_t>(i)];
        }
    }
    // Every other tensor inline (external data the model had was read and checked when it was
    // opened); the external initializers are left out like the large ones (their bytes come later).
    inlineExternalTensorsBeyondInitializers(m_converted, m_model);
    for (int i = 0; i < m_converted.graph().initializer_size(); ++i) {
        if (!m_externalData[static_cast<std::size_t>(i)]) continue;
        TensorProto& tensor = *m_converted.mutable_graph()->mutable_initializer(i);
        tensor.clear_external_data();
        tensor.clear_data_location();
    }

    m_clock.mark("copy");

    // Cast must be able to produce the target at this opset (bfloat16 needs Cast-13).
    {
        NodeProto probe;
        probe.set_op_type("Cast");
        const SchemaFacts* cast = schemaOf(probe, opKey(probe));
        m_castToTarget = false;
        if (cast && cast->schema->since_version() >= 6 && !cast->outputs.empty() && cast->outputs[0].var >= 0) {
            const TypeVar& to = cast->vars[static_cast<std::size_t>(cast->outputs[0].var)];
            m_castToTarget = m_target == TensorProto::FLOAT16 ? to.allowsF16 : to.allowsBF16;
        }
        if (!m_castToTarget) {
            m_warnings.push_back("the model's opset has no Cast to " + m_targetName +
                                 " (bfloat16 needs opset 13): every node stays in float32");
        }
    }

    // The model's names that a name the pass makes could equal (mayClashWithMadeNames): new names
    // never collide with one.
    const auto take = [&](const std::string& name) {
        if (mayClashWithMadeNames(name)) m_taken.insert(name);
    };
    forEachOnnxTensor(m_converted, [&](TensorProto& t) { take(t.name()); });
    const std::function<void(const GraphProto&)> takeNames = [&](const GraphProto& g) {
        for (const auto& v : g.input()) take(v.name());
        for (const auto& v : g.output()) take(v.name());
        for (const auto& v : g.value_info()) take(v.name());
        for (const NodeProto& n : g.node()) {
            take(n.name());
            for (const std::string& o : n.output()) take(o);
            for (const AttributeProto& a : n.attribute()) {
                if (a.has_g()) takeNames(a.g());
                for (const GraphProto& b : a.graphs()) takeNames(b);
            }
        }
    };
    takeNames(m_model.proto.graph());
    for (const Node& n : m_model.graph->nodes) take(n.name);

    Scope main;
    main.names = &m_names;
    main.graph = m_converted.mutable_graph();
    m_mainScope = &main;
    GraphProto& graph = *main.graph;
    std::unordered_set<std::string> inputNames;
    for (int i = 0; i < graph.input_size(); ++i) inputNames.insert(graph.input(i).name());
    for (int i = 0; i < graph.initializer_size(); ++i) {
        const TensorProto& t = graph.initializer(i);
        // An initializer that is also an input is a default the caller may override (IR >= 4):
        // with IR < 4 every initializer is an input, and a weight.
        const bool overridable = inputNames.contains(t.name()) && m_converted.ir_version() >= 4;
        if (t.data_type() == kFloat && !overridable && !m_lists.isExcluded(t.name())) {
            Flexible& f = addFlexible(t.name(), Flexible::Kind::Initializer, i);
            f.outOfRange = m_dataLeftOut[static_cast<std::size_t>(i)] ? holdsOutOfRange(initializerBytes(i), m_target)
                                                                       : holdsOutOfRange(t, m_target);
            if (f.outOfRange) {
                m_warnings.push_back("initializer '" + t.name() + "' holds values beyond " + m_targetName +
                                     "'s range: widest and pass-through nodes that read it run in float32");
            }
        }
    }
    if (m_options.lowPrecisionIo) {
        for (int i = 0; i < graph.input_size(); ++i) {
            const auto& v = graph.input(i);
            if (!m_flexible.contains(v.name()) && v.type().has_tensor_type() && v.type().tensor_type().elem_type() == kFloat) {
                addFlexible(v.name(), Flexible::Kind::GraphInput, i);
            }
        }
    }
    // Graph outputs and body outputs reading a constant directly read it in float32.
    for (const auto& v : graph.output()) {
        if (auto it = m_flexible.find(v.name()); it != m_flexible.end()) it->second->float32Reader = true;
    }

    m_clock.mark("set-up");
    convertGraph(main, true);
    m_clock.mark("walk");

    NodeList prepended;
    settleFlexibles(main, prepended);
    // The initializers that stay as they were get their bytes now (the copy left them out).
    for (std::size_t i = 0; i < m_dataLeftOut.size(); ++i) {
        if (!m_dataLeftOut[i]) continue;
        const std::string_view bytes = initializerBytes(static_cast<int>(i));
        graph.mutable_initializer(static_cast<int>(i))->set_raw_data(bytes.data(), bytes.size());
    }
    if (!prepended.empty()) {
        google::protobuf::RepeatedPtrField<NodeProto> rest;
        rest.Swap(graph.mutable_node());
        graph.mutable_node()->Reserve(static_cast<int>(prepended.size()) + rest.size());
        for (auto& n : prepended) graph.mutable_node()->AddAllocated(n.release());
        const int restCount = rest.size();
        std::vector<NodeProto*> released(static_cast<std::size_t>(restCount));
        rest.ExtractSubrange(0, restCount, released.data());
        for (NodeProto* n : released) graph.mutable_node()->AddAllocated(n);
    }
    settleGraphOutputs(main);
    applyRenames(graph);
    for (NodeProto& cast : m_outputCasts) *graph.add_node() = std::move(cast);
    // value_info of main-graph values under their new names, with their new types.
    for (auto& v : *graph.mutable_value_info()) {
        if (const auto it = m_renames.find(v.name()); it != m_renames.end()) v.set_name(it->second);
    }
    {
        // Types by final name: a graph output has its declared one, a renamed value what its old
        // name had, a name renamed away none.
        std::unordered_map<std::string_view, const std::string*> renamedFrom;
        for (const auto& [old, now] : m_renames) renamedFrom.emplace(now, &old);
        std::unordered_map<std::string_view, int32_t> declared;
        for (const auto& output : graph.output()) {
            if (output.type().has_tensor_type()) declared.emplace(output.name(), output.type().tensor_type().elem_type());
        }
        const auto currentOf = [&](const std::string& name) { return main.setType(name); };
        for (auto& v : *graph.mutable_value_info()) {
            if (!v.type().has_tensor_type()) continue;
            int32_t type = kUnknown;
            if (const auto d = declared.find(v.name()); d != declared.end()) {
                type = d->second;
            } else if (const auto r = renamedFrom.find(v.name()); r != renamedFrom.end()) {
                type = currentOf(*r->second);
            } else if (!m_renames.contains(v.name())) {
                type = currentOf(v.name());
            }
            if (type != kUnknown) v.mutable_type()->mutable_tensor_type()->set_elem_type(type);
        }
    }
    for (CastMade& c : m_mainCasts) {
        if (const auto it = m_renames.find(c.name); it != m_renames.end()) c.name = it->second;
    }
    // (A cast's `source` stays the original value's name: that is what the report names.)

    for (const auto& [schema, count] : m_noTargetInSchema) {
        m_warnings.push_back(schema + " admits no " + m_targetName + ": " + std::to_string(count) +
                             " node(s) of the target list run in float32");
    }
    if (m_bodyCasts > 0) {
        m_warnings.push_back(std::to_string(m_bodyCasts) + " Cast node(s) inserted inside If / Loop / Scan bodies");
    }

    m_clock.mark("settle");
    ConversionResult result;
    buildReport(result, std::move(m_converted));
    return result;
}

void OnnxPass::buildReport(ConversionResult& result, onnx::ModelProto convertedModel) {
    ConversionReport& report = result.report;
    report.mode = ConversionMode::Typed;
    report.targetDtype = m_options.lists.targetDtype;
    auto storage = std::make_shared<ReportStorage>();

    // The converted graph as the IR, and the model it came from.
    auto model = std::make_shared<OnnxModel>();
    model->proto = std::move(convertedModel);
    model->externalDataOnSave = m_model.externalDataOnSave;  // saved as the original was
    const onnx::ModelProto& converted = model->proto;

    // Validation: libonnx's checker and strict inference where it knows the IR and opsets, on the
    // second core beside the graph IR and the report (all of them only read the model).
    const std::string cannotJudge = checkerCannotJudge(model->proto);
    std::future<std::string> validation;
    if (cannotJudge.empty()) {
        validation = std::async(std::launch::async, [&proto = model->proto, on = m_clock.on] {
            PhaseClock clock;
            clock.on = on;
            std::string failure = validationFailure(proto);
            clock.mark("(second core) checker + inference");
            return failure;
        });
    } else {
        m_warnings.push_back("onnx::checker and strict shape inference skipped: " + cannotJudge);
    }
    const auto judge = [&] {
        if (!validation.valid()) return;
        const std::string failure = validation.get();
        if (failure.empty()) return;
        onnx::ModelProto original = m_model.proto;
        bool anyExternal = false;
        forEachOnnxTensor(original, [&](TensorProto& t) { anyExternal = anyExternal || isExternalTensor(t); });
        const std::string originalFailure = anyExternal ? std::string() : validationFailure(original);
        if (!originalFailure.empty() && originalFailure.substr(0, 14) == failure.substr(0, 14)) {
            m_warnings.push_back("the original model fails the same check (" + originalFailure +
                                 "); the converted one is not judged by it");
        } else {
            report.dtypeCheck.passed = false;
            report.dtypeCheck.message = failure;
            report.dtypeCheck.stage = "onnx::checker / shape inference";
        }
    };
    struct JoinOnExit {  // an exception below must not leave the thread reading a freed model
        std::future<std::string>& f;
        ~JoinOnExit() {
            if (f.valid()) f.wait();
        }
    } joinOnExit{validation};

    // (Its two threads share the second core with the checks: the cores' work evens out sooner than
    // with this one thread's IR and report against the checks. Alternating runs on the 100k chain:
    // 757 against 822 ms, medians of 10.)
    OnnxGraphImport imported = importOnnxGraph(model->proto.graph(), "the converted ONNX model", /*useSecondCore=*/true);
    imported.graph.attrs = m_model.graph->attrs;
    model->protoNodeOf = std::move(imported.protoNodeOf);
    result.graph = std::move(imported.graph);
    model->graphDigest = onnxGraphDigest(result.graph);  // (the result holds the graph itself)
    m_clock.mark("graph IR of the result");

    const Graph& before = *m_model.graph;
    const GraphProto& originalGraph = m_model.proto.graph();

    // Decisions, one per original IR node.
    report.nodes.reserve(before.size());
    for (std::size_t id = 0; id < before.size(); ++id) {
        const Node& node = before.nodes[id];
        NodeDecision d;
        d.name = storage->keep(node.name);
        const int p = m_model.protoNodeOf[id];
        if (p < 0) {
            d.precision = NodePrecision::Variable;
            d.rule = DecisionRule::Variable;
            // A graph input's or initializer's type as the converted model stores it, and whether
            // its readers decided it: what the main scope holds of it once the flexibles settled.
            const ValueState* state = m_mainScope->find(node.name);
            if (state) d.dtype = dtypeFromOnnx(state->now()).value_or(DType::Unknown);
            if (state && state->flexible && state->flexible->targetReader) {
                const Flexible* f = state->flexible;
                const bool input = f->kind == Flexible::Kind::GraphInput;
                d.detail = storage->keep(
                    f->float32Reader
                        ? (input ? "read in float32 and " + m_targetName + ": stays float32, cast for the " + m_targetName + " readers"
                                 : "read in float32 and " + m_targetName + ": stays exact in float32, its " + m_targetName +
                                       " readers read the copy " + f->placeholder)
                        : (input ? "every reader runs in " + m_targetName + ": the input is " + m_targetName + " (--low-precision-io)"
                                 : "every reader runs in " + m_targetName + ": stored in " + m_targetName));
            }
        } else {
            const NodeOutcome& o = m_outcomes[static_cast<std::size_t>(p)];
            d.op = storage->keep(node.op);
            d.precision = o.precision;
            d.rule = o.rule;
            d.dtype = dtypeFromOnnx(o.dtype).value_or(DType::Unknown);
            if (node.op == "Constant") {
                // A constant converted in place holds the target dtype now.
                const int32_t stored = m_mainScope->setType(originalGraph.node(p).output(0));
                if (stored != kUnknown) d.dtype = dtypeFromOnnx(stored).value_or(DType::Unknown);
            }
            d.detail = storage->keep(o.detail);
            const bool computes = node.op != "Constant" && node.op != "Cast";
            if (computes) {
                ++report.computeNodes;
                if (d.dtype == report.targetDtype) ++report.computeNodesInTarget;
            }
        }
        report.nodes.push_back(d);
    }

    // Casts of the main graph, with their readers in the converted graph.
    const Graph& after = result.graph;
    NameMap<std::size_t> castIndex;
    for (std::size_t i = 0; i < m_mainCasts.size(); ++i) castIndex.emplace(m_mainCasts[i].name, i);
    std::vector<std::vector<std::string_view>> readers(m_mainCasts.size());
    std::vector<NodeId> castNode(m_mainCasts.size(), kNoCastNode);
    for (std::size_t id = 0; id < after.size(); ++id) {
        const auto it = castIndex.find(after.nodes[id].name);
        if (it != castIndex.end() && after.nodes[id].op == "Cast") castNode[it->second] = static_cast<NodeId>(id);
    }
    constexpr std::size_t kNotACast = static_cast<std::size_t>(-1);
    std::vector<std::size_t> castOfNode(after.size(), kNotACast);  // by node id
    for (std::size_t i = 0; i < castNode.size(); ++i) {
        if (castNode[i] != kNoCastNode) castOfNode[castNode[i]] = i;
    }
    std::size_t consumerCount = 0;
    for (const Node& node : after.nodes) {
        for (const NodeEntry& e : node.inputs) {
            if (const std::size_t cast = castOfNode[e.node]; cast != kNotACast) {
                readers[cast].push_back(storage->keep(node.name));
                ++consumerCount;
            }
        }
    }
    storage->consumers.reserve(consumerCount);
    for (std::size_t i = 0; i < m_mainCasts.size(); ++i) {
        if (castNode[i] == kNoCastNode) continue;
        const CastMade& c = m_mainCasts[i];
        CastRecord record;
        record.name = storage->keep(c.name);
        record.op = "Cast";
        record.dtype = storage->keep(typeName(c.to));
        // Where the value came from: its producer in the original's IR, else the value itself (a
        // variable's IR node has its name).
        record.source = c.sourceNode ? SourceOutput{storage->keep(*c.sourceNode), c.sourceOutput} : SourceOutput{storage->keep(c.source), 0};
        const std::size_t begin = storage->consumers.size();
        storage->consumers.insert(storage->consumers.end(), readers[i].begin(), readers[i].end());
        record.consumers = std::span<const std::string_view>(storage->consumers.data() + begin, readers[i].size());
        for (const NodeEntry& head : after.heads) record.feedsGraphOutput = record.feedsGraphOutput || head.node == castNode[i];
        report.casts.push_back(record);
    }
    report.ampCastCount = report.casts.size();
    report.nodesBefore = before.size();
    report.nodesAfter = after.size();

    // Parameter bytes: the main graph's initializers before and after.
    report.paramsKnown = true;
    report.paramBytesBefore = initializerByteCount(m_model.proto.graph());
    report.paramBytesAfter = initializerByteCount(converted.graph());
    std::sort(m_storedInTarget.begin(), m_storedInTarget.end());
    report.storedInTargetDtype = m_storedInTarget;
    result.storedInTargetDtype = {m_storedInTarget.begin(), m_storedInTarget.end()};
    m_clock.mark("report");
    judge();
    m_clock.mark("(waiting for the checks)");
    report.warnings = m_warnings;
    report.unmatchableListEntries = unmatchableOnnxEntries(m_options.lists);
    report.bodyNodes.reserve(m_bodyOutcomes.size());
    for (const BodyOutcome& b : m_bodyOutcomes) {
        NodeDecision d;
        d.name = storage->keep(b.name);
        d.op = storage->keep(b.op);
        d.precision = b.outcome.precision;
        d.rule = b.outcome.rule;
        d.dtype = dtypeFromOnnx(b.outcome.dtype).value_or(DType::Unknown);
        d.detail = storage->keep(b.outcome.detail);
        report.bodyNodes.push_back(d);
    }
    report.storage = std::move(storage);
    result.source = std::move(model);
}

}  // namespace

bool isOnnxSource(const FormatSource* source) { return dynamic_cast<const OnnxModel*>(source) != nullptr; }

ConversionResult convertOnnxModel(const FormatSource& source, const ConversionOptions& options) {
    const auto* model = dynamic_cast<const OnnxModel*>(&source);
    if (!model) throw ConversionError("not an ONNX model");
    if (!model->graph) throw ConversionError("an ONNX model is converted as it was read, not as converted");
    if (options.mode == ConversionMode::Classic) {
        throw ConversionError("classic mode is MXNet 1.6's pass over MXNet graphs; ONNX models convert in typed mode");
    }
    PhaseClock clock;
    amp_detail::checkListsAndTarget(options);
    guardLibonnxInference();
    clock.mark("lists checked, schemas guarded");
    try {
        ConversionResult result;
        {
            OnnxPass pass(*model, options);
            result = pass.run();
            clock.last = std::chrono::steady_clock::now();
        }
        clock.mark("the pass's tables freed");
        return result;
    } catch (const LoadError& e) {
        throw ConversionError(std::string("the converted ONNX model: ") + e.what());
    } catch (const google::protobuf::FatalException& e) {
        throw ConversionError(std::string("protobuf: ") + e.what());
    }
}

const std::vector<std::string>& onnxOpTypes() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas()) {
            out.push_back(isDefaultDomain(schema.domain()) ? schema.Name() : schema.domain() + "." + schema.Name());
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }();
    return names;
}

bool isKnownOnnxOpType(const std::string& op) {
    // The default domain's ops added after libonnx 1.12 (opsets 18 to 23): models exported today use
    // them, and the lists name them, though libonnx has no schema to check them against.
    static const std::unordered_set<std::string> newer{
        "AffineGrid", "Attention", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "CenterCropPad",
        "Col2Im", "DeformConv", "Gelu", "GroupNormalization", "ImageDecoder", "Mish", "RMSNormalization",
        "RegexFullMatch", "RotaryEmbedding", "StringConcat", "StringSplit"};
    const std::vector<std::string>& known = onnxOpTypes();
    return std::binary_search(known.begin(), known.end(), op) || newer.contains(op);
}

std::vector<UnmatchableListEntry> unmatchableOnnxEntries(const AmpLists& lists) {
    std::vector<UnmatchableListEntry> result;
    const auto check = [&](std::string_view list, const std::string& entry) {
        if (!isKnownOnnxOpType(entry)) result.push_back({std::string(list), entry, {}});
    };
    for (const auto& e : lists.targetDtypeOps) check("target_dtype_ops", e);
    for (const auto& e : lists.fp32Ops) check("fp32_ops", e);
    for (const auto& e : lists.neutralOps) check("neutral_ops", e);
    for (const auto& e : lists.widestDtypeOps) check("widest_dtype_ops", e);
    for (const auto& c : lists.conditionalFp32Ops) check("conditional_fp32_ops", c.op);
    for (const auto& e : lists.lossOutputOps) check("loss_output_ops", e);
    return result;
}

}  // namespace ampstudio
