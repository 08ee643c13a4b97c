#include "series_decimator.h"

#include <algorithm>

void decimateMinMax(std::span<const double> x, std::span<const double> y, const DecimationWindow& window,
                    ValueDomain domain, QList<QPointF>& out) {
    out.clear();
    const std::size_t n = std::min(x.size(), y.size());
    if (n == 0 || !(window.xMax >= window.xMin) || window.buckets < 1) {
        return;
    }
    const auto xs = x.first(n);
    // The visible run, widened by one plottable point on each side.
    std::size_t begin = static_cast<std::size_t>(std::lower_bound(xs.begin(), xs.end(), window.xMin) - xs.begin());
    std::size_t end = static_cast<std::size_t>(std::upper_bound(xs.begin(), xs.end(), window.xMax) - xs.begin());
    while (begin > 0) {
        --begin;
        if (inDomain(y[begin], domain)) break;
    }
    while (end < n) {
        ++end;
        if (inDomain(y[end - 1], domain)) break;
    }

    const std::size_t limit = 2 * static_cast<std::size_t>(window.buckets);
    if (end - begin <= limit) {
        out.reserve(static_cast<qsizetype>(end - begin));
        for (std::size_t i = begin; i < end; ++i) {
            if (inDomain(y[i], domain)) out.append(QPointF(xs[i], y[i]));
        }
        return;
    }

    out.reserve(static_cast<qsizetype>(limit + 2));
    // The neighbours outside the window pass through as single points; the window is cut into
    // `buckets` equal x spans found by binary search (x is sorted), each scanned once for its
    // extremes: a tight loop over contiguous memory, a few nanoseconds a point.
    auto emitRange = [&](std::size_t from, std::size_t to) {
        std::size_t lo = to, hi = to;
        double loValue = 0.0, hiValue = 0.0;
        for (std::size_t i = from; i < to; ++i) {
            const double v = y[i];
            if (!inDomain(v, domain)) continue;
            if (lo == to || v < loValue) {
                lo = i;
                loValue = v;
            }
            if (hi == to || v > hiValue) {
                hi = i;
                hiValue = v;
            }
        }
        if (lo == to) return;
        const std::size_t first = std::min(lo, hi), second = std::max(lo, hi);
        out.append(QPointF(xs[first], y[first]));
        if (second != first) out.append(QPointF(xs[second], y[second]));
    };
    std::size_t inside = static_cast<std::size_t>(std::lower_bound(xs.begin() + begin, xs.begin() + end, window.xMin) - xs.begin());
    emitRange(begin, inside);  // the left neighbour
    const double span = window.xMax - window.xMin;
    for (int b = 0; b < window.buckets; ++b) {
        const double edge = b + 1 == window.buckets ? window.xMax : window.xMin + span * (b + 1) / window.buckets;
        const std::size_t next =
            static_cast<std::size_t>(std::upper_bound(xs.begin() + inside, xs.begin() + end, edge) - xs.begin());
        emitRange(inside, next);
        inside = next;
    }
    emitRange(inside, end);  // the right neighbour
}
