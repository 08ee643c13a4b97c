// The graph view as the main window and the user meet it: one item per node and edge, casts
// counted, clicks and context menus resolved to node names, selection and search by name, zoom that
// keeps what is under the mouse, tied views without feedback, PNG/SVG export that either writes a
// whole file or reports why not, and colours that stay legible on light and dark palettes.
#include <QApplication>
#include <QContextMenuEvent>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>

#include "error_colour_scale.h"
#include "graph_items.h"
#include "graph_legend.h"
#include "graph_style.h"
#include "graph_view.h"

namespace {

DrawnNode node(const QString& name, const QString& op, NodeStyle style, QPointF centre,
               const QString& badge = {}) {
    DrawnNode n;
    n.name = name;
    n.op = op;
    n.title = op.isEmpty() ? QStringLiteral("parameter") : op;
    n.label = name;
    n.badge = badge;
    n.style = style;
    n.centre = centre;
    n.size = QSizeF(130, 42);
    return n;
}

DrawnEdge edge(const GraphDrawing& d, int source, int target, const QString& label = {}) {
    const QPointF from = d.nodes[source].centre + QPointF(0, 21);
    const QPointF to = d.nodes[target].centre - QPointF(0, 21);
    QList<QPointF> points{from};
    if (from.x() != to.x()) {
        points << QPointF(to.x(), (from.y() + to.y()) / 2);  // one bend, as a layout would have it
    }
    points << to;
    return DrawnEdge{source, target, points, label};
}

void finish(GraphDrawing& d) {
    d.bounds = {};
    for (const DrawnNode& n : d.nodes) {
        d.bounds |= QRectF(n.centre - QPointF(n.size.width() / 2, n.size.height() / 2), n.size);
    }
}

// The proposal's first example, converted: data and a weight into a convolution that runs in
// float16, a cast back to float32 for the softmax, and a multicast joining two branches.
GraphDrawing sampleDrawing() {
    GraphDrawing d;
    d.nodes = {
        node("data", {}, NodeStyle::Variable, {100, 40}),
        node("conv0", "Convolution", NodeStyle::Target, {100, 140}),
        node("conv0_amp_cast0", "amp_cast", NodeStyle::Cast, {100, 240}, "f32"),
        node("softmax", "SoftmaxOutput", NodeStyle::Float32, {100, 340}),
        node("fc1_weight", {}, NodeStyle::Variable, {300, 140}),
        node("add0_amp_multicast", "amp_multicast", NodeStyle::Multicast, {300, 240}, "widest"),
        node("add0", "elemwise_add", NodeStyle::Widest, {300, 340}),
    };
    d.nodes[4].excluded = true;
    d.edges = {edge(d, 0, 1), edge(d, 1, 2, "f16"), edge(d, 2, 3, "f32"),
               edge(d, 4, 5), edge(d, 1, 5, "f16"), edge(d, 5, 6, "f32")};
    finish(d);
    return d;
}

// The same drawing listed bottom up: scene order must not depend on list order.
GraphDrawing reversed(const GraphDrawing& d) {
    GraphDrawing r = d;
    std::reverse(r.nodes.begin(), r.nodes.end());
    const auto n = static_cast<int>(d.nodes.size());
    for (DrawnEdge& e : r.edges) {
        e.source = n - 1 - e.source;
        e.target = n - 1 - e.target;
    }
    return r;
}

// columns x rows nodes on a 190 x 90 grid, each feeding the one below: larger than any test viewport.
GraphDrawing gridDrawing(int columns, int rows) {
    GraphDrawing d;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < columns; ++c) {
            d.nodes << node(QStringLiteral("n%1_%2").arg(r).arg(c), "Activation", NodeStyle::Unchanged,
                            QPointF(c * 190, r * 90));
        }
    }
    for (int i = 0; i + columns < d.nodes.size(); ++i) {
        d.edges << edge(d, i, i + columns);
    }
    finish(d);
    return d;
}

const GraphEdgeLayer* edgeLayerOf(const GraphView& view) {
    for (const QGraphicsItem* item : view.scene()->items()) {
        if (item->type() == GraphEdgeLayer::Type) return static_cast<const GraphEdgeLayer*>(item);
    }
    return nullptr;
}

int countItems(const GraphView& view, int type) {
    int count = 0;
    for (const QGraphicsItem* item : view.scene()->items()) {
        count += item->type() == type ? 1 : 0;
    }
    return count;
}

QPoint viewportPoint(const GraphView& view, const QString& name) {
    return view.mapFromScene(view.nodeScenePos(name));
}

double contrast(const QColor& a, const QColor& b) {
    const auto lum = [](const QColor& c) {
        const auto ch = [](double v) {
            return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
    };
    const double la = lum(a);
    const double lb = lum(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QPalette darkPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, Qt::white);
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::Text, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
    return p;
}

}  // namespace

class TestGraphView : public QObject {
    Q_OBJECT

