// ONNX as a model format: one MODEL.onnx (a serialized onnx::ModelProto, Debian's libonnx 1.12
// classes), its tensors inline or as external data beside it. The document keeps the ModelProto
// whole (onnx_model.h); the graph the program sees is made from it (onnx_graph_import.h).

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <limits>

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_format_handler.h"
#include "formats/ndarray_list.h"
#include "formats/onnx_graph_import.h"
#include "formats/onnx_model.h"
#include "formats/onnx_model_copy.h"
#include "formats/onnx_tensor_data.h"

namespace ampstudio {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSuffixes[] = {".onnx"};

// protobuf parses at most 2 GiB (its int sizes); a larger model keeps its tensors as external data.
constexpr std::size_t kMaxProtoBytes = kMaxOnnxInlineBytes;

// A varint at `at`, as protobuf's wire format writes it; false when it runs past the end.
bool readVarint(std::span<const std::byte> bytes, std::size_t& at, uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
        const auto b = static_cast<uint8_t>(bytes[at++]);
        value |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) return true;
    }
    return false;
}

// ModelProto's fields, as a serializer writes them: ir_version (1, varint) first, then strings
// (producer, domain, doc: 2, 3, 6, 4 length-delimited), model_version (5), graph (7), opset_import (8).
int recognise(const fs::path& file, std::span<const std::byte> head) {
    std::string extension = file.extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (extension == ".onnx") return 3;  // surer than the MXNet format's guess from a first byte
    std::size_t at = 0;
    uint64_t tag = 0, irVersion = 0, next = 0;
    if (!readVarint(head, at, tag) || tag != 0x08 || !readVarint(head, at, irVersion)) return 0;
    if (irVersion == 0 || irVersion > 64) return 0;
    if (at == head.size()) return 1;
    if (!readVarint(head, at, next)) return 0;
    const uint64_t field = next >> 3, wire = next & 7;
    return field >= 2 && field <= 8 && (wire == (field == 5 ? 0u : 2u)) ? 2 : 0;
}

ModelOrigin locate(const fs::path& file, const OpenModelOptions& /*options*/) {
    return {ModelFormat::Onnx, file.filename().string(), file, std::nullopt, {}};
}

// The main graph's initializers with a dtype the engine has, as parameters ("arg:" + name, as an
// MXNet argument); other tensors (strings, complex) stay only in the proto.
std::shared_ptr<const NDArrayList> parametersOf(const OnnxModel& model, const std::string& file) {
    auto params = std::make_shared<NDArrayList>();
    std::size_t external = 0;
    for (const onnx::TensorProto& tensor : model.proto.graph().initializer()) {
        const bool isExternal = isExternalTensor(tensor);
        const std::vector<std::byte>* data = isExternal ? &model.externalData[external++] : nullptr;
        const std::optional<DType> dtype = dtypeFromOnnx(tensor.data_type());
        if (!dtype) continue;
        NDArrayRecord record;
        record.name = "arg:" + tensor.name();
        record.dtype = *dtype;
        record.shape.assign(tensor.dims().begin(), tensor.dims().end());
        record.format = NDArrayRecordFormat::V3;  // a 0-d initializer is a scalar, as numpy's
        record.data = onnxTensorBytes(tensor, data, file);
        params->arrays.push_back(std::move(record));
    }
    if (params->arrays.empty()) return nullptr;
    return params;
}

// `text` as a JSON string: graph attributes are JSON text, and a domain is any bytes.
std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// The model's message from its bytes. Throws LoadError.
std::shared_ptr<OnnxModel> parseProto(std::span<const std::byte> bytes, const std::string& displayName) {
    if (bytes.size() > kMaxProtoBytes) {
        throw LoadError(displayName, "", "over 2 GiB: protobuf cannot parse it (a model this large keeps its tensors as external data)");
    }
    auto model = std::make_shared<OnnxModel>();
    if (!model->proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        throw LoadError(displayName, "", "not an ONNX model: the bytes are no valid ModelProto");
    }
    // Almost any bytes are some protobuf message: a model has at least its IR version and a graph.
    if (model->proto.ir_version() <= 0 || !model->proto.has_graph()) {
        throw LoadError(displayName, "", "not an ONNX model: no IR version or no graph");
    }
    return model;
}

