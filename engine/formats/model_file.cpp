#include "formats/model_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>

#include "formats/atomic_file.h"
#include "formats/model_format_handler.h"

namespace ampstudio {
namespace {

// Every format AMP Studio reads and writes. The first is the fallback for a file none recognises.
const std::array<const ModelFormatHandler*, 2>& handlers() {
    static const std::array<const ModelFormatHandler*, 2> table{&mxnetCheckpointFormat(), &onnxFormat()};
    return table;
}

const ModelFormatHandler& handlerFor(ModelFormat format) {
    for (const ModelFormatHandler* handler : handlers()) {
        if (handler->format == format) {
            return *handler;
        }
    }
    return *handlers().front();  // unreachable while every enumerator is registered
}

// Enough of a file to tell the formats apart; a file that cannot be read gives nothing, and the
// reader chosen then reports why.
std::vector<std::byte> fileHead(const std::filesystem::path& file) {
    constexpr std::size_t kHeadBytes = 64;
    std::vector<std::byte> head(kHeadBytes);
    std::ifstream in(file, std::ios::binary);
    in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    head.resize(in ? head.size() : static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return head;
}

const ModelFormatHandler& sniff(const std::filesystem::path& file) {
    const std::vector<std::byte> head = fileHead(file);
    const ModelFormatHandler* best = handlers().front();
    int bestScore = 0;
    for (const ModelFormatHandler* handler : handlers()) {
        const int score = handler->recognise(file, head);
        if (score > bestScore) {
            best = handler;
            bestScore = score;
        }
    }
    return *best;
}

}  // namespace

std::string_view modelFormatName(ModelFormat format) { return handlerFor(format).name; }

bool isModelFileName(const std::filesystem::path& file) {
    std::string name = file.filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const ModelFormatHandler* handler : handlers()) {
        for (const std::string_view suffix : handler->suffixes) {
            if (name.size() > suffix.size() && name.ends_with(suffix)) {
                return true;
            }
        }
    }
    return false;
}

ModelFormat sniffModelFormat(const std::filesystem::path& file) { return sniff(file).format; }

std::vector<std::filesystem::path> ModelOrigin::files() const {
    std::vector<std::filesystem::path> result;
    if (!model.empty()) result.push_back(model);
    if (params) result.push_back(*params);
    result.insert(result.end(), sideFiles.begin(), sideFiles.end());
    return result;
}

std::vector<std::filesystem::path> ModelFiles::all() const {
    std::vector<std::filesystem::path> result{model};
    if (params) result.push_back(*params);
    if (data) result.push_back(*data);
    return result;
}

ModelOrigin locateModelFiles(const std::filesystem::path& file, const OpenModelOptions& options) {
    return sniff(file).locate(file, options);
}

ModelDocument openModelFile(const std::filesystem::path& file, const OpenModelOptions& options) {
    const ModelFormatHandler& handler = sniff(file);
    return handler.read(handler.locate(file, options));
}

ModelDocument parseModel(ModelFormat format, std::span<const std::byte> model, std::span<const std::byte> params,
                         const std::string& displayName) {
    return handlerFor(format).parse(model, params, displayName);
}

ModelFiles modelFilesFor(ModelFormat format, const std::string& prefix, bool withParams, int64_t epoch) {
    return handlerFor(format).filesFor(prefix, withParams, epoch);
}

ModelFiles saveModelFile(ModelFormat format, const std::string& prefix, const Graph& graph, const NDArrayList* params,
                         std::span<const std::filesystem::path> protectedFiles, int64_t epoch,
                         const FormatSource* source) {
    const ModelFormatHandler& handler = handlerFor(format);
    const ModelFiles files = handler.filesFor(prefix, params != nullptr, epoch);
    for (const std::filesystem::path& output : files.all()) {
        refuseToOverwriteInput(output, protectedFiles);  // all checked before anything is written
    }
    return handler.write(files, graph, params, source);
}

std::string modelStem(const ModelOrigin& origin) { return handlerFor(origin.format).stem(origin); }

void refuseToOverwriteInput(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs) {
    for (const auto& input : inputs) {
        if (sameFile(output, input)) {
            throw SaveError("refusing to overwrite the input file " + input.string() + " (choose another name)");
        }
    }
}

}  // namespace ampstudio
