#include "graph_view.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QSaveFile>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "error_colour_scale.h"
#include "graph_items.h"

namespace {

constexpr qreal kSceneMargin = 40;         // around the drawing, so edge nodes are not flush with the border
constexpr qreal kMaxExportPixels = 120e6;  // ~480 MB of RGB32: past this a PNG export scales down too

}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), m_scene(new QGraphicsScene(this)) {
    // The scene is static between setDrawing() calls: a BSP tree answers "what is in this rect" for
    // painting and hit tests in logarithmic time, which is what keeps 5,000+ nodes smooth.
    m_scene->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setScene(m_scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    // Zooming keeps the point under the mouse (or the centre) in place by itself (zoomAbout()), so
    // Qt's anchoring, which needs mouse tracking, stays off.
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    // Panning scrolls the pixels already drawn and repaints only the exposed strip, which full
    // viewport updates would defeat; items never move, so bounding-rect updates are rare and small.
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    // Every item sets the pen, brush and font it draws with, so the per-item save/restore is waste.
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    // The background is one flat colour: caching it would cost a viewport-sized pixmap for nothing.
    setCacheMode(QGraphicsView::CacheNone);
    updateStyle();

    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &GraphView::announceViewportMove);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &GraphView::announceViewportMove);
}

// The items point at m_style: the scene (and with it every item) goes before the members do.
GraphView::~GraphView() {
    // As in setDrawing(): run the scene's pending polish first, detach the view so that no item's
    // removal is reported to it, then clear the scene in one go. Deleting a populated scene with the
    // view attached took 12 s for 175k items (quadratic).
    QCoreApplication::sendPostedEvents(m_scene, QEvent::MetaCall);
    setScene(nullptr);
    m_scene->clear();
    delete m_scene;
}

QColor GraphView::nodeStyleColor(NodeStyle style) {
    return nodeStyleFill(style);
}

QString GraphView::nodeStyleName(NodeStyle style) {
    switch (style) {
        case NodeStyle::Variable:
            return tr("Variable");
        case NodeStyle::Target:
            return tr("Target dtype");
        case NodeStyle::Float32:
            return tr("FP32");
        case NodeStyle::Widest:
            return tr("Widest");
        case NodeStyle::Unchanged:
            return tr("Unchanged");
        case NodeStyle::Cast:
            return tr("amp_cast");
        case NodeStyle::Multicast:
            return tr("amp_multicast");
    }
    return {};
}

// ---------------------------------------------------------------------------------------------------
// The drawing

