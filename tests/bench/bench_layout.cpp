// The layered graph layout on the real models and on synthetic MXNet graphs of 1k to 20k nodes, with
// node sizes as the graph views use them. Prints the median time, the crossings after the full
// reduction next to those of plain barycenter sweeps, and the drawing's size; then the same for
// layoutLike(): the graph before conversion laid out like the converted one.
//
//   bench_layout [--sizes 1000,2000,5000,20000] [--repeats N] [--testdata DIR]
//
// Targets (release build, this machine): 2,000 nodes under 0.3 s, 20,000 under 3 s; crossings no
// worse than plain barycenter.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "amp/conversion.h"
#include "bench_stats.h"
#include "formats/symbol_json.h"
#include "graph/scope_groups.h"
#include "layout/graph_layout.h"
#include "layout/layout_input_from_graph.h"
#include "synthetic_graph.h"
#include "platform/process_heap_policy.h"

using namespace ampstudio;
using namespace ampstudio::bench;

namespace {

#ifdef AMS_TESTDATA_DIR
constexpr const char* kDefaultTestdata = AMS_TESTDATA_DIR;
#else
constexpr const char* kDefaultTestdata = "../shared/testdata";
#endif

// What a graph view would use: 8 px per character plus padding; variables smaller.
NodeSize guiSize(const Node& node) {
    if (node.isVariable()) {
        return {6.0 * static_cast<double>(node.name.size()) + 16, 20};
    }
    return {8.0 * static_cast<double>(node.name.size()) + 24, 28};
}


int repeatsFor(std::size_t nodes, int override) {
    if (override > 0) {
        return override;
    }
    return nodes >= 10000 ? 5 : nodes >= 1000 ? 9 : 31;
}

}  // namespace

