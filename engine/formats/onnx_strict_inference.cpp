#include "formats/onnx_strict_inference.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/arena.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/name_tables.h"
#include "formats/onnx_model_copy.h"

namespace ampstudio {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;
using onnx::TensorProto;
using onnx::TypeProto;

// What an inference function reads of initializers in InferShapes' copy: names, dtypes and dims,
// and the values of small ones (a shape input is never over 4 KiB; weights are).
constexpr std::size_t kShapeInputBytes = 4096;

// The domain's opset version as InferShapes resolves it ("" falls back to "ai.onnx"); -1 if none.
int opsetOf(const std::unordered_map<std::string, int>& opsets, const std::string& domain) {
    auto it = opsets.find(domain);
    if (it == opsets.end() && domain.empty()) it = opsets.find("ai.onnx");
    return it == opsets.end() ? -1 : it->second;
}

std::unordered_map<std::string, int> opsetsOf(const onnx::ModelProto& model) {
    std::unordered_map<std::string, int> opsets;
    for (const auto& o : model.opset_import()) opsets[o.domain()] = static_cast<int>(o.version());
    return opsets;
}

// One node's view for its schema's inference function, as InferenceContextImpl gives it, that
// records which inputs' values the function asked for (in the order it first asked).
class RecordingContext final : public onnx::InferenceContext {
public:
    RecordingContext(const NodeProto& node, std::vector<const TypeProto*> types, std::vector<const TensorProto*> data)
        : m_node(node), m_types(std::move(types)), m_data(std::move(data)), m_outputs(static_cast<std::size_t>(node.output_size())) {}

    const AttributeProto* getAttribute(const std::string& name) const override {
        const AttributeProto* found = nullptr;  // (the last of a repeated name, as a map built in order keeps)
        for (const AttributeProto& a : m_node.attribute()) {
            if (a.name() == name) found = &a;
        }
        return found;
    }
    size_t getNumInputs() const override { return m_types.size(); }
    const TypeProto* getInputType(size_t index) const override {
        if (index >= m_types.size()) throw std::runtime_error("Input " + std::to_string(index) + " is out of bounds.");
        return m_types[index];
    }
    const TensorProto* getInputData(size_t index) const override {
        if (index >= m_data.size()) throw std::runtime_error("Input " + std::to_string(index) + " is out of bounds.");
        bool seen = false;
        for (const std::size_t r : m_reads) seen = seen || r == index;
        if (!seen) m_reads.push_back(index);
        return m_data[index];
    }
    const onnx::SparseTensorProto* getInputSparseData(size_t index) const override {
        if (index >= m_types.size()) throw std::runtime_error("Input " + std::to_string(index) + " is out of bounds.");
        return nullptr;  // (models with sparse tensors take InferShapes itself)
    }
    const onnx::TensorShapeProto* getSymbolicInput(size_t index) const override {
        if (index >= m_types.size()) throw std::runtime_error("Input " + std::to_string(index) + " is out of bounds.");
        return nullptr;  // (no data propagation in the strict check)
    }
    size_t getNumOutputs() const override { return m_outputs.size(); }
    TypeProto* getOutputType(size_t index) override {
        if (index >= m_outputs.size()) throw std::runtime_error("Output " + std::to_string(index) + " is out of bounds.");
        return &m_outputs[index];
    }
    onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
        // (models with graph attributes take InferShapes itself)
        throw onnx::InferenceError("[TypeInferenceError] GraphProto attribute inferencing is not enabled here.");
    }

    std::vector<TypeProto>& outputs() { return m_outputs; }
    const std::vector<std::size_t>& reads() const { return m_reads; }

private:
    const NodeProto& m_node;
    std::vector<const TypeProto*> m_types;
    std::vector<const TensorProto*> m_data;
    std::vector<TypeProto> m_outputs;
    mutable std::vector<std::size_t> m_reads;
};

// What a node's schema made of one combination of attributes and input types (and the values it
// read): its output types, or the InferenceError it raised, and the type-constraint check's error.
struct Inferred {
    std::vector<std::pair<std::size_t, std::string>> reads;  // input index, its value's bytes ("" = none)
    bool failed = false;
    std::string inferenceError;  // what() of the InferenceError
    std::vector<TypeProto> outputs;
    std::vector<bool> needsSymbols;  // an output with a dim of neither value nor name
    std::vector<uint32_t> typeIds;   // the outputs' typeId
    std::string checkError;          // CheckInputOutputType's failure, empty if none
};