void GraphView::setDrawing(const GraphDrawing& drawing) {
    const bool first = m_drawing.nodes.isEmpty();
    const QPointF centre = viewportCentre();
    ++m_quietMoves;

    // The scene polishes new items from a queued call; until it has run, removing each item searches
    // the whole pending list (quadratic: seconds for 10k items). Called again before the event loop
    // ran, run it now.
    QCoreApplication::sendPostedEvents(m_scene, QEvent::MetaCall);
    // Everything is repainted anyway. Saying so up front spares the view from collecting the rect of
    // every removed and added item into one dirty region (quadratic in the items on screen).
    m_scene->update();
    m_nodeItems.clear();
    m_cellKeys.clear();  // no items are made on demand until the new drawing's cells are known
    m_cellStart.clear();
    m_cellNodes.clear();
    m_cellMade.clear();
    m_edgeLayer = nullptr;
    m_overview = nullptr;
    m_nodeIndex.clear();
    m_matches.clear();
    m_isMatch.clear();
    m_currentMatch = -1;
    m_castCount = 0;
    m_scene->clear();
    m_drawingHeld = drawing;

    QRectF bounds = m_drawing.bounds;
    if (!bounds.isValid()) {
        for (const DrawnNode& n : m_drawing.nodes) {
            bounds |= drawnNodeRect(n);
        }
    }
    // An explicit scene rect: otherwise the scene would grow it item by item as they are added.
    const QRectF sceneRect = bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin);
    m_scene->setSceneRect(sceneRect);

    // Items are created shown or hidden for the current zoom: switching thousands later costs more.
    m_overviewShown = zoom() < kPlainEdgeLevel;
    m_overview = new GraphOverviewItem(m_drawing, sceneRect, &m_style);
    if (!m_overviewShown) {
        m_overview->setVisible(false);
    }
    m_scene->addItem(m_overview);
    m_edgeLayer = new GraphEdgeLayer(m_drawing, sceneRect, &m_style);
    if (m_overviewShown) {
        m_edgeLayer->setVisible(false);
    }
    m_scene->addItem(m_edgeLayer);
    m_nodeItems = QList<GraphNodeItem*>(m_drawing.nodes.size(), nullptr);
    m_isMatch = QList<bool>(m_drawing.nodes.size(), false);
    m_nodeIndex.reserve(m_drawing.nodes.size());
    for (int i = 0; i < m_drawing.nodes.size(); ++i) {
        const DrawnNode& node = m_drawing.nodes[i];
        m_nodeIndex.insert(node.name, i);
        if (node.style == NodeStyle::Cast || node.style == NodeStyle::Multicast) {
            ++m_castCount;
        }
    }
    indexNodeCells(sceneRect);
    if (m_drawing.nodes.size() <= kEagerNodeItems) {
        materializeNodes(sceneRect);
    }

    applyErrorMarks();
    if (GraphNodeItem* item = nodeItem(m_selected)) {
        item->setSelectedNode(true);
    } else {
        m_selected.clear();
    }
    if (!m_searchText.isEmpty()) {
        findNodes(m_searchText);
    }
    updateOverviewHighlights();

    if (first && !m_drawing.nodes.isEmpty()) {
        // A graph reads from its inputs at the top.
        const QRectF rect = m_scene->sceneRect();
        centerOn(rect.center().x(), rect.top() + viewport()->height() / (2 * zoom()));
    } else {
        centerOn(centre);
    }
    --m_quietMoves;
    materializeVisibleNodes();
}

// ---------------------------------------------------------------------------------------------------
// Node items on demand

// Nodes by the grid cell of their centre, cells in row-major order, for materializeNodes().
void GraphView::indexNodeCells(const QRectF& sceneRect) {
    m_cellOrigin = sceneRect.topLeft();
    m_cellColumns = std::max<qint64>(1, static_cast<qint64>(std::ceil(sceneRect.width() / kNodeCell)) + 1);
    std::vector<std::pair<qint64, int>> keyed;
    keyed.reserve(static_cast<std::size_t>(m_drawing.nodes.size()));
    for (int i = 0; i < m_drawing.nodes.size(); ++i) {
        keyed.emplace_back(cellOf(m_drawing.nodes[i].centre), i);
    }
    std::sort(keyed.begin(), keyed.end());
    m_cellKeys.clear();
    m_cellStart.clear();
    m_cellNodes.clear();
    m_cellNodes.reserve(keyed.size());
    for (const auto& [key, node] : keyed) {
        if (m_cellKeys.empty() || m_cellKeys.back() != key) {
            m_cellKeys.push_back(key);
            m_cellStart.push_back(static_cast<int>(m_cellNodes.size()));
        }
        m_cellNodes.push_back(node);
    }
    m_cellStart.push_back(static_cast<int>(m_cellNodes.size()));
    m_cellMade.assign(m_cellKeys.size(), 0);
}

qint64 GraphView::cellOf(const QPointF& p) const {
    const auto column = static_cast<qint64>(std::max(0.0, std::floor((p.x() - m_cellOrigin.x()) / kNodeCell)));
    const auto row = static_cast<qint64>(std::max(0.0, std::floor((p.y() - m_cellOrigin.y()) / kNodeCell)));
    return row * m_cellColumns + std::min(column, m_cellColumns - 1);
}

