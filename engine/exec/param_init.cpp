#include "exec/param_init.h"

#include <cmath>

#include "tensor/seeded_random.h"

namespace ampstudio {

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// FNV-1a: a stable hash of the name (std::hash is not the same everywhere).
uint64_t nameHash(std::string_view name) {
    uint64_t h = 1469598103934665603ull;
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return h;
}

}  // namespace

std::vector<float> initialParameterValues(std::string_view name, const Shape& shape, uint64_t seed) {
    const auto n = static_cast<std::size_t>(shapeSize(shape));
    if (endsWith(name, "_gamma") || endsWith(name, "_moving_var")) {
        return std::vector<float>(n, 1.0f);
    }
    if (!(endsWith(name, "_weight") || endsWith(name, "_parameters"))) {
        return std::vector<float>(n, 0.0f);
    }
    double receptive = 1.0;
    for (std::size_t i = 2; i < shape.size(); ++i) {
        receptive *= static_cast<double>(shape[i]);
    }
    const double fanOut = shape.size() >= 2 ? static_cast<double>(shape[0]) * receptive : static_cast<double>(n);
    const double fanIn = shape.size() >= 2 ? static_cast<double>(shape[1]) * receptive : static_cast<double>(n);
    const double bound = std::sqrt(3.0 / std::max(1.0, (fanIn + fanOut) / 2.0));
    SeededRandom random(mixSeed(seed, nameHash(name)));
    std::vector<float> values(n);
    for (float& v : values) {
        v = static_cast<float>(random.uniform(-bound, bound));
    }
    return values;
}

}  // namespace ampstudio