// Whether MaterializeSymbolicShape would change the type (or raise): anything but a tensor type
// whose dims all have a value or a name, or no shape.
bool needsSymbols(const TypeProto& t) {
    if (t.value_case() == TypeProto::VALUE_NOT_SET) return false;
    if (!t.has_tensor_type()) return true;
    if (!t.tensor_type().has_shape()) return false;
    for (const auto& d : t.tensor_type().shape().dim()) {
        if (!d.has_dim_value() && !d.has_dim_param()) return true;
    }
    return false;
}

class StrictInference {
public:
    StrictInference(const onnx::ModelProto& model, const std::vector<const onnx::OpSchema*>& schemas)
        : m_model(model), m_graph(model.graph()), m_schemas(schemas) {}

    // Throws as InferShapes would; returns normally when the model passes.
    void run() {
        onnx::shape_inference::TraverseGraphsToAddExistingSymbols(m_graph, m_symbols);
        std::size_t names = static_cast<std::size_t>(m_graph.value_info_size() + m_graph.input_size() + m_graph.output_size() +
                                                     m_graph.initializer_size());
        for (const NodeProto& n : m_graph.node()) names += static_cast<std::size_t>(n.output_size());
        m_values.reserve(names);
        for (const auto& vi : m_graph.value_info()) declare(vi);
        for (const auto& vi : m_graph.input()) declare(vi);
        for (const auto& vi : m_graph.output()) declare(vi);
        for (const TensorProto& tp : m_graph.initializer()) {
            const auto [type, id] = initializerType(tp);
            Value& v = m_values[tp.name()];
            v.data = &tp;
            if (v.type) {
                onnx::shape_inference::checkShapesAndTypes(*type, *v.type);
            } else if (m_model.ir_version() >= 4) {
                setType(v, type, false, id);  // (shared: never a node's output, and copied before any merge)
            }
        }
        for (const NodeProto& n : m_graph.node()) {
            if (n.op_type() != "Constant" || n.output_size() != 1) continue;
            for (const AttributeProto& a : n.attribute()) {
                if (a.name() == "value" && a.type() == AttributeProto::TENSOR && a.has_t()) m_values[n.output(0)].data = &a.t();
            }
        }
        for (int k = 0; k < m_graph.node_size(); ++k) node(m_graph.node(k), m_schemas[static_cast<std::size_t>(k)]);
        if (!m_errors.empty()) {
            std::string all = "Shape inference error(s): ";
            for (const std::string& e : m_errors) all += e + "\n";
            fail_shape_inference(all);
        }
    }

private:
    // What InferShapes keeps in two maps by name, in one entry (one lookup per input).
    struct Value {
        const TypeProto* type = nullptr;  // its type so far (value_types_by_name)
        bool owned = false;               // ours to merge into (else the model's or a shared result: copied first)
        uint32_t typeId = 0;              // typeId(type) once asked, 0 before
        const TensorProto* data = nullptr;  // its value, an initializer or a Constant's (input_data_by_name)
    };

    void setType(Value& v, const TypeProto* type, bool owned, uint32_t id = 0) {
        v.type = type;
        v.owned = owned;
        v.typeId = id;
    }

    void declare(const onnx::ValueInfoProto& vi) {
        if (vi.has_type()) setType(m_values[vi.name()], &vi.type(), false);
    }

    // The node's key: schema, counts, input types, attributes (their values read by the function
    // are all there; which input values it reads is recorded per result).
    std::string keyOf(const onnx::OpSchema* schema, const NodeProto& n, const std::vector<uint32_t>& typeIds) {
        std::string key;
        key.reserve(64);
        const auto put = [&key](const void* p, std::size_t size) { key.append(static_cast<const char*>(p), size); };
        put(&schema, sizeof schema);
        const int32_t counts[2] = {n.input_size(), n.output_size()};
        put(counts, sizeof counts);
        put(typeIds.data(), typeIds.size() * sizeof(uint32_t));
        for (const AttributeProto& a : n.attribute()) {
            const std::size_t before = key.size();
            uint32_t size = 0;
            put(&size, sizeof size);
            a.AppendToString(&key);
            size = static_cast<uint32_t>(key.size() - before - sizeof size);
            std::memcpy(key.data() + before, &size, sizeof size);
        }
        return key;
    }

