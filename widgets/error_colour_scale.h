#pragma once
// The precision debugger's colour for an error: a relative error on a log scale from 1e-6 (float32
// noise) to 1 (nothing left), through viridis (van der Walt & Smith, matplotlib 2.0): perceptually
// uniform, ordered in lightness, and legible in every common form of colour blindness, which the
// categorical Okabe–Ito hues of the precision colouring are not made for. Undefined errors (no
// finite pair) take the scale's end, as the worst there is.

#include <QColor>
#include <QString>

namespace error_scale {

inline constexpr double kLowestLog10 = -6.0;
inline constexpr double kHighestLog10 = 0.0;

// Where `error` sits on the scale, 0..1 (clamped; NaN and inf give 1).
double position(double error);
// The scale's colour at a position 0..1.
QColor colourAt(double position);
inline QColor colourFor(double error) { return colourAt(position(error)); }
// The fill of nodes that were not measured (variables, casts, nodes the original lacks).
QColor unmeasuredFill(bool dark);
// "1e-4" for a tick of the legend.
QString tickLabel(double log10Value);

}  // namespace error_scale