// Items for every node whose centre lies in a cell `rect` touches, those not made yet. A node is at
// most half a cell from its centre's cell, so one cell of margin around the viewport covers all
// that can show.
void GraphView::materializeNodes(const QRectF& rect) {
    if (m_cellKeys.empty()) {
        return;
    }
    const qint64 first = cellOf(rect.topLeft());
    const qint64 last = cellOf(rect.bottomRight());
    const qint64 firstColumn = first % m_cellColumns, lastColumn = last % m_cellColumns;
    for (qint64 row = first / m_cellColumns; row <= last / m_cellColumns; ++row) {
        const qint64 from = row * m_cellColumns + firstColumn, to = row * m_cellColumns + lastColumn;
        auto it = std::lower_bound(m_cellKeys.begin(), m_cellKeys.end(), from);
        for (; it != m_cellKeys.end() && *it <= to; ++it) {
            const auto cell = static_cast<std::size_t>(it - m_cellKeys.begin());
            if (m_cellMade[cell]) {
                continue;
            }
            m_cellMade[cell] = 1;
            for (int k = m_cellStart[cell]; k < m_cellStart[cell + 1]; ++k) {
                makeNodeItem(m_cellNodes[static_cast<std::size_t>(k)]);
            }
        }
    }
}

void GraphView::materializeVisibleNodes() {
    if (m_overviewShown || m_cellKeys.empty()) {
        return;  // the overview draws every node itself
    }
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    materializeNodes(visible.adjusted(-kNodeCell, -kNodeCell, kNodeCell, kNodeCell));
}

void GraphView::makeNodeItem(int index) {
    const DrawnNode& node = m_drawing.nodes[index];
    auto* item = new GraphNodeItem(node, index, &m_style);
    item->setVisible(!m_overviewShown);
    item->setSelectedNode(node.name == m_selected);
    item->setMatched(m_isMatch[index]);
    const NodeMarks marks = marksOf(index);
    item->setFillOverride(marks.fill);
    item->setWarningMark(marks.warning);
    m_scene->addItem(item);
    m_nodeItems[index] = item;
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    materializeVisibleNodes();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    materializeVisibleNodes();
}

GraphNodeItem* GraphView::nodeItem(const QString& name) const {
    const auto it = m_nodeIndex.constFind(name);
    return it == m_nodeIndex.cend() ? nullptr : m_nodeItems[*it];  // null until its cell was in view
}

QGraphicsItem* GraphView::itemForNode(const QString& name) const {
    return nodeItem(name);
}

QPointF GraphView::nodeScenePos(const QString& name) const {
    const auto it = m_nodeIndex.constFind(name);
    return it == m_nodeIndex.cend() ? QPointF() : m_drawing.nodes[*it].centre;
}

QString GraphView::nodeNameAt(const QPoint& viewportPos) const {
    if (m_overviewShown) {
        // The node items are hidden, so the scene will not find them; nodes are a few pixels big
        // here, and a plain scan (topmost first) with a pixel of slack is quick enough for a click.
        const QPointF at = mapToScene(viewportPos);
        const qreal slack = 1.5 / zoom();
        for (qsizetype i = m_drawing.nodes.size() - 1; i >= 0; --i) {
            if (drawnNodeRect(m_drawing.nodes[i]).adjusted(-slack, -slack, slack, slack).contains(at)) {
                return m_drawing.nodes[i].name;
            }
        }
        return {};
    }
    for (const QGraphicsItem* item : items(viewportPos)) {
        if (item->type() == GraphNodeItem::Type) {
            return static_cast<const GraphNodeItem*>(item)->name();
        }
    }
    return {};
}

