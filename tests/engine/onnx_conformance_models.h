#pragma once
// Debian's libonnx-testdata models and the pass's float16 and bfloat16 conversions of each: what
// the suites that hold a fast path to libonnx's own verdict (the checker's, strict inference's)
// walk through.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <onnx/onnx_pb.h>

#include "amp/amp_lists.h"
#include "amp/onnx_conversion.h"
#include "formats/model_file.h"
#include "formats/onnx_model.h"

namespace ampstudio::onnx_test {

inline const std::filesystem::path kConformanceData = "/usr/share/libonnx-testdata/data";

// fn(model, name, file) for every model there protobuf parses (name: its test's folder); then
// conversions(model, name, file). Returns how many models.
template <typename Fn>
int forEachConformanceModel(Fn&& fn) {
    int models = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kConformanceData)) {
        if (entry.path().extension() != ".onnx") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        onnx::ModelProto model;
        if (!model.ParseFromString(bytes)) continue;
        ++models;
        fn(model, entry.path().parent_path().filename().string(), entry.path());
    }
    return models;
}

// fn(converted model, "<name> (float16)") for each conversion the pass makes of `file` with the
// default lists (opening and converting failures are test_onnx_conversion's, skipped here).
template <typename Fn>
void forEachConversionOf(const std::filesystem::path& file, const std::string& name, Fn&& fn) {
    try {
        const ModelDocument document = openModelFile(file);
        for (const DType target : {DType::F16, DType::BF16}) {
            ConversionOptions options;
            options.lists = AmpLists::defaults(target, OpSet::Onnx);
            const ConversionResult result = convertOnnxModel(*document.source, options);
            if (const auto* converted = dynamic_cast<const OnnxModel*>(result.source.get())) {
                fn(converted->proto, name + " (" + std::string(dtypeName(target)) + ")");
            }
        }
    } catch (const std::exception&) {
    }
}

}  // namespace ampstudio::onnx_test
