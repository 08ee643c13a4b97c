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

}  // namespace

std::vector<std::string> nameScopes(std::string_view name) {
    const std::string_view base = withoutCastSuffix(name);
    const char separator = base.find('/') != std::string_view::npos   ? '/'
                           : base.find('.') != std::string_view::npos ? '.'
                                                                      : '_';
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
