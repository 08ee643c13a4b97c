#include "error_scale_legend.h"

#include <QLinearGradient>
#include <QPainter>

#include "error_colour_scale.h"
#include "graph_style.h"

namespace {

constexpr qreal kBarWidth = 240;
constexpr qreal kBarHeight = 12;
constexpr qreal kMargin = 4;
constexpr qreal kGap = 14;

}  // namespace

ErrorScaleLegend::ErrorScaleLegend(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    setToolTip(tr("Max relative error of each node's output against float32 (max |c − r| / max |r|), on a log "
                  "scale; grey: not measured (variables, casts, nodes only one graph has)"));
}

QSize ErrorScaleLegend::sizeHint() const {
    const QFontMetricsF fm(font());
    const qreal text = fm.horizontalAdvance(tr("Error:")) + fm.horizontalAdvance(tr("not measured")) +
                       fm.horizontalAdvance(tr("range warning")) + fm.horizontalAdvance(QStringLiteral("1e-6"));
    return QSize(int(kMargin * 2 + kBarWidth + text + 4 * kGap + 60), int(kMargin * 2 + fm.height() + kBarHeight));
}

void ErrorScaleLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF fm(font());
    const QColor text = palette().color(QPalette::WindowText);
    const qreal barTop = kMargin;
    qreal x = kMargin;
    p.setPen(text);
    p.drawText(QPointF(x, barTop + kBarHeight - 1), tr("Error:"));
    x += fm.horizontalAdvance(tr("Error:")) + 6;
    const QRectF bar(x, barTop, kBarWidth, kBarHeight);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 16; ++i) {
        gradient.setColorAt(i / 16.0, error_scale::colourAt(i / 16.0));
    }
    p.setPen(Qt::NoPen);
    p.setBrush(gradient);
    p.drawRect(bar);
    // Decades from 1e-6 to 1 under the bar.
    p.setPen(text);
    const int decades = int(error_scale::kHighestLog10 - error_scale::kLowestLog10);
    for (int d = 0; d <= decades; ++d) {
        const qreal tx = bar.left() + bar.width() * d / decades;
        const QString label = error_scale::tickLabel(error_scale::kLowestLog10 + d);
        p.drawLine(QPointF(tx, bar.bottom()), QPointF(tx, bar.bottom() + 2));
        const qreal w = fm.horizontalAdvance(label);
        p.drawText(QPointF(std::clamp(tx - w / 2, bar.left() - 4, bar.right() - w + 8), bar.bottom() + fm.ascent() + 1), label);
    }
    x = bar.right() + kGap + 10;
    const bool dark = GraphSceneStyle::isDark(palette());
    const QRectF swatch(x, barTop, 26, kBarHeight);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(error_scale::unmeasuredFill(dark));
    p.drawRoundedRect(swatch, 3, 3);
    p.setPen(text);
    p.drawText(QPointF(swatch.right() + 5, barTop + kBarHeight - 1), tr("not measured"));
    x = swatch.right() + 5 + fm.horizontalAdvance(tr("not measured")) + kGap;
    const QPolygonF triangle{QPointF(x + 7, barTop - 1), QPointF(x + 14, barTop + kBarHeight), QPointF(x, barTop + kBarHeight)};
    p.setPen(QPen(QColor(60, 40, 0), 1));
    p.setBrush(QColor(0xE6, 0x9F, 0x00));
    p.drawPolygon(triangle);
    p.setPen(text);
    p.drawText(QPointF(x + 19, barTop + kBarHeight - 1), tr("range warning"));
}
