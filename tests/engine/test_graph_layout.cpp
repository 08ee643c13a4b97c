// The layered layout: on the real models and on random DAGs no two nodes overlap and every edge runs
// strictly downwards from its source's bottom to its target's top; crossing counts are exact on
// hand-counted cases and match a brute-force count; the full crossing reduction is never worse than
// plain barycenter sweeps; the output is deterministic; cancelling stops at the next check; and a
// graph laid out like another keeps the shared nodes' places and order.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include "amp/conversion.h"
#include "formats/symbol_json.h"
#include "layout/crossing_count.h"
#include "layout/graph_layout.h"
#include "layout/layout_input_from_graph.h"

using namespace ampstudio;

Q_DECLARE_METATYPE(ampstudio::CrossingReduction)

namespace {

using Edge = std::pair<uint32_t, uint32_t>;

// What a graph view would use: 8 px per character plus padding; variables smaller.
NodeSize guiSize(const Node& node) {
    if (node.isVariable()) {
        return {6.0 * static_cast<double>(node.name.size()) + 16, 20};
    }
    return {8.0 * static_cast<double>(node.name.size()) + 24, 28};
}

Graph loadModel(const QString& file) {
    return readSymbolJsonFile(std::string(AMS_TESTDATA_DIR "/mxnet/") + file.toStdString());
}

struct RandomDagSpec {
    int nodes = 50;
    uint32_t seed = 1;
    int components = 1;
    bool multiEdges = false;
    bool zeroSizes = false;
    int isolated = 0;  // extra nodes without edges
};

// Mostly local edges with some long ones (so that dummies and crossings abound); each component is
// a contiguous index range, and every edge goes from a lower to a higher index.
LayoutInput randomDag(const RandomDagSpec& spec) {
    std::mt19937 rng(spec.seed);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    LayoutInput input;
    const int perComponent = std::max(1, spec.nodes / spec.components);
    for (int c = 0; c < spec.components; ++c) {
        const auto first = static_cast<uint32_t>(input.sizes.size());
        for (int i = 0; i < perComponent; ++i) {
            const auto v = static_cast<uint32_t>(input.sizes.size());
            const bool zero = spec.zeroSizes && uniform(0, 3) == 0;
            input.sizes.push_back(zero ? NodeSize{0, 0}
                                       : NodeSize{double(uniform(10, 120)), double(uniform(12, 40))});
            if (v == first) {
                continue;
            }
            const int inputs = uniform(1, 3);
            for (int k = 0; k < inputs; ++k) {
                const uint32_t span = v - first;
                const uint32_t back = uniform(0, 9) == 0 ? uint32_t(uniform(1, int(span)))
                                                         : std::min<uint32_t>(span, uniform(1, 4));
                input.edges.emplace_back(v - back, v);
                if (spec.multiEdges && uniform(0, 4) == 0) {
                    input.edges.emplace_back(v - back, v);
                }
            }
        }
    }
    for (int i = 0; i < spec.isolated; ++i) {
        input.sizes.push_back(spec.zeroSizes && i % 2 == 0 ? NodeSize{0, 0} : NodeSize{30, 20});
    }
    return input;
}

// Every rule the layout promises, checked from the output alone. Empty when all hold.
QString layoutProblems(const LayoutInput& input, const GraphLayout& layout) {
    const std::size_t n = input.sizes.size();
    if (layout.nodePositions.size() != n || layout.nodeLayers.size() != n ||
        layout.edges.size() != input.edges.size()) {
        return "wrong output sizes";
    }
    constexpr double eps = 1e-6;
    for (std::size_t v = 0; v < n; ++v) {
        const Point p = layout.nodePositions[v];
        const NodeSize s = input.sizes[v];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || layout.nodeLayers[v] >= layout.layers) {
            return QString("node %1 has no proper place").arg(v);
        }
        if (p.x - s.width / 2 < -eps || p.x + s.width / 2 > layout.width + eps || p.y - s.height / 2 < -eps ||
            p.y + s.height / 2 > layout.height + eps) {
            return QString("node %1 lies outside the drawing").arg(v);
        }
    }
    // No two rectangles share any area; nodes of one layer (even empty ones) stay a gap apart.
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = a + 1; b < n; ++b) {
            const Point pa = layout.nodePositions[a], pb = layout.nodePositions[b];
            const NodeSize sa = input.sizes[a], sb = input.sizes[b];
            const bool xOverlap = std::abs(pa.x - pb.x) < (sa.width + sb.width) / 2;
            const bool yOverlap = std::abs(pa.y - pb.y) < (sa.height + sb.height) / 2;
            if (xOverlap && yOverlap) {
                return QString("nodes %1 and %2 overlap").arg(a).arg(b);
            }
            if (layout.nodeLayers[a] == layout.nodeLayers[b] &&
                std::abs(pa.x - pb.x) < (sa.width + sb.width) / 2 + 1 - eps) {
                return QString("nodes %1 and %2 of one layer are closer than a gap").arg(a).arg(b);
            }
        }
    }
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        const auto [s, t] = input.edges[e];
        const std::vector<Point> points = edgePolyline(layout, e);  // its trunk included
        if (s == t) {
            continue;
        }
        if (layout.nodeLayers[t] <= layout.nodeLayers[s]) {
            return QString("edge %1 does not go to a lower layer").arg(e);
        }
        if (points.size() < 2) {
            return QString("edge %1 has %2 points").arg(e).arg(points.size());
        }
        if (const EdgePath& path = layout.edges[e]; path.bundle != EdgePath::kNoBundle) {
            if (path.bundle >= layout.bundles.size() || path.points.size() != 2 ||
                layout.bundles[path.bundle].node != (layout.bundles[path.bundle].gathers ? t : s)) {
                return QString("edge %1 is not a branch of its trunk").arg(e);
            }
        }
        const Point start{layout.nodePositions[s].x, layout.nodePositions[s].y + input.sizes[s].height / 2};
        const Point end{layout.nodePositions[t].x, layout.nodePositions[t].y - input.sizes[t].height / 2};
        if (!(points.front() == start) || !(points.back() == end)) {
            return QString("edge %1 does not run from its source's bottom to its target's top").arg(e);
        }
        for (std::size_t i = 1; i < points.size(); ++i) {
            if (!(points[i].y > points[i - 1].y)) {
                return QString("edge %1 does not strictly descend at point %2").arg(e).arg(i);
            }
        }
    }
    return {};
}

