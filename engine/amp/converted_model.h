#pragma once
// Saving a conversion the way both the CLI and the GUI do it: `PREFIX-symbol.json`, and with the
// source's parameters `PREFIX-0000.params` (cast_optional_params applied), each written atomically,
// and never over one of the files the conversion was made from.

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "amp/conversion.h"
#include "formats/ndarray_list.h"

namespace ampstudio {

struct ConvertedModelFiles {
    std::filesystem::path symbol;                 // PREFIX-symbol.json
    std::optional<std::filesystem::path> params;  // PREFIX-0000.params, when parameters were given
};

ConvertedModelFiles convertedModelFiles(const std::string& prefix, bool withParams);

// Throws SaveError when `output` is the same file as one of `inputs` (hard links and symlinks
// included): every writer of the CLI and the GUI checks its outputs with this before writing.
void refuseToOverwriteInput(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs);

// Throws SaveError naming the file when an output would replace one of `inputs` (checked before
// anything is written) or a write fails, and, before writing anything, when the result failed its
// dtype check (report.dtypeCheck): a graph MXNet would refuse is never written. `params` is copied, cast (applyParamCasting with the
// result's storedInTargetDtype) and written; `report`, when given, receives the parameter bytes.
ConvertedModelFiles saveConvertedModel(const std::string& prefix, const ConversionResult& result, DType targetDtype,
                                       const NDArrayList* params, std::span<const std::filesystem::path> inputs,
                                       ConversionReport* report = nullptr);

}  // namespace ampstudio
