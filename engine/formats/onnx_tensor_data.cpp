#include "formats/onnx_tensor_data.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

#include "formats/load_error.h"

namespace ampstudio {
namespace {

using onnx::TensorProto;
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "ONNX's raw_data is little-endian, as this host");

struct OnnxTypeInfo {
    int32_t onnx;
    DType dtype;
};

constexpr std::array<OnnxTypeInfo, 13> kTypes = {{
    {TensorProto::FLOAT, DType::F32},
    {TensorProto::UINT8, DType::U8},
    {TensorProto::INT8, DType::I8},
    {TensorProto::UINT16, DType::U16},
    {TensorProto::INT16, DType::I16},
    {TensorProto::INT32, DType::I32},
    {TensorProto::INT64, DType::I64},
    {TensorProto::BOOL, DType::Bool},
    {TensorProto::FLOAT16, DType::F16},
    {TensorProto::DOUBLE, DType::F64},
    {TensorProto::UINT32, DType::U32},
    {TensorProto::UINT64, DType::U64},
    {TensorProto::BFLOAT16, DType::BF16},
}};

std::string tensorPlace(const TensorProto& tensor) {
    return tensor.name().empty() ? std::string("an unnamed tensor") : "tensor '" + tensor.name() + "'";
}

void visitGraph(onnx::GraphProto& graph, const std::function<void(TensorProto&)>& visit);

void visitAttributes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                     const std::function<void(TensorProto&)>& visit) {
    for (onnx::NodeProto& node : nodes) {
        for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
            if (attr.has_t()) visit(*attr.mutable_t());
            for (TensorProto& t : *attr.mutable_tensors()) visit(t);
            if (attr.has_sparse_tensor()) {
                visit(*attr.mutable_sparse_tensor()->mutable_values());
                visit(*attr.mutable_sparse_tensor()->mutable_indices());
            }
            for (onnx::SparseTensorProto& s : *attr.mutable_sparse_tensors()) {
                visit(*s.mutable_values());
                visit(*s.mutable_indices());
            }
            if (attr.has_g()) visitGraph(*attr.mutable_g(), visit);
            for (onnx::GraphProto& g : *attr.mutable_graphs()) visitGraph(g, visit);
        }
    }
}

void visitGraph(onnx::GraphProto& graph, const std::function<void(TensorProto&)>& visit) {
    for (TensorProto& t : *graph.mutable_initializer()) visit(t);
    for (onnx::SparseTensorProto& s : *graph.mutable_sparse_initializer()) {
        visit(*s.mutable_values());
        visit(*s.mutable_indices());
    }
    visitAttributes(*graph.mutable_node(), visit);
}

// A decimal u64 as ONNX writes offsets and lengths; nullopt for anything else.
std::optional<uint64_t> parseCount(const std::string& text) {
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

// ONNX's checker: a location is relative and never steps up. Both separators count, so a model
// written on Windows is judged the same here.
bool locationStaysInside(const std::string& location) {
    if (location.empty() || location.front() == '/' || location.front() == '\\' ||
        (location.size() >= 2 && location[1] == ':')) {
        return false;
    }
    std::size_t start = 0;
    while (start <= location.size()) {
        std::size_t end = location.find_first_of("/\\", start);
        if (end == std::string::npos) end = location.size();
        if (location.compare(start, end - start, "..") == 0 && end - start == 2) {
            return false;
        }
        start = end + 1;
    }
    return true;
}

template <typename T>
void appendValues(std::vector<std::byte>& out, const google::protobuf::RepeatedField<T>& values) {
    const std::size_t at = out.size();
    out.resize(at + values.size() * sizeof(T));
    if (values.size() > 0) std::memcpy(out.data() + at, values.data(), values.size() * sizeof(T));
}

// int32_data holds each element of the narrow types in one int32 (float16 and bfloat16 as their
// bits): ONNX's onnx.proto, TensorProto.int32_data.
void appendNarrowed(std::vector<std::byte>& out, const google::protobuf::RepeatedField<int32_t>& values,
                    std::size_t size) {
    out.reserve(values.size() * size);
    for (const int32_t v : values) {
        const uint32_t bits = static_cast<uint32_t>(v);
        std::byte b[4];
        std::memcpy(b, &bits, sizeof bits);  // little-endian: the low bytes first
        out.insert(out.end(), b, b + size);
    }
}

}  // namespace

