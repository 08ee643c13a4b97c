#include "graph_legend.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "graph_style.h"
#include "graph_view.h"

namespace {

constexpr qreal kSwatchWidth = 26;
constexpr qreal kSwatchHeight = 13;
constexpr qreal kSwatchGap = 5;  // between a swatch and its name
constexpr qreal kEntryGap = 14;  // between entries in a row
constexpr qreal kMargin = 4;

constexpr int kExcludedEntry = kNodeStyleCount;

}  // namespace

GraphLegend::GraphLegend(QWidget* parent) : GraphLegend(Qt::Horizontal, parent) {}

GraphLegend::GraphLegend(Qt::Orientation orientation, QWidget* parent)
    : QWidget(parent), m_orientation(orientation) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

void GraphLegend::setOrientation(Qt::Orientation orientation) {
    if (orientation == m_orientation) {
        return;
    }
    m_orientation = orientation;
    updateGeometry();
    update();
}

int GraphLegend::entryCount() const {
    return kNodeStyleCount + 1;
}

QString GraphLegend::entryText(int entry) const {
    if (m_onnx && entry == static_cast<int>(NodeStyle::Cast)) return tr("Cast");
    return entry == kExcludedEntry ? tr("Excluded") : GraphView::nodeStyleName(static_cast<NodeStyle>(entry));
}

bool GraphLegend::entryShown(int entry) const { return !(m_onnx && entry == static_cast<int>(NodeStyle::Multicast)); }

void GraphLegend::setOnnx(bool onnx) {
    if (onnx == m_onnx) return;
    m_onnx = onnx;
    updateGeometry();
    update();
}

QString GraphLegend::entryToolTip(int entry) const {
    switch (entry) {
        case static_cast<int>(NodeStyle::Variable):
            return tr("A graph input: data, a parameter or an auxiliary state");
        case static_cast<int>(NodeStyle::Target):
            return tr("Runs in the target dtype (float16 or bfloat16)");
        case static_cast<int>(NodeStyle::Float32):
            return tr("Runs in float32 (FP32 list, conditional FP32 or excluded)");
        case static_cast<int>(NodeStyle::Widest):
            return tr("Runs in the widest dtype of its inputs");
        case static_cast<int>(NodeStyle::Unchanged):
            return tr("No rule applies: dtypes pass through");
        case static_cast<int>(NodeStyle::Cast):
            return m_onnx ? tr("An inserted Cast node; the badge names the dtype it casts to")
                          : tr("An inserted amp_cast; the badge names the dtype it casts to");
        case static_cast<int>(NodeStyle::Multicast):
            return tr("An inserted amp_multicast: casts its inputs to a common dtype");
        case kExcludedEntry:
            return tr("Excluded from conversion by name (dashed outline)");
    }
    return {};
}

QList<GraphLegend::Entry> GraphLegend::layoutEntries() const {
    const QFontMetricsF fm(font());
    const qreal rowHeight = std::max(fm.height(), kSwatchHeight);
    QList<Entry> entries;
    qreal x = kMargin;
    qreal y = kMargin;
    for (int i = 0; i < entryCount(); ++i) {
        if (!entryShown(i)) {
            entries.push_back(Entry{});  // nowhere: not painted, no tool tip
            continue;
        }
        const qreal textWidth = fm.horizontalAdvance(entryText(i));
        Entry e;
        e.swatch = QRectF(x, y + (rowHeight - kSwatchHeight) / 2, kSwatchWidth, kSwatchHeight);
        e.textOrigin =
            QPointF(x + kSwatchWidth + kSwatchGap, y + (rowHeight - fm.height()) / 2 + fm.ascent());
        e.area = QRectF(x, y, kSwatchWidth + kSwatchGap + textWidth, rowHeight);
        entries.push_back(e);
        if (m_orientation == Qt::Horizontal) {
            x += e.area.width() + kEntryGap;
        } else {
            y += rowHeight + 3;
        }
    }
    return entries;
}

QSize GraphLegend::sizeHint() const {
    QRectF all;
    for (const Entry& e : layoutEntries()) {
        if (!e.area.isEmpty()) all |= e.area;
    }
    return QSize(static_cast<int>(std::ceil(all.right() + kMargin)),
                 static_cast<int>(std::ceil(all.bottom() + kMargin)));
}

void GraphLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const GraphSceneStyle style = GraphSceneStyle::fromPalette(palette(), font());
    const QList<Entry> entries = layoutEntries();
    for (int i = 0; i < entries.size(); ++i) {
        const Entry& e = entries[i];
        if (!entryShown(i)) continue;
        const QRectF swatch = e.swatch.adjusted(1, 1, -1, -1);
        if (i == kExcludedEntry) {
            painter.setPen(QPen(style.excludedOutline, 1.4, Qt::DashLine));
            painter.setBrush(style.fill[static_cast<int>(NodeStyle::Float32)]);
            painter.drawPath(nodeStyleOutline(NodeStyle::Float32, swatch));
        } else {
            const auto nodeStyle = static_cast<NodeStyle>(i);
            const bool cast = nodeStyle == NodeStyle::Cast || nodeStyle == NodeStyle::Multicast;
            painter.setPen(QPen(style.outline[i], cast ? 1.8 : 1.0));
            painter.setBrush(style.fill[i]);
            painter.drawPath(nodeStyleOutline(nodeStyle, swatch));
        }
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(e.textOrigin, entryText(i));
    }
}

bool GraphLegend::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QList<Entry> entries = layoutEntries();
        for (int i = 0; i < entries.size(); ++i) {
            if (entries[i].area.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), entryToolTip(i), this, entries[i].area.toAlignedRect());
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange) {
        updateGeometry();
    }
    return QWidget::event(event);
}
