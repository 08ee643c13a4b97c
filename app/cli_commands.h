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
    std::filesystem::path symbol;
    std::optional<std::filesystem::path> params;
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
    bool json = false;
};

int runConvert(const ConvertArgs& args);
int runInspect(const InspectArgs& args);

}  // namespace ampstudio::cli
