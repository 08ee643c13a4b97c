#pragma once
// The one entry point for model files. Opening sniffs the format, finds the companion parameter file
// as a drop does, and gives a format-neutral ModelDocument (graph + parameters + where it came from);
// saving writes a document back in the format it came from, atomically and never over a file it
// was read from. The workspace, every CLI subcommand and the trainer go through here; a new format
// is one ModelFormatHandler (a reader/writer pair) registered in model_file.cpp.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/ndarray_list.h"
#include "graph/graph.h"

namespace ampstudio {

enum class ModelFormat {
    MxnetCheckpoint,  // PREFIX-symbol.json + PREFIX-NNNN.params (Module.save_checkpoint, HybridBlock.export)
    Onnx,             // MODEL.onnx, its tensors inline or in side files beside it (ONNX external data)
};

// "MXNet symbol": for messages and `inspect`.
std::string_view modelFormatName(ModelFormat format);

// True when a registered format opens files named so (".json", ".params" ...; case-insensitive):
// what a drop target accepts before anything is read.
bool isModelFileName(const std::filesystem::path& file);

// Where a document came from.
struct ModelOrigin {
    ModelFormat format = ModelFormat::MxnetCheckpoint;
    std::string displayName;                      // the model file's name, or an example's title
    std::filesystem::path model;                  // the graph's file; empty when parsed from memory
    std::optional<std::filesystem::path> params;  // the parameter file read, when one was
    // Other files the model's data was read from (ONNX external data); known once it has been read.
    std::vector<std::filesystem::path> sideFiles;

    // Every file the document was read from: a save never writes over one of them.
    std::vector<std::filesystem::path> files() const;
};

// What a format keeps of its file beyond the graph and the parameters, so that a save writes back
// everything it did not change (ONNX: the whole ModelProto). Opaque here: only the format's own
// source files know the type, so nothing above them sees that format's headers (protobuf's).
class FormatSource {
public:
    virtual ~FormatSource() = default;
};

struct ModelDocument {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const NDArrayList> params;  // null when the model came without parameters
    ModelOrigin origin;
    std::shared_ptr<const FormatSource> source;  // null for formats the graph and parameters say all of
};

struct OpenModelOptions {
    // True: a model file's parameters are found beside it, and a parameter file opens with its model
    // (what dropping either does). False: only `params` is read with the model (the CLI's --params).
    bool findCompanions = true;
    std::optional<std::filesystem::path> params;  // read instead of any companion
};

// The format `file` is in, from its name and first bytes; the first registered format when none
// recognises it (its reader then says what is wrong). Never throws.
ModelFormat sniffModelFormat(const std::filesystem::path& file);

// The files openModelFile(file, options) would read, without reading them (the CLI names them and
// checks its outputs against them first). Never throws; a missing companion is simply absent.
ModelOrigin locateModelFiles(const std::filesystem::path& file, const OpenModelOptions& options = {});

// Throws LoadError naming the file and the reason (a file no format recognises is read as the
// first registered format, whose reader then says what is wrong with it).
ModelDocument openModelFile(const std::filesystem::path& file, const OpenModelOptions& options = {});
// From memory (a bundled example): `params` empty when there are none. Throws LoadError.
ModelDocument parseModel(ModelFormat format, std::span<const std::byte> model, std::span<const std::byte> params,
                         const std::string& displayName);

// The files a save under `prefix` writes: "dir/net-fp16" -> dir/net-fp16-symbol.json and, with
// parameters, dir/net-fp16-0000.params (the epoch MXNet's load_checkpoint is then given); for ONNX
// dir/net-fp16.onnx alone, its tensors inline.
struct ModelFiles {
    std::filesystem::path model;
    std::optional<std::filesystem::path> params;
    std::optional<std::filesystem::path> data;  // a side file of tensors (ONNX external data)

    std::vector<std::filesystem::path> all() const;
};
ModelFiles modelFilesFor(ModelFormat format, const std::string& prefix, bool withParams, int64_t epoch = 0);

// Writes `graph` (and `params` when given) in `format` under `prefix`, each file atomically. Throws
// SaveError before anything is written when an output would replace one of `protectedFiles`
// (see refuseToOverwriteInput), or naming the file when a write fails. `source` is the document's
// (ModelDocument::source): a format that needs one (ONNX) refuses to write without it.
ModelFiles saveModelFile(ModelFormat format, const std::string& prefix, const Graph& graph, const NDArrayList* params,
                         std::span<const std::filesystem::path> protectedFiles, int64_t epoch = 0,
                         const FormatSource* source = nullptr);

// The prefix a converted copy is named after: "dir/resnet" for dir/resnet-symbol.json or
// dir/resnet-0012.params, "dir/net" for dir/net.json; empty for a document parsed from memory.
std::string modelStem(const ModelOrigin& origin);

// Throws SaveError when `output` is the same file as one of `inputs` (hard links and symlinks
// included): every writer of the CLI and the GUI checks its outputs with this before writing.
void refuseToOverwriteInput(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs);

}  // namespace ampstudio