// The document of a parsed model: its external data read, its graph imported, its parameters.
ModelDocument documentOf(std::shared_ptr<OnnxModel> model, const fs::path& folder, const std::string& displayName) {
    ModelDocument document;
    document.origin = {ModelFormat::Onnx, displayName, {}, std::nullopt, {}};
    // Every external tensor is read and checked now (a model that opens can be saved); the order is
    // forEachOnnxTensor's, which the main graph's initializers begin.
    forEachOnnxTensor(model->proto, [&](onnx::TensorProto& tensor) {
        if (isExternalTensor(tensor)) {
            model->externalData.push_back(readExternalTensorData(tensor, folder, displayName, document.origin.sideFiles));
        }
    });
    OnnxGraphImport imported = importOnnxGraph(model->proto.graph(), displayName, /*useSecondCore=*/true);
    Graph& graph = imported.graph;
    graph.attrs["onnx_ir_version"] = std::to_string(model->proto.ir_version());
    std::string opsets;
    for (const onnx::OperatorSetIdProto& opset : model->proto.opset_import()) {
        opsets += (opsets.empty() ? "" : ",") + jsonString(opset.domain()) + ":" + std::to_string(opset.version());
    }
    graph.attrs["onnx_opset_import"] = "{" + opsets + "}";
    model->protoNodeOf = std::move(imported.protoNodeOf);
    model->graph = std::make_shared<const Graph>(std::move(graph));
    model->externalDataOnSave = !model->externalData.empty();
    document.graph = model->graph;
    document.params = parametersOf(*model, displayName);
    document.source = std::move(model);
    return document;
}

}  // namespace

ModelDocument parseOnnxModel(std::span<const std::byte> bytes, const fs::path& folder, const std::string& displayName) {
    return documentOf(parseProto(bytes, displayName), folder, displayName);
}

const OnnxModel* onnxModelOf(const ModelDocument& document) {
    return dynamic_cast<const OnnxModel*>(document.source.get());
}

namespace {

// The graph `model` was written from, as far as a save can tell.
bool isModelsGraph(const Graph& graph, const OnnxModel& model);

bool sameGraph(const Graph& a, const Graph& b) {
    if (a.size() != b.size() || a.heads != b.heads) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        if (x.op != y.op || x.name != y.name || x.inputs != y.inputs || x.numOutputs != y.numOutputs ||
            x.controlDeps != y.controlDeps || x.attrs != y.attrs) {
            return false;
        }
    }
    return true;
}

bool isModelsGraph(const Graph& graph, const OnnxModel& model) {
    return model.graph ? sameGraph(graph, *model.graph) : onnxGraphDigest(graph) == model.graphDigest;
}

}  // namespace

