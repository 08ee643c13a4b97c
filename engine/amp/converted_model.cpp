#include "amp/converted_model.h"

#include "amp/param_casting.h"
#include "formats/atomic_file.h"
#include "formats/symbol_json.h"

namespace ampstudio {
void refuseToOverwriteInput(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs) {
    for (const auto& input : inputs) {
        if (sameFile(output, input)) {
            throw SaveError("refusing to overwrite the input file " + input.string() + " (choose another name)");
        }
    }
}

ConvertedModelFiles convertedModelFiles(const std::string& prefix, bool withParams) {
    ConvertedModelFiles files{prefix + "-symbol.json", std::nullopt};
    if (withParams) {
        files.params = prefix + "-0000.params";
    }
    return files;
}

ConvertedModelFiles saveConvertedModel(const std::string& prefix, const ConversionResult& result, DType targetDtype,
                                       const NDArrayList* params, std::span<const std::filesystem::path> inputs,
                                       ConversionReport* report) {
    if (!result.report.dtypeCheck.passed) {
        // Never written: MXNet would refuse to bind it.
        throw SaveError("the converted graph fails MXNet's dtype check: " + result.report.dtypeCheck.message);
    }
    const ConvertedModelFiles files = convertedModelFiles(prefix, params != nullptr);
    refuseToOverwriteInput(files.symbol, inputs);
    if (files.params) {
        refuseToOverwriteInput(*files.params, inputs);
    }
    if (params) {
        NDArrayList cast = *params;
        ConversionReport scratch;
        applyParamCasting(cast, result.storedInTargetDtype, targetDtype, report ? *report : scratch);
        writeNDArrayListFile(*files.params, cast);
    }
    writeSymbolJsonFile(files.symbol, result.graph);
    return files;
}

}  // namespace ampstudio