QString GraphView::toolTipFor(const DrawnNode& node) const {
    QString text = QStringLiteral("<b>%1</b><br>").arg(node.name.toHtmlEscaped());
    if (node.members > 0) {
        text += tr("name scope of %n node(s), collapsed: double-click opens it", nullptr, node.members);
        text += QStringLiteral("<br>") + node.label.toHtmlEscaped();
        // The op mix, most frequent first.
        const auto& counts = node.opCounts;
        for (qsizetype i = 0; i < std::min<qsizetype>(counts.size(), 6); ++i) {
            const QString op = counts[i].first.isEmpty() ? tr("variable") : counts[i].first;
            text += QStringLiteral("<br>%1 × %2").arg(counts[i].second).arg(op.toHtmlEscaped());
        }
        if (counts.size() > 6) text += QStringLiteral("<br>…");
        return text;
    }
    text += node.op.isEmpty() ? tr("variable") : tr("op: %1").arg(node.op.toHtmlEscaped());
    text += QStringLiteral("<br>") + tr("precision: %1").arg(nodeStyleName(node.style));
    if (!node.badge.isEmpty()) {
        text += QStringLiteral("<br>") + tr("casts to: %1").arg(node.badge.toHtmlEscaped());
    }
    if (node.excluded) {
        text += QStringLiteral("<br>") + tr("excluded from conversion by name");
    }
    if (const auto it = m_errorMarks.constFind(node.name); it != m_errorMarks.cend()) {
        text += QStringLiteral("<br>") + it->summary.toHtmlEscaped();
        for (const QString& w : it->warnings) {
            text += QStringLiteral("<br>⚠ ") + w.toHtmlEscaped();
        }
    }
    return text;
}

QString GraphView::toolTipForNode(const QString& name) const {
    const auto it = m_nodeIndex.constFind(name);
    return it == m_nodeIndex.cend() ? QString() : toolTipFor(m_drawing.nodes[*it]);
}

void GraphView::setErrorMarks(QHash<QString, NodeErrorMark> marks) {
    m_errorMarks = std::move(marks);
    applyErrorMarks();
}

void GraphView::setColouring(Colouring colouring) {
    if (colouring == m_colouring) return;
    m_colouring = colouring;
    applyErrorMarks();
}

// Error colouring: measured nodes in the scale's colour, everything else in one quiet grey (casts
// keep their shapes and badges); warnings marked in both colourings, where they exist.
GraphView::NodeMarks GraphView::marksOf(int index) const {
    const bool byError = m_colouring == Colouring::Error && !m_errorMarks.isEmpty();
    const auto it = m_errorMarks.constFind(m_drawing.nodes[index].name);
    const bool marked = it != m_errorMarks.cend();
    NodeMarks marks;
    marks.fill = !byError ? QColor() : marked ? error_scale::colourFor(it->error) : error_scale::unmeasuredFill(m_style.dark);
    marks.warning = marked && !it->warnings.isEmpty();
    return marks;
}

void GraphView::applyErrorMarks() {
    const bool byError = m_colouring == Colouring::Error && !m_errorMarks.isEmpty();
    QHash<QRgb, QList<QRectF>> byColour;
    for (int i = 0; i < m_drawing.nodes.size(); ++i) {
        const NodeMarks marks = marksOf(i);
        if (GraphNodeItem* item = m_nodeItems.value(i)) {
            item->setFillOverride(marks.fill);
            item->setWarningMark(marks.warning);
        }
        if (byError) {
            byColour[marks.fill.rgb()].push_back(drawnNodeRect(m_drawing.nodes[i]));
        }
    }
    if (m_overview) {
        QList<QPair<QColor, QList<QRectF>>> coloured;
        for (auto it = byColour.cbegin(); it != byColour.cend(); ++it) {
            coloured.push_back({QColor::fromRgb(it.key()), it.value()});
        }
        m_overview->setColouredNodes(std::move(coloured));
    }
}

// ---------------------------------------------------------------------------------------------------
// Style

void GraphView::updateStyle() {
    m_style = GraphSceneStyle::fromPalette(palette(), font());
    m_scene->setBackgroundBrush(m_style.background);
    for (GraphNodeItem* item : std::as_const(m_nodeItems)) {
        if (item) item->invalidateText();
    }
    applyErrorMarks();  // the grey of unmeasured nodes follows the palette
    m_scene->update();
}

void GraphView::changeEvent(QEvent* event) {
    QGraphicsView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        updateStyle();
    } else if (event->type() == QEvent::FontChange) {
        updateStyle();
        setDrawing(GraphDrawing(m_drawing));  // badges and labels were measured in the old font
    }
}

