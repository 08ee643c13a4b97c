#pragma once
// Reduces a long series to what a chart of a given width can show: about two points per pixel
// column. Each bucket (one pixel column of the visible x range) keeps its minimum and its maximum, in
// x order, so a one-step spike survives any zoom level; lines drawn through the result look exactly
// like the full series at that width. A pure function over the history's columns, so the charts cost
// O(visible points) per redraw and never hand QtCharts more than ~2 points per pixel.
//
// Non-finite values (an overflow step's loss) are dropped, and so are non-positive ones for a
// logarithmic axis: QtCharts must never see either.

#include <QList>
#include <QPointF>

#include <span>

enum class ValueDomain { Finite, Positive };

struct DecimationWindow {
    double xMin = 0.0;
    double xMax = 1.0;
    int buckets = 1;  // the plot's width in pixels
};

// `x` ascending, `y` of the same length. Writes into `out` (cleared first): every kept point with
// xMin <= x <= xMax, plus the nearest point outside on each side so the line runs to the edges. When
// the window holds at most 2 * buckets points they are all kept; otherwise at most 2 per bucket.
// Output size is at most 2 * buckets + 2.
void decimateMinMax(std::span<const double> x, std::span<const double> y, const DecimationWindow& window,
                    ValueDomain domain, QList<QPointF>& out);

// Whether `value` may be plotted in `domain`.
inline bool inDomain(double value, ValueDomain domain) {
    return domain == ValueDomain::Positive ? value > 0.0 && value <= 1.7976931348623157e308 : value - value == 0.0;
}
