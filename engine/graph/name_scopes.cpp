#include "graph/name_scopes.h"

#include <algorithm>
#include <array>

namespace ampstudio {
namespace {

// The entry a cast's name was made from: what it casts decides its scope.
std::string_view withoutCastSuffix(std::string_view name) {
    static constexpr std::array<std::string_view, 2> kMarkers{"_amp_cast_", "_amp_multicast"};
    for (const std::string_view marker : kMarkers) {
        if (const std::size_t at = name.rfind(marker); at != std::string_view::npos && at > 0) {
            return name.substr(0, at);
        }
    }
    return name;
}

bool allDigits(std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The convention a name follows: '/' when it has one, else '.', else '_'.
char separatorOf(std::string_view name) {
    return name.find('/') != std::string_view::npos ? '/' : name.find('.') != std::string_view::npos ? '.' : '_';
}

}  // namespace

std::string_view scopeOwnPart(std::string_view scope) {
    const char separator = separatorOf(scope);
    const std::size_t cut = scope.rfind(separator);
    if (cut == std::string_view::npos) {
        return scope;
    }
    if (allDigits(scope.substr(cut + 1)) && cut > 0) {  // "layer.3": the index with its module
        const std::size_t before = scope.rfind(separator, cut - 1);
        return scope.substr(before == std::string_view::npos ? 0 : before + 1);
    }
    return scope.substr(cut + 1);
}

std::vector<std::string> nameScopes(std::string_view name) {
    const std::string_view base = withoutCastSuffix(name);
    const char separator = separatorOf(base);
    // The end of each part (exclusive), a numeric part merged into the one before it.
    std::vector<std::size_t> ends;
    std::size_t start = 0;
    while (start <= base.size()) {
        std::size_t end = base.find(separator, start);
        if (end == std::string_view::npos) end = base.size();
        const std::string_view part = base.substr(start, end - start);
        if (!part.empty()) {
            if (allDigits(part) && !ends.empty()) {
                ends.back() = end;
            } else {
                ends.push_back(end);
            }
        }
        start = end + 1;
    }
    std::vector<std::string> scopes;
    if (ends.size() < 2) {
        return scopes;
    }
    // The last part is the node's own name (a cast's: that of the entry it casts).
    const std::size_t scopeCount = ends.size() - 1;
    scopes.reserve(scopeCount);
    for (std::size_t i = 0; i < scopeCount; ++i) {
        scopes.emplace_back(base.substr(0, ends[i]));
    }
    return scopes;
}

}  // namespace ampstudio