// ---------------------------------------------------------------------------------------------------
// Zoom and scrolling

double GraphView::zoom() const {
    return transform().m11();
}

QPointF GraphView::viewportCentre() const {
    return mapToScene(viewport()->rect().center());
}

void GraphView::zoomAbout(double zoom, const QPoint& viewportAnchor) {
    const double old = this->zoom();
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (std::abs(zoom - old) <= 1e-9 * old) {
        return;
    }
    // Keep the scene point under the anchor where it is: with the centre c and the anchor d pixels
    // from it, that point is c + d/old, and must stay d pixels from the new centre.
    const QPointF centre = viewportCentre();
    const QPointF offset = QPointF(viewportAnchor - viewport()->rect().center());
    const QPointF anchored = centre + offset / old;
    ++m_quietMoves;
    setTransform(QTransform::fromScale(zoom, zoom));
    updateLevelOfDetail();
    centerOn(anchored - offset / zoom);
    --m_quietMoves;
    emit zoomChanged(zoom);
    announceViewportMove();
}

void GraphView::setZoom(double zoom) {
    zoomAbout(zoom, viewport()->rect().center());
}

void GraphView::zoomIn() {
    setZoom(zoom() * kZoomStep);
}

void GraphView::zoomOut() {
    setZoom(zoom() / kZoomStep);
}

void GraphView::resetZoom() {
    setZoom(1.0);
}

void GraphView::fitToView() {
    const QRectF rect = m_scene->sceneRect();
    if (rect.isEmpty()) {
        return;
    }
    const QSizeF room = viewport()->size();
    const double fit = std::min({room.width() / rect.width(), room.height() / rect.height(), 1.0});
    ++m_quietMoves;
    setZoom(fit);
    centerOn(rect.center());
    --m_quietMoves;
    announceViewportMove();
}

void GraphView::updateLevelOfDetail() {
    showOverview(zoom() < kPlainEdgeLevel);
}

void GraphView::showOverview(bool overview) {
    if (overview == m_overviewShown || !m_overview) {
        return;
    }
    m_overviewShown = overview;
    m_scene->update();  // one full repaint rather than thousands of dirty rects (see setDrawing())
    for (GraphNodeItem* item : std::as_const(m_nodeItems)) {
        if (item) item->setVisible(!overview);
    }
    if (m_edgeLayer) {
        m_edgeLayer->setVisible(!overview);
    }
    m_overview->setVisible(overview);
    materializeVisibleNodes();
}

void GraphView::updateOverviewHighlights() {
    if (!m_overview) {
        return;
    }
    const auto it = m_nodeIndex.constFind(m_selected);
    m_overview->setSelectedRect(it == m_nodeIndex.cend() ? QRectF() : drawnNodeRect(m_drawing.nodes[*it]));
    QList<QRectF> matches;
    matches.reserve(m_matches.size());
    for (const int i : std::as_const(m_matches)) {
        matches.push_back(drawnNodeRect(m_drawing.nodes[i]));
    }
    m_overview->setMatchRects(matches);
}

void GraphView::centreOn(const QPointF& sceneCentre) {
    ++m_quietMoves;
    centerOn(sceneCentre);
    --m_quietMoves;
}

void GraphView::announceViewportMove() {
    if (m_quietMoves == 0) {
        emit viewportMoved(viewportCentre());
    }
}

void GraphView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        // angleDelta is in eighths of a degree, 120 per notch; touchpads send smaller steps.
        const double notches = event->angleDelta().y() / 120.0;
        zoomAbout(zoom() * std::pow(kZoomStep, notches), event->position().toPoint());
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

// ---------------------------------------------------------------------------------------------------
// Mouse

