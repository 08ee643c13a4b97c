#include "magnitude_histogram_view.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

using ampstudio::DType;
using ampstudio::MagnitudeHistogram;

namespace {

constexpr double kLowest = MagnitudeHistogram::kLowestExponent;
constexpr double kHighest = MagnitudeHistogram::kLowestExponent + MagnitudeHistogram::kOctavesPerBin * MagnitudeHistogram::kBins;

// The binary exponents where the dtype's range ends: smallest subnormal, smallest normal, largest.
struct DtypeRange {
    double subnormal, normal, largest;
};
DtypeRange rangeOf(DType t) {
    if (t == DType::BF16) return {-133.0, -126.0, 128.0};
    return {-24.0, -14.0, std::log2(65504.0)};
}

}  // namespace

MagnitudeHistogramView::MagnitudeHistogramView(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void MagnitudeHistogramView::setHistogram(const MagnitudeHistogram& histogram, DType target) {
    m_histogram = histogram;
    m_target = target;
    const DtypeRange r = rangeOf(target);
    setToolTip(tr("Magnitudes of the node's float32 output (log scale, two octaves a bar; %1 zeros). Shaded: "
                  "where %2 flushes to zero (below 2^%3), keeps fewer digits (below 2^%4) or overflows "
                  "(above 2^%5).")
                   .arg(histogram.zeros)
                   .arg(QString::fromLatin1(ampstudio::dtypeName(target)))
                   .arg(r.subnormal)
                   .arg(r.normal)
                   .arg(r.largest, 0, 'f', 0));
    update();
}

void MagnitudeHistogramView::clear() {
    m_histogram.reset();
    update();
}

void MagnitudeHistogramView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetricsF fm(font());
    const QRectF plot = QRectF(rect()).adjusted(4, 4, -4, -(fm.height() + 6));
    const QColor text = palette().color(QPalette::WindowText);
    p.fillRect(plot, palette().color(QPalette::Base));
    const auto xOf = [&](double exponent) { return plot.left() + plot.width() * (exponent - kLowest) / (kHighest - kLowest); };

    // What the dtype loses, under the bars.
    const DtypeRange r = rangeOf(m_target);
    const auto shade = [&](double from, double to, QColor c) {
        from = std::clamp(from, kLowest, kHighest);
        to = std::clamp(to, kLowest, kHighest);
        if (to > from) p.fillRect(QRectF(QPointF(xOf(from), plot.top()), QPointF(xOf(to), plot.bottom())), c);
    };
    shade(kLowest, r.subnormal, QColor(213, 94, 0, 90));   // vermillion: flushed to zero
    shade(r.subnormal, r.normal, QColor(230, 159, 0, 70));  // orange: subnormal
    shade(r.largest, kHighest, QColor(213, 94, 0, 90));     // overflow to inf

    if (m_histogram) {
        const auto& bins = m_histogram->bins;
        const int64_t most = std::max<int64_t>(1, *std::max_element(bins.begin(), bins.end()));
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0, 114, 178));  // Okabe–Ito blue
        for (int i = 0; i < MagnitudeHistogram::kBins; ++i) {
            if (bins[std::size_t(i)] == 0) continue;
            // Square-root heights: a bin of a few values next to one of millions stays visible.
            const double h = std::sqrt(double(bins[std::size_t(i)]) / double(most)) * plot.height();
            const double x0 = xOf(MagnitudeHistogram::lowerExponent(i)), x1 = xOf(MagnitudeHistogram::lowerExponent(i + 1));
            p.drawRect(QRectF(x0 + 0.5, plot.bottom() - std::max(1.0, h), std::max(1.0, x1 - x0 - 1.0), std::max(1.0, h)));
        }
    } else {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(plot, Qt::AlignCenter, tr("not measured"));
    }
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    // Powers of ten along the axis, placed by their binary exponent.
    p.setPen(text);
    for (int decade = -18; decade <= 18; decade += 6) {
        const double x = xOf(decade * std::log2(10.0));
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
        const QString label = decade == 0 ? QStringLiteral("1") : QStringLiteral("1e%1").arg(decade);
        p.drawText(QPointF(x - fm.horizontalAdvance(label) / 2, plot.bottom() + 3 + fm.ascent()), label);
    }
}
