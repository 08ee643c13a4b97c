#include "graph_style.h"

#include <QPolygonF>
#include <QtMath>
#include <algorithm>
#include <cmath>

namespace {

// WCAG 2 relative luminance of an sRGB colour.
double relativeLuminance(const QColor& c) {
    const auto channel = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

const QColor kDarkText(0x1a, 0x1a, 0x1a);
const QColor kLightText(0xff, 0xff, 0xff);

}  // namespace

QColor nodeStyleFill(NodeStyle style) {
    switch (style) {
        case NodeStyle::Variable:
            return QColor(0xb8, 0xb8, 0xb8);  // grey: inputs, not computation
        case NodeStyle::Target:
            return QColor(0x00, 0x9e, 0x73);  // Okabe-Ito bluish green
        case NodeStyle::Float32:
            return QColor(0x00, 0x72, 0xb2);  // Okabe-Ito blue
        case NodeStyle::Widest:
            return QColor(0xcc, 0x79, 0xa7);  // Okabe-Ito reddish purple
        case NodeStyle::Unchanged:
            return QColor(0xec, 0xec, 0xe6);  // neutral light: no rule applied
        case NodeStyle::Cast:
            return QColor(0xd5, 0x5e, 0x00);  // Okabe-Ito vermillion: the accent for inserted casts
        case NodeStyle::Multicast:
            return QColor(0xf0, 0xe4, 0x42);  // Okabe-Ito yellow: the other inserted node
    }
    return QColor(Qt::gray);
}

qreal hexagonInset(const QRectF& rect) {
    return std::min(rect.height() * 0.35, rect.width() * 0.2);
}

QPainterPath nodeStyleOutline(NodeStyle style, const QRectF& rect) {
    QPainterPath path;
    switch (style) {
        case NodeStyle::Cast: {
            // A flat hexagon: pointed left and right ends, the classic "conversion" glyph.
            const qreal inset = hexagonInset(rect);
            path.addPolygon(QPolygonF(
                {QPointF(rect.left(), rect.center().y()), QPointF(rect.left() + inset, rect.top()),
                 QPointF(rect.right() - inset, rect.top()), QPointF(rect.right(), rect.center().y()),
                 QPointF(rect.right() - inset, rect.bottom()), QPointF(rect.left() + inset, rect.bottom())}));
            path.closeSubpath();
            break;
        }
        case NodeStyle::Multicast: {
            const qreal radius = std::min(rect.height(), rect.width()) * 0.5;
            path.addRoundedRect(rect, radius, radius);
            break;
        }
        default: {
            const qreal radius = std::min(6.0, std::min(rect.height(), rect.width()) * 0.3);
            path.addRoundedRect(rect, radius, radius);
            break;
        }
    }
    return path;
}

QColor textColourOn(const QColor& fill) {
    const double l = relativeLuminance(fill);
    const double againstDark = (l + 0.05) / (relativeLuminance(kDarkText) + 0.05);
    const double againstLight = (relativeLuminance(kLightText) + 0.05) / (l + 0.05);
    return againstDark >= againstLight ? kDarkText : kLightText;
}

std::optional<NodeStyle> dtypeStyle(const QString& dtype) {
    const QString d = dtype.toLower();
    if (d == QLatin1String("f16") || d == QLatin1String("bf16") || d == QLatin1String("float16") ||
        d == QLatin1String("bfloat16")) {
        return NodeStyle::Target;
    }
    if (d == QLatin1String("f32") || d == QLatin1String("float32")) {
        return NodeStyle::Float32;
    }
    if (d == QLatin1String("widest")) {
        return NodeStyle::Widest;
    }
    return std::nullopt;
}

bool GraphSceneStyle::isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

GraphSceneStyle GraphSceneStyle::fromPalette(const QPalette& palette, const QFont& font) {
    GraphSceneStyle s;
    s.dark = isDark(palette);
    s.background = palette.color(QPalette::Base);
    // A Base colour that does not match the Window's darkness (some styles keep white list
    // backgrounds in dark themes) would put light-tuned edges on a dark ground or vice versa.
    if ((s.background.lightness() < 128) != s.dark) {
        s.background = s.dark ? QColor(0x1e, 0x1e, 0x1e) : QColor(Qt::white);
    }
    s.edge = s.dark ? QColor(0xa8, 0xa8, 0xa8) : QColor(0x5a, 0x5a, 0x5a);
    s.edgeLabel = s.dark ? QColor(0xe0, 0xe0, 0xe0) : QColor(0x30, 0x30, 0x30);
    s.labelHalo = s.background;
    s.labelHalo.setAlpha(210);
    s.excludedOutline = s.dark ? QColor(0xff, 0xff, 0xff) : QColor(0x10, 0x10, 0x10);
    s.selection = palette.color(QPalette::Highlight);
    if (!s.selection.isValid() || s.selection.lightness() < 40 || s.selection.lightness() > 230) {
        s.selection = QColor(0x30, 0x8c, 0xe8);
    }
    s.match = s.dark ? QColor(0xff, 0xd8, 0x4d, 150) : QColor(0xff, 0xc8, 0x00, 110);
    for (int i = 0; i < kNodeStyleCount; ++i) {
        const QColor fill = nodeStyleFill(static_cast<NodeStyle>(i));
        s.fill[i] = fill;
        s.text[i] = textColourOn(fill);
        s.outline[i] = fill.darker(s.dark ? 130 : 160);
    }
    // Casts carry a stronger outline (drawn thicker too): they are what the conversion added.
    s.outline[static_cast<int>(NodeStyle::Cast)] =
        s.dark ? QColor(0xff, 0xa0, 0x60) : QColor(0x7a, 0x2e, 0x00);
    s.outline[static_cast<int>(NodeStyle::Multicast)] =
        s.dark ? QColor(0xff, 0xf3, 0x9a) : QColor(0x8a, 0x6a, 0x00);

    s.titleFont = font;
    s.titleFont.setBold(true);
    s.titleFont.setPixelSize(11);
    s.labelFont = font;
    s.labelFont.setPixelSize(10);
    s.badgeFont = font;
    s.badgeFont.setBold(true);
    s.badgeFont.setPixelSize(9);
    s.edgeLabelFont = font;
    s.edgeLabelFont.setPixelSize(9);
    s.titleMetrics = QFontMetricsF(s.titleFont);
    s.labelMetrics = QFontMetricsF(s.labelFont);
    s.badgeMetrics = QFontMetricsF(s.badgeFont);
    s.edgeLabelMetrics = QFontMetricsF(s.edgeLabelFont);
    return s;
}

QColor GraphSceneStyle::edgeColour(const QString& dtype) const {
    const std::optional<NodeStyle> style = dtypeStyle(dtype);
    if (!style) {
        return edge;
    }
    const QColor c = fill[static_cast<int>(*style)];
    return dark ? c.lighter(125) : c;
}

QColor GraphSceneStyle::badgeFill(const QString& badge) const {
    const std::optional<NodeStyle> style = dtypeStyle(badge);
    return style ? fill[static_cast<int>(*style)]
                 : (dark ? QColor(0xd0, 0xd0, 0xd0) : QColor(0x50, 0x50, 0x50));
}