std::optional<DType> dtypeFromOnnx(int32_t dataType) {
    for (const OnnxTypeInfo& info : kTypes) {
        if (info.onnx == dataType) return info.dtype;
    }
    return std::nullopt;
}

int32_t onnxDataType(DType dtype) {
    for (const OnnxTypeInfo& info : kTypes) {
        if (info.dtype == dtype) return info.onnx;
    }
    return TensorProto::UNDEFINED;
}

std::size_t onnxElementSize(int32_t dataType) {
    if (dataType == TensorProto::COMPLEX64) return 8;
    if (dataType == TensorProto::COMPLEX128) return 16;
    const std::optional<DType> dtype = dtypeFromOnnx(dataType);
    return dtype ? dtypeSize(*dtype) : 0;
}

std::string onnxTypeName(int32_t dataType) {
    if (const std::optional<DType> dtype = dtypeFromOnnx(dataType)) {
        return std::string(dtypeName(*dtype));
    }
    if (TensorProto::DataType_IsValid(dataType)) {
        std::string name = TensorProto::DataType_Name(static_cast<TensorProto::DataType>(dataType));
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return name;
    }
    return "type " + std::to_string(dataType);
}

void forEachOnnxTensor(onnx::ModelProto& model, const std::function<void(TensorProto&)>& visit) {
    if (model.has_graph()) visitGraph(*model.mutable_graph(), visit);
    for (onnx::FunctionProto& function : *model.mutable_functions()) {
        visitAttributes(*function.mutable_node(), visit);
    }
}

bool isExternalTensor(const TensorProto& tensor) { return tensor.data_location() == TensorProto::EXTERNAL; }

int64_t onnxElementCount(const TensorProto& tensor, const std::string& file) {
    int64_t count = 1;
    for (const int64_t dim : tensor.dims()) {
        if (dim < 0) {
            throw LoadError(file, tensorPlace(tensor), "negative dimension " + std::to_string(dim));
        }
        if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) {
            throw LoadError(file, tensorPlace(tensor), "the shape's element count overflows");
        }
        count *= dim;
    }
    return count;
}

std::vector<std::byte> readExternalTensorData(const TensorProto& tensor, const fs::path& folder, const std::string& file,
                                              std::vector<fs::path>& read) {
    const std::string where = tensorPlace(tensor);
    std::string location;
    std::optional<uint64_t> offset = 0, length;
    for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
        if (entry.key() == "location") {
            location = entry.value();
        } else if (entry.key() == "offset") {
            offset = parseCount(entry.value());
            if (!offset) throw LoadError(file, where, "external data offset '" + entry.value() + "' is not a number");
        } else if (entry.key() == "length") {
            length = parseCount(entry.value());
            if (!length) throw LoadError(file, where, "external data length '" + entry.value() + "' is not a number");
        }
    }
    if (location.empty()) {
        throw LoadError(file, where, "external data without a location");
    }
    if (folder.empty()) {
        throw LoadError(file, where, "external data ('" + location + "') needs the model's folder, and there is none");
    }
    if (!locationStaysInside(location)) {
        throw LoadError(file, where,
                        "external data location '" + location +
                            "' leaves the model's folder (absolute or with '..'): refused");
    }
    std::error_code error, folderError;
    const fs::path real = fs::weakly_canonical(folder / fs::path(location), error);
    const fs::path realFolder = fs::weakly_canonical(folder, folderError);
    const auto [folderEnd, realEnd] = std::mismatch(realFolder.begin(), realFolder.end(), real.begin(), real.end());
    if (error || folderError || folderEnd != realFolder.end()) {
        throw LoadError(file, where, "external data location '" + location + "' resolves outside the model's folder: refused");
    }
    if (!fs::is_regular_file(real, error)) {
        throw LoadError(file, where, "external data file '" + location + "' does not exist or is no regular file");
    }
    const uint64_t size = fs::file_size(real, error);
    if (error) {
        throw LoadError(file, where, "cannot read external data file '" + location + "': " + error.message());
    }
    const std::size_t elementSize = onnxElementSize(tensor.data_type());
    if (elementSize == 0) {
        throw LoadError(file, where, "a " + onnxTypeName(tensor.data_type()) + " tensor cannot be external data");
    }
    const auto count = static_cast<uint64_t>(onnxElementCount(tensor, file));
    if (count > std::numeric_limits<uint64_t>::max() / elementSize) {
        throw LoadError(file, where, "the tensor's shape is too large");
    }
    const uint64_t expected = count * elementSize;
    if (length && *length != expected) {
        throw LoadError(file, where,
                        "external data length " + std::to_string(*length) + " disagrees with the tensor's shape and " +
                            onnxTypeName(tensor.data_type()) + " (" + std::to_string(count) + " elements, " +
                            std::to_string(expected) + " bytes)");
    }
    length = expected;
    if (*offset > size || *length > size - *offset) {
        throw LoadError(file, where,
                        "external data file '" + location + "' has " + std::to_string(size) +
                            " bytes, fewer than offset " + std::to_string(*offset) + " + length " + std::to_string(*length));
    }
    std::vector<std::byte> bytes(*length);
    std::ifstream in(real, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(*offset));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!in) {
        throw LoadError(file, where, "cannot read " + std::to_string(*length) + " bytes of external data from '" + location + "'");
    }
    if (std::find(read.begin(), read.end(), real) == read.end()) read.push_back(real);
    return bytes;
}

