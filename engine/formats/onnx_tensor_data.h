#pragma once
// The values of ONNX tensors: where a TensorProto keeps them (raw_data, one of the typed repeated
// fields, or a side file: "external data") and how they read as little-endian bytes. External data
// is read only from inside the model's folder: ONNX's own rule (onnx/checker.cc, resolve_external_
// data_location: no absolute path, no ".."), which keeps a hostile model from reading any file the
// user can read. Included by the ONNX format's files only (it names protobuf types).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "tensor/dtype.h"

namespace ampstudio {

// TensorProto.DataType -> DType; nullopt for the types AMP Studio has no dtype for (string,
// complex, undefined).
std::optional<DType> dtypeFromOnnx(int32_t dataType);
int32_t onnxDataType(DType dtype);
// Bytes per element of a TensorProto.DataType; 0 for string and undefined.
std::size_t onnxElementSize(int32_t dataType);
// "float32", "float16" ... as DType names them, else ONNX's name ("string", "complex64").
std::string onnxTypeName(int32_t dataType);

// Calls `visit` for every tensor the model holds: each graph's initializers, its sparse
// initializers' values and indices, every node attribute's tensors, nested graphs (If, Loop, Scan
// bodies) and the local functions' nodes, always in the same order.
void forEachOnnxTensor(onnx::ModelProto& model, const std::function<void(onnx::TensorProto&)>& visit);

bool isExternalTensor(const onnx::TensorProto& tensor);

// The product of the dims; throws LoadError (naming `file` and the tensor) for a negative dim or an
// overflowing product.
int64_t onnxElementCount(const onnx::TensorProto& tensor, const std::string& file);

// Reads an external tensor's bytes from `folder`. Throws LoadError naming `file` and the tensor
// when the location is missing, absolute, contains "..", resolves outside `folder` (symlinks
// included) or is no regular file, when offset or length is not a number, when the file is shorter
// than offset + length, or when the length disagrees with the tensor's shape and dtype. An empty
// folder (a model parsed from memory) admits no external data. The file read is added to `read`.
std::vector<std::byte> readExternalTensorData(const onnx::TensorProto& tensor, const std::filesystem::path& folder,
                                              const std::string& file, std::vector<std::filesystem::path>& read);

// The tensor's values as little-endian bytes, element count x onnxElementSize, from raw_data, the
// typed field its dtype uses, or `external` (the bytes readExternalTensorData gave) when it is
// external. Throws LoadError naming `file` when the values disagree with the shape. String tensors
// have no such bytes: call it only for a dtype dtypeFromOnnx knows.
std::vector<std::byte> onnxTensorBytes(const onnx::TensorProto& tensor, const std::vector<std::byte>* external,
                                       const std::string& file);

}  // namespace ampstudio
