#include "formats/checkpoint_files.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <system_error>

namespace ampstudio {
namespace {

constexpr std::string_view kSymbolSuffix = "-symbol.json";
constexpr std::string_view kParamsSuffix = ".params";

// The epoch digits of "PREFIX-NNNN.params" (at least four, as MXNet's "%04d"), or npos.
std::size_t epochStart(std::string_view name) {
    if (!name.ends_with(kParamsSuffix)) {
        return std::string_view::npos;
    }
    const std::string_view stem = name.substr(0, name.size() - kParamsSuffix.size());
    std::size_t digits = 0;
    while (digits < stem.size() && std::isdigit(static_cast<unsigned char>(stem[stem.size() - 1 - digits]))) {
        ++digits;
    }
    const std::size_t dash = stem.size() - digits - 1;
    if (digits < 4 || digits == stem.size() || stem[dash] != '-') {
        return std::string_view::npos;
    }
    return dash + 1;
}

}  // namespace

std::string checkpointPrefix(const std::filesystem::path& file) {
    const std::string name = file.filename().string();
    std::size_t stemLength = std::string::npos;
    if (name.size() > kSymbolSuffix.size() && std::string_view(name).ends_with(kSymbolSuffix)) {
        stemLength = name.size() - kSymbolSuffix.size();
    } else if (const std::size_t epoch = epochStart(name); epoch != std::string_view::npos && epoch > 1) {
        stemLength = epoch - 1;
    }
    if (stemLength == std::string::npos) {
        return {};
    }
    return (file.parent_path() / name.substr(0, stemLength)).string();
}

CheckpointFiles findCheckpointFiles(const std::filesystem::path& file) {
    const std::string prefix = checkpointPrefix(file);
    const std::string name = file.filename().string();
    std::error_code error;
    if (!prefix.empty() && epochStart(name) != std::string_view::npos) {
        const std::filesystem::path symbol = prefix + std::string(kSymbolSuffix);
        if (std::filesystem::is_regular_file(symbol, error)) {
            return {symbol, file};
        }
        return {file, std::nullopt};  // no symbol beside it: loading reports what the file is
    }
    CheckpointFiles files{file, std::nullopt};
    if (prefix.empty()) {
        return files;
    }
    const std::string stem = std::filesystem::path(prefix).filename().string();
    const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    // The highest epoch wins: it is the last checkpoint training wrote.
    long long bestEpoch = -1;
    for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
        const std::string candidate = it->path().filename().string();
        const std::size_t epoch = epochStart(candidate);
        if (epoch == std::string_view::npos || epoch != stem.size() + 1 || candidate.compare(0, stem.size(), stem) != 0) {
            continue;
        }
        const std::string digits = candidate.substr(epoch, candidate.size() - epoch - kParamsSuffix.size());
        const long long value = digits.size() > 18 ? -1 : std::stoll(digits);
        if (value > bestEpoch && it->is_regular_file(error)) {
            bestEpoch = value;
            files.params = file.parent_path() / candidate;
        }
    }
    return files;
}

}  // namespace ampstudio
