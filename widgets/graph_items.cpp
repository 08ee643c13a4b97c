#include "graph_items.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

namespace {

constexpr qreal kOutlineWidth = 1.0;
constexpr qreal kCastOutlineWidth = 2.2;
constexpr qreal kExcludedOutlineWidth = 1.6;
constexpr qreal kMaxHalo = 40.0;  // scene units: a highlight halo never grows past this
constexpr qreal kBadgePadding = 4.0;
constexpr qreal kArrowLength = 8.0;
constexpr qreal kArrowHalfWidth = 3.5;
constexpr qreal kBendRadius = 8.0;
constexpr qreal kEdgeWidth = 1.2;
constexpr qreal kGroupStackStep = 3.0;  // how far each box behind a group's peeks out

bool isCast(NodeStyle style) {
    return style == NodeStyle::Cast || style == NodeStyle::Multicast;
}

// Room for text inside the shape of `style` filling `rect` (the hexagon's points and the pill's
// round ends hold none).
qreal textRoom(NodeStyle style, const QRectF& rect) {
    switch (style) {
        case NodeStyle::Cast:
            // The text lines sit about a third of the height off the middle, where the slanted sides
            // have taken roughly three quarters of the point's depth.
            return rect.width() - 1.5 * hexagonInset(rect) - 6;
        case NodeStyle::Multicast:
            return rect.width() - std::min(rect.height(), rect.width()) * 0.6;
        default:
            return rect.width() - 8;
    }
}

// How far a highlight reaches beyond the node: about 3 device pixels however far out the view is
// zoomed, so a match is still findable on a 5,000-node overview.
qreal haloReach(qreal lod) {
    return std::clamp(3.0 / std::max(lod, 1e-3), 4.0, kMaxHalo);
}

QPointF unit(const QPointF& v) {
    const qreal len = std::hypot(v.x(), v.y());
    return len > 1e-9 ? v / len : QPointF(0, 1);
}

// The point `distance` along a polyline from its start (its end when shorter).
QPointF pointAlong(const QPolygonF& line, qreal distance) {
    for (qsizetype i = 1; i < line.size(); ++i) {
        const qreal length = QLineF(line[i - 1], line[i]).length();
        if (distance <= length) {
            return line[i - 1] + unit(line[i] - line[i - 1]) * distance;
        }
        distance -= length;
    }
    return line.last();
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// GraphNodeItem

GraphNodeItem::GraphNodeItem(const DrawnNode& node, int index, const GraphSceneStyle* style)
    : m_sceneStyle(style),
      m_name(node.name),
      m_title(node.title),
      m_label(node.label),
      m_mix(node.mix),
      m_badge(node.badge),
      m_index(index),
      m_style(node.style),
      m_excluded(node.excluded),
      m_group(node.members > 0) {
    const QSizeF size(std::max(node.size.width(), 4.0), std::max(node.size.height(), 4.0));
    m_rect = QRectF(-size.width() / 2, -size.height() / 2, size.width(), size.height());
    m_textWidth = std::max(textRoom(m_style, m_rect), 0.0);
    if (!m_badge.isEmpty()) {
        const qreal w = m_sceneStyle->badgeMetrics.horizontalAdvance(m_badge) + 2 * kBadgePadding;
        const qreal h = m_sceneStyle->badgeMetrics.height() + 2;
        // Straddles the top edge, overhanging the right side a little: a tag pinned to the corner.
        m_badgeRect = QRectF(m_rect.right() + 4 - w, m_rect.top() - h * 0.6, w, h);
    }
    setPos(node.centre);
    setZValue(1);  // above every edge
    setAcceptedMouseButtons(Qt::NoButton);
    updateBounds();
}

void GraphNodeItem::updateBounds() {
    const qreal margin = (m_selected || m_matched) ? kMaxHalo + 2 : kCastOutlineWidth + 1;
    QRectF bounds = m_rect.adjusted(-margin, -margin, margin, margin);
    if (m_group) {
        bounds |= m_rect.translated(2 * kGroupStackStep, 2 * kGroupStackStep).adjusted(-margin, -margin, margin, margin);
    }
    if (!m_badgeRect.isEmpty()) {
        bounds |= m_badgeRect.adjusted(-1, -1, 1, 1);
    }
    if (m_warning) {  // the warning triangle stands out above the top-left corner
        bounds |= QRectF(m_rect.topLeft() - QPointF(2, 10), QSizeF(22, 22));
    }
    if (bounds != m_bounds) {
        prepareGeometryChange();
        m_bounds = bounds;
    }
}

void GraphNodeItem::setSelectedNode(bool selected) {
    if (selected == m_selected) {
        return;
    }
    m_selected = selected;
    setZValue(selected ? 2 : 1);  // a selected node's halo is drawn over its neighbours
    updateBounds();
    update();
}

void GraphNodeItem::setMatched(bool matched) {
    if (matched == m_matched) {
        return;
    }
    m_matched = matched;
    updateBounds();
    update();
}

void GraphNodeItem::invalidateText() {
    m_elided = false;
    update();
}

void GraphNodeItem::elideText() const {
    if (m_elided) {
        return;
    }
    const GraphSceneStyle& s = *m_sceneStyle;
    const bool twoLines = !m_title.isEmpty() && !m_label.isEmpty() &&
                          m_rect.height() >= s.titleMetrics.height() + s.labelMetrics.height();
    // With room for one line only, a variable is known by its name and an operator by its op.
    m_firstInTitleFont = twoLines || (m_style != NodeStyle::Variable && !m_title.isEmpty());
    const QString& first = m_firstInTitleFont ? m_title : m_label;
    const QFontMetricsF& firstMetrics = m_firstInTitleFont ? s.titleMetrics : s.labelMetrics;
    m_firstShown = firstMetrics.elidedText(first, Qt::ElideRight, m_textWidth);
    m_firstWidth = firstMetrics.horizontalAdvance(m_firstShown);
    // Names share long prefixes (resnetv10_stage3_conv2_...): eliding in the middle keeps both ends.
    m_secondShown = twoLines ? s.labelMetrics.elidedText(m_label, Qt::ElideMiddle, m_textWidth) : QString();
    m_secondWidth = twoLines ? s.labelMetrics.horizontalAdvance(m_secondShown) : 0;
    const bool threeLines = twoLines && !m_mix.isEmpty() &&
                            m_rect.height() >= s.titleMetrics.height() + 2 * s.labelMetrics.height();
    m_thirdShown = threeLines ? s.labelMetrics.elidedText(m_mix, Qt::ElideRight, m_textWidth) : QString();
    m_thirdWidth = threeLines ? s.labelMetrics.horizontalAdvance(m_thirdShown) : 0;
    m_elided = true;
}

void GraphNodeItem::paintText(QPainter* painter) const {
    elideText();
    const GraphSceneStyle& s = *m_sceneStyle;
    const QFontMetricsF& firstMetrics = m_firstInTitleFont ? s.titleMetrics : s.labelMetrics;
    const qreal height = firstMetrics.height() + (m_secondShown.isEmpty() ? 0 : s.labelMetrics.height()) +
                         (m_thirdShown.isEmpty() ? 0 : s.labelMetrics.height());
    const qreal top = -height / 2;
    painter->setPen(m_textOverride.isValid() ? m_textOverride : s.text[static_cast<int>(m_style)]);
    painter->setFont(m_firstInTitleFont ? s.titleFont : s.labelFont);
    painter->drawText(QPointF(-m_firstWidth / 2, top + firstMetrics.ascent()), m_firstShown);
    if (!m_secondShown.isEmpty()) {
        painter->setFont(s.labelFont);
        painter->drawText(QPointF(-m_secondWidth / 2, top + firstMetrics.height() + s.labelMetrics.ascent()),
                          m_secondShown);
    }
    if (!m_thirdShown.isEmpty()) {
        painter->drawText(
            QPointF(-m_thirdWidth / 2, top + firstMetrics.height() + s.labelMetrics.height() + s.labelMetrics.ascent()),
            m_thirdShown);
    }
}

void GraphNodeItem::paintBadge(QPainter* painter, bool withText) const {
    const GraphSceneStyle& s = *m_sceneStyle;
    const QColor fill = s.badgeFill(m_badge);
    painter->setPen(QPen(s.background, 1.0));  // a thin gap separates the tag from the node
    painter->setBrush(fill);
    const qreal radius = m_badgeRect.height() / 2;
    painter->drawRoundedRect(m_badgeRect, radius, radius);
    if (withText) {
        painter->setPen(textColourOn(fill));
        painter->setFont(s.badgeFont);
        painter->drawText(m_badgeRect, Qt::AlignCenter, m_badge);
    }
}

void GraphNodeItem::paintHighlights(QPainter* painter, qreal lod) const {
    const GraphSceneStyle& s = *m_sceneStyle;
    // A wide stroke of the outline, under the node's opaque fill: a halo that follows the shape
    // (hexagon, pill or box) `reach` beyond it.
    const qreal reach = haloReach(lod);
    const QPainterPath outline = nodeStyleOutline(m_style, m_rect);
    painter->setBrush(Qt::NoBrush);
    if (m_matched) {
        painter->setPen(QPen(s.match, 2 * reach, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter->drawPath(outline);
    }
    if (m_selected) {
        QColor glow = s.selection;
        glow.setAlpha(90);
        painter->setPen(QPen(glow, 2 * reach, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter->drawPath(outline);
    }
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const GraphSceneStyle& s = *m_sceneStyle;
    const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const int style = static_cast<int>(m_style);
    const bool highlighted = s.showHighlights && (m_selected || m_matched);
    if (highlighted) {
        paintHighlights(painter, lod);
    }

    if (lod < kPlainEdgeLevel && !isCast(m_style) && !m_excluded) {
        // Far out an ordinary node is a few pixels: a plain rectangle looks the same and is cheaper.
        painter->setPen(Qt::NoPen);
        painter->setBrush(m_fillOverride.isValid() ? m_fillOverride : s.fill[style]);
        painter->drawRect(m_rect);
    } else {
        QPen pen(s.outline[style], isCast(m_style) ? kCastOutlineWidth : kOutlineWidth);
        if (m_excluded) {
            pen = QPen(s.excludedOutline, kExcludedOutlineWidth, Qt::DashLine);
        }
        pen.setJoinStyle(Qt::MiterJoin);
        painter->setPen(pen);
        painter->setBrush(m_fillOverride.isValid() ? m_fillOverride : s.fill[style]);
        if (m_group) {  // a collapsed scope: a stack of boxes, the ones behind peeking out below right
            for (const qreal offset : {2 * kGroupStackStep, kGroupStackStep}) {
                painter->drawPath(nodeStyleOutline(m_style, m_rect.translated(offset, offset)));
            }
        }
        painter->drawPath(nodeStyleOutline(m_style, m_rect));
    }
    if (m_warning && lod >= kPlainEdgeLevel) {
        // A small amber triangle with a "!" at the top-left corner: a range warning (tool tip).
        const qreal side = std::min<qreal>(16.0, m_rect.height() * 0.55);
        const QPointF tip = m_rect.topLeft() + QPointF(side * 0.2, -side * 0.45);
        const QPolygonF triangle{tip + QPointF(side / 2, 0), tip + QPointF(side, side * 0.87), tip + QPointF(0, side * 0.87)};
        painter->setPen(QPen(QColor(60, 40, 0), 1.0));
        painter->setBrush(QColor(0xE6, 0x9F, 0x00));  // Okabe–Ito orange
        painter->drawPolygon(triangle);
        if (lod >= kTextLevel) {
            QFont f = s.badgeFont;
            f.setBold(true);
            painter->setFont(f);
            painter->setPen(QColor(20, 20, 20));
            painter->drawText(QRectF(tip.x(), tip.y() + side * 0.2, side, side * 0.7), Qt::AlignCenter, QStringLiteral("!"));
        }
    }

    if (highlighted && m_selected) {
        painter->setPen(QPen(s.selection, std::clamp(2.0 / std::max(lod, 1e-3), 2.5, 12.0)));
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(nodeStyleOutline(m_style, m_rect));
    }
    if (lod >= kTextLevel) {
        paintText(painter);
    }
    if (!m_badgeRect.isEmpty() && lod >= kPlainEdgeLevel) {
        paintBadge(painter, lod >= kTextLevel);
    }
}

void GraphNodeItem::setFillOverride(const QColor& fill) {
    if (fill == m_fillOverride) return;
    m_fillOverride = fill;
    m_textOverride = fill.isValid() ? textColourOn(fill) : QColor();
    update();
}

void GraphNodeItem::setWarningMark(bool on) {
    if (on == m_warning) return;
    m_warning = on;
    updateBounds();
    update();
}

// ---------------------------------------------------------------------------------------------------
// GraphEdgeLayer

namespace {

constexpr double kBandHeight = 1024;  // scene units per band of the edge index

// Rounded bends: a layered layout's polylines turn at dummy nodes, and sharp corners there read as
// junctions. Ends at the arrow head's base.
QPainterPath edgePath(const EdgeShape& shape) {
    const QPolygonF& points = shape.points;
    QPainterPath path(points.first());
    for (qsizetype i = 1; i + 1 < points.size(); ++i) {
        const QPointF p = points[i];
        const QPointF in = p - points[i - 1];
        const QPointF out = points[i + 1] - p;
        const qreal r =
            std::min({kBendRadius, std::hypot(in.x(), in.y()) / 2, std::hypot(out.x(), out.y()) / 2});
        path.lineTo(p - unit(in) * r);
        path.quadTo(p, p + unit(out) * r);
    }
    path.lineTo(shape.arrowBase);
    return path;
}

void paintEdge(QPainter* painter, const DrawnEdge& edge, const EdgeShape& shape, const GraphSceneStyle& s,
               qreal lod) {
    const QColor colour = s.edgeColour(edge.label);
    if (lod < kPlainEdgeLevel) {
        painter->setPen(QPen(colour, 0));  // cosmetic: one device pixel at any zoom
        painter->setBrush(Qt::NoBrush);
        painter->drawPolyline(shape.points);
        return;
    }
    QPen pen(colour, kEdgeWidth);
    pen.setCapStyle(Qt::FlatCap);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    if (shape.points.size() == 2) {
        painter->drawLine(shape.points.first(), shape.arrowBase);  // most edges: no path needed
    } else {
        painter->drawPath(edgePath(shape));
    }
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    if (edge.arrow) {
        const QPointF arrow[3] = {shape.points.last(), shape.arrowLeft, shape.arrowRight};
        painter->drawPolygon(arrow, 3);
    }
    if (lod >= kTextLevel && !shape.labelRect.isEmpty()) {
        painter->setBrush(s.labelHalo);
        painter->drawRoundedRect(shape.labelRect, 2, 2);
        painter->setPen(s.edgeLabel);
        painter->setFont(s.edgeLabelFont);
        painter->drawText(shape.labelOrigin, edge.label);
    }
}

}  // namespace

EdgeShape edgeShape(const DrawnEdge& edge, const GraphSceneStyle& style) {
    EdgeShape shape;
    // Consecutive duplicates would give a bend or the arrow no direction.
    bool duplicates = false;
    for (qsizetype i = 1; i < edge.points.size(); ++i) {
        duplicates = duplicates || QLineF(edge.points[i - 1], edge.points[i]).length() <= 1e-6;
    }
    if (!duplicates) {
        shape.points = edge.points;  // shared, not copied
    } else {
        for (const QPointF& p : edge.points) {
            if (shape.points.isEmpty() || QLineF(shape.points.last(), p).length() > 1e-6) {
                shape.points << p;
            }
        }
    }
    if (shape.points.size() < 2) {
        shape.points.clear();
        return shape;
    }
    const QPointF end = shape.points.last();
    const QPointF before = shape.points[shape.points.size() - 2];
    const QPointF dir = unit(end - before);
    const QPointF normal(-dir.y(), dir.x());
    const qreal arrowLength = edge.arrow ? std::min(kArrowLength, QLineF(before, end).length() * 0.8) : 0.0;
    shape.arrowBase = end - dir * arrowLength;
    shape.arrowLeft = shape.arrowBase + normal * kArrowHalfWidth;
    shape.arrowRight = shape.arrowBase - normal * kArrowHalfWidth;
    // The rounded path stays inside the polyline's box (quadratic curves keep to their control
    // points' hull), the arrow head reaches a little to the sides.
    shape.bounds = shape.points.boundingRect();
    if (edge.arrow) {
        shape.bounds |= QPolygonF({shape.arrowLeft, shape.arrowRight}).boundingRect();
    }
    if (edge.labelShown && !edge.label.isEmpty()) {
        const QFontMetricsF& fm = style.edgeLabelMetrics;
        const qreal w = fm.horizontalAdvance(edge.label);
        // Beside the first stretch of the edge, just below its source. The label is the dtype the
        // source produces, so where edges fan out from one source their labels coincide (same text),
        // while at a target, where edges from different sources meet, they would overlap and differ.
        const QPointF anchor = pointAlong(shape.points, 3 + fm.height() / 2);
        shape.labelRect = QRectF(anchor.x() + 3, anchor.y() - fm.height() / 2, w + 4, fm.height());
        shape.labelOrigin = QPointF(shape.labelRect.left() + 2, shape.labelRect.top() + fm.ascent());
        shape.bounds |= shape.labelRect;
    }
    shape.bounds.adjust(-kEdgeWidth, -kEdgeWidth, kEdgeWidth, kEdgeWidth);
    return shape;
}

GraphEdgeLayer::GraphEdgeLayer(const GraphDrawing& drawing, const QRectF& bounds, const GraphSceneStyle* style)
    : m_drawing(drawing), m_sceneStyle(style), m_bounds(bounds) {
    setZValue(0);
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption);  // paint() is told the exposed rectangle
    const qsizetype count = drawing.edges.size() + drawing.trunks.size();
    m_edgeBounds.reserve(static_cast<std::size_t>(count));
    m_bandTop = bounds.top();
    m_bandHeight = kBandHeight;
    const auto bands = static_cast<std::size_t>(std::max(1.0, std::ceil(bounds.height() / m_bandHeight) + 1));
    auto bandOf = [&](double y) {
        return static_cast<std::size_t>(std::clamp((y - m_bandTop) / m_bandHeight, 0.0, double(bands - 1)));
    };
    std::vector<uint32_t> counts(bands + 1, 0);
    for (qsizetype i = 0; i < count; ++i) {
        const QRectF box = edgeShape(edge(static_cast<int>(i)), *style).bounds;
        m_edgeBounds.push_back(box);
        if (!box.isNull()) {
            for (std::size_t b = bandOf(box.top()); b <= bandOf(box.bottom()); ++b) ++counts[b + 1];
        }
    }
    for (std::size_t b = 0; b < bands; ++b) counts[b + 1] += counts[b];
    m_bandStart = counts;
    m_bandEdges.resize(counts[bands]);
    for (qsizetype i = 0; i < count; ++i) {
        const QRectF& box = m_edgeBounds[static_cast<std::size_t>(i)];
        if (!box.isNull()) {
            for (std::size_t b = bandOf(box.top()); b <= bandOf(box.bottom()); ++b) {
                m_bandEdges[counts[b]++] = static_cast<uint32_t>(i);
            }
        }
    }
    m_seen.assign(static_cast<std::size_t>(count), 0);
}

const DrawnEdge& GraphEdgeLayer::edge(int index) const {
    return index < m_drawing.edges.size() ? m_drawing.edges[index] : m_drawing.trunks[index - m_drawing.edges.size()];
}

template <typename Visit>
void GraphEdgeLayer::forEachMeeting(const QRectF& rect, Visit visit) const {
    if (m_bandStart.size() < 2) return;
    if (++m_query == 0) {  // wrapped: forget every stamp
        std::fill(m_seen.begin(), m_seen.end(), 0);
        m_query = 1;
    }
    const std::size_t bands = m_bandStart.size() - 1;
    auto bandOf = [&](double y) {
        return static_cast<std::size_t>(std::clamp((y - m_bandTop) / m_bandHeight, 0.0, double(bands - 1)));
    };
    for (std::size_t b = bandOf(rect.top()); b <= bandOf(rect.bottom()); ++b) {
        for (uint32_t k = m_bandStart[b]; k < m_bandStart[b + 1]; ++k) {
            const uint32_t e = m_bandEdges[k];
            if (m_seen[e] != m_query && m_edgeBounds[e].intersects(rect)) {
                m_seen[e] = m_query;
                visit(static_cast<int>(e));
            }
        }
    }
}

QList<int> GraphEdgeLayer::edgesMeeting(const QRectF& rect) const {
    QList<int> found;
    forEachMeeting(rect, [&](int e) { found.push_back(e); });
    std::sort(found.begin(), found.end());
    return found;
}

void GraphEdgeLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const GraphSceneStyle& s = *m_sceneStyle;
    const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    QRectF exposed = option && !option->exposedRect.isEmpty() ? option->exposedRect : m_bounds;
    // QGraphicsView::render() and QGraphicsScene::render() expose the whole item: what can show is
    // still only what falls on the device (or inside the clip).
    bool invertible = false;
    const QTransform toItem = painter->worldTransform().inverted(&invertible);
    if (invertible && painter->device()) {
        QRectF onDevice(0, 0, painter->device()->width(), painter->device()->height());
        if (painter->hasClipping()) {
            onDevice &= painter->worldTransform().mapRect(painter->clipBoundingRect());
        }
        exposed &= toItem.mapRect(onDevice).adjusted(-kArrowLength, -kArrowLength, kArrowLength, kArrowLength);
    }
    painter->save();
    forEachMeeting(exposed, [&](int e) {
        const DrawnEdge& drawn = edge(e);
        const EdgeShape shape = edgeShape(drawn, s);
        if (!shape.points.isEmpty()) {
            paintEdge(painter, drawn, shape, s, lod);
        }
    });
    painter->restore();
}

// ---------------------------------------------------------------------------------------------------
// GraphOverviewItem

namespace {

enum EdgeGroup { OtherEdges, TargetEdges, Float32Edges };

EdgeGroup edgeGroup(const QString& label) {
    const std::optional<NodeStyle> style = dtypeStyle(label);
    return !style                         ? OtherEdges
           : *style == NodeStyle::Target  ? TargetEdges
           : *style == NodeStyle::Float32 ? Float32Edges
                                          : OtherEdges;
}

}  // namespace

GraphOverviewItem::GraphOverviewItem(const GraphDrawing& drawing, const QRectF& bounds,
                                     const GraphSceneStyle* style)
    : m_sceneStyle(style), m_bounds(bounds) {
    setZValue(-1);
    setAcceptedMouseButtons(Qt::NoButton);
    for (const DrawnNode& node : drawing.nodes) {
        const QRectF rect = drawnNodeRect(node);
        m_nodes[static_cast<int>(node.style)].push_back(rect);
        if (node.excluded) {
            m_excluded.push_back(rect);
        }
    }
    for (const QList<DrawnEdge>* edges : {&drawing.edges, &drawing.trunks}) {
        for (const DrawnEdge& edge : *edges) {
            QList<QLineF>& lines = m_edges[edgeGroup(edge.label)];
            for (qsizetype i = 1; i < edge.points.size(); ++i) {
                lines.push_back(QLineF(edge.points[i - 1], edge.points[i]));
            }
        }
    }
}

void GraphOverviewItem::setSelectedRect(const QRectF& rect) {
    m_selected = rect;
    update();
}

void GraphOverviewItem::setColouredNodes(QList<QPair<QColor, QList<QRectF>>> nodes) {
    m_colouredNodes = std::move(nodes);
    update();
}

void GraphOverviewItem::setMatchRects(const QList<QRectF>& rects) {
    m_matches = rects;
    update();
}

void GraphOverviewItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const GraphSceneStyle& s = *m_sceneStyle;
    const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
    const qreal pixel = 1.0 / std::max(lod, 1e-3);  // one device pixel in scene units
    painter->save();
    // Axis-aligned rectangles and one-pixel lines: antialiasing would only blur them, at a cost.
    painter->setRenderHint(QPainter::Antialiasing, false);

    const QColor edgeColours[3] = {s.edge, s.edgeColour(QStringLiteral("f16")),
                                   s.edgeColour(QStringLiteral("f32"))};
    for (int group = 0; group < 3; ++group) {
        if (!m_edges[group].isEmpty()) {
            painter->setPen(QPen(edgeColours[group], 0));
            painter->drawLines(m_edges[group]);
        }
    }

    painter->setPen(Qt::NoPen);
    if (s.showHighlights && !m_matches.isEmpty()) {
        painter->setBrush(s.match);
        const qreal reach = std::min(3 * pixel, kMaxHalo);
        for (const QRectF& r : m_matches) {
            painter->drawRect(r.adjusted(-reach, -reach, reach, reach));
        }
    }
    if (s.showHighlights && !m_selected.isEmpty()) {
        QColor glow = s.selection;
        glow.setAlpha(110);
        painter->setBrush(glow);
        const qreal reach = std::min(4 * pixel, kMaxHalo);
        painter->drawRect(m_selected.adjusted(-reach, -reach, reach, reach));
    }
    for (const auto& [colour, rects] : m_colouredNodes) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(colour);
        painter->drawRects(rects);
    }
    // Casts last: they are what a reader scans the overview for.
    for (int style = 0; style < kNodeStyleCount && m_colouredNodes.isEmpty(); ++style) {
        if (!m_nodes[style].isEmpty()) {
            // A fill too close to the background (the light neutral on a light palette) gets a hairline.
            const bool faint = std::abs(s.fill[style].lightness() - s.background.lightness()) < 40;
            painter->setPen(faint ? QPen(s.outline[style], 0) : QPen(Qt::NoPen));
            painter->setBrush(s.fill[style]);
            painter->drawRects(m_nodes[style]);
        }
    }
    painter->setPen(Qt::NoPen);
    if (!m_excluded.isEmpty()) {
        painter->setPen(QPen(s.excludedOutline, 0, Qt::DotLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRects(m_excluded);
    }
    if (s.showHighlights && !m_selected.isEmpty()) {
        painter->setPen(QPen(s.selection, 2 * pixel));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(m_selected);
    }
    painter->restore();
}
