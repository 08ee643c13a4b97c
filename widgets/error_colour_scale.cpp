#include "error_colour_scale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace error_scale {

namespace {

// viridis at nine evenly spaced positions (matplotlib's _viridis_data, every 32nd entry).
constexpr std::array<std::array<int, 3>, 9> kViridis{{{68, 1, 84},
                                                      {71, 44, 122},
                                                      {59, 81, 139},
                                                      {44, 113, 142},
                                                      {33, 144, 141},
                                                      {39, 173, 129},
                                                      {92, 200, 99},
                                                      {170, 220, 50},
                                                      {253, 231, 37}}};

}  // namespace

double position(double error) {
    if (!(error > 0.0)) {
        return std::isnan(error) ? 1.0 : 0.0;
    }
    if (std::isinf(error)) return 1.0;
    const double p = (std::log10(error) - kLowestLog10) / (kHighestLog10 - kLowestLog10);
    return std::clamp(p, 0.0, 1.0);
}

// Small errors are dark purple and large ones bright yellow: the eye goes to the light end first,
// and that is where the error is.
QColor colourAt(double p) {
    p = std::clamp(p, 0.0, 1.0) * double(kViridis.size() - 1);
    const auto i = std::min<std::size_t>(std::size_t(p), kViridis.size() - 2);
    const double t = p - double(i);
    const auto mix = [&](int c) { return int(std::lround(kViridis[i][c] * (1 - t) + kViridis[i + 1][c] * t)); };
    return QColor(mix(0), mix(1), mix(2));
}

QColor unmeasuredFill(bool dark) { return dark ? QColor(70, 70, 74) : QColor(226, 226, 226); }

QString tickLabel(double log10Value) {
    const int e = int(std::lround(log10Value));
    return e == 0 ? QStringLiteral("1") : QStringLiteral("1e%1").arg(e);
}

}  // namespace error_scale