    // An initializer's type (its dtype and dims) and its typeId: one per distinct pair, shared by
    // every initializer that has it (a model's weights come in a few shapes, by the ten thousand).
    std::pair<const TypeProto*, uint32_t> initializerType(const TensorProto& tp) {
        std::string key;
        const int32_t dtype = tp.data_type();
        key.append(reinterpret_cast<const char*>(&dtype), sizeof dtype);
        key.append(reinterpret_cast<const char*>(tp.dims().data()), static_cast<std::size_t>(tp.dims_size()) * sizeof(int64_t));
        auto [it, added] = m_initializerTypes.try_emplace(std::move(key));
        if (added) {
            TypeProto& type = m_owned.emplace_back();
            auto* tensor = type.mutable_tensor_type();
            tensor->set_elem_type(dtype);
            auto* shape = tensor->mutable_shape();
            for (const int64_t d : tp.dims()) shape->add_dim()->set_dim_value(d);
            it->second = {&type, typeId(&type)};
        }
        return it->second;
    }

    // A number per distinct type (equal types, equal numbers; 0 for none).
    uint32_t typeId(const TypeProto* t) {
        if (!t) return 0;
        const auto [it, added] = m_typeIds.try_emplace(t->SerializeAsString(), static_cast<uint32_t>(m_typeIds.size() + 1));
        return it->second;
    }

    const std::string& bytesOf(const TensorProto* data) {
        static const std::string none;
        if (!data) return none;
        auto it = m_dataBytes.find(data);
        if (it == m_dataBytes.end()) it = m_dataBytes.emplace(data, "T" + data->SerializeAsString()).first;
        return it->second;
    }

    void node(const NodeProto& n, const onnx::OpSchema* schema) {
        if (!schema || !schema->has_type_and_shape_inference_function()) return;  // (the fast path's scan saw to the rest)
        std::vector<const TypeProto*>& types = m_inputTypes;
        std::vector<const TensorProto*>& data = m_inputData;
        std::vector<uint32_t>& ids = m_inputTypeIds;
        types.clear();
        data.clear();
        ids.clear();
        for (const std::string& in : n.input()) {
            const auto it = m_values.find(in);
            Value* v = it == m_values.end() ? nullptr : &it->second;
            types.push_back(v ? v->type : nullptr);
            data.push_back(v ? v->data : nullptr);
            if (v && v->type && v->typeId == 0) v->typeId = typeId(v->type);
            ids.push_back(v && v->type ? v->typeId : 0);
        }
        std::vector<std::unique_ptr<Inferred>>& results = m_memo[keyOf(schema, n, ids)];
        const Inferred* found = nullptr;
        for (const auto& r : results) {
            bool same = true;
            for (const auto& [index, bytes] : r->reads) same = same && bytesOf(data[index]) == bytes;
            if (same) {
                found = r.get();
                break;
            }
        }
        if (!found) found = results.emplace_back(infer(schema, n, types, data)).get();

        if (found->failed) {
            m_errors.push_back(onnx::shape_inference::GetErrorWithNodeInfo(n, std::runtime_error(found->inferenceError)));
            return;
        }
        try {
            if (!found->checkError.empty()) throw std::runtime_error(found->checkError);
            for (int i = 0; i < n.output_size(); ++i) {
                if (!n.output(i).empty()) update(n.output(i), *found, static_cast<std::size_t>(i));
            }
        } catch (const std::runtime_error& err) {
            fail_shape_inference(onnx::shape_inference::GetErrorWithNodeInfo(n, err));
        }
    }

    std::unique_ptr<Inferred> infer(const onnx::OpSchema* schema, const NodeProto& n, const std::vector<const TypeProto*>& types,
                                    const std::vector<const TensorProto*>& data) {
        auto result = std::make_unique<Inferred>();
        RecordingContext ctx(n, types, data);
        try {
            schema->GetTypeAndShapeInferenceFunction()(ctx);
        } catch (const onnx::InferenceError& e) {
            result->failed = true;
            result->inferenceError = e.what();
        }
        for (const std::size_t index : ctx.reads()) result->reads.emplace_back(index, bytesOf(data[index]));
        if (result->failed) return result;
        try {
            schema->CheckInputOutputType(ctx);
        } catch (const std::runtime_error& e) {
            result->checkError = e.what();
        }
        result->outputs = std::move(ctx.outputs());
        for (const TypeProto& t : result->outputs) {
            result->needsSymbols.push_back(needsSymbols(t));
            result->typeIds.push_back(typeId(&t));
        }
        return result;
    }

