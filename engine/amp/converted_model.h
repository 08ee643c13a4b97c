#pragma once
// Saving a conversion the way both the CLI and the GUI do it: in the format the source came from
// (for MXNet `PREFIX-symbol.json`, and with the source's parameters `PREFIX-0000.params`,
// cast_optional_params applied; for ONNX `PREFIX.onnx`, the converted ModelProto), each file written atomically, never over one the source was read
// from, and never when the converted graph failed its dtype check.

#include <filesystem>
#include <span>
#include <string>

#include "amp/conversion.h"
#include "formats/model_file.h"

namespace ampstudio {

// Throws SaveError naming the file when an output would replace one of the source's files or of
// `alsoProtected` (checked before anything is written) or a write fails, and, before writing
// anything, when the result failed its dtype check (report.dtypeCheck): a graph MXNet would refuse is
// never written. The source's parameters are copied, cast (applyParamCasting with the result's
// storedInTargetDtype) and written; `report`, when given, receives the parameter bytes.
ModelFiles saveConvertedModel(const std::string& prefix, const ConversionResult& result, DType targetDtype,
                              const ModelDocument& source, std::span<const std::filesystem::path> alsoProtected = {},
                              ConversionReport* report = nullptr);

}  // namespace ampstudio