    // A shown view of the sample at 1:1, large enough to hold it all.
    struct Shown {
        GraphView view;
        Shown() {
            view.resize(640, 520);
            view.setDrawing(sampleDrawing());
            view.show();
        }
    };

private slots:
    void oneItemPerNodeAndEdge() {
        GraphView view;
        const GraphDrawing d = sampleDrawing();
        view.setDrawing(d);
        QCOMPARE(countItems(view, GraphNodeItem::Type), d.nodes.size());
        QCOMPARE(countItems(view, GraphEdgeLayer::Type), 1);     // every edge, in one item
        QCOMPARE(countItems(view, GraphOverviewItem::Type), 1);  // stands in for them when zoomed far out
        QCOMPARE(view.scene()->items().size(), d.nodes.size() + 2);
        const auto* layer = edgeLayerOf(view);
        QCOMPARE(layer->edgesMeeting(d.bounds.adjusted(-50, -50, 50, 50)).size(), d.edges.size());
        for (const DrawnNode& n : d.nodes) {
            const QGraphicsItem* item = view.itemForNode(n.name);
            QVERIFY2(item, qPrintable(n.name));
            QCOMPARE(item->pos(), n.centre);
            QCOMPARE(view.nodeScenePos(n.name), n.centre);
        }
        QVERIFY(!view.itemForNode(QStringLiteral("missing")));
        QVERIFY(view.scene()->sceneRect().contains(d.bounds));

        // Replacing the drawing replaces every item.
        const GraphDrawing grid = gridDrawing(3, 2);
        view.setDrawing(grid);
        QCOMPARE(countItems(view, GraphNodeItem::Type), 6);
        QCOMPARE(edgeLayerOf(view)->edgesMeeting(grid.bounds.adjusted(-50, -50, 50, 50)).size(), 3);
        QVERIFY(!view.itemForNode(QStringLiteral("conv0")));
        QCOMPARE(view.drawing().nodes.size(), 6);
    }

    // A trunk (edges into one node sharing their way) is one more edge of the layer; a branch that
    // ends on it has no arrow head, so its box stops at the trunk.
    void trunksAreDrawnOnceAndBranchesHaveNoArrow() {
        GraphView view;
        GraphDrawing d = sampleDrawing();
        DrawnEdge trunk = d.edges.front();
        trunk.source = -1;
        d.trunks.push_back(trunk);
        DrawnEdge& branch = d.edges.back();
        branch.arrow = false;
        view.setDrawing(d);
        const auto* layer = edgeLayerOf(view);
        QCOMPARE(layer->edgesMeeting(d.bounds.adjusted(-50, -50, 50, 50)).size(), d.edges.size() + 1);
        QCOMPARE(layer->edge(int(d.edges.size())).source, -1);
        QVERIFY(edgeShape(branch, GraphSceneStyle::fromPalette(view.palette(), view.font())).bounds.bottom() <=
                branch.points.last().y() + 2);  // the pen's width, no arrow head below
        DrawnEdge withArrow = branch;
        withArrow.arrow = true;
        const QRectF arrowBox = edgeShape(withArrow, GraphSceneStyle::fromPalette(view.palette(), view.font())).bounds;
        QVERIFY(arrowBox.width() > 2 * 3);  // the head reaches to the sides
    }

    // A drawing past kEagerNodeItems nodes gets node items only where the view has been: the rest
    // come as it scrolls there, with the selection and search state they would have had.
    void largeDrawingsMakeNodeItemsWhereTheViewLooks() {
        GraphView view;
        view.resize(800, 600);
        view.show();
        const GraphDrawing grid = gridDrawing(100, 80);  // 8,000 nodes
        view.setDrawing(grid);
        view.resetZoom();
        const int first = countItems(view, GraphNodeItem::Type);
        QVERIFY2(first > 0 && first < 2000, qPrintable(QString::number(first)));
        const DrawnNode& far = grid.nodes.last();
        QVERIFY(!view.itemForNode(far.name));
        QCOMPARE(view.findNodes(far.name), 1);
        view.selectNode(far.name);  // scrolls there
        const QGraphicsItem* item = view.itemForNode(far.name);
        QVERIFY(item);
        QVERIFY(static_cast<const GraphNodeItem*>(item)->isSelectedNode());
        QVERIFY(static_cast<const GraphNodeItem*>(item)->isMatched());
        QCOMPARE(view.nodeNameAt(view.mapFromScene(far.centre)), far.name);
        QVERIFY(countItems(view, GraphNodeItem::Type) < int(grid.nodes.size()));

        // Replaced by another large drawing (its scene rect moves the scroll bars while the old
        // cells are gone): items only for the new one, where the view looks.
        const GraphDrawing other = gridDrawing(90, 70);
        view.setDrawing(other);
        const int again = countItems(view, GraphNodeItem::Type);
        QVERIFY2(again > 0 && again < 2000, qPrintable(QString::number(again)));
        QVERIFY(!view.itemForNode(far.name) || other.nodes.size() > grid.nodes.size());
    }