    // InferShapes' updateType: new symbols for unknown dims, then merged into the declared type.
    void update(const std::string& name, const Inferred& result, std::size_t i) {
        const TypeProto& inferred = result.outputs[i];
        if (inferred.value_case() == TypeProto::VALUE_NOT_SET) return;
        const TypeProto* type = &inferred;
        const bool symbols = result.needsSymbols[i];
        if (symbols) {
            TypeProto& own = m_owned.emplace_back(inferred);
            onnx::shape_inference::MaterializeSymbolicShape(&own, m_symbols);
            type = &own;
        }
        Value& v = m_values[name];
        if (!v.type) {
            if (inferred.has_tensor_type()) {
                // No declared type: a tensor type merged into an empty one is itself, so the result is
                // shared as it is (never merged into: a value has one producer, and a later merge into
                // it copies it first).
                setType(v, type, symbols, symbols ? 0 : result.typeIds[i]);
                return;
            }
            TypeProto& own = m_owned.emplace_back();  // other cases: merged into an empty type, as InferShapes does
            onnx::shape_inference::mergeShapesAndTypes(*type, &own);
            setType(v, &own, true);
            return;
        }
        if (!v.owned) setType(v, &m_owned.emplace_back(*v.type), true);
        onnx::shape_inference::mergeShapesAndTypes(*type, const_cast<TypeProto*>(v.type));
        v.typeId = 0;  // (changed)
    }

    const onnx::ModelProto& m_model;
    const GraphProto& m_graph;
    onnx::shape_inference::SymbolTableImpl m_symbols;
    const std::vector<const onnx::OpSchema*>& m_schemas;  // per node (strictInferenceHasFastPath's)
    NameMap<Value> m_values;  // (keyed by the model's names)
    std::deque<TypeProto> m_owned;
    absl::flat_hash_map<std::string, std::vector<std::unique_ptr<Inferred>>> m_memo;
    absl::flat_hash_map<std::string, std::pair<const TypeProto*, uint32_t>> m_initializerTypes;  // dtype + dims
    std::unordered_map<std::string, uint32_t> m_typeIds;
    std::unordered_map<const TensorProto*, std::string> m_dataBytes;
    std::vector<const TypeProto*> m_inputTypes;  // (one node's, reused)
    std::vector<const TensorProto*> m_inputData;
    std::vector<uint32_t> m_inputTypeIds;
    std::vector<std::string> m_errors;
};

// The fast path's schemas, one per node, where it has one (an empty optional where it has not).
std::optional<std::vector<const onnx::OpSchema*>> fastPathSchemas(const onnx::ModelProto& model) {
    const GraphProto& g = model.graph();
    if (model.functions_size() > 0 || g.sparse_initializer_size() > 0) return std::nullopt;
    const std::unordered_map<std::string, int> opsets = opsetsOf(model);
    std::vector<const onnx::OpSchema*> schemas;
    schemas.reserve(static_cast<std::size_t>(g.node_size()));
    absl::flat_hash_map<std::pair<std::string_view, std::string_view>, const onnx::OpSchema*> byOp;  // (domain, op type)
    for (const NodeProto& n : g.node()) {
        for (const AttributeProto& a : n.attribute()) {
            if (a.has_g() || a.graphs_size() > 0 || a.has_sparse_tensor() || a.sparse_tensors_size() > 0) return std::nullopt;
        }
        const auto [it, added] = byOp.try_emplace(std::pair<std::string_view, std::string_view>(n.domain(), n.op_type()), nullptr);
        if (added) {
            if (onnx::checker::check_is_experimental_op(n.op_type())) return std::nullopt;
            const int version = opsetOf(opsets, n.domain());
            if (version < 0) return std::nullopt;
            const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Instance()->GetSchema(n.op_type(), version, n.domain());
            if (!schema) return std::nullopt;  // (InferShapes then stops counting errors)
            if (!schema->has_type_and_shape_inference_function() && schema->HasFunction()) return std::nullopt;
            it->second = schema;
        }
        schemas.push_back(it->second);
    }
    return schemas;
}

}  // namespace

