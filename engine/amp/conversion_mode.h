#pragma once
// The two conversion algorithms (DESIGN.md section 4): `typed` (MXNet 1.9.1's ReducePrecision, the
// default) and `classic` (the original AMP proposal, MXNet <= 1.6).

#include <cstdint>
#include <optional>
#include <string_view>

namespace ampstudio {

enum class ConversionMode : uint8_t { Typed, Classic };

// "typed" / "classic", as the CLI flag and the report spell them.
constexpr std::string_view conversionModeName(ConversionMode mode) {
    return mode == ConversionMode::Classic ? "classic" : "typed";
}

constexpr std::optional<ConversionMode> conversionModeFromName(std::string_view name) {
    if (name == "typed") {
        return ConversionMode::Typed;
    }
    if (name == "classic") {
        return ConversionMode::Classic;
    }
    return std::nullopt;
}

}  // namespace ampstudio