namespace {

// Tensors of at least this many bytes go to the side file when a save writes external data (the
// default of onnx.save_model's size_threshold), each at an offset aligned for mmap.
constexpr std::size_t kExternalThreshold = 1024;
constexpr uint64_t kExternalAlignment = 4096;

// What a save writes for each main-graph initializer: the record of `params` that replaces its
// values (null: it keeps its own), and the external data it was read with (null: none).
struct InitializerSources {
    std::vector<const NDArrayRecord*> replaced;
    std::vector<const std::vector<std::byte>*> external;
    bool anyReplaced = false;
};

InitializerSources sourcesOf(const OnnxModel& model, const NDArrayList* params) {
    const std::string file = "the ONNX model";  // validated when it was read: never thrown
    const auto& initializers = model.proto.graph().initializer();
    InitializerSources sources;
    sources.replaced.assign(static_cast<std::size_t>(initializers.size()), nullptr);
    sources.external = initializerExternalData(model);
    if (!params) return sources;
    for (int i = 0; i < initializers.size(); ++i) {
        const onnx::TensorProto& tensor = initializers[i];
        const int found = params->find(tensor.name());
        if (found < 0 || !dtypeFromOnnx(tensor.data_type())) continue;
        const NDArrayRecord& record = params->arrays[static_cast<std::size_t>(found)];
        if (record.dtype == dtypeFromOnnx(tensor.data_type()) &&
            std::equal(record.shape.begin(), record.shape.end(), tensor.dims().begin(), tensor.dims().end()) &&
            record.data == onnxTensorBytes(tensor, sources.external[static_cast<std::size_t>(i)], file)) {
            continue;
        }
        sources.replaced[static_cast<std::size_t>(i)] = &record;
        sources.anyReplaced = true;
    }
    return sources;
}

// `tensor` holds `record`'s dtype, shape and values now (name and doc string stay).
void replaceValues(onnx::TensorProto& tensor, const NDArrayRecord& record) {
    const std::string name = tensor.name();
    const std::string doc = tensor.doc_string();
    tensor.Clear();
    tensor.set_name(name);
    if (!doc.empty()) tensor.set_doc_string(doc);
    tensor.set_data_type(onnxDataType(record.dtype));
    for (const int64_t d : record.shape) tensor.add_dims(d);
    tensor.set_raw_data(reinterpret_cast<const char*>(record.data.data()), record.data.size());
}


// The whole message inline, with the replaced values.
onnx::ModelProto inlineCopy(const OnnxModel& model, const InitializerSources& sources) {
    onnx::ModelProto copy = model.proto;
    inlineExternalTensorsBeyondInitializers(copy, model);
    for (int i = 0; i < copy.graph().initializer_size(); ++i) {
        onnx::TensorProto& tensor = *copy.mutable_graph()->mutable_initializer(i);
        if (const NDArrayRecord* record = sources.replaced[static_cast<std::size_t>(i)]) {
            replaceValues(tensor, *record);
        } else if (const std::vector<std::byte>* data = sources.external[static_cast<std::size_t>(i)]) {
            tensor.set_raw_data(reinterpret_cast<const char*>(data->data()), data->size());
            tensor.clear_external_data();
            tensor.clear_data_location();
        }
    }
    return copy;
}

bool serializeTo(int fd, const google::protobuf::Message& message) {
    google::protobuf::io::FileOutputStream out(fd);
    if (message.SerializeToZeroCopyStream(&out) && out.Flush()) return true;
    errno = out.GetErrno() != 0 ? out.GetErrno() : EIO;
    return false;
}

void checkInlineSize(const onnx::ModelProto& message) {
    if (message.ByteSizeLong() > kMaxProtoBytes) {
        throw SaveError("the ONNX model is over 2 GiB even with its large tensors as external data");
    }
}

}  // namespace

std::vector<const std::vector<std::byte>*> initializerExternalData(const OnnxModel& model) {
    const auto& initializers = model.proto.graph().initializer();
    std::vector<const std::vector<std::byte>*> data(static_cast<std::size_t>(initializers.size()), nullptr);
    std::size_t external = 0;
    for (int i = 0; i < initializers.size(); ++i) {
        if (isExternalTensor(initializers[i])) data[static_cast<std::size_t>(i)] = &model.externalData[external++];
    }
    return data;
}

void inlineExternalTensorsBeyondInitializers(onnx::ModelProto& copy, const OnnxModel& model) {
    const int initializers = copy.graph().initializer_size();
    int visited = 0;
    std::size_t external = 0;
    forEachOnnxTensor(copy, [&](onnx::TensorProto& tensor) {
        const int index = visited++;
        if (!isExternalTensor(tensor)) return;
        const std::vector<std::byte>& data = model.externalData[external++];
        if (index < initializers) return;
        tensor.set_raw_data(reinterpret_cast<const char*>(data.data()), data.size());
        tensor.clear_external_data();
        tensor.clear_data_location();
    });
}

