#pragma once
// An ONNX model as AMP Studio holds it: the whole ModelProto as parsed, untouched, beside the Graph
// IR the rest of the program sees. Keeping the message whole is what makes a save without changes
// write back everything (opset imports, IR version, metadata, doc strings, value_info, functions,
// sparse initializers, attributes and fields libonnx 1.12 does not know, which protobuf keeps as
// unknown fields). Only the ONNX format's own files and their tests include this header: it brings
// in protobuf's; everything else sees a ModelDocument whose `source` is opaque.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "formats/model_file.h"

namespace ampstudio {

struct OnnxModel final : FormatSource {
    onnx::ModelProto proto;  // as parsed: external tensors still name their side files
    // The bytes of every tensor stored as external data, in forEachOnnxTensor's order, read and
    // checked when the model was opened: a save writes them inline, wherever it writes.
    std::vector<std::vector<std::byte>> externalData;
    // A save writes the large tensors to a side file: the model was read (or converted from one
    // read) with external data. Any model too large to be written inline is written so too.
    bool externalDataOnSave = false;
    // Graph node id -> index into proto.graph().node(); -1 for a variable (graph input, initializer).
    std::vector<int> protoNodeOf;
    // The graph made from the proto: a save compares the graph it is given with this one. A
    // converted model, whose graph its ConversionResult holds, keeps only graphDigest of it instead
    // (a second copy of a 100k-node graph costs more than the conversion's own walk).
    std::shared_ptr<const Graph> graph;
    uint64_t graphDigest = 0;
};

// Per main-graph initializer of `model`, its bytes in model.externalData when it is external, else
// null (forEachOnnxTensor's order, in which externalData is kept, begins with those initializers).
std::vector<const std::vector<std::byte>*> initializerExternalData(const OnnxModel& model);

// Every external tensor of `copy` (a copy of model.proto, its external tensors still marked so)
// outside the main graph's initializers made inline, from model.externalData.
void inlineExternalTensorsBeyondInitializers(onnx::ModelProto& copy, const OnnxModel& model);

// A digest of everything a save compares of a graph (ops, names, inputs, outputs, control
// dependencies, attributes, heads): OnnxModel::graphDigest.
uint64_t onnxGraphDigest(const Graph& graph);

// The document's ONNX model, or nullptr when it came from another format.
const OnnxModel* onnxModelOf(const ModelDocument& document);

// A serialized ModelProto as a document (graph, parameters = the main graph's initializers of a
// numeric dtype, source = the OnnxModel). External data is resolved in `folder` (an empty folder
// admits none). Throws LoadError naming `displayName` on any malformed input, an external location
// that leaves the folder, a side file too short, or a length that disagrees with shape and dtype.
ModelDocument parseOnnxModel(std::span<const std::byte> bytes, const std::filesystem::path& folder,
                             const std::string& displayName);

// The bytes of `model` saved inline (one file): throws SaveError when `graph` differs from
// model.graph (a model is written as read or as converted) or when it would pass 2 GiB.
// Initializers whose values differ from `params` take its values; external tensors are written
// inline. Without either change the result is the parsed message re-serialized.
std::string serializeOnnxModel(const OnnxModel& model, const Graph& graph, const NDArrayList* params);

// protobuf's limit on a serialized message.
constexpr std::size_t kMaxOnnxInlineBytes = 2147483647;

// Saves `model` (with `params`' values, as serializeOnnxModel) to `modelFile`, atomically and
// streamed. When the model has external data (externalDataOnSave), or inline it would pass
// `inlineLimit` bytes, its main-graph initializers of 1 KiB or more go to `dataFile` instead (beside
// `modelFile`, named by its file name, each tensor at a 4 KiB-aligned offset), written first.
// Returns whether it wrote `dataFile`.
bool writeOnnxModel(const OnnxModel& model, const Graph& graph, const NDArrayList* params,
                    const std::filesystem::path& modelFile, const std::filesystem::path& dataFile,
                    std::size_t inlineLimit = kMaxOnnxInlineBytes);

}  // namespace ampstudio