LayoutOptions withMethod(CrossingReduction method) {
    LayoutOptions options;
    options.crossingReduction = method;
    return options;
}

// Layer-mates of `layout` among `nodes`, each layer sorted by x.
std::map<uint32_t, std::vector<uint32_t>> byLayer(const GraphLayout& layout,
                                                  const std::vector<uint32_t>& nodes) {
    std::map<uint32_t, std::vector<uint32_t>> layers;
    for (const uint32_t v : nodes) {
        layers[layout.nodeLayers[v]].push_back(v);
    }
    for (auto& [layer, members] : layers) {
        std::sort(members.begin(), members.end(), [&](uint32_t a, uint32_t b) {
            return layout.nodePositions[a].x < layout.nodePositions[b].x;
        });
    }
    return layers;
}

}  // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT
private slots:
    void realModels_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp") << "mlp-symbol.json";
        QTest::newRow("squeezenet") << "squeezenet_v1.1-symbol.json";
        QTest::newRow("lstm_ptb") << "lstm_ptb-symbol.json";
        QTest::newRow("legacy-save_000800") << "legacy-save_000800.json";
    }
    void realModels() {
        QFETCH(QString, file);
        const Graph graph = loadModel(file);
        const LayoutInput input = layoutInputFromGraph(graph, guiSize);
        for (const CrossingReduction method :
             {CrossingReduction::None, CrossingReduction::PlainBarycenter, CrossingReduction::Full}) {
            const GraphLayout layout = layoutGraph(input, withMethod(method));
            const QString problems = layoutProblems(input, layout);
            QVERIFY2(problems.isEmpty(), qPrintable(problems));
        }
        // Every parameter variable sits on the layer just above the first operator that reads it.
        const GraphLayout layout = layoutGraph(input);
        const auto consumers = graph.consumers();
        for (NodeId v = 0; v < graph.size(); ++v) {
            if (!graph.nodes[v].isVariable() || consumers[v].empty()) {
                continue;
            }
            uint32_t highest = UINT32_MAX;
            for (const NodeId c : consumers[v]) {
                highest = std::min(highest, layout.nodeLayers[c]);
            }
            QVERIFY2(layout.nodeLayers[v] + 1 == highest, graph.nodes[v].name.c_str());
        }
    }

    void randomDags_data() {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("components");
        QTest::addColumn<bool>("multiEdges");
        QTest::addColumn<bool>("zeroSizes");
        QTest::addColumn<int>("isolated");
        QTest::addColumn<CrossingReduction>("method");
        QTest::newRow("small") << 12 << 1 << 1 << false << false << 0 << CrossingReduction::Full;
        QTest::newRow("200") << 200 << 2 << 1 << false << false << 0 << CrossingReduction::Full;
        QTest::newRow("200 plain") << 200 << 2 << 1 << false << false << 0
                                   << CrossingReduction::PlainBarycenter;
        QTest::newRow("200 none") << 200 << 2 << 1 << false << false << 0 << CrossingReduction::None;
        QTest::newRow("multi-edges") << 150 << 3 << 1 << true << false << 0 << CrossingReduction::Full;
        QTest::newRow("zero sizes") << 150 << 4 << 1 << false << true << 3 << CrossingReduction::Full;
        QTest::newRow("components") << 240 << 5 << 4 << true << false << 5 << CrossingReduction::Full;
        QTest::newRow("1500") << 1500 << 6 << 2 << true << true << 0 << CrossingReduction::Full;
    }
    void randomDags() {
        QFETCH(int, nodes);
        QFETCH(int, seed);
        QFETCH(int, components);
        QFETCH(bool, multiEdges);
        QFETCH(bool, zeroSizes);
        QFETCH(int, isolated);
        QFETCH(CrossingReduction, method);
        const LayoutInput input =
            randomDag({nodes, uint32_t(seed), components, multiEdges, zeroSizes, isolated});
        const GraphLayout layout = layoutGraph(input, withMethod(method));
        const QString problems = layoutProblems(input, layout);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    void emptyAndSingle() {
        const GraphLayout empty = layoutGraph({});
        QVERIFY(empty.nodePositions.empty());
        QCOMPARE(empty.layers, 0u);
        QCOMPARE(empty.width, 0.0);
        QCOMPARE(empty.height, 0.0);

        const GraphLayout single = layoutGraph({{{40, 20}}, {}});
        QCOMPARE(single.layers, 1u);
        QCOMPARE(single.nodePositions[0], (Point{20, 10}));
        QCOMPARE(single.width, 40.0);
        QCOMPARE(single.height, 20.0);

        const LayoutInput zero{{{0, 0}, {0, 0}, {0, 0}}, {{0, 1}, {0, 2}}};
        const GraphLayout dots = layoutGraph(zero);
        const QString problems = layoutProblems(zero, dots);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // Disconnected components sit side by side, in the order of their first node, not interleaved.
    void componentsSideBySide() {
        const LayoutInput input{{{50, 20}, {50, 20}, {80, 20}, {30, 20}, {30, 20}, {10, 10}},
                                {{0, 1}, {2, 3}, {2, 4}, {3, 4}}};
        const GraphLayout layout = layoutGraph(input);
        QVERIFY(layoutProblems(input, layout).isEmpty());
        auto extent = [&](std::initializer_list<uint32_t> nodes) {
            double left = 1e300, right = -1e300;
            for (const uint32_t v : nodes) {
                left = std::min(left, layout.nodePositions[v].x - input.sizes[v].width / 2);
                right = std::max(right, layout.nodePositions[v].x + input.sizes[v].width / 2);
            }
            return std::pair{left, right};
        };
        const auto first = extent({0, 1});
        const auto second = extent({2, 3, 4});
        const auto isolated = extent({5});
        QCOMPARE(first.first, 0.0);
        QVERIFY(first.second < second.first);
        QVERIFY(second.second < isolated.first);
        QCOMPARE(layout.nodeLayers[0], 0u);  // tops aligned
        QCOMPARE(layout.nodeLayers[2], 0u);
    }

    // Parallel edges are laid out once: same polyline, counted once.
    void multiEdgesShareAPath() {
        const LayoutInput input{{{20, 20}, {20, 20}, {20, 20}}, {{0, 2}, {0, 1}, {1, 2}, {0, 2}}};
        const GraphLayout layout = layoutGraph(input);
        QVERIFY(layoutProblems(input, layout).isEmpty());
        QCOMPARE(layout.edges[0].points, layout.edges[3].points);
        QCOMPARE(layout.edges[0].points.size(), 4u);  // through one dummy: top and bottom of its layer
    }

    // A node gathering the outputs of a long chain (a loss sum over every layer): its long edges share
    // one trunk, so the layout holds a point or two per layer, not per edge and layer, and every
    // edge still runs from its source's bottom to the gatherer's top, descending.
    void longEdgesIntoOneNodeShareATrunk() {
        constexpr uint32_t chain = 400;
        LayoutInput input;
        input.sizes.assign(chain + 1, NodeSize{40, 20});
        for (uint32_t v = 1; v < chain; ++v) {
            input.edges.emplace_back(v - 1, v);
        }
        for (uint32_t v = 0; v < chain; ++v) {
            input.edges.emplace_back(v, chain);  // the last chain node's edge is one layer long
        }
        const GraphLayout layout = layoutGraph(input);
        QCOMPARE(layoutProblems(input, layout), QString());
        QCOMPARE(layout.bundles.size(), 1u);
        QCOMPARE(layout.bundles[0].node, chain);
        QVERIFY(layout.bundles[0].gathers);
        std::size_t points = layout.bundles[0].points.size();
        for (uint32_t v = 0; v + 4 <= chain; ++v) {  // those that pass three layers or more
            const EdgePath& path = layout.edges[chain - 1 + v];
            QCOMPARE(path.bundle, 0u);
            QCOMPARE(path.points.size(), 2u);  // the source's bottom, the trunk's point below it
            QCOMPARE(path.points.back(), layout.bundles[0].points[path.bundlePoint]);
            points += path.points.size();
        }
        for (std::size_t e = layout.edges.size() - 3; e < layout.edges.size(); ++e) {
            QCOMPARE(layout.edges[e].bundle, EdgePath::kNoBundle);
        }
        QVERIFY2(points < 8 * chain, qPrintable(QString::number(points)));  // without the trunk: ~chain^2
        // The trunk is one straight line.
        for (const Point& p : layout.bundles[0].points) {
            if (&p != &layout.bundles[0].points.back()) {
                QCOMPARE(p.x, layout.bundles[0].points.front().x);
            }
        }
    }

    // One node read by every layer of a chain (an attention mask): the mirror image.
    void longEdgesOutOfOneNodeShareATrunk() {
        constexpr uint32_t chain = 300;
        LayoutInput input;
        input.sizes.assign(chain + 2, NodeSize{40, 20});
        input.edges.emplace_back(0, 1);
        for (uint32_t v = 2; v <= chain; ++v) {
            input.edges.emplace_back(v - 1, v);
        }
        for (uint32_t v = 2; v <= chain; ++v) {
            input.edges.emplace_back(chain + 1, v);  // the mask, drawn at the top beside node 0
        }
        const GraphLayout layout = layoutGraph(input);
        QCOMPARE(layoutProblems(input, layout), QString());
        QCOMPARE(layout.bundles.size(), 1u);
        QCOMPARE(layout.bundles[0].node, chain + 1);
        QVERIFY(!layout.bundles[0].gathers);
        std::size_t bundled = 0;
        for (const EdgePath& path : layout.edges) {
            if (path.bundle == 0) {
                ++bundled;
                QCOMPARE(path.points.front(), layout.bundles[0].points[path.bundlePoint]);
            }
        }
        QCOMPARE(bundled, std::size_t{chain - 4});  // all but the edges into the three layers below
    }

    // Two long edges into one node stay two chains: a trunk starts at three.
    void twoLongEdgesAreNoBundle() {
        const LayoutInput input{{{20, 20}, {20, 20}, {20, 20}, {20, 20}, {20, 20}},
                                {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {1, 4}}};
        const GraphLayout layout = layoutGraph(input);
        QCOMPARE(layoutProblems(input, layout), QString());
        QVERIFY(layout.bundles.empty());
        QCOMPARE(layout.edges[4].points.size(), 2u + 2 * 3);
    }

    // Random wide DAGs whose every unread output is gathered by one last node, shuffled: the rules
    // hold, trunks included, and the edge order does not change the picture.
    void gatheringDags() {
        for (const uint32_t seed : {1u, 2u, 3u}) {
            LayoutInput input = randomDag({400, seed, 1, true, seed == 3, 0});
            std::vector<uint8_t> read(input.sizes.size(), 0);
            for (const auto& [s, t] : input.edges) {
                read[s] = 1;
            }
            const auto gatherer = static_cast<uint32_t>(input.sizes.size());
            input.sizes.push_back({60, 28});
            for (uint32_t v = 0; v < gatherer; ++v) {
                if (!read[v] || v % 7 == 0) {
                    input.edges.emplace_back(v, gatherer);
                }
            }
            const GraphLayout layout = layoutGraph(input);
            QCOMPARE(layoutProblems(input, layout), QString());
            QVERIFY(!layout.bundles.empty());
            LayoutInput shuffled = input;
            std::vector<std::size_t> order(input.edges.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::shuffle(order.begin(), order.end(), std::mt19937(seed));
            for (std::size_t i = 0; i < order.size(); ++i) {
                shuffled.edges[i] = input.edges[order[i]];
            }
            const GraphLayout again = layoutGraph(shuffled);
            QCOMPARE(again.nodePositions, layout.nodePositions);
            for (std::size_t i = 0; i < order.size(); ++i) {
                QCOMPARE(edgePolyline(again, i), edgePolyline(layout, order[i]));
            }
        }
    }

    // The progress hook hears the layout go from 0 to 1, never backwards, a few dozen times, for
    // several components and for a layout that follows pins.
    void progressRunsFromZeroToOne() {
        const LayoutInput input = randomDag({600, 9, 3, false, false, 4});
        for (const bool like : {false, true}) {
            std::vector<double> seen;
            LayoutOptions options;
            options.progress = [&](double f) { seen.push_back(f); };
            if (like) {
                const GraphLayout reference = layoutGraph(input);
                std::vector<int64_t> same(input.sizes.size());
                std::iota(same.begin(), same.end(), int64_t{0});
                layoutLike(input, reference, same, options);
            } else {
                layoutGraph(input, options);
            }
            QVERIFY(seen.size() >= 10 && seen.size() < 1000);
            QVERIFY(std::is_sorted(seen.begin(), seen.end()));
            QVERIFY(seen.front() >= 0);
            QCOMPARE(seen.back(), 1.0);
        }
    }

    // Not a DAG: the layout still ends, with finite coordinates and no overlaps; a self-loop has no path.
    void cyclesAndSelfLoops() {
        const LayoutInput input{{{20, 20}, {30, 20}, {40, 20}, {20, 20}},
                                {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}}};
        const GraphLayout layout = layoutGraph(input);
        for (const Point& p : layout.nodePositions) {
            QVERIFY(std::isfinite(p.x) && std::isfinite(p.y));
        }
        QVERIFY(layout.edges[4].points.empty());
        int upward = 0;
        for (int e = 0; e < 4; ++e) {
            const auto& points = layout.edges[e].points;
            QVERIFY(points.size() >= 2);
            upward += points.back().y < points.front().y;
        }
        QCOMPARE(upward, 1);  // exactly the edge that closes the cycle
    }

    void crossingCounts_data() {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QList<int>>("edges");  // source, target, source, target, ...
        QTest::addColumn<qulonglong>("inInputOrder");
        QTest::addColumn<qulonglong>("afterReduction");
        // 0 and 1 on top, 2 and 3 below, edges 0-3 and 1-2 (and both to 4, to keep the graph
        // connected): one crossing in input order, none once 2 and 3 swap.
        QTest::newRow("2x2 crossed") << 5 << QList<int>{0, 3, 1, 2, 2, 4, 3, 4} << 1ull << 0ull;
        QTest::newRow("2x2 straight") << 5 << QList<int>{0, 2, 1, 3, 2, 4, 3, 4} << 0ull << 0ull;
        // Disconnected, the two edges are two components side by side: nothing to cross.
        QTest::newRow("crossed, disconnected") << 4 << QList<int>{0, 3, 1, 2} << 0ull << 0ull;
        // Every two-layer order of K2,2 has one crossing, of K3,3 C(3,2)^2 = 9.
        QTest::newRow("K2,2") << 4 << QList<int>{0, 2, 0, 3, 1, 2, 1, 3} << 1ull << 1ull;
        QTest::newRow("K3,3") << 6 << QList<int>{0, 3, 0, 4, 0, 5, 1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5} << 9ull
                              << 9ull;
        // Two crossed pairs stacked: one crossing between each pair of layers.
        QTest::newRow("two crossed layers")
            << 7 << QList<int>{0, 3, 1, 2, 2, 5, 3, 4, 4, 6, 5, 6} << 2ull << 0ull;
        // r -> a -> c -> d and r -> b -> d: b's edge passes layer 2 as a dummy, which the input order
        // puts left of c (right after b), so a-c crosses b-dummy once.
        QTest::newRow("long edge") << 5 << QList<int>{0, 1, 0, 2, 1, 3, 3, 4, 2, 4} << 1ull << 0ull;
    }
    void crossingCounts() {
        QFETCH(int, nodes);
        QFETCH(QList<int>, edges);
        QFETCH(qulonglong, inInputOrder);
        QFETCH(qulonglong, afterReduction);
        LayoutInput input;
        input.sizes.assign(nodes, NodeSize{30, 20});
        for (int i = 0; i + 1 < edges.size(); i += 2) {
            input.edges.emplace_back(edges[i], edges[i + 1]);
        }
        QCOMPARE(qulonglong(layoutGraph(input, withMethod(CrossingReduction::None)).crossings), inInputOrder);
        const GraphLayout full = layoutGraph(input);
        QCOMPARE(qulonglong(full.crossings), afterReduction);
        QVERIFY(layoutProblems(input, full).isEmpty());
    }

    // The accumulator tree against the definition: a pair crosses when its ends are in opposite orders.
    void bilayerCountMatchesBruteForce() {
        std::mt19937 rng(7);
        for (int round = 0; round < 300; ++round) {
            const uint32_t upper = 1 + rng() % 12, lower = 1 + rng() % 12;
            std::vector<Edge> edges;
            const int count = static_cast<int>(rng() % 40);
            for (int i = 0; i < count; ++i) {
                edges.emplace_back(rng() % upper, rng() % lower);
            }
            uint64_t expected = 0;
            for (std::size_t i = 0; i < edges.size(); ++i) {
                for (std::size_t j = i + 1; j < edges.size(); ++j) {
                    const auto [a1, b1] = edges[i];
                    const auto [a2, b2] = edges[j];
                    expected += (a1 < a2 && b1 > b2) || (a1 > a2 && b1 < b2);
                }
            }
            QCOMPARE(countBilayerCrossings(edges, lower), expected);
        }
    }

    void neverWorseThanPlainBarycenter_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("seed");
        QTest::newRow("squeezenet") << "squeezenet_v1.1-symbol.json" << 0;
        QTest::newRow("lstm_ptb") << "lstm_ptb-symbol.json" << 0;
        for (int seed = 1; seed <= 8; ++seed) {
            QTest::newRow(qPrintable(QString("random %1").arg(seed))) << QString() << seed;
        }
    }
    void neverWorseThanPlainBarycenter() {
        QFETCH(QString, model);
        QFETCH(int, seed);
        const LayoutInput input = model.isEmpty()
                                      ? randomDag({100 + 60 * seed, uint32_t(seed), 1, seed % 2 == 0})
                                      : layoutInputFromGraph(loadModel(model), guiSize);
        const uint64_t none = layoutGraph(input, withMethod(CrossingReduction::None)).crossings;
        const uint64_t plain = layoutGraph(input, withMethod(CrossingReduction::PlainBarycenter)).crossings;
        const uint64_t full = layoutGraph(input).crossings;
        QVERIFY2(full <= plain, qPrintable(QString("full %1, plain %2").arg(full).arg(plain)));
        QVERIFY2(full <= none, qPrintable(QString("full %1, input order %2").arg(full).arg(none)));
    }

    // Same input, same output, bit for bit; and the order in which edges are listed does not matter.
    void deterministic() {
        const LayoutInput input = randomDag({400, 11, 2, true, true, 2});
        const GraphLayout a = layoutGraph(input);
        const GraphLayout b = layoutGraph(input);
        QCOMPARE(a.nodePositions, b.nodePositions);
        QCOMPARE(a.nodeLayers, b.nodeLayers);
        QCOMPARE(a.crossings, b.crossings);
        QCOMPARE(a.width, b.width);
        for (std::size_t e = 0; e < a.edges.size(); ++e) {
            QCOMPARE(a.edges[e].points, b.edges[e].points);
        }
        LayoutInput shuffled = input;
        std::reverse(shuffled.edges.begin(), shuffled.edges.end());
        QCOMPARE(layoutGraph(shuffled).nodePositions, a.nodePositions);
    }

    // The hook is asked between phases and sweeps; the first "yes" ends the layout, and it is not
    // asked again.
    void cancellation() {
        const LayoutInput input = randomDag({600, 3, 1, false});
        LayoutOptions options;
        options.sweeps = 12;
        int calls = 0;
        options.cancelled = [&] {
            ++calls;
            return false;
        };
        const GraphLayout complete = layoutGraph(input, options);
        QVERIFY(!complete.cancelled);
        const int checks = calls;
        QVERIFY2(checks > options.sweeps, qPrintable(QString::number(checks)));  // at least once per sweep

        for (const int stopAt : {1, 2, checks / 2, checks - 1, checks}) {
            calls = 0;
            options.cancelled = [&] { return ++calls >= stopAt; };
            const GraphLayout layout = layoutGraph(input, options);
            QCOMPARE(calls, stopAt);
            QVERIFY(layout.cancelled);
            QVERIFY(layout.nodePositions.empty());
            QVERIFY(layout.edges.empty());
        }
    }

    // The graph before conversion laid out like the one after it: shared nodes keep their layer
    // order, their layer and (where nothing was in the way) their exact place.
    void layoutLikeKeepsSharedPlaces_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp-symbol.json";
        QTest::newRow("squeezenet") << "squeezenet_v1.1-symbol.json";
        QTest::newRow("lstm_ptb") << "lstm_ptb-symbol.json";
    }
    void layoutLikeKeepsSharedPlaces() {
        QFETCH(QString, model);
        const Graph before = loadModel(model);
        const Graph after = convertGraph(before, ConversionOptions{}).graph;
        QVERIFY(after.size() > before.size());  // casts were inserted
        const LayoutInput afterInput = layoutInputFromGraph(after, guiSize);
        const LayoutInput beforeInput = layoutInputFromGraph(before, guiSize);
        const GraphLayout reference = layoutGraph(afterInput);

        std::map<std::string, int64_t> afterIndex;
        for (std::size_t i = 0; i < after.size(); ++i) {
            afterIndex[after.nodes[i].name] = static_cast<int64_t>(i);
        }
        std::vector<int64_t> referenceNodeOf(before.size(), -1);
        std::vector<uint32_t> shared;
        for (std::size_t i = 0; i < before.size(); ++i) {
            if (const auto it = afterIndex.find(before.nodes[i].name); it != afterIndex.end()) {
                referenceNodeOf[i] = it->second;
                shared.push_back(static_cast<uint32_t>(i));
            }
        }
        QCOMPARE(shared.size(), before.size());

        const GraphLayout like = layoutLike(beforeInput, reference, referenceNodeOf);
        const QString problems = layoutProblems(beforeInput, like);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
        expectSharedOrderKept(like, reference, referenceNodeOf, shared);
        if (QTest::currentTestFailed()) {
            return;
        }
        int samePlace = 0;
        for (const uint32_t v : shared) {
            const Point here = like.nodePositions[v];
            const Point there = reference.nodePositions[referenceNodeOf[v]];
            samePlace += std::abs(here.x - there.x) < 0.5 && std::abs(here.y - there.y) < 0.5;
        }
        QVERIFY2(
            samePlace * 10 >= int(shared.size()) * 9,
            qPrintable(QString("%1 of %2 shared nodes kept their place").arg(samePlace).arg(shared.size())));
    }

    // The same on random graphs that lose random pass-through nodes (as a graph loses its casts),
    // plus nodes the reference does not have.
    void layoutLikeOnRandomGraphs() {
        for (uint32_t seed = 1; seed <= 5; ++seed) {
            const LayoutInput full = randomDag({300, seed, 1, false});
            const GraphLayout reference = layoutGraph(full);
            std::mt19937 rng(seed);
            // Drop every node with one input and one output with probability 1/3, bridging its edge.
            std::vector<int> inDegree(full.sizes.size()), outDegree(full.sizes.size());
            for (const auto& [s, t] : full.edges) {
                ++outDegree[s];
                ++inDegree[t];
            }
            std::vector<int64_t> bridgeFrom(full.sizes.size(), -1);
            for (const auto& [s, t] : full.edges) {
                if (inDegree[t] == 1 && outDegree[t] == 1 && rng() % 3 == 0) {
                    bridgeFrom[t] = s;
                }
            }
            auto survivor = [&](uint32_t v) {
                while (bridgeFrom[v] >= 0) {
                    v = static_cast<uint32_t>(bridgeFrom[v]);
                }
                return v;
            };
            LayoutInput reduced;
            std::vector<int64_t> newIndex(full.sizes.size(), -1), referenceNodeOf;
            std::vector<uint32_t> shared;
            for (uint32_t v = 0; v < full.sizes.size(); ++v) {
                if (bridgeFrom[v] < 0) {
                    newIndex[v] = static_cast<int64_t>(reduced.sizes.size());
                    reduced.sizes.push_back(full.sizes[v]);
                    referenceNodeOf.push_back(v);
                    shared.push_back(static_cast<uint32_t>(newIndex[v]));
                }
            }
            for (const auto& [s, t] : full.edges) {
                if (bridgeFrom[t] < 0) {
                    reduced.edges.emplace_back(static_cast<uint32_t>(newIndex[survivor(s)]),
                                               static_cast<uint32_t>(newIndex[t]));
                }
            }
            for (int extra = 0; extra < 10; ++extra) {  // new nodes hanging off random shared ones
                const auto v = static_cast<uint32_t>(reduced.sizes.size());
                reduced.sizes.push_back({60, 24});
                referenceNodeOf.push_back(-1);
                reduced.edges.emplace_back(shared[rng() % shared.size()], v);
            }
            const GraphLayout like = layoutLike(reduced, reference, referenceNodeOf);
            const QString problems = layoutProblems(reduced, like);
            QVERIFY2(problems.isEmpty(), qPrintable(problems));
            expectSharedOrderKept(like, reference, referenceNodeOf, shared);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
    }

    void layoutLikeRejectsBadMaps() {
        const LayoutInput input{{{20, 20}, {20, 20}}, {{0, 1}}};
        const GraphLayout reference = layoutGraph(input);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 layoutLike(input, reference, std::vector<int64_t>{0}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 layoutLike(input, reference, std::vector<int64_t>{0, 5}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph({{{1, 1}}, {{0, 1}}}));
    }

    // One node per IR node, one edge per (producer, consumer) pair in input order.
    void inputFromGraph() {
        Graph graph;
        auto add = [&](std::string op, std::string name, std::vector<NodeEntry> inputs,
                       uint32_t outputs = 1) {
            Node node;
            node.op = std::move(op);
            node.name = std::move(name);
            node.inputs = std::move(inputs);
            node.numOutputs = outputs;
            graph.nodes.push_back(std::move(node));
        };
        add("", "x", {});
        add("", "w", {});
        add("SliceChannel", "split", {{0, 0, 0}}, 2);
        add("elemwise_add", "sum", {{2, 1, 0}, {2, 0, 0}});              // two outputs of one node: one edge
        add("FullyConnected", "fc", {{3, 0, 0}, {1, 0, 0}, {3, 0, 0}});  // the same entry twice: one edge
        const LayoutInput input = layoutInputFromGraph(graph, guiSize);
        QCOMPARE(input.sizes.size(), 5u);
        QCOMPARE(input.sizes[0].height, 20.0);
        QCOMPARE(input.sizes[4].width, 8.0 * 2 + 24);
        QCOMPARE(input.edges, (std::vector<Edge>{{0, 2}, {2, 3}, {3, 4}, {1, 4}}));
    }

private:
    // Within every layer of `layout`, shared nodes are in the order of their reference x.
    static void expectSharedOrderKept(const GraphLayout& layout, const GraphLayout& reference,
                                      const std::vector<int64_t>& referenceNodeOf,
                                      const std::vector<uint32_t>& shared) {
        for (const auto& [layer, members] : byLayer(layout, shared)) {
            for (std::size_t i = 1; i < members.size(); ++i) {
                const double left = reference.nodePositions[referenceNodeOf[members[i - 1]]].x;
                const double right = reference.nodePositions[referenceNodeOf[members[i]]].x;
                QVERIFY2(left <= right, qPrintable(QString("layer %1: nodes %2 and %3 swapped sides")
                                                       .arg(layer)
                                                       .arg(members[i - 1])
                                                       .arg(members[i])));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "test_graph_layout.moc"