uint64_t onnxGraphDigest(const Graph& graph) {
    // Every field sameGraph compares, each delimited, mixed in eight bytes at a time (FNV-1a's
    // byte at a time was 20 ms of a 100k-node conversion, and again of its save); the digest is
    // compared only within the process.
    uint64_t h = 1469598103934665603ull;
    const auto mix = [&](uint64_t word) {
        h = (h ^ word) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    };
    const auto bytes = [&](const void* data, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (; n >= 8; p += 8, n -= 8) {
            uint64_t word;
            std::memcpy(&word, p, 8);
            mix(word);
        }
        uint64_t tail = 0;
        std::memcpy(&tail, p, n);
        mix(tail ^ (static_cast<uint64_t>(n) << 59));
    };
    const auto text = [&](const std::string& t) {
        const uint64_t n = t.size();
        bytes(&n, sizeof n);
        bytes(t.data(), t.size());
    };
    const auto entry = [&](const NodeEntry& e) {
        bytes(&e.node, sizeof e.node);
        bytes(&e.index, sizeof e.index);
        bytes(&e.version, sizeof e.version);
    };
    const uint64_t count = graph.size();
    bytes(&count, sizeof count);
    for (const Node& n : graph.nodes) {
        text(n.op);
        text(n.name);
        bytes(&n.numOutputs, sizeof n.numOutputs);
        const uint64_t inputs = n.inputs.size(), deps = n.controlDeps.size(), attrs = n.attrs.size();
        bytes(&inputs, sizeof inputs);
        for (const NodeEntry& e : n.inputs) entry(e);
        bytes(&deps, sizeof deps);
        for (const NodeId d : n.controlDeps) bytes(&d, sizeof d);
        bytes(&attrs, sizeof attrs);
        for (const auto& [key, value] : n.attrs) {
            text(key);
            text(value);
        }
    }
    for (const NodeEntry& e : graph.heads) entry(e);
    return h;
}

std::string serializeOnnxModel(const OnnxModel& model, const Graph& graph, const NDArrayList* params) {
    if (!isModelsGraph(graph, model)) {
        throw SaveError("writing a changed ONNX graph is not supported: only the model as read, or as converted");
    }
    const InitializerSources sources = sourcesOf(model, params);
    std::string bytes;
    if (!sources.anyReplaced && model.externalData.empty()) {
        if (!model.proto.SerializeToString(&bytes)) throw SaveError("protobuf could not serialize the ONNX model");
        return bytes;
    }
    const onnx::ModelProto copy = inlineCopy(model, sources);
    if (copy.ByteSizeLong() > kMaxProtoBytes) throw SaveError("the ONNX model would be over 2 GiB inline");
    if (!copy.SerializeToString(&bytes)) throw SaveError("protobuf could not serialize the ONNX model");
    return bytes;
}

bool writeOnnxModel(const OnnxModel& model, const Graph& graph, const NDArrayList* params, const fs::path& modelFile,
                    const fs::path& dataFile, std::size_t inlineLimit) {
    if (!isModelsGraph(graph, model)) {
        throw SaveError("writing a changed ONNX graph is not supported: only the model as read, or as converted");
    }
    const InitializerSources sources = sourcesOf(model, params);
    uint64_t inlineBytes = model.proto.ByteSizeLong();
    for (const std::vector<std::byte>& data : model.externalData) inlineBytes += data.size();
    for (const NDArrayRecord* record : sources.replaced) inlineBytes += record ? record->data.size() : 0;

    if (!model.externalDataOnSave && inlineBytes <= inlineLimit) {
        // One file. Streamed: the serialized bytes never sit in memory beside the message.
        if (!sources.anyReplaced && model.externalData.empty()) {
            writeFileAtomically(modelFile, [&](int fd) { return serializeTo(fd, model.proto); });
        } else {
            const onnx::ModelProto copy = inlineCopy(model, sources);
            checkInlineSize(copy);
            writeFileAtomically(modelFile, [&](int fd) { return serializeTo(fd, copy); });
        }
        return false;
    }

    // The main graph's initializers of kExternalThreshold bytes or more go to `dataFile`, the rest
    // stays inline: a message without those bytes, which are written from where they are now.
    onnx::ModelProto copy = copyWithoutInitializerData(model.proto, kExternalThreshold - 1);
    inlineExternalTensorsBeyondInitializers(copy, model);
    struct Piece {
        std::span<const std::byte> bytes;
        uint64_t offset;
    };
    std::vector<Piece> pieces;
    uint64_t end = 0;
    const std::string location = dataFile.filename().string();
    for (int i = 0; i < copy.graph().initializer_size(); ++i) {
        onnx::TensorProto& tensor = *copy.mutable_graph()->mutable_initializer(i);
        const onnx::TensorProto& original = model.proto.graph().initializer(i);
        std::span<const std::byte> bytes;
        if (const NDArrayRecord* record = sources.replaced[static_cast<std::size_t>(i)]) {
            replaceValues(tensor, *record);
            bytes = record->data;
        } else if (const std::vector<std::byte>* data = sources.external[static_cast<std::size_t>(i)]) {
            bytes = *data;
        } else {
            bytes = std::as_bytes(std::span(original.raw_data().data(), original.raw_data().size()));
        }
        if (bytes.size() < kExternalThreshold) {
            if (isExternalTensor(tensor)) {  // a small external tensor comes inline
                tensor.set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
                tensor.clear_external_data();
                tensor.clear_data_location();
            }
            continue;
        }
        const uint64_t offset = (end + kExternalAlignment - 1) / kExternalAlignment * kExternalAlignment;
        pieces.push_back({bytes, offset});
        end = offset + bytes.size();
        tensor.clear_raw_data();
        tensor.clear_external_data();
        tensor.set_data_location(onnx::TensorProto::EXTERNAL);
        const auto entry = [&](const char* key, const std::string& value) {
            onnx::StringStringEntryProto* e = tensor.add_external_data();
            e->set_key(key);
            e->set_value(value);
        };
        entry("location", location);
        entry("offset", std::to_string(offset));
        entry("length", std::to_string(bytes.size()));
    }
    checkInlineSize(copy);
    // The side file first: a model file on disk always names data that is there.
    writeFileAtomically(dataFile, [&](int fd) {
        static const std::array<std::byte, kExternalAlignment> zeros{};
        uint64_t at = 0;
        for (const Piece& piece : pieces) {
            if (!writeAll(fd, std::span(zeros.data(), piece.offset - at))) return false;
            if (!writeAll(fd, piece.bytes)) return false;
            at = piece.offset + piece.bytes.size();
        }
        return true;
    });
    writeFileAtomically(modelFile, [&](int fd) { return serializeTo(fd, copy); });
    return true;
}