    void castCount_data() {
        QTest::addColumn<QList<int>>("styles");
        QTest::addColumn<int>("casts");
        QTest::newRow("no casts") << QList<int>{0, 1, 2, 3, 4} << 0;
        QTest::newRow("one cast") << QList<int>{0, 1, 5, 2} << 1;
        QTest::newRow("casts and multicasts") << QList<int>{5, 6, 1, 5, 6, 6} << 5;
        QTest::newRow("empty") << QList<int>{} << 0;
    }
    void castCount() {
        QFETCH(QList<int>, styles);
        QFETCH(int, casts);
        GraphDrawing d;
        for (int i = 0; i < styles.size(); ++i) {
            d.nodes << node(QStringLiteral("n%1").arg(i), "op", static_cast<NodeStyle>(styles[i]),
                            QPointF(0, i * 80));
        }
        finish(d);
        GraphView view;
        view.setDrawing(d);
        QCOMPARE(view.highlightedCastCount(), casts);
    }

    // The precision debugger's colouring: measured nodes in the error scale's colour, the rest in
    // one grey, warnings marked; back to the precision colours on request; a new drawing keeps them.
    void errorColouringFollowsTheMarks() {
        GraphView view;
        view.setDrawing(sampleDrawing());
        auto item = [&](const char* name) { return static_cast<GraphNodeItem*>(view.itemForNode(QLatin1String(name))); };
        QHash<QString, GraphView::NodeErrorMark> marks;
        marks.insert(QStringLiteral("conv0"), {1e-3, {QStringLiteral("activations past 512")}, QStringLiteral("error 1e-3")});
        marks.insert(QStringLiteral("softmax"), {std::nan(""), {}, QStringLiteral("error n/a")});
        view.setErrorMarks(marks);
        QVERIFY(!item("conv0")->hasFillOverride());  // still coloured by precision
        QVERIFY(item("conv0")->hasWarningMark());    // warnings show in both colourings
        view.setColouring(GraphView::Colouring::Error);
        QCOMPARE(item("conv0")->fillOverride(), error_scale::colourFor(1e-3));
        QCOMPARE(item("softmax")->fillOverride(), error_scale::colourAt(1.0));  // undefined: the worst end
        QCOMPARE(item("data")->fillOverride(), error_scale::unmeasuredFill(false));
        QVERIFY(!item("softmax")->hasWarningMark());
        QVERIFY(view.toolTipForNode(QStringLiteral("conv0")).contains(QStringLiteral("activations past 512")));
        view.setDrawing(sampleDrawing());
        QCOMPARE(item("conv0")->fillOverride(), error_scale::colourFor(1e-3));
        view.setColouring(GraphView::Colouring::Precision);
        QVERIFY(!item("conv0")->hasFillOverride());
        QVERIFY(!item("data")->hasFillOverride());
        // The scale itself: ordered from dark to light, clamped at both ends.
        QVERIFY(error_scale::colourFor(1e-6).lightness() < error_scale::colourFor(1e-1).lightness());
        QCOMPARE(error_scale::position(1e-9), 0.0);
        QCOMPARE(error_scale::position(10.0), 1.0);
        QCOMPARE(error_scale::position(1e-3), 0.5);
    }

    void sampleCountsItsCasts() {
        GraphView view;
        view.setDrawing(sampleDrawing());
        QCOMPARE(view.highlightedCastCount(), 2);
    }

