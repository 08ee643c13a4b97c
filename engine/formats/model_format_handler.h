#pragma once
// What model_file.cpp needs of one format: a reader/writer pair and how to recognise its files. One
// handler per format, registered in model_file.cpp's table; nothing else knows the formats apart.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "formats/model_file.h"

namespace ampstudio {

struct ModelFormatHandler {
    ModelFormat format;
    std::string_view name;
    std::span<const std::string_view> suffixes;  // the file name endings it opens, lower case
    // 0 when `file` (its name and its first bytes) is not this format's; higher is surer.
    int (*recognise)(const std::filesystem::path& file, std::span<const std::byte> head);
    // The files opening `file` reads (companions found as options say), nothing read yet.
    ModelOrigin (*locate)(const std::filesystem::path& file, const OpenModelOptions& options);
    ModelDocument (*read)(const ModelOrigin& origin);
    ModelDocument (*parse)(std::span<const std::byte> model, std::span<const std::byte> params,
                           const std::string& displayName);
    ModelFiles (*filesFor)(const std::string& prefix, bool withParams, int64_t epoch);
    // Writes `files` (each atomically) and returns those it wrote: `params` is null exactly when
    // files.params is absent (or, for a format that keeps its parameters inside the model file,
    // when there are none); files.data is written only when the model needs it. `source` is the
    // document's format-specific part, null when the caller has none.
    ModelFiles (*write)(const ModelFiles& files, const Graph& graph, const NDArrayList* params, const FormatSource* source);
    std::string (*stem)(const ModelOrigin& origin);
};

const ModelFormatHandler& mxnetCheckpointFormat();
const ModelFormatHandler& onnxFormat();

}  // namespace ampstudio
