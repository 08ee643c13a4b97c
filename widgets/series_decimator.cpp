#include "series_decimator.h"

#include <algorithm>
#include <cmath>

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
    const double span = window.xMax - window.xMin;
    const double perBucket = span > 0.0 ? window.buckets / span : 0.0;
    auto bucketOf = [&](double xv) -> long long {
        if (xv < window.xMin) return -1;
        if (xv > window.xMax) return window.buckets;
        const double b = std::floor((xv - window.xMin) * perBucket);
        return std::min(static_cast<long long>(b), static_cast<long long>(window.buckets) - 1);
    };
    // One bucket at a time: its min and max, written in x order. The points outside the window fall
    // in buckets -1 and `buckets`, so they pass through as single points.
    std::size_t i = begin;
    while (i < end) {
        const long long bucket = bucketOf(xs[i]);
        std::size_t lo = end, hi = end;
        for (; i < end && bucketOf(xs[i]) == bucket; ++i) {
            if (!inDomain(y[i], domain)) continue;
            if (lo == end || y[i] < y[lo]) lo = i;
            if (hi == end || y[i] > y[hi]) hi = i;
        }
        if (lo == end) continue;
        const std::size_t first = std::min(lo, hi), second = std::max(lo, hi);
        out.append(QPointF(xs[first], y[first]));
        if (second != first) out.append(QPointF(xs[second], y[second]));
    }
}