int main(int argc, char** argv) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    std::vector<std::size_t> sizes{1000, 2000, 5000, 20000};
    std::vector<std::size_t> gatheringSizes;
    int repeatsOverride = 0;
    std::filesystem::path testdata = kDefaultTestdata;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--sizes") == 0)
            sizes = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--gathering") == 0)
            gatheringSizes = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--repeats") == 0)
            repeatsOverride = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--testdata") == 0)
            testdata = argv[i + 1];
    }

    std::vector<std::pair<std::string, Graph>> graphs;
    for (const auto& [name, file] :
         std::vector<std::pair<std::string, std::string>>{{"mlp", "mlp-symbol.json"},
                                                          {"squeezenet", "squeezenet_v1.1-symbol.json"},
                                                          {"lstm_ptb", "lstm_ptb-symbol.json"}}) {
        try {
            graphs.emplace_back(name, readSymbolJsonFile(testdata / "mxnet" / file));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "# skipped %s: %s\n", name.c_str(), e.what());
        }
    }
    for (const std::size_t n : sizes) {
        graphs.emplace_back(
            "synthetic-" + (n % 1000 == 0 ? std::to_string(n / 1000) + "k" : std::to_string(n)),
            syntheticGraph(n, 42));
    }
    for (const std::size_t n : gatheringSizes) {
        graphs.emplace_back(
            "gathering-" + (n % 1000 == 0 ? std::to_string(n / 1000) + "k" : std::to_string(n)),
            gatheringGraph(n, 42));
    }

    std::printf(
        "# bench_layout: layoutGraph, median ms; crossings after the full reduction vs plain barycenter\n");
    std::printf("%-14s %-7s %-7s %-7s %-9s %-10s %-10s %-15s %-10s %-9s\n", "# graph", "nodes", "edges", "layers",
                "bends", "median_ms", "crossings", "plain_crossings", "width", "height");
    for (const auto& [name, graph] : graphs) {
        const LayoutInput input = layoutInputFromGraph(graph, guiSize);
        GraphLayout layout;
        const double ms =
            medianMs(repeatsFor(graph.size(), repeatsOverride), [&] { layout = layoutGraph(input); });
        LayoutOptions plain;
        plain.crossingReduction = CrossingReduction::PlainBarycenter;
        const uint64_t plainCrossings = layoutGraph(input, plain).crossings;
        std::size_t bends = 0;  // the points where edges pass layers: what the phases after ranking carry
        for (const EdgePath& edge : layout.edges) {
            bends += edge.points.size() > 2 ? edge.points.size() - 2 : 0;
        }
        std::printf("%-14s %-7zu %-7zu %-7u %-9zu %-10.2f %-10llu %-15llu %-10.0f %-9.0f\n", name.c_str(),
                    graph.size(), input.edges.size(), layout.layers, bends, ms,
                    static_cast<unsigned long long>(layout.crossings),
                    static_cast<unsigned long long>(plainCrossings), layout.width, layout.height);
        std::fflush(stdout);
    }

    // The before/after pair of the GUI: lay out the converted graph, then the original like it. The
    // original is what a file load keeps, the nodes the heads reach (the synthetic graphs have many
    // dead branches, which the conversion drops).
    std::printf(
        "# layoutLike: the original graph (reachable part) laid out like its float16 conversion, median "
        "ms\n");
    std::printf("%-14s %-7s %-7s %-10s %-10s %-10s %-12s\n", "# graph", "before", "after", "after_ms",
                "like_ms", "crossings", "same_place_%");
    for (const auto& [name, graph] : graphs) {
        const Graph before = reachableInDfsOrder(graph);
        Graph after;
        try {
            after = convertGraph(before, ConversionOptions{}).graph;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "# skipped %s: %s\n", name.c_str(), e.what());
            continue;
        }
        const LayoutInput afterInput = layoutInputFromGraph(after, guiSize);
        const LayoutInput beforeInput = layoutInputFromGraph(before, guiSize);
        GraphLayout reference;
        const int repeats = repeatsFor(after.size(), repeatsOverride);
        const double afterMs = medianMs(repeats, [&] { reference = layoutGraph(afterInput); });
        std::map<std::string, int64_t> afterIndex;
        for (std::size_t i = 0; i < after.size(); ++i) {
            afterIndex.emplace(after.nodes[i].name, static_cast<int64_t>(i));
        }
        std::vector<int64_t> referenceNodeOf(before.size(), -1);
        for (std::size_t i = 0; i < before.size(); ++i) {
            if (const auto it = afterIndex.find(before.nodes[i].name); it != afterIndex.end()) {
                referenceNodeOf[i] = it->second;
            }
        }
        GraphLayout like;
        const double likeMs =
            medianMs(repeats, [&] { like = layoutLike(beforeInput, reference, referenceNodeOf); });
        std::size_t samePlace = 0, shared = 0;
        for (std::size_t i = 0; i < before.size(); ++i) {
            if (referenceNodeOf[i] < 0) {
                continue;
            }
            ++shared;
            const Point there = reference.nodePositions[static_cast<std::size_t>(referenceNodeOf[i])];
            samePlace += std::abs(like.nodePositions[i].x - there.x) < 0.5 &&
                         std::abs(like.nodePositions[i].y - there.y) < 0.5;
        }
        std::printf("%-14s %-7zu %-7zu %-10.2f %-10.2f %-10llu %-12.1f\n", name.c_str(), before.size(),
                    after.size(), afterMs, likeMs, static_cast<unsigned long long>(like.crossings),
                    shared == 0 ? 0.0 : 100.0 * static_cast<double>(samePlace) / static_cast<double>(shared));
        std::fflush(stdout);
    }
    // Grouping by name scope (issue 24): the scoped gathering graphs, grouped as the first view
    // shows them (initiallyOpenScopes), then laid out; and one block opened.
    if (!gatheringSizes.empty()) {
        std::printf("# grouped: scopedGatheringGraph grouped by name scope, median ms\n");
        std::printf("%-16s %-8s %-7s %-7s %-10s %-10s %-7s %-10s %-10s\n", "# graph", "nodes", "items", "edges",
                    "group_ms", "layout_ms", "opened", "group_ms", "layout_ms");
    }
    for (const std::size_t n : gatheringSizes) {
        const Graph graph = scopedGatheringGraph(n, 42);
        const int repeats = repeatsFor(graph.size(), repeatsOverride);
        ScopeGroups groups;
        std::set<std::string> open;
        const double groupMs = medianMs(repeats, [&] {
            open = initiallyOpenScopes(graph, &groups);  // as the workspace does it
        });
        auto inputOf = [&](const ScopeGroups& g) {
            LayoutInput input;
            for (const auto& item : g.items) {
                input.sizes.push_back(item.group ? NodeSize{220, 48} : guiSize(graph.nodes[item.members.front()]));
            }
            input.edges = g.edges;
            return input;
        };
        GraphLayout layout;
        const double layoutMs = medianMs(repeats, [&] { layout = layoutGraph(inputOf(groups)); });
        open.insert("block1");
        ScopeGroups opened;
        const double openMs = medianMs(repeats, [&] { opened = groupByScope(graph, open); });
        const double openLayoutMs = medianMs(repeats, [&] { layout = layoutGraph(inputOf(opened)); });
        std::printf("%-16s %-8zu %-7zu %-7zu %-10.2f %-10.2f %-7zu %-10.2f %-10.2f\n",
                    ("scoped-" + std::to_string(n / 1000) + "k").c_str(), graph.size(), groups.items.size(),
                    groups.edges.size(), groupMs, layoutMs, opened.items.size(), openMs, openLayoutMs);
        std::fflush(stdout);
    }
    std::printf("# peak_rss_MiB %.0f\n", peakRssMiB());
    return 0;
}