namespace {

std::vector<std::byte> readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw LoadError(path.string(), "", "cannot open the file");
    }
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) {
        throw LoadError(path.string(), "", "cannot read the file");
    }
    if (static_cast<uint64_t>(size) > kMaxProtoBytes) {
        throw LoadError(path.string(), "", "over 2 GiB: protobuf cannot parse it (a model this large keeps its tensors as external data)");
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(bytes.data()), size);
    if (!in) {
        throw LoadError(path.string(), "", "cannot read the file");
    }
    return bytes;
}

ModelDocument read(const ModelOrigin& origin) {
    std::shared_ptr<OnnxModel> model;
    {
        // The file's bytes go before the parameters are decoded: peak memory stays near twice the
        // tensors (the message's copy and the parameters'), not three times.
        const std::vector<std::byte> bytes = readFile(origin.model);
        model = parseProto(bytes, origin.model.string());
    }
    const fs::path folder = origin.model.parent_path().empty() ? fs::path(".") : origin.model.parent_path();
    ModelDocument document = documentOf(std::move(model), folder, origin.model.string());
    document.origin.format = ModelFormat::Onnx;
    document.origin.displayName = origin.displayName;
    document.origin.model = origin.model;
    return document;
}

ModelDocument parse(std::span<const std::byte> model, std::span<const std::byte> /*params*/, const std::string& displayName) {
    return parseOnnxModel(model, {}, displayName);  // from memory: no folder, so no external data
}

ModelFiles filesFor(const std::string& prefix, bool /*withParams*/, int64_t /*epoch*/) {
    // The initializers are inside, or in the side file when the model has external data.
    return {prefix + ".onnx", std::nullopt, prefix + ".onnx.data"};
}

ModelFiles write(const ModelFiles& files, const Graph& graph, const NDArrayList* params, const FormatSource* source) {
    const auto* model = dynamic_cast<const OnnxModel*>(source);
    if (!model) {
        throw SaveError(files.model.string() + ": an ONNX model is written from the ONNX model it was read from, and there is none");
    }
    const bool wroteData = writeOnnxModel(*model, graph, params, files.model, *files.data);
    return {files.model, std::nullopt, wroteData ? files.data : std::nullopt};
}

std::string stem(const ModelOrigin& origin) {
    return origin.model.empty() ? std::string() : (origin.model.parent_path() / origin.model.stem()).string();
}

}  // namespace

const ModelFormatHandler& onnxFormat() {
    static const ModelFormatHandler handler{ModelFormat::Onnx, "ONNX", kSuffixes, recognise, locate, read, parse,
                                            filesFor, write, stem};
    return handler;
}

}  // namespace ampstudio