void GraphView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_pressPos = event->position().toPoint();
        m_leftPressed = true;
    }
    QGraphicsView::mousePressEvent(event);  // a drag pans (ScrollHandDrag)
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
    QGraphicsView::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || !m_leftPressed) {
        return;
    }
    m_leftPressed = false;
    const QPoint pos = event->position().toPoint();
    if ((pos - m_pressPos).manhattanLength() < QApplication::startDragDistance()) {
        setSelection(nodeNameAt(pos), true);  // a click, not a pan: empty space clears
    }
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
    const QString name =
        event->button() == Qt::LeftButton ? nodeNameAt(event->position().toPoint()) : QString();
    if (name.isEmpty()) {
        QGraphicsView::mouseDoubleClickEvent(event);
        return;
    }
    setSelection(name, true);
    emit nodeActivated(name);
    event->accept();
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
    QString name;
    QPoint globalPos = event->globalPos();
    if (event->reason() == QContextMenuEvent::Keyboard && hasNode(m_selected)) {
        name = m_selected;  // the menu key: the selected node, with the menu at the node
        globalPos = viewport()->mapToGlobal(mapFromScene(nodeScenePos(name)));
    } else {
        name = nodeNameAt(event->pos());
    }
    if (name.isEmpty()) {
        QGraphicsView::contextMenuEvent(event);
        return;
    }
    setSelection(name, true);  // the menu acts on this node: show it as the selected one
    emit nodeContextMenuRequested(name, globalPos);
    event->accept();
}

bool GraphView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        // One tool tip built on demand, rather than thousands of item tool tips built up front.
        const auto* help = static_cast<QHelpEvent*>(event);
        const auto it = m_nodeIndex.constFind(nodeNameAt(help->pos()));
        if (it == m_nodeIndex.cend()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), toolTipFor(m_drawing.nodes[*it]), viewport());
        }
        return true;
    }
    if (event->type() == QEvent::NativeGesture) {
        const auto* gesture = static_cast<QNativeGestureEvent*>(event);
        if (gesture->gestureType() == Qt::ZoomNativeGesture) {
            zoomAbout(zoom() * (1.0 + gesture->value()), gesture->position().toPoint());
            return true;
        }
    }
    return QGraphicsView::viewportEvent(event);
}

// ---------------------------------------------------------------------------------------------------
// Selection and search

void GraphView::setSelection(const QString& name, bool notify) {
    if (name == m_selected) {
        return;
    }
    if (GraphNodeItem* old = nodeItem(m_selected)) {
        old->setSelectedNode(false);
    }
    m_selected = name;
    if (GraphNodeItem* item = nodeItem(name)) {
        item->setSelectedNode(true);
    }
    updateOverviewHighlights();
    if (notify) {
        emit nodeSelected(name);
    }
}

void GraphView::selectNode(const QString& name, bool ensureVisible) {
    const auto it = m_nodeIndex.constFind(name);
    if (!name.isEmpty() && it == m_nodeIndex.cend()) {
        setSelection({}, false);
        return;
    }
    setSelection(name, true);
    if (it != m_nodeIndex.cend() && ensureVisible) {
        QGraphicsView::ensureVisible(drawnNodeRect(m_drawing.nodes[*it]), 40, 40);
    }
}

int GraphView::findNodes(const QString& text) {
    for (const int i : std::as_const(m_matches)) {
        m_isMatch[i] = false;
        if (m_nodeItems[i]) m_nodeItems[i]->setMatched(false);
    }
    m_matches.clear();
    m_currentMatch = -1;
    m_searchText = text;
    if (text.isEmpty()) {
        updateOverviewHighlights();
        return 0;
    }
    for (int i = 0; i < m_drawing.nodes.size(); ++i) {
        const DrawnNode& node = m_drawing.nodes[i];
        // A collapsed group matches when one of its nodes does: the match is in there.
        if (node.name.contains(text, Qt::CaseInsensitive) || node.op.contains(text, Qt::CaseInsensitive) ||
            (node.members > 0 && node.contents.contains(text, Qt::CaseInsensitive))) {
            m_matches.push_back(i);
        }
    }
    std::stable_sort(m_matches.begin(), m_matches.end(), [this](int a, int b) {
        const QPointF& pa = m_drawing.nodes[a].centre;
        const QPointF& pb = m_drawing.nodes[b].centre;
        return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
    });
    for (const int i : std::as_const(m_matches)) {
        m_isMatch[i] = true;
        if (m_nodeItems[i]) m_nodeItems[i]->setMatched(true);
    }
    updateOverviewHighlights();
    return static_cast<int>(m_matches.size());
}

