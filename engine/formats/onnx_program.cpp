// The ONNX runner's view of a model (formats/onnx_program.h), made from the document's ModelProto.
#include "formats/onnx_program.h"

#include <fstream>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "formats/load_error.h"
#include "formats/onnx_graph_import.h"
#include "formats/onnx_model.h"
#include "formats/onnx_tensor_data.h"

namespace ampstudio {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;
using onnx::TensorProto;

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The external bytes of each tensor the model holds that has them (onnx_model.h's externalData,
// kept in forEachOnnxTensor's order).
using ExternalBytes = std::unordered_map<const TensorProto*, const std::vector<std::byte>*>;

struct Builder {
    const std::string& file;
    const ExternalBytes& external;

    HostTensor tensorOf(const TensorProto& proto) const {
        const std::optional<DType> dtype = dtypeFromOnnx(proto.data_type());
        if (!dtype) return {};  // a string or complex tensor: no value the runner computes with
        const auto it = external.find(&proto);
        const std::vector<std::byte> bytes = onnxTensorBytes(proto, it == external.end() ? nullptr : it->second, file);
        HostTensor tensor(*dtype, Dims(proto.dims().begin(), proto.dims().end()));
        std::copy(bytes.begin(), bytes.end(), tensor.mutableRaw());
        return tensor;
    }

    OnnxValueInfo valueInfoOf(const onnx::ValueInfoProto& value) const {
        OnnxValueInfo info;
        info.name = value.name();
        if (value.type().has_tensor_type()) {
            const auto& t = value.type().tensor_type();
            info.dtype = dtypeFromOnnx(t.elem_type());
            if (t.has_shape()) {
                info.dims.emplace();
                for (const auto& d : t.shape().dim()) {
                    info.dims->push_back(d.has_dim_value() ? std::optional<int64_t>(d.dim_value()) : std::nullopt);
                    info.dimNames.push_back(d.has_dim_param() ? d.dim_param() : std::string());
                }
            }
        }
        return info;
    }

    OnnxAttribute attributeOf(const AttributeProto& proto) const {
        OnnxAttribute a;
        using K = OnnxAttribute::Kind;
        switch (proto.type()) {
            case AttributeProto::INT: a.kind = K::Int, a.i = proto.i(); break;
            case AttributeProto::FLOAT: a.kind = K::Float, a.f = proto.f(); break;
            case AttributeProto::STRING: a.kind = K::String, a.s = proto.s(); break;
            case AttributeProto::INTS: a.kind = K::Ints, a.ints.assign(proto.ints().begin(), proto.ints().end()); break;
            case AttributeProto::FLOATS: a.kind = K::Floats, a.floats.assign(proto.floats().begin(), proto.floats().end()); break;
            case AttributeProto::STRINGS: a.kind = K::Strings, a.strings.assign(proto.strings().begin(), proto.strings().end()); break;
            case AttributeProto::TENSOR: a.kind = K::Tensor, a.tensor = tensorOf(proto.t()); break;
            case AttributeProto::GRAPH: a.kind = K::Graph, a.graph = graphOf(proto.g(), nullptr); break;
            default:
                // Files from before IR 0.0.2 leave the type unset: judged from the field that is set.
                if (proto.has_i()) a.kind = K::Int, a.i = proto.i();
                else if (proto.has_f()) a.kind = K::Float, a.f = proto.f();
                else if (proto.has_s()) a.kind = K::String, a.s = proto.s();
                else if (proto.has_t()) a.kind = K::Tensor, a.tensor = tensorOf(proto.t());
                else if (proto.has_g()) a.kind = K::Graph, a.graph = graphOf(proto.g(), nullptr);
                else if (proto.ints_size() > 0) a.kind = K::Ints, a.ints.assign(proto.ints().begin(), proto.ints().end());
                else if (proto.floats_size() > 0) a.kind = K::Floats, a.floats.assign(proto.floats().begin(), proto.floats().end());
                break;
        }
        return a;
    }

    // `main`: the document's import of the main graph, whose order and node names are the views'.
    std::shared_ptr<const OnnxGraphProgram> graphOf(const GraphProto& proto, const OnnxModel* main) const {
        auto program = std::make_shared<OnnxGraphProgram>();
        program->name = proto.name();
        for (const auto& v : proto.input()) program->inputs.push_back(valueInfoOf(v));
        for (const auto& v : proto.output()) program->outputs.push_back(valueInfoOf(v));
        for (const TensorProto& t : proto.initializer()) program->initializers.emplace(t.name(), tensorOf(t));

        std::vector<int> order;
        std::vector<std::string> names;
        if (main) {
            for (std::size_t id = 0; id < main->protoNodeOf.size(); ++id) {
                if (main->protoNodeOf[id] < 0) continue;
                order.push_back(main->protoNodeOf[id]);
                names.push_back(main->graph->nodes[id].name);
            }
        } else {
            order = bodyOrder(proto);
            for (const int p : order) {
                const NodeProto& n = proto.node(p);
                names.push_back(n.name().empty() ? n.op_type() + "_" + std::to_string(p) : n.name());
            }
        }
        program->nodes.reserve(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) {
            const NodeProto& n = proto.node(order[k]);
            OnnxProgramNode node;
            node.op = isDefaultDomain(n.domain()) ? n.op_type() : n.domain() + "." + n.op_type();
            node.name = std::move(names[k]);
            node.inputs.assign(n.input().begin(), n.input().end());
            node.outputs.assign(n.output().begin(), n.output().end());
            for (const AttributeProto& a : n.attribute()) node.attributes.emplace(a.name(), attributeOf(a));
            program->nodes.push_back(std::move(node));
        }
        return program;
    }

    // A body's nodes in topological order (the file's where it is one): its own values only; what
    // it reads from outside is defined before the node that owns the body runs.
    static std::vector<int> bodyOrder(const GraphProto& proto) {
        std::unordered_map<std::string_view, int> producer;
        for (int p = 0; p < proto.node_size(); ++p) {
            for (const std::string& out : proto.node(p).output()) {
                if (!out.empty()) producer.emplace(out, p);
            }
        }
        std::vector<std::vector<int>> consumers(static_cast<std::size_t>(proto.node_size()));
        std::vector<int> pending(static_cast<std::size_t>(proto.node_size()), 0);
        for (int p = 0; p < proto.node_size(); ++p) {
            std::unordered_set<int> from;
            for (const std::string& in : proto.node(p).input()) {
                const auto it = producer.find(in);
                if (it != producer.end() && it->second != p) from.insert(it->second);
            }
            for (const int q : from) consumers[static_cast<std::size_t>(q)].push_back(p);
            pending[static_cast<std::size_t>(p)] = static_cast<int>(from.size());
        }
        std::vector<int> order = earliestFirstOrder(consumers, pending);
        if (order.size() != static_cast<std::size_t>(proto.node_size())) {
            throw std::invalid_argument("subgraph '" + proto.name() + "' has a cycle");
        }
        return order;
    }
};

}  // namespace

const OnnxAttribute* OnnxProgramNode::attribute(std::string_view key) const {
    const auto it = attributes.find(key);
    return it == attributes.end() ? nullptr : &it->second;
}

std::vector<const OnnxValueInfo*> OnnxProgram::requiredInputs() const {
    std::vector<const OnnxValueInfo*> required;
    for (const OnnxValueInfo& input : graph.inputs) {
        if (!graph.initializers.contains(input.name)) required.push_back(&input);
    }
    return required;
}

std::shared_ptr<const OnnxProgram> onnxProgramOf(const ModelDocument& document) {
    const OnnxModel* model = onnxModelOf(document);
    if (!model || !model->proto.has_graph()) {
        throw std::invalid_argument(document.origin.displayName + " is no ONNX model");
    }
    ExternalBytes external;
    std::size_t next = 0;
    // forEachOnnxTensor visits without changing anything; it takes the message mutably because the
    // format's readers fill externalData through it.
    forEachOnnxTensor(const_cast<onnx::ModelProto&>(model->proto), [&](TensorProto& tensor) {
        if (isExternalTensor(tensor) && next < model->externalData.size()) external.emplace(&tensor, &model->externalData[next++]);
    });
    const Builder builder{document.origin.displayName, external};
    auto program = std::make_shared<OnnxProgram>();
    if (model->graph && model->protoNodeOf.size() == model->graph->size()) {
        program->graph = *builder.graphOf(model->proto.graph(), model);
    } else {
        program->graph = *builder.graphOf(model->proto.graph(), nullptr);  // a converted model: no import kept
    }
    for (const auto& opset : model->proto.opset_import()) {
        const std::string domain = isDefaultDomain(opset.domain()) ? std::string() : opset.domain();
        program->opsets[domain] = opset.version();
        if (domain.empty()) program->opset = opset.version();
    }
    return program;
}

std::optional<DType> dtypeOfOnnxElementType(int64_t elementType) {
    if (elementType < 0 || elementType > 1000) return std::nullopt;
    return dtypeFromOnnx(static_cast<int32_t>(elementType));
}

namespace {

TensorProto parseTensorFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw LoadError(file.string(), "", "cannot be opened");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TensorProto proto;
    if (!proto.ParseFromString(bytes)) throw LoadError(file.string(), "", "not a serialized TensorProto");
    return proto;
}

}  // namespace

HostTensor readOnnxTensorFile(const std::filesystem::path& file) {
    const TensorProto proto = parseTensorFile(file);
    if (!dtypeFromOnnx(proto.data_type())) {
        throw LoadError(file.string(), "", "a tensor of type " + onnxTypeName(proto.data_type()) + ", which the engine has no dtype for");
    }
    const ExternalBytes none;
    return Builder{file.string(), none}.tensorOf(proto);
}

std::string onnxTensorFileName(const std::filesystem::path& file) { return parseTensorFile(file).name(); }

}  // namespace ampstudio