    void clickSelectsTheNode_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("variable") << "data";
        QTest::newRow("operator") << "conv0";
        QTest::newRow("amp_cast (hexagon)") << "conv0_amp_cast0";
        QTest::newRow("amp_multicast (pill)") << "add0_amp_multicast";
        QTest::newRow("excluded") << "fc1_weight";
    }
    void clickSelectsTheNode() {
        QFETCH(QString, name);
        Shown s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.view));
        QSignalSpy selected(&s.view, &GraphView::nodeSelected);
        QCOMPARE(s.view.nodeNameAt(viewportPoint(s.view, name)), name);
        QTest::mouseClick(s.view.viewport(), Qt::LeftButton, {}, viewportPoint(s.view, name));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toString(), name);
        QCOMPARE(s.view.selectedNode(), name);
        QVERIFY(static_cast<GraphNodeItem*>(s.view.itemForNode(name))->isSelectedNode());

        // Clicking the selected node again announces nothing new; empty space clears.
        QTest::mouseClick(s.view.viewport(), Qt::LeftButton, {}, viewportPoint(s.view, name));
        QCOMPARE(selected.count(), 1);
        QTest::mouseClick(s.view.viewport(), Qt::LeftButton, {}, s.view.mapFromScene(QPointF(200, 90)));
        QCOMPARE(selected.count(), 2);
        QCOMPARE(selected.at(1).at(0).toString(), QString());
        QVERIFY(s.view.selectedNode().isEmpty());
        QVERIFY(!static_cast<GraphNodeItem*>(s.view.itemForNode(name))->isSelectedNode());
    }

    void hitTestFollowsTheShape() {
        Shown s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.view));
        // Just inside the cast's bounding box, top left: outside its hexagon.
        const QPointF corner = s.view.nodeScenePos(QStringLiteral("conv0_amp_cast0")) + QPointF(-63, -19);
        QCOMPARE(s.view.nodeNameAt(s.view.mapFromScene(corner)), QString());
        // The same corner of an ordinary node is inside its (rounded) box.
        const QPointF conv = s.view.nodeScenePos(QStringLiteral("conv0")) + QPointF(-60, -17);
        QCOMPARE(s.view.nodeNameAt(s.view.mapFromScene(conv)), QStringLiteral("conv0"));
    }

    void dragPansWithoutSelecting() {
        GraphView view;
        view.resize(300, 200);
        view.setDrawing(gridDrawing(8, 8));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy selected(&view, &GraphView::nodeSelected);
        const QPoint start = view.mapFromScene(view.nodeScenePos(QStringLiteral("n1_1")));
        const QPointF before = view.viewportCentre();
        QTest::mousePress(view.viewport(), Qt::LeftButton, {}, start);
        QMouseEvent move(QEvent::MouseMove, QPointF(start + QPoint(-60, -40)),
                         view.viewport()->mapToGlobal(QPointF(start + QPoint(-60, -40))), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view.viewport(), &move);
        QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, start + QPoint(-60, -40));
        QCOMPARE(selected.count(), 0);
        QVERIFY(view.viewportCentre() != before);
    }

    void farOutTheOverviewStandsIn() {
        GraphView view;
        view.resize(400, 300);
        view.setDrawing(gridDrawing(40, 40));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto overview = [&] {
            for (QGraphicsItem* item : view.scene()->items()) {
                if (item->type() == GraphOverviewItem::Type) {
                    return item;
                }
            }
            return static_cast<QGraphicsItem*>(nullptr);
        };
        const QString name = QStringLiteral("n20_20");
        QVERIFY(view.itemForNode(name)->isVisible());
        QVERIFY(!overview()->isVisible());

        view.setZoom(kPlainEdgeLevel * 0.9);
        QVERIFY(!view.itemForNode(name)->isVisible());
        QVERIFY(overview()->isVisible());
        // Hit tests, clicks and tool tips still find the nodes.
        view.centreOn(view.nodeScenePos(name));
        const QPoint at = view.mapFromScene(view.nodeScenePos(name));
        QCOMPARE(view.nodeNameAt(at), name);
        QCOMPARE(view.nodeNameAt(view.mapFromScene(view.nodeScenePos(name) + QPointF(95, 45))), QString());
        QSignalSpy selected(&view, &GraphView::nodeSelected);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toString(), name);

        // A new drawing at this zoom starts in the overview; zooming back in brings the items back.
        view.setDrawing(gridDrawing(40, 41));
        QVERIFY(!view.itemForNode(name)->isVisible());
        QVERIFY(overview()->isVisible());
        view.resetZoom();
        QVERIFY(view.itemForNode(name)->isVisible());
        QVERIFY(!overview()->isVisible());
    }

    void exportDrawsDetailWhateverTheZoom() {
        Shown s;
        s.view.setZoom(0.05);  // the view shows the overview; a 1:1 picture must show the items
        QTemporaryDir dir;
        QVERIFY(s.view.exportPng(dir.filePath("g.png")));
        const QImage image(dir.filePath("g.png"));
        const QRectF scene = s.view.scene()->sceneRect();
        const QPoint castAt =
            (s.view.nodeScenePos(QStringLiteral("conv0_amp_cast0")) - scene.topLeft()).toPoint();
        // The hexagon's left point: background there in the item, fill in the overview's rectangle.
        QCOMPARE(image.pixelColor(castAt + QPoint(-63, -19)).rgb(),
                 s.view.palette().color(QPalette::Base).rgb());
        QCOMPARE(image.pixelColor(castAt + QPoint(-55, 0)).rgb(),
                 GraphView::nodeStyleColor(NodeStyle::Cast).rgb());
        QVERIFY(!s.view.itemForNode(QStringLiteral("conv0"))->isVisible());  // and the view is as it was
    }

    void doubleClickActivates() {
        Shown s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.view));
        QSignalSpy activated(&s.view, &GraphView::nodeActivated);
        QTest::mouseDClick(s.view.viewport(), Qt::LeftButton, {},
                           viewportPoint(s.view, QStringLiteral("softmax")));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toString(), QStringLiteral("softmax"));
        QTest::mouseDClick(s.view.viewport(), Qt::LeftButton, {}, s.view.mapFromScene(QPointF(200, 90)));
        QCOMPARE(activated.count(), 1);
    }

    void selectNodeSelectsOnce() {
        Shown s;
        QSignalSpy selected(&s.view, &GraphView::nodeSelected);
        s.view.selectNode(QStringLiteral("softmax"));
        QCOMPARE(s.view.selectedNode(), QStringLiteral("softmax"));
        QVERIFY(static_cast<GraphNodeItem*>(s.view.itemForNode(QStringLiteral("softmax")))->isSelectedNode());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toString(), QStringLiteral("softmax"));
        s.view.selectNode(QStringLiteral("softmax"));
        s.view.selectNode(QStringLiteral("softmax"), false);
        QCOMPARE(selected.count(), 1);

        // Another node moves the selection: the old one is no longer drawn selected.
        s.view.selectNode(QStringLiteral("data"));
        QCOMPARE(selected.count(), 2);
        QVERIFY(
            !static_cast<GraphNodeItem*>(s.view.itemForNode(QStringLiteral("softmax")))->isSelectedNode());
        // An empty name clears, and says so.
        s.view.selectNode(QString());
        QCOMPARE(selected.count(), 3);
        QVERIFY(s.view.selectedNode().isEmpty());
    }

    void selectingAMissingNameClearsSilently() {
        Shown s;
        s.view.selectNode(QStringLiteral("conv0"));
        QSignalSpy selected(&s.view, &GraphView::nodeSelected);
        s.view.selectNode(QStringLiteral("only_in_the_other_view"));
        QVERIFY(s.view.selectedNode().isEmpty());
        QVERIFY(!static_cast<GraphNodeItem*>(s.view.itemForNode(QStringLiteral("conv0")))->isSelectedNode());
        QCOMPARE(selected.count(), 0);
    }

    void ensureVisibleScrollsToTheNode() {
        GraphView view;
        view.resize(300, 200);
        view.setDrawing(gridDrawing(12, 12));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QString far = QStringLiteral("n11_11");
        QVERIFY(!view.mapToScene(view.viewport()->rect()).boundingRect().contains(view.nodeScenePos(far)));
        view.selectNode(far);
        QVERIFY(view.mapToScene(view.viewport()->rect()).boundingRect().contains(view.nodeScenePos(far)));
        const QPointF centre = view.viewportCentre();
        view.selectNode(QStringLiteral("n0_0"), false);
        QCOMPARE(view.viewportCentre(), centre);
    }

    void search_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");  // in scene order: top to bottom, left to right
        QTest::newRow("name, exact case") << "conv0" << QStringList{"conv0", "conv0_amp_cast0"};
        QTest::newRow("name, other case") << "CONV0_AMP" << QStringList{"conv0_amp_cast0"};
        QTest::newRow("op, other case") << "convolution" << QStringList{"conv0"};
        QTest::newRow("op or name") << "amp_" << QStringList{"conv0_amp_cast0", "add0_amp_multicast"};
        QTest::newRow("same row, left first")
            << "0" << QStringList{"conv0", "conv0_amp_cast0", "add0_amp_multicast", "add0"};
        QTest::newRow("softmax by op") << "SoftmaxOut" << QStringList{"softmax"};
        QTest::newRow("weights") << "_weight" << QStringList{"fc1_weight"};
        QTest::newRow("nothing") << "resnet" << QStringList{};
    }
    void search() {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        Shown s;
        s.view.setDrawing(reversed(sampleDrawing()));
        QCOMPARE(s.view.findNodes(text), expected.size());
        QCOMPARE(s.view.matchCount(), expected.size());
        for (const DrawnNode& n : s.view.drawing().nodes) {
            QCOMPARE(static_cast<GraphNodeItem*>(s.view.itemForNode(n.name))->isMatched(),
                     expected.contains(n.name));
        }
        QStringList visited;
        for (int i = 0; i < expected.size(); ++i) {
            QVERIFY(s.view.selectNextMatch());
            visited << s.view.selectedNode();
        }
        QCOMPARE(visited, expected);
        if (expected.isEmpty()) {
            QVERIFY(!s.view.selectNextMatch());
            QVERIFY(!s.view.selectPreviousMatch());
            QVERIFY(s.view.selectedNode().isEmpty());
        }
    }

    void searchWrapsAround() {
        Shown s;
        QSignalSpy selected(&s.view, &GraphView::nodeSelected);
        QCOMPARE(s.view.findNodes(QStringLiteral("AMP")), 2);
        const QString first = QStringLiteral("conv0_amp_cast0");
        const QString second = QStringLiteral("add0_amp_multicast");
        QVERIFY(s.view.selectPreviousMatch());  // backwards from the start: the last one
        QCOMPARE(s.view.selectedNode(), second);
        QVERIFY(s.view.selectNextMatch());
        QCOMPARE(s.view.selectedNode(), first);
        QVERIFY(s.view.selectNextMatch());
        QCOMPARE(s.view.selectedNode(), second);
        QVERIFY(s.view.selectNextMatch());
        QCOMPARE(s.view.selectedNode(), first);
        QCOMPARE(s.view.currentMatch(), 0);
        QVERIFY(s.view.selectPreviousMatch());
        QCOMPARE(s.view.selectedNode(), second);
        QCOMPARE(selected.count(), 5);
        QCOMPARE(selected.last().at(0).toString(), second);

        // An empty text clears the matches and their highlight.
        QCOMPARE(s.view.findNodes(QString()), 0);
        QVERIFY(!static_cast<GraphNodeItem*>(s.view.itemForNode(first))->isMatched());
        QVERIFY(!s.view.selectNextMatch());
    }

    void searchCentresOnTheMatch() {
        GraphView view;
        view.resize(300, 200);
        view.setDrawing(gridDrawing(12, 12));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.findNodes(QStringLiteral("n10_9")), 1);
        QVERIFY(view.selectNextMatch());
        const QPointF target = view.nodeScenePos(QStringLiteral("n10_9"));
        QVERIFY(QLineF(view.viewportCentre(), target).length() < 2);
    }

    void zoomSteps() {
        GraphView view;
        view.resize(400, 300);
        view.setDrawing(gridDrawing(12, 12));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy zoomed(&view, &GraphView::zoomChanged);
        QCOMPARE(view.zoom(), 1.0);

        view.zoomIn();
        QCOMPARE(view.zoom(), GraphView::kZoomStep);
        QCOMPARE(zoomed.count(), 1);
        QCOMPARE(zoomed.last().at(0).toDouble(), view.zoom());
        view.zoomOut();
        view.zoomOut();
        QCOMPARE(view.zoom(), 1 / GraphView::kZoomStep);
        QCOMPARE(zoomed.count(), 3);

        view.setZoom(2.0);
        QCOMPARE(zoomed.count(), 4);
        view.setZoom(2.0);  // unchanged: silent, which is what keeps tied views from looping
        QCOMPARE(zoomed.count(), 4);
        view.setZoom(1e6);
        QCOMPARE(view.zoom(), GraphView::kMaxZoom);
        view.setZoom(0);
        QCOMPARE(view.zoom(), GraphView::kMinZoom);
        view.resetZoom();
        QCOMPARE(view.zoom(), 1.0);

        const int before = zoomed.count();
        view.fitToView();
        QVERIFY(view.zoom() < 1.0);
        QCOMPARE(zoomed.count(), before + 1);
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect().adjusted(-1, -1, 1, 1);
        QVERIFY(visible.contains(view.drawing().bounds));
    }

    void fitNeverEnlarges() {
        Shown s;
        s.view.setZoom(0.5);
        s.view.fitToView();
        QCOMPARE(s.view.zoom(), 1.0);
    }

    void ctrlWheelZoomsAboutTheMouse_data() {
        QTest::addColumn<int>("angle");
        QTest::newRow("in") << 120;
        QTest::newRow("out") << -240;
    }
    void ctrlWheelZoomsAboutTheMouse() {
        QFETCH(int, angle);
        GraphView view;
        view.resize(400, 300);
        view.setDrawing(gridDrawing(12, 12));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.centreOn(view.drawing().bounds.center());
        const QPoint mouse(90, 70);
        const QPointF under = view.mapToScene(mouse);
        QWheelEvent wheel(QPointF(mouse), QPointF(view.viewport()->mapToGlobal(mouse)), QPoint(),
                          QPoint(0, angle), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QVERIFY(qFuzzyCompare(view.zoom(), std::pow(GraphView::kZoomStep, angle / 120.0)));
        QVERIFY2(
            QLineF(view.mapToScene(mouse), under).length() < 3 / view.zoom(),
            qPrintable(
                QStringLiteral("%1,%2").arg(view.mapToScene(mouse).x()).arg(view.mapToScene(mouse).y())));

        // Without Ctrl the wheel scrolls.
        const double zoom = view.zoom();
        const int scroll = view.verticalScrollBar()->value();
        QWheelEvent plain(QPointF(mouse), QPointF(view.viewport()->mapToGlobal(mouse)), QPoint(),
                          QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &plain);
        QCOMPARE(view.zoom(), zoom);
        QVERIFY(view.verticalScrollBar()->value() > scroll);
    }

    void tiedViewsFollowWithoutFeedback() {
        GraphView a;
        GraphView b;
        for (GraphView* v : {&a, &b}) {
            v->resize(400, 300);
            v->setDrawing(gridDrawing(12, 12));
            v->show();
        }
        connect(&a, &GraphView::viewportMoved, &b, &GraphView::centreOn);
        connect(&b, &GraphView::viewportMoved, &a, &GraphView::centreOn);
        connect(&a, &GraphView::zoomChanged, &b, &GraphView::setZoom);
        connect(&b, &GraphView::zoomChanged, &a, &GraphView::setZoom);
        connect(&a, &GraphView::nodeSelected, &b, [&b](const QString& n) { b.selectNode(n); });
        connect(&b, &GraphView::nodeSelected, &a, [&a](const QString& n) { a.selectNode(n); });
        QSignalSpy aMoved(&a, &GraphView::viewportMoved);
        QSignalSpy bMoved(&b, &GraphView::viewportMoved);
        QSignalSpy aZoomed(&a, &GraphView::zoomChanged);
        QSignalSpy bZoomed(&b, &GraphView::zoomChanged);

        a.verticalScrollBar()->setValue(a.verticalScrollBar()->value() + 150);
        QCOMPARE(aMoved.count(), 1);
        QCOMPARE(bMoved.count(), 0);
        QVERIFY(QLineF(a.viewportCentre(), b.viewportCentre()).length() < 1.5);

        b.zoomOut();
        QCOMPARE(a.zoom(), b.zoom());
        QCOMPARE(aZoomed.count(), 1);
        QCOMPARE(bZoomed.count(), 1);
        QVERIFY(QLineF(a.viewportCentre(), b.viewportCentre()).length() < 2);

        a.selectNode(QStringLiteral("n3_4"));
        QCOMPARE(b.selectedNode(), QStringLiteral("n3_4"));
        QCOMPARE(a.selectedNode(), QStringLiteral("n3_4"));
    }

    void contextMenuNamesTheNode() {
        Shown s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.view));
        QSignalSpy requested(&s.view, &GraphView::nodeContextMenuRequested);
        const QPoint pos = viewportPoint(s.view, QStringLiteral("add0"));
        const QPoint global = s.view.viewport()->mapToGlobal(pos);
        QContextMenuEvent event(QContextMenuEvent::Mouse, pos, global);
        QApplication::sendEvent(s.view.viewport(), &event);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), QStringLiteral("add0"));
        QCOMPARE(requested.at(0).at(1).toPoint(), global);
        QCOMPARE(s.view.selectedNode(), QStringLiteral("add0"));

        const QPoint empty = s.view.mapFromScene(QPointF(200, 90));
        QContextMenuEvent nowhere(QContextMenuEvent::Mouse, empty, s.view.viewport()->mapToGlobal(empty));
        QApplication::sendEvent(s.view.viewport(), &nowhere);
        QCOMPARE(requested.count(), 1);
    }

    void setDrawingKeepsSelectionZoomAndSearch() {
        Shown s;
        s.view.setZoom(0.5);
        s.view.selectNode(QStringLiteral("softmax"));
        QCOMPARE(s.view.findNodes(QStringLiteral("conv")), 2);
        QSignalSpy selected(&s.view, &GraphView::nodeSelected);
        QSignalSpy zoomed(&s.view, &GraphView::zoomChanged);

        GraphDrawing moved = sampleDrawing();
        for (DrawnNode& n : moved.nodes) {
            n.centre += QPointF(50, 20);
        }
        finish(moved);
        s.view.setDrawing(moved);
        QCOMPARE(s.view.selectedNode(), QStringLiteral("softmax"));
        QVERIFY(static_cast<GraphNodeItem*>(s.view.itemForNode(QStringLiteral("softmax")))->isSelectedNode());
        QCOMPARE(s.view.zoom(), 0.5);
        QCOMPARE(s.view.matchCount(), 2);
        QVERIFY(static_cast<GraphNodeItem*>(s.view.itemForNode(QStringLiteral("conv0")))->isMatched());

        // Without the node, nothing is selected (and nothing announced: the other view keeps its own).
        moved.nodes[3].name = QStringLiteral("softmax_renamed");
        s.view.setDrawing(moved);
        QVERIFY(s.view.selectedNode().isEmpty());
        QCOMPARE(selected.count(), 0);
        QCOMPARE(zoomed.count(), 0);
    }

    void exportsWriteWholeFiles() {
        Shown s;
        s.view.selectNode(QStringLiteral("conv0"));
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("graph.png"));
        QVERIFY2(s.view.exportPng(png, &error), qPrintable(error));
        QImage image(png);
        QVERIFY(!image.isNull());
        const QRectF scene = s.view.scene()->sceneRect();
        QCOMPARE(image.width(), qCeil(scene.width()));  // 1:1
        QCOMPARE(image.height(), qCeil(scene.height()));
        QVERIFY(std::abs(double(image.width()) / image.height() - scene.width() / scene.height()) < 0.01);
        // Something is drawn: inside the cast's hexagon, left of its text, is the cast fill.
        const QPoint castAt =
            (s.view.nodeScenePos(QStringLiteral("conv0_amp_cast0")) - scene.topLeft()).toPoint();
        QCOMPARE(image.pixelColor(castAt + QPoint(-55, 0)).rgb(),
                 GraphView::nodeStyleColor(NodeStyle::Cast).rgb());

        const QString svg = dir.filePath(QStringLiteral("graph.svg"));
        QVERIFY2(s.view.exportSvg(svg, &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("</svg>"));
        QVERIFY(text.contains("SoftmaxOutput"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);  // no temporary files left behind
    }

    void pngOfAHugeDrawingIsScaledDown() {
        GraphDrawing d;
        d.nodes << node("top", "op", NodeStyle::Target, {0, 0})
                << node("bottom", "op", NodeStyle::Float32, {0, 40000});
        d.edges << edge(d, 0, 1);
        finish(d);
        GraphView view;
        view.setDrawing(d);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(view.exportPng(dir.filePath(QStringLiteral("tall.png")), &error), qPrintable(error));
        const QImage image(dir.filePath(QStringLiteral("tall.png")));
        QVERIFY(image.height() <= GraphView::kMaxExportSide);
        QVERIFY(image.height() >= GraphView::kMaxExportSide - 1);
        const QRectF scene = view.scene()->sceneRect();
        QVERIFY(std::abs(double(image.width()) / image.height() - scene.width() / scene.height()) < 0.01);
    }

    void exportFailuresSayWhy_data() {
        QTest::addColumn<bool>("svg");
        QTest::newRow("png") << false;
        QTest::newRow("svg") << true;
    }
    void exportFailuresSayWhy() {
        QFETCH(bool, svg);
        Shown s;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("no/such/folder/graph") + (svg ? ".svg" : ".png"));
        QString error;
        QVERIFY(!(svg ? s.view.exportSvg(path, &error) : s.view.exportPng(path, &error)));
        QVERIFY2(error.contains(QStringLiteral("graph")), qPrintable(error));
        QVERIFY(!QFile::exists(path));

        GraphView empty;
        error.clear();
        QVERIFY(!(svg ? empty.exportSvg(dir.filePath("empty.svg"), &error)
                      : empty.exportPng(dir.filePath("empty.png"), &error)));
        QVERIFY(!error.isEmpty());
    }

    void exportBackgroundFollowsThePalette_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void exportBackgroundFollowsThePalette() {
        QFETCH(bool, dark);
        GraphView view;
        if (dark) {
            view.setPalette(darkPalette());
        } else {
            QPalette light;
            light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
            light.setColor(QPalette::Base, Qt::white);
            view.setPalette(light);
        }
        view.setDrawing(sampleDrawing());
        QTemporaryDir dir;
        QVERIFY(view.exportPng(dir.filePath("g.png")));
        const QImage image(dir.filePath("g.png"));
        QCOMPARE(image.pixelColor(2, 2).lightness() < 128, dark);
    }

    void textStaysLegible_data() {
        QTest::addColumn<int>("style");
        for (int i = 0; i < kNodeStyleCount; ++i) {
            QTest::newRow(qPrintable(GraphView::nodeStyleName(static_cast<NodeStyle>(i)))) << i;
        }
    }
    void textStaysLegible() {
        QFETCH(int, style);
        const QColor fill = GraphView::nodeStyleColor(static_cast<NodeStyle>(style));
        // WCAG AA for normal text; the fills are the same on light and dark palettes.
        QVERIFY2(contrast(fill, textColourOn(fill)) >= 4.5, qPrintable(fill.name()));
        for (const QPalette& palette : {QPalette(QColor(0xef, 0xef, 0xef)), darkPalette()}) {
            const GraphSceneStyle s = GraphSceneStyle::fromPalette(palette, QFont());
            QCOMPARE(s.text[style], textColourOn(fill));
            QVERIFY(contrast(s.edgeLabel, s.background) >= 4.5);
            QVERIFY(contrast(s.edge, s.background) >= 3.0);  // graphics: WCAG's 3:1
        }
    }

    void stylesAreDistinctAndNamed() {
        for (int i = 0; i < kNodeStyleCount; ++i) {
            const auto a = static_cast<NodeStyle>(i);
            QVERIFY(!GraphView::nodeStyleName(a).isEmpty());
            for (int j = i + 1; j < kNodeStyleCount; ++j) {
                const auto b = static_cast<NodeStyle>(j);
                QVERIFY(GraphView::nodeStyleColor(a) != GraphView::nodeStyleColor(b));
                QVERIFY(GraphView::nodeStyleName(a) != GraphView::nodeStyleName(b));
            }
        }
        QCOMPARE(GraphView::nodeStyleName(NodeStyle::Cast), QStringLiteral("amp_cast"));
        QCOMPARE(GraphView::nodeStyleName(NodeStyle::Target), QStringLiteral("Target dtype"));
        // Casts differ in shape, not only in colour.
        const QRectF box(0, 0, 100, 40);
        QVERIFY(!nodeStyleOutline(NodeStyle::Cast, box).contains(QPointF(2, 2)));
        QVERIFY(nodeStyleOutline(NodeStyle::Float32, box).contains(QPointF(2, 2)));
        QVERIFY(!nodeStyleOutline(NodeStyle::Multicast, box).contains(QPointF(3, 3)));
    }

    void legendListsEveryStyle() {
        GraphLegend row;
        QCOMPARE(row.entryCount(), kNodeStyleCount + 1);
        for (int i = 0; i < kNodeStyleCount; ++i) {
            QCOMPARE(row.entryText(i), GraphView::nodeStyleName(static_cast<NodeStyle>(i)));
        }
        GraphLegend column(Qt::Vertical);
        QVERIFY(row.sizeHint().width() > row.sizeHint().height());
        QVERIFY(column.sizeHint().height() > column.sizeHint().width());
        row.setOrientation(Qt::Vertical);
        QCOMPARE(row.sizeHint(), column.sizeHint());
    }
};

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    TestGraphView test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_graph_view.moc"