bool GraphView::selectMatch(int index) {
    m_currentMatch = index;
    const DrawnNode& node = m_drawing.nodes[m_matches[index]];
    setSelection(node.name, true);
    centerOn(node.centre);
    return true;
}

bool GraphView::selectNextMatch() {
    if (m_matches.isEmpty()) {
        return false;
    }
    return selectMatch((m_currentMatch + 1) % static_cast<int>(m_matches.size()));
}

bool GraphView::selectPreviousMatch() {
    if (m_matches.isEmpty()) {
        return false;
    }
    return selectMatch(m_currentMatch <= 0 ? static_cast<int>(m_matches.size()) - 1 : m_currentMatch - 1);
}

// ---------------------------------------------------------------------------------------------------
// Export

void GraphView::renderForExport(QPainter* painter, const QRectF& target, const QRectF& source) {
    painter->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    // The picture's own scale decides between items and overview, not the view's zoom.
    const bool overview = m_overviewShown;
    showOverview(std::min(target.width() / source.width(), target.height() / source.height()) <
                 kPlainEdgeLevel);
    if (!m_overviewShown) {
        materializeNodes(source);  // the picture shows more than the viewport
    }
    m_style.showHighlights = false;
    m_scene->render(painter, target, source, Qt::KeepAspectRatio);
    m_style.showHighlights = true;
    showOverview(overview);
}

bool GraphView::exportPng(const QString& path, QString* error) {
    const auto fail = [&](const QString& why) {
        if (error) {
            *error = why;
        }
        return false;
    };
    const QRectF source = m_scene->sceneRect();
    if (m_drawing.nodes.isEmpty() || source.isEmpty()) {
        return fail(tr("There is no graph to export."));
    }
    const double scale = std::min({1.0, kMaxExportSide / source.width(), kMaxExportSide / source.height(),
                                   std::sqrt(kMaxExportPixels / (source.width() * source.height()))});
    const QSize size(std::max(1, static_cast<int>(std::ceil(source.width() * scale))),
                     std::max(1, static_cast<int>(std::ceil(source.height() * scale))));
    QImage image(size, QImage::Format_RGB32);
    if (image.isNull()) {
        return fail(tr("Not enough memory for a %1 × %2 image.").arg(size.width()).arg(size.height()));
    }
    image.fill(m_style.background);
    {
        QPainter painter(&image);
        renderForExport(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    if (!image.save(&file, "PNG") || !file.commit()) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    return true;
}

bool GraphView::exportSvg(const QString& path, QString* error) {
    const auto fail = [&](const QString& why) {
        if (error) {
            *error = why;
        }
        return false;
    };
    const QRectF source = m_scene->sceneRect();
    if (m_drawing.nodes.isEmpty() || source.isEmpty()) {
        return fail(tr("There is no graph to export."));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    const QRectF target(QPointF(0, 0), source.size());
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setSize(source.size().toSize());
    generator.setViewBox(target);
    generator.setTitle(tr("AMP Studio graph"));
    generator.setDescription(
        tr("Nodes: %1, edges: %2").arg(m_drawing.nodes.size()).arg(m_drawing.edges.size()));
    generator.setResolution(96);  // CSS pixels: one scene unit is one px
    {
        QPainter painter;
        if (!painter.begin(&generator)) {
            file.cancelWriting();
            return fail(
                tr("Cannot write %1: the SVG generator did not start.").arg(QDir::toNativeSeparators(path)));
        }
        painter.fillRect(target, m_style.background);
        renderForExport(&painter, target, source);
    }
    if (!file.commit()) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    return true;
}
