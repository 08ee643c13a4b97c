#pragma once
// An ONNX model as the ONNX runner (exec/onnx/) executes it: the graph's nodes in topological order
// with their attributes as values (numbers, lists, tensors, nested graphs), the initializers and
// Constant values as host tensors, and the graph's interface. Made from the document's ModelProto,
// so the runner sees no protobuf type and the Graph IR (whose attributes are display text) stays
// what the views and the pass read. Values are referred to by name, as in ONNX: a nested graph (If,
// Loop, Scan bodies) reads the names of the scopes around it.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/model_file.h"
#include "tensor/host_tensor.h"

namespace ampstudio {

struct OnnxGraphProgram;

struct OnnxAttribute {
    enum class Kind : uint8_t { Int, Float, String, Ints, Floats, Strings, Tensor, Graph, Other };
    Kind kind = Kind::Other;
    int64_t i = 0;
    float f = 0.0f;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::vector<std::string> strings;
    HostTensor tensor;
    std::shared_ptr<const OnnxGraphProgram> graph;
};

struct OnnxProgramNode {
    std::string op;      // op_type, "domain.op_type" outside the default domain (as the Graph IR)
    std::string name;    // as the Graph IR names it
    std::vector<std::string> inputs;   // "" for an omitted optional input
    std::vector<std::string> outputs;  // "" for an omitted optional output
    std::map<std::string, OnnxAttribute, std::less<>> attributes;

    const OnnxAttribute* attribute(std::string_view key) const;
};

struct OnnxValueInfo {
    std::string name;
    std::optional<DType> dtype;  // nullopt: not a tensor of a dtype the engine has (or not declared)
    std::optional<std::vector<std::optional<int64_t>>> dims;  // per dim its size, nullopt when symbolic
    std::vector<std::string> dimNames;                        // the symbolic dims' names ("" when fixed)
};

struct OnnxGraphProgram {
    std::string name;
    std::vector<OnnxValueInfo> inputs;   // every declared input, initializers giving defaults included
    std::vector<OnnxValueInfo> outputs;
    std::map<std::string, HostTensor, std::less<>> initializers;
    std::vector<OnnxProgramNode> nodes;  // topological
};

struct OnnxProgram {
    OnnxGraphProgram graph;
    int64_t opset = 0;  // of the default domain
    std::map<std::string, int64_t> opsets;  // every domain's ("" for the default)

    // The inputs a run must be given: the declared inputs without an initializer.
    std::vector<const OnnxValueInfo*> requiredInputs() const;
};

// The document's model as a program. Throws std::invalid_argument when the document is no ONNX
// model, and LoadError for a tensor whose values cannot be read (a string tensor where a value is
// needed is kept undefined and named by the runner when a node reads it).
std::shared_ptr<const OnnxProgram> onnxProgramOf(const ModelDocument& document);

// The dtype of an ONNX element type number (TensorProto.DataType: Cast's `to`, EyeLike's `dtype`);
// nullopt for string, complex and unknown numbers.
std::optional<DType> dtypeOfOnnxElementType(int64_t elementType);

// A serialized TensorProto (the node tests' input_0.pb / output_0.pb files); throws LoadError.
HostTensor readOnnxTensorFile(const std::filesystem::path& file);
// The name a serialized TensorProto gives itself (the node tests name the input they are for).
std::string onnxTensorFileName(const std::filesystem::path& file);

}  // namespace ampstudio
