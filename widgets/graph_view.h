#pragma once
// A view of one graph drawing: nodes coloured by the precision they run in, inserted casts shaped
// and badged so they stand out, edges with dtype labels. Zoom (Ctrl+wheel, pinch, slots), pan (drag
// or wheel), single selection by node name, search, PNG/SVG export. Level-of-detail painting keeps a
// 5,000-node drawing smooth: below half size no text, below a fifth plain lines (graph_items.h).
//
// Tying two views together (the main window's before/after pair) needs no knowledge of each other:
//   connect(a, &GraphView::zoomChanged, b, &GraphView::setZoom);
//   connect(a, &GraphView::viewportMoved, b, &GraphView::centreOn);
//   connect(a, &GraphView::nodeSelected, b, [b](const QString& n) { b->selectNode(n); });
// and the same from b to a. There are no feedback loops: setZoom() is silent when the zoom does not
// change, centreOn() never emits viewportMoved, and selectNode() is silent when the node is already
// selected or missing from the view.

#include <QGraphicsView>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

#include "graph_drawing.h"
#include "graph_style.h"

class GraphEdgeLayer;
class GraphNodeItem;
class GraphOverviewItem;
class QGraphicsScene;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    static constexpr double kMinZoom = 0.01;
    // Drawings up to this many nodes get every node item at once; larger ones as their part of
    // the scene comes into view (cells of kNodeCell scene units).
    static constexpr qsizetype kEagerNodeItems = 5000;
    static constexpr double kNodeCell = 1024;
    static constexpr double kMaxZoom = 8.0;
    static constexpr double kZoomStep = 1.25;        // zoomIn()/zoomOut() and one wheel notch
    static constexpr double kMaxExportSide = 16384;  // PNG export scales down past this many pixels

    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Replaces the whole scene. Keeps the zoom and the centre; keeps the selection when a node of the
    // same name exists (silently: the selection did not change), else clears it without emitting
    // nodeSelected; re-runs the current search. The first drawing is shown from its top.
    void setDrawing(const GraphDrawing& drawing);
    const GraphDrawing& drawing() const { return m_drawing; }

    // What the nodes are coloured by: the precision they run in, or (the precision debugger's view)
    // the error measured at each node, on error_colour_scale's log scale.
    enum class Colouring { Precision, Error };
    struct NodeErrorMark {
        double error = 0.0;       // max relative error against float32 (NaN: undefined)
        QStringList warnings;     // range warnings: a mark on the node, the reasons in its tool tip
        QString summary;          // one line for the tool tip ("error 3.1e-3, own 2.9e-3")
    };
    // By node name; kept across setDrawing() (a new drawing of the same model keeps its marks).
    void setErrorMarks(QHash<QString, NodeErrorMark> marks);
    void setColouring(Colouring colouring);
    Colouring colouring() const { return m_colouring; }
    bool hasErrorMarks() const { return !m_errorMarks.isEmpty(); }
    // The tool tip a node shows (empty for a name not drawn).
    QString toolTipForNode(const QString& name) const;

    // The fill and the translated legend name of a style, for the legend and other widgets.
    static QColor nodeStyleColor(NodeStyle style);
    static QString nodeStyleName(NodeStyle style);

    double zoom() const;             // 1.0 = one scene unit per pixel
    QPointF viewportCentre() const;  // the scene point at the centre of the viewport

    QString selectedNode() const { return m_selected; }     // empty when none
    QString nodeNameAt(const QPoint& viewportPos) const;    // empty when no node is there
    QPointF nodeScenePos(const QString& name) const;        // centre; QPointF() for an unknown name
    QGraphicsItem* itemForNode(const QString& name) const;  // nullptr for an unknown name
    bool hasNode(const QString& name) const { return m_nodeIndex.contains(name); }
    int highlightedCastCount() const { return m_castCount; }  // amp_cast + amp_multicast items

    // Finds the nodes whose name or op contains `text` (case-insensitive), highlights them and
    // remembers them top to bottom, left to right; an empty text clears the search. Returns the count.
    int findNodes(const QString& text);
    int matchCount() const { return static_cast<int>(m_matches.size()); }
    int currentMatch() const { return m_currentMatch; }  // index into the matches; -1 before the first
    // Select the next / previous match (wrapping around) and centre on it; false when there is none.
    bool selectNextMatch();
    bool selectPreviousMatch();

    // The whole drawing without selection or search highlights, on the palette's background. PNG at
    // 1:1, scaled down when the larger side would pass kMaxExportSide. Written atomically (QSaveFile):
    // on failure the file is untouched, the result is false and *error says why.
    bool exportPng(const QString& path, QString* error = nullptr);
    bool exportSvg(const QString& path, QString* error = nullptr);

