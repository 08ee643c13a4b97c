// The graph view on synthetic drawings of 1k to 20k nodes laid out in a grid (node boxes as the
// drawing builder sizes them, about 1.3 edges a node, casts, badges and edge labels throughout).
// Times, as medians:
//   build      setDrawing() into an empty view (items and index)
//   replace    setDrawing() over the same drawing, events processed in between as in the app (what a
//              re-conversion costs)
//   first      the first full-viewport paint after setDrawing() at fit-to-view (the BSP index is
//              built lazily on the first query, so this is part of what the user waits for)
//   fit        a full-viewport paint at fit-to-view (the overview: rectangles and one-pixel lines)
//   z0.21      a full-viewport paint just above the overview's threshold: the most items painted
//   z0.35      a full-viewport paint at zoom 0.35 (shapes and arrows, no text)
//   z1         a full-viewport paint at 1:1 (everything, text included)
//   switch     crossing the overview threshold (hiding or showing every node and edge item)
// A frame of the viewport is one paint: at 60 Hz a pan or zoom step has about 16 ms.
//
//   bench_graph_view [--sizes 1000,5000,20000] [--repeats N] [--viewport 1280x800]
//
// Target (release build, this machine): build of 5,000 nodes well under 200 ms.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_stats.h"
#include "graph_drawing.h"
#include "graph_view.h"
#include "platform/process_heap_policy.h"

using namespace ampstudio::bench;

namespace {

constexpr double kColumnPitch = 190;
constexpr double kRowPitch = 90;
constexpr QSizeF kNodeSize(150, 42);

// `n` nodes in rows of about sqrt(n/2) (layered graphs are taller than wide), each feeding the node
// below it and every third one the node below-right as well, through a bend.
GraphDrawing gridDrawing(int n) {
    static const char* const ops[] = {"Convolution",    "BatchNorm",    "Activation",
                                      "FullyConnected", "elemwise_add", "Pooling"};
    const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(n / 2.0))));
    GraphDrawing d;
    d.nodes.reserve(n);
    for (int i = 0; i < n; ++i) {
        DrawnNode node;
        node.name = QStringLiteral("stage%1_unit%2_node%3").arg(i / 500).arg(i / 20 % 25).arg(i);
        if (i % 7 == 3) {
            node.style = NodeStyle::Cast;
            node.op = QStringLiteral("amp_cast");
            node.badge = i % 2 ? QStringLiteral("f16") : QStringLiteral("f32");
        } else if (i % 23 == 5) {
            node.style = NodeStyle::Multicast;
            node.op = QStringLiteral("amp_multicast");
            node.badge = QStringLiteral("widest");
        } else if (i % 11 == 0) {
            node.style = NodeStyle::Variable;
        } else {
            node.style = static_cast<NodeStyle>(1 + i % 4);  // Target, Float32, Widest, Unchanged
            node.op = QString::fromLatin1(ops[i % 6]);
        }
        node.title = node.op.isEmpty() ? QStringLiteral("parameter") : node.op;
        node.label = node.name;
        node.excluded = i % 31 == 0;
        node.centre = QPointF((i % columns) * kColumnPitch, (i / columns) * kRowPitch);
        node.size = kNodeSize;
        d.nodes.push_back(node);
    }
    const auto bottom = [&](int i) { return d.nodes[i].centre + QPointF(0, kNodeSize.height() / 2); };
    const auto top = [&](int i) { return d.nodes[i].centre - QPointF(0, kNodeSize.height() / 2); };
    for (int i = 0; i + columns < n; ++i) {
        DrawnEdge down{i, i + columns, {bottom(i), top(i + columns)}, {}};
        down.label = i % 3 == 0 ? QStringLiteral("f16") : i % 3 == 1 ? QStringLiteral("f32") : QString();
        d.edges.push_back(down);
        if (i % 3 == 0 && (i + 1) % columns != 0 && i + columns + 1 < n) {
            const QPointF bend = bottom(i) + QPointF(kColumnPitch / 2, (kRowPitch - kNodeSize.height()) / 2);
            d.edges.push_back(DrawnEdge{i, i + columns + 1, {bottom(i), bend, top(i + columns + 1)}, {}});
        }
    }
    for (const DrawnNode& node : d.nodes) {
        d.bounds |= QRectF(node.centre - QPointF(kNodeSize.width() / 2, kNodeSize.height() / 2), kNodeSize);
    }
    return d;
}

double paintMs(int repeats, GraphView& view) {
    QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    return medianMs(repeats, [&] {
        QPainter painter(&image);
        view.render(&painter);
    });
}

}  // namespace

int main(int argc, char** argv) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    std::vector<std::size_t> sizes{1000, 5000, 20000};
    int repeatsOverride = 0;
    int width = 1280;
    int height = 800;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--sizes") == 0)
            sizes = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--repeats") == 0)
            repeatsOverride = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--viewport") == 0)
            std::sscanf(argv[i + 1], "%dx%d", &width, &height);
    }

    GraphView view;
    view.setFrameShape(QFrame::NoFrame);
    view.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.resize(width, height);
    view.show();
    QApplication::processEvents();

    std::printf("# graph view, viewport %dx%d, medians in ms\n", width, height);
    std::printf("# %-6s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "nodes", "edges", "build", "replace",
                "first", "fit", "z0.21", "z0.35", "z1", "switch", "fit_zoom", "rss_mib");
    for (const std::size_t n : sizes) {
        const int repeats = repeatsOverride > 0 ? repeatsOverride : n >= 10000 ? 5 : n >= 2000 ? 9 : 21;
        const GraphDrawing drawing = gridDrawing(static_cast<int>(n));
        const GraphDrawing empty;

        const double build = medianMs(
            repeats, [&] { view.setDrawing(empty); }, [&] { view.setDrawing(drawing); });
        const double replace = medianMs(
            repeats, [] { QApplication::processEvents(); }, [&] { view.setDrawing(drawing); });
        QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        const double first = medianMs(
            repeats,
            [&] {
                view.setDrawing(empty);
                view.setDrawing(drawing);
                view.fitToView();
            },
            [&] {
                QPainter painter(&image);
                view.render(&painter);
            });

        view.fitToView();
        const double fitZoom = view.zoom();
        const double fit = paintMs(repeats, view);
        const QPointF middle = drawing.bounds.center();
        const auto paintAt = [&](double zoom) {
            view.setZoom(zoom);
            view.centreOn(middle);
            return paintMs(repeats, view);
        };
        const double low = paintAt(0.21);
        const double mid = paintAt(0.35);
        const double oneToOne = paintAt(1.0);
        const double crossing = medianMs(
            repeats, [&] { view.setZoom(0.19); }, [&] { view.setZoom(0.21); });

        std::printf("  %-6zu %6lld %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.3f %8.0f\n", n,
                    static_cast<long long>(drawing.edges.size()), build, replace, first, fit, low, mid,
                    oneToOne, crossing, fitZoom, peakRssMiB());
        std::fflush(stdout);
    }
    return 0;
}