// libonnx 1.12's inference functions trust what the checker does not check: the convolutions index
// the weight's dims by the input's rank (a ConvInteger reading a rank-3 input and a rank-4 weight
// reads past the end), the recurrent layers read X's dims 0 and 1 of any rank (a rank-1 X: InferShapes'
// arena copy had hidden the read past the end), and the convolutions and poolings divide by their
// strides (a stride of 0: a division by zero). The fuzzer found each. Later ONNX checks them; this
// puts those checks in front of each such schema's inference function, once per process.
void guardLibonnxInference() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct Guard {
            const char* op;
            std::size_t weight;    // the input whose rank the data's must equal (0: none)
            bool rank3X;           // X (input 0) must have rank 3
            bool positiveWindow;   // strides, dilations and kernel_shape must be positive
        };
        const Guard guards[] = {{"Conv", 1, false, true},        {"ConvInteger", 1, false, true}, {"ConvTranspose", 1, false, true},
                                {"QLinearConv", 3, false, true}, {"AveragePool", 0, false, true}, {"MaxPool", 0, false, true},
                                {"LpPool", 0, false, true},      {"MaxUnpool", 0, false, true},   {"RNN", 0, true, false},
                                {"GRU", 0, true, false},         {"LSTM", 0, true, false}};
        const int newest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at("").second;
        std::unordered_set<const onnx::OpSchema*> guarded;
        for (const Guard& g : guards) {
            for (int version = 1; version <= newest; ++version) {
                const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(g.op, version, "");
                if (!schema || !guarded.insert(schema).second) continue;
                onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
                const std::string op = g.op;
                const Guard guard = g;
                // (The registry's schemas are const to its readers; this process is its only writer.)
                const_cast<onnx::OpSchema*>(schema)->TypeAndShapeInferenceFunction([original, op, guard](onnx::InferenceContext& ctx) {
                    const auto rank = [&](std::size_t i) {
                        const TypeProto* t = ctx.getNumInputs() > i ? ctx.getInputType(i) : nullptr;
                        return t && t->has_tensor_type() && t->tensor_type().has_shape() ? t->tensor_type().shape().dim_size() : -1;
                    };
                    if (guard.weight > 0 && rank(0) >= 0 && rank(guard.weight) >= 0 && rank(0) != rank(guard.weight)) {
                        fail_shape_inference(op, ": the input's rank (", rank(0), ") differs from the weight's (", rank(guard.weight), ")");
                    }
                    if (guard.rank3X && rank(0) >= 0 && rank(0) != 3) fail_shape_inference(op, ": X has rank ", rank(0), ", not 3");
                    if (guard.positiveWindow) {
                        for (const char* name : {"strides", "dilations", "kernel_shape"}) {
                            const AttributeProto* a = ctx.getAttribute(name);
                            if (!a) continue;
                            for (const int64_t v : a->ints()) {
                                if (v <= 0) fail_shape_inference(op, ": ", name, " holds ", v, ", not a positive number");
                            }
                        }
                    }
                    if (original) original(ctx);
                });
            }
        }
    });
}

bool strictInferenceHasFastPath(const onnx::ModelProto& model) { return fastPathSchemas(model).has_value(); }

std::string strictInferenceFailureByInferShapes(const onnx::ModelProto& model) {
    guardLibonnxInference();
    try {
        // On an arena: the copy and the value_info inference adds are hundreds of thousands of
        // small messages, freed at once.
        google::protobuf::Arena arena;
        auto* skeleton = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
        copyWithoutInitializerData(model, kShapeInputBytes, *skeleton);
        onnx::shape_inference::InferShapes(*skeleton, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions{true, 1, false});
    } catch (const std::exception& e) {
        return std::string("strict shape inference: ") + e.what();
    }
    return {};
}

std::string strictInferenceFailure(const onnx::ModelProto& model) {
    guardLibonnxInference();
    const std::optional<std::vector<const onnx::OpSchema*>> schemas = fastPathSchemas(model);
    if (!schemas) return strictInferenceFailureByInferShapes(model);
    try {
        StrictInference(model, *schemas).run();
    } catch (const std::exception& e) {
        return std::string("strict shape inference: ") + e.what();
    }
    return {};
}

}  // namespace ampstudio