std::vector<std::byte> onnxTensorBytes(const TensorProto& tensor, const std::vector<std::byte>* external,
                                       const std::string& file) {
    const std::size_t elementSize = onnxElementSize(tensor.data_type());
    const int64_t count = onnxElementCount(tensor, file);
    if (elementSize == 0 || static_cast<uint64_t>(count) > std::numeric_limits<std::size_t>::max() / elementSize) {
        throw LoadError(file, tensorPlace(tensor), "no fixed-size values for a " + onnxTypeName(tensor.data_type()) + " tensor");
    }
    const std::size_t expected = static_cast<std::size_t>(count) * elementSize;
    std::vector<std::byte> bytes;
    if (isExternalTensor(tensor)) {
        if (external) bytes = *external;
    } else if (tensor.has_raw_data()) {
        const std::string& raw = tensor.raw_data();
        bytes.assign(reinterpret_cast<const std::byte*>(raw.data()), reinterpret_cast<const std::byte*>(raw.data()) + raw.size());
    } else {
        switch (tensor.data_type()) {
            case TensorProto::FLOAT: appendValues(bytes, tensor.float_data()); break;
            case TensorProto::DOUBLE: appendValues(bytes, tensor.double_data()); break;
            case TensorProto::INT64: appendValues(bytes, tensor.int64_data()); break;
            case TensorProto::UINT64: appendValues(bytes, tensor.uint64_data()); break;
            case TensorProto::INT32: appendValues(bytes, tensor.int32_data()); break;
            case TensorProto::UINT32:  // uint64_data, one element each
                bytes.reserve(static_cast<std::size_t>(tensor.uint64_data_size()) * 4);
                for (const uint64_t v : tensor.uint64_data()) {
                    const auto narrow = static_cast<uint32_t>(v);
                    const auto* p = reinterpret_cast<const std::byte*>(&narrow);
                    bytes.insert(bytes.end(), p, p + 4);
                }
                break;
            case TensorProto::COMPLEX64: appendValues(bytes, tensor.float_data()); break;
            case TensorProto::COMPLEX128: appendValues(bytes, tensor.double_data()); break;
            default: appendNarrowed(bytes, tensor.int32_data(), elementSize); break;
        }
    }
    if (bytes.size() != expected) {
        throw LoadError(file, tensorPlace(tensor),
                        std::to_string(bytes.size()) + " bytes of values for " + std::to_string(count) + " " +
                            onnxTypeName(tensor.data_type()) + " elements (" + std::to_string(expected) + " bytes)");
    }
    return bytes;
}

}  // namespace ampstudio
