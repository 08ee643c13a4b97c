#include "amp/converted_model.h"

#include <optional>

#include "amp/param_casting.h"
#include "formats/atomic_file.h"

namespace ampstudio {

ModelFiles saveConvertedModel(const std::string& prefix, const ConversionResult& result, DType targetDtype,
                              const ModelDocument& source, std::span<const std::filesystem::path> alsoProtected,
                              ConversionReport* report) {
    if (!result.report.dtypeCheck.passed) {
        // Never written: MXNet would refuse to bind it.
        throw SaveError("the converted graph fails MXNet's dtype check: " + result.report.dtypeCheck.message);
    }
    std::vector<std::filesystem::path> protectedFiles = source.origin.files();
    protectedFiles.insert(protectedFiles.end(), alsoProtected.begin(), alsoProtected.end());
    std::optional<NDArrayList> cast;
    if (source.params) {
        cast = *source.params;
        ConversionReport scratch;
        applyParamCasting(*cast, result.storedInTargetDtype, targetDtype, report ? *report : scratch);
    }
    return saveModelFile(source.origin.format, prefix, result.graph, cast ? &*cast : nullptr, protectedFiles, 0,
                         source.source.get());
}

}  // namespace ampstudio
