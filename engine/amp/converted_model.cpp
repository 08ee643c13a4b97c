#include "amp/converted_model.h"

#include <optional>

#include "amp/param_casting.h"
#include "formats/atomic_file.h"

namespace ampstudio {

ModelFiles saveConvertedModel(const std::string& prefix, const ConversionResult& result, DType targetDtype,
                              const ModelDocument& source, std::span<const std::filesystem::path> alsoProtected,
                              ConversionReport* report) {
    if (!result.report.dtypeCheck.passed) {
        // Never written: its runtime would refuse it.
        throw SaveError(result.source ? "the converted model fails " + result.report.dtypeCheck.stage + ": " +
                                            result.report.dtypeCheck.message
                                      : "the converted graph fails MXNet's dtype check: " + result.report.dtypeCheck.message);
    }
    std::vector<std::filesystem::path> protectedFiles = source.origin.files();
    protectedFiles.insert(protectedFiles.end(), alsoProtected.begin(), alsoProtected.end());
    if (result.source) {
        // The converted model says all of it (its initializers already in their new dtypes).
        if (report) {
            report->paramsKnown = result.report.paramsKnown;
            report->paramBytesBefore = result.report.paramBytesBefore;
            report->paramBytesAfter = result.report.paramBytesAfter;
        }
        return saveModelFile(source.origin.format, prefix, result.graph, nullptr, protectedFiles, 0, result.source.get());
    }
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