public slots:
    void setZoom(double zoom);  // about the viewport centre, clamped to [kMinZoom, kMaxZoom]
    void zoomIn();
    void zoomOut();
    void resetZoom();  // 1:1
    void fitToView();  // the whole drawing, never enlarged past 1:1
    // Centres the viewport on a scene point (as far as the scroll range allows) without emitting
    // viewportMoved: the slot for a tied view.
    void centreOn(const QPointF& sceneCentre);
    // Selects the node and, with ensureVisible, scrolls it into view. Emits nodeSelected when the
    // selection changes; nothing when it is already selected. A name this view lacks clears the
    // selection silently (a cast exists only in the converted graph: selecting it there must not
    // clear the selection of the view it came from). An empty name clears and emits.
    void selectNode(const QString& name, bool ensureVisible = true);

signals:
    void zoomChanged(double zoom);
    // The viewport moved by the user (scroll, drag, zoom, search) or by ensureVisible; not by centreOn().
    void viewportMoved(const QPointF& sceneCentre);
    void nodeSelected(const QString& name);   // empty when the selection was cleared
    void nodeActivated(const QString& name);  // double click
    void nodeContextMenuRequested(const QString& name, const QPoint& globalPos);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void zoomAbout(double zoom, const QPoint& viewportAnchor);
    void setSelection(const QString& name, bool notify);
    bool selectMatch(int index);
    void updateStyle();
    void announceViewportMove();
    void renderForExport(QPainter* painter, const QRectF& target, const QRectF& source);
    void showOverview(bool overview);
    void updateLevelOfDetail();
    void updateOverviewHighlights();
    GraphNodeItem* nodeItem(const QString& name) const;
    QString toolTipFor(const DrawnNode& node) const;
    void applyErrorMarks();
    struct NodeMarks {
        QColor fill;  // invalid: the style's own
        bool warning = false;
    };
    NodeMarks marksOf(int index) const;
    void indexNodeCells(const QRectF& sceneRect);
    qint64 cellOf(const QPointF& p) const;
    void materializeNodes(const QRectF& rect);
    void materializeVisibleNodes();
    void makeNodeItem(int index);

    QGraphicsScene* m_scene;
    // Shared with the snapshot it came from (Qt's implicit sharing) and only ever read through the
    // const reference: a non-const access would detach a copy of 100k nodes' lists.
    GraphDrawing m_drawingHeld;
    const GraphDrawing& m_drawing = m_drawingHeld;
    GraphSceneStyle m_style;            // every item points here
    // By node index; null until the node's cell has come into view. A graph of 100k nodes would
    // otherwise hold as many items (0.8 KiB each with the scene's index) of which a few hundred show.
    QList<GraphNodeItem*> m_nodeItems;
    QList<bool> m_isMatch;  // by node index: a search match (for items made later)
    // The nodes by grid cell of their centre (kNodeCell square, row-major keys, CSR).
    QPointF m_cellOrigin;
    qint64 m_cellColumns = 1;
    std::vector<qint64> m_cellKeys;
    std::vector<int> m_cellStart;
    std::vector<int> m_cellNodes;
    std::vector<quint8> m_cellMade;
    GraphEdgeLayer* m_edgeLayer = nullptr;
    GraphOverviewItem* m_overview = nullptr;
    Colouring m_colouring = Colouring::Precision;
    QHash<QString, NodeErrorMark> m_errorMarks;
    bool m_overviewShown = false;  // zoomed out past kPlainEdgeLevel: the overview stands in for the items
    QHash<QString, int> m_nodeIndex;
    int m_castCount = 0;
    QString m_selected;
    QString m_searchText;
    QList<int> m_matches;  // node indices in scene order
    int m_currentMatch = -1;
    QPoint m_pressPos;
    bool m_leftPressed = false;
    int m_quietMoves = 0;  // > 0 while the viewport moves for centreOn() or mid-zoom: no viewportMoved
};
