// `ampstudio-cli convert`: load, convert with the lists the user composed, save atomically.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "amp/amp_lists.h"
#include "amp/conversion.h"
#include "amp/converted_model.h"
#include "cli_commands.h"
#include "cli_errors.h"
#include "cli_inputs.h"
#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "ops/graph_dtypes.h"

namespace ampstudio::cli {

std::vector<std::string> splitList(const std::string& text, char separator) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, separator);) {
        const auto begin = item.find_first_not_of(" \t");
        const auto end = item.find_last_not_of(" \t");
        if (begin != std::string::npos) {
            items.push_back(item.substr(begin, end - begin + 1));
        }
    }
    return items;
}

namespace {

// "OP:PARAM:V1|V2,OP2:PARAM2:V3"
std::vector<ConditionalFp32Op> parseConditional(const std::string& text) {
    std::vector<ConditionalFp32Op> result;
    for (const std::string& item : splitList(text, ',')) {
        const auto first = item.find(':');
        const auto second = first == std::string::npos ? first : item.find(':', first + 1);
        if (second == std::string::npos || first == 0 || second == first + 1 || second + 1 == item.size()) {
            throw UsageError("--conditional-fp32-ops: '" + item + "' is not OP:PARAM:V1|V2");
        }
        result.push_back({item.substr(0, first), item.substr(first + 1, second - first - 1),
                          splitList(item.substr(second + 1), '|')});
    }
    return result;
}

AmpLists composeLists(const ConvertArgs& args, OpSet opSet) {
    std::optional<DType> target;
    if (args.targetDtype) {
        target = dtypeFromName(*args.targetDtype);
    }
    AmpLists lists = args.listsFile ? AmpLists::fromJsonFile(*args.listsFile) : AmpLists::defaults(target.value_or(DType::F16), opSet);
    if (args.listsFile && lists.opSet() != opSet) {
        std::cerr << "ampstudio-cli: note: the lists in " << args.listsFile->string() << " name "
                  << (lists.opSet() == OpSet::Onnx ? "ONNX" : "MXNet") << " operators, the model is "
                  << (opSet == OpSet::Onnx ? "ONNX" : "MXNet") << ": entries match by name only\n";
    }
    if (target && *target != lists.targetDtype) {
        std::cerr << "ampstudio-cli: note: the lists in " << args.listsFile->string() << " are for "
                  << dtypeName(lists.targetDtype) << "; converting to " << dtypeName(*target) << " as asked\n";
        lists.targetDtype = *target;
    }
    if (args.targetDtypeOps) lists.targetDtypeOps = splitList(*args.targetDtypeOps, ',');
    if (args.fp32Ops) lists.fp32Ops = splitList(*args.fp32Ops, ',');
    if (args.widestDtypeOps) lists.widestDtypeOps = splitList(*args.widestDtypeOps, ',');
    if (args.conditionalFp32Ops) lists.conditionalFp32Ops = parseConditional(*args.conditionalFp32Ops);
    return lists;
}

}  // namespace

ConversionOptions conversionOptions(const ConvertArgs& args, OpSet opSet) {
    ConversionOptions options;
    options.lists = composeLists(args, opSet);
    options.mode = *conversionModeFromName(args.mode);
    if (args.excludedSymNames) {
        const auto names = splitList(*args.excludedSymNames, ',');
        options.excludedSymNames = {names.begin(), names.end()};
    }
    if (args.dataNames) {
        const auto names = splitList(*args.dataNames, ',');
        options.dataNames = {names.begin(), names.end()};
    }
    options.castOptionalParams = args.castOptionalParams;
    options.lowPrecisionIo = args.lowPrecisionIo;
    return options;
}

int runConvert(const ConvertArgs& args) {
    try {
        std::vector<std::filesystem::path> inputs{args.symbol};
        if (args.params) inputs.push_back(*args.params);
        if (args.listsFile) inputs.push_back(*args.listsFile);
        // Checked before anything is read, so a wrong --output costs nothing.
        const ModelFiles outputs = modelFilesFor(sniffModelFormat(args.symbol), args.outputPrefix, args.params.has_value());
        for (const auto& output : outputs.all()) refuseToOverwriteInput(output, inputs);
        if (args.report) refuseToOverwriteInput(*args.report, inputs);

        const ModelDocument source = openModelFile(args.symbol, {.findCompanions = false, .params = args.params});

        const bool onnx = source.origin.format == ModelFormat::Onnx;
        if (args.lowPrecisionIo && !onnx) {
            throw UsageError("--low-precision-io is for ONNX models (an MXNet model's inputs are float32 data)");
        }
        const ConversionOptions options = conversionOptions(args, onnx ? OpSet::Onnx : OpSet::Mxnet);

        ConversionResult result = convertModel(*source.graph, source.source.get(), options);
        for (const std::string& warning : result.report.warnings) {
            std::cerr << "ampstudio-cli: warning: " << warning << '\n';
        }
        const DtypeCheck& check = result.report.dtypeCheck;
        if (!check.passed) {
            // Nothing is saved; the report (when asked for) says everything about why.
            if (args.report) {
                writeFileAtomically(*args.report, result.report.toJson());
            }
            if (onnx) {
                std::cerr << "ampstudio-cli: " << args.symbol.string() << ": the converted model fails "
                          << check.stage << ", so nothing was saved: " << check.message << '\n';
            } else {
                std::cerr << "ampstudio-cli: " << args.symbol.string() << ": the converted graph fails MXNet's dtype check, "
                          << "so nothing was saved: node '" << check.node << "' (" << check.op << ") cannot take inputs ("
                          << dtypeList(check.inputs) << ")\n";
            }
            return kBadInput;
        }
        if (!result.report.mxnetFailure.empty()) {
            const ConversionReport& r = result.report;
            std::cerr << "ampstudio-cli: note: MXNet 1.9.1's own result of this conversion is invalid ("
                      << r.mxnetFailure << "); to give a valid graph, " << r.mxnetDifferences.size()
                      << " input(s) are wired differently";
            for (const MxnetDifference& d : r.mxnetDifferences) {
                std::cerr << (&d == &r.mxnetDifferences.front() ? ": " : ", ") << d.node << '[' << d.input
                          << "] reads " << d.cast;
            }
            std::cerr << "; " << r.mxnetParamDifferences.size() << " parameter(s) are stored in another dtype";
            for (const std::string& name : r.mxnetParamDifferences) {
                std::cerr << (&name == &r.mxnetParamDifferences.front() ? ": " : ", ") << name;
            }
            std::cerr << '\n';
        }
        const ModelFiles written =
            saveConvertedModel(args.outputPrefix, result, options.lists.targetDtype, source, inputs, &result.report);
        if (args.report) {
            writeFileAtomically(*args.report, result.report.toJson());
        }
        const auto& r = result.report;
        std::cout << args.symbol.filename().string() << ": " << r.nodesBefore << " -> " << r.nodesAfter << " nodes, "
                  << r.ampCastCount << (onnx ? " Cast (" : " amp_cast, " + std::to_string(r.ampMulticastCount) + " amp_multicast (")
                  << conversionModeName(r.mode) << ", " << dtypeName(r.targetDtype) << "); wrote " << written.model.string()
                  << (written.params ? " and " + written.params->string() : std::string())
                  << (written.data ? " and " + written.data->string() : std::string()) << '\n';
        return kSuccess;
    } catch (...) {
        return reportCurrentException(args.symbol);
    }
}

}  // namespace ampstudio::cli
