// MXNet checkpoints as a model format: PREFIX-symbol.json (any variant symbol_json.h reads) with
// PREFIX-NNNN.params beside it, the pair Module.save_checkpoint and HybridBlock.export write.

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "formats/checkpoint_files.h"
#include "formats/model_format_handler.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"

namespace ampstudio {
namespace {

// The first eight bytes of an NDArray list file (.params): MXNet's kMXAPINDArrayListMagic.
constexpr uint64_t kNDArrayListMagic = 0x112;

// A drop of either half opens the checkpoint.
constexpr std::string_view kSuffixes[] = {".json", ".params"};

int recognise(const std::filesystem::path& file, std::span<const std::byte> head) {
    if (head.size() >= sizeof(uint64_t)) {
        uint64_t magic = 0;
        std::memcpy(&magic, head.data(), sizeof magic);  // little-endian, as MXNet writes it
        if (magic == kNDArrayListMagic) {
            return 2;
        }
    }
    for (const std::byte b : head) {
        const char c = static_cast<char>(b);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        return c == '{' ? 2 : 0;  // JSON: a symbol (the reader says so if it is some other JSON)
    }
    return file.extension() == ".json" ? 1 : 0;  // empty: the reader reports it
}

ModelOrigin locate(const std::filesystem::path& file, const OpenModelOptions& options) {
    CheckpointFiles files = options.findCompanions ? findCheckpointFiles(file) : CheckpointFiles{file, std::nullopt};
    if (options.params) {
        files.params = options.params;
    }
    return {ModelFormat::MxnetCheckpoint, files.symbol.filename().string(), files.symbol, files.params, {}};
}

ModelDocument read(const ModelOrigin& origin) {
    ModelDocument document;
    document.graph = std::make_shared<const Graph>(readSymbolJsonFile(origin.model));
    if (origin.params) {
        document.params = std::make_shared<const NDArrayList>(readNDArrayListFile(*origin.params));
    }
    document.origin = origin;
    return document;
}

ModelDocument parse(std::span<const std::byte> model, std::span<const std::byte> params, const std::string& displayName) {
    ModelDocument document;
    document.graph = std::make_shared<const Graph>(
        parseSymbolJson(std::string_view(reinterpret_cast<const char*>(model.data()), model.size()), displayName));
    if (!params.empty()) {
        document.params = std::make_shared<const NDArrayList>(parseNDArrayList(params, displayName));
    }
    document.origin = {ModelFormat::MxnetCheckpoint, displayName, {}, std::nullopt, {}};
    return document;
}

ModelFiles filesFor(const std::string& prefix, bool withParams, int64_t epoch) {
    ModelFiles files{prefix + "-symbol.json", std::nullopt, std::nullopt};
    if (withParams) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, "-%04lld.params", static_cast<long long>(epoch));  // MXNet's "%04d"
        files.params = prefix + suffix;
    }
    return files;
}

ModelFiles write(const ModelFiles& files, const Graph& graph, const NDArrayList* params, const FormatSource* /*source*/) {
    // Parameters first: a symbol on disk then always has the parameters it was saved with.
    if (params) {
        writeNDArrayListFile(*files.params, *params);
    }
    writeSymbolJsonFile(files.model, graph);
    return files;
}

std::string stem(const ModelOrigin& origin) {
    if (origin.model.empty()) {
        return {};
    }
    const std::string prefix = checkpointPrefix(origin.model);
    if (!prefix.empty()) {
        return prefix;
    }
    return (origin.model.parent_path() / origin.model.stem()).string();
}

}  // namespace

const ModelFormatHandler& mxnetCheckpointFormat() {
    static const ModelFormatHandler handler{ModelFormat::MxnetCheckpoint,
                                            "MXNet symbol",
                                            kSuffixes,
                                            recognise,
                                            locate,
                                            read,
                                            parse,
                                            filesFor,
                                            write,
                                            stem};
    return handler;
}

}  // namespace ampstudio
