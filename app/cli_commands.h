#pragma once
// The subcommands of ampstudio-cli. Each returns the process exit status and writes errors as one
// line on stderr; they use only the engine.

#include <filesystem>
#include <optional>
#include <set>
#include <string>

namespace ampstudio::cli {

enum ExitStatus : int { kSuccess = 0, kUsageError = 1, kBadInput = 2 };

struct ConvertArgs {
    std::filesystem::path symbol;  // or a .params file, whose symbol is found beside it
    std::optional<std::filesystem::path> params;
    bool noParams = false;  // do not look for PREFIX-NNNN.params beside the symbol
    std::string outputPrefix;
    std::optional<std::string> targetDtype;  // from the lists file (or float16) when not given
    std::string mode = "typed";
    std::optional<std::filesystem::path> listsFile;
    // A list given on the command line replaces that list; an empty string is an empty list.
    std::optional<std::string> targetDtypeOps, fp32Ops, widestDtypeOps, conditionalFp32Ops;
    std::optional<std::string> excludedSymNames, dataNames;
    bool castOptionalParams = false;
    std::optional<std::filesystem::path> report;
};

struct InspectArgs {
    std::filesystem::path symbol;
    std::optional<std::filesystem::path> params;
    bool noParams = false;
    bool json = false;
};

// As the GUI's drag-and-drop: a .params file given as the model stands for its checkpoint, and
// without --params (or --no-params) the newest PREFIX-NNNN.params beside the symbol is used, with
// a note on stderr saying so.
void resolveCheckpoint(std::filesystem::path& symbol, std::optional<std::filesystem::path>& params, bool noParams);

int runConvert(const ConvertArgs& args);
int runInspect(const InspectArgs& args);

}  // namespace ampstudio::cli
