#pragma once
// The item kinds of a graph view's scene: a node (shape, text, dtype badge), the edge layer (every
// edge's polyline with arrow head and dtype label), and the overview that stands in for all of them when nodes are a few
// pixels big. Nodes and edges paint according to the level of detail (no text when small, plain
// lines when tiny); all take their colours and fonts from the view's shared GraphSceneStyle. None
// handles mouse events: GraphView decides what a click means.

#include <QGraphicsItem>
#include <QLineF>
#include <QList>
#include <QPainterPath>
#include <QPolygonF>
#include <QString>

#include <vector>

#include "graph_drawing.h"
#include "graph_style.h"

// The box a node occupies in the scene.
inline QRectF drawnNodeRect(const DrawnNode& node) {
    return QRectF(node.centre.x() - node.size.width() / 2, node.centre.y() - node.size.height() / 2,
                  node.size.width(), node.size.height());
}

class GraphNodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    // `style` must outlive the item (the view owns both).
    GraphNodeItem(const DrawnNode& node, int index, const GraphSceneStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    QPainterPath shape() const override { return nodeStyleOutline(m_style, m_rect); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int index() const { return m_index; }  // into GraphDrawing::nodes
    const QString& name() const { return m_name; }
    NodeStyle nodeStyle() const { return m_style; }

    // The selected node gets an outline and halo in the selection colour; search matches a subtle
    // halo. Both stay visible when zoomed far out (the halo grows to a few device pixels).
    void setSelectedNode(bool selected);
    bool isSelectedNode() const { return m_selected; }
    void setMatched(bool matched);
    bool isMatched() const { return m_matched; }

    // Drops the elided text, after the view's fonts changed.
    void invalidateText();

    // The error view: the node drawn in `fill` instead of its precision colour (an invalid colour
    // goes back to it), and a warning mark at its top-left corner.
    void setFillOverride(const QColor& fill);
    bool hasFillOverride() const { return m_fillOverride.isValid(); }
    QColor fillOverride() const { return m_fillOverride; }
    void setWarningMark(bool on);
    bool hasWarningMark() const { return m_warning; }

private:
    void updateBounds();
    void elideText() const;
    void paintText(QPainter* painter) const;
    void paintBadge(QPainter* painter, bool withText) const;
    void paintHighlights(QPainter* painter, qreal lod) const;

    const GraphSceneStyle* m_sceneStyle;
    QString m_name;
    QString m_title;
    QString m_label;
    QString m_mix;  // a group's op mix: a third line where it fits
    QString m_badge;
    int m_index;
    NodeStyle m_style;
    bool m_excluded;
    bool m_group;  // a collapsed name scope: drawn as a stack
    bool m_selected = false;
    bool m_matched = false;
    bool m_warning = false;
    QColor m_fillOverride;
    QColor m_textOverride;
    // Geometry is kept to plain values and paths are made when painted: a path is an allocation, and
    // with thousands of items allocation dominates building and tearing down a scene, while only the
    // few hundred nodes in view are ever painted.
    QRectF m_rect;       // the node itself, centred on (0, 0)
    QRectF m_badgeRect;  // empty without a badge
    QRectF m_bounds;
    qreal m_textWidth;  // room for text inside the shape

    // Eliding needs font metrics and costs a few microseconds a node; done on the first paint with
    // text, so building a scene of thousands of nodes does not pay for text nobody has seen yet.
    mutable bool m_elided = false;
    mutable bool m_firstInTitleFont = true;  // the first line is the title (else the name)
    mutable QString m_firstShown;
    mutable QString m_secondShown;  // empty when only one line fits
    mutable QString m_thirdShown;   // a group's op mix; empty when it does not fit
    mutable qreal m_firstWidth = 0;
    mutable qreal m_secondWidth = 0;
    mutable qreal m_thirdWidth = 0;
};

// An edge as drawn: its polyline without repeated points, the arrow head (none for a branch that
// ends on its trunk) and the label's place, in scene coordinates.
struct EdgeShape {
    QPolygonF points;  // empty when the edge has fewer than two distinct points
    QPointF arrowBase;
    QPointF arrowLeft;
    QPointF arrowRight;
    QPointF labelOrigin;  // text baseline origin
    QRectF labelRect;     // the label's halo; empty without a shown label
    QRectF bounds;        // everything above, with the pen's width
};
EdgeShape edgeShape(const DrawnEdge& edge, const GraphSceneStyle& style);

// Every edge of a drawing, trunks included, in one item: it paints the edges that meet the exposed
// rectangle, found through horizontal bands of the scene. One QGraphicsItem per edge cost about
// 0.75 KiB with the scene's index, 350 MiB for the 480k edges of both views of a 180k-node graph,
// and the scene's index a walk over all of them for every repaint.
class GraphEdgeLayer : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    // `drawing` must outlive the item (the view owns both).
    GraphEdgeLayer(const GraphDrawing& drawing, const QRectF& bounds, const GraphSceneStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    // The edges whose drawn box meets `rect`, as indices into edges, then trunks (edges.size() + i).
    QList<int> edgesMeeting(const QRectF& rect) const;
    const DrawnEdge& edge(int index) const;

private:
    template <typename Visit>
    void forEachMeeting(const QRectF& rect, Visit visit) const;

    const GraphDrawing& m_drawing;
    const GraphSceneStyle* m_sceneStyle;
    QRectF m_bounds;
    std::vector<QRectF> m_edgeBounds;  // per edge, then per trunk
    double m_bandTop = 0;
    double m_bandHeight = 1;
    std::vector<uint32_t> m_bandStart;  // CSR: band b holds m_bandEdges[m_bandStart[b] .. m_bandStart[b + 1])
    std::vector<uint32_t> m_bandEdges;
    mutable std::vector<uint32_t> m_seen;  // per edge: the query that last met it
    mutable uint32_t m_query = 0;
};

// The whole drawing in a handful of draw calls: nodes as rectangles batched by style, edges as
// one-pixel lines batched by colour, plus the selection and search highlights. Per-item overhead in
// QGraphicsView (transform, style option, exposure test) is a few microseconds an item, which at
// 5,000 nodes and their edges alone makes a frame too slow; below kPlainEdgeLevel the view hides
// the node and edge items and shows this one instead, where they would look the same anyway.
class GraphOverviewItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    GraphOverviewItem(const GraphDrawing& drawing, const QRectF& bounds, const GraphSceneStyle* style);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    void setSelectedRect(const QRectF& rect);  // empty for none
    void setMatchRects(const QList<QRectF>& rects);
    // The error view: node rectangles in colours of their own (by colour), instead of by style.
    void setColouredNodes(QList<QPair<QColor, QList<QRectF>>> nodes);

private:
    const GraphSceneStyle* m_sceneStyle;
    QRectF m_bounds;
    std::array<QList<QRectF>, kNodeStyleCount> m_nodes;  // by style
    QList<QPair<QColor, QList<QRectF>>> m_colouredNodes;  // replaces m_nodes when not empty
    QList<QRectF> m_excluded;
    QList<QLineF> m_edges[3];  // unlabelled or other dtype, target, float32
    QRectF m_selected;
    QList<QRectF> m_matches;
};
