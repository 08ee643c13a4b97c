// Load, convert (typed and classic) and save synthetic MXNet graphs of 1k to 1M nodes, mixing every
// list kind. Prints medians in milliseconds, the peak memory, and how the cost scales.
//
//   bench_conversion [--sizes 1000,10000,100000,1000000] [--repeats N]
//
// Targets (issue 2): 100k nodes convert in < 100 ms, load + save < 1 s, 1M within 12x of 100k.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amp/conversion.h"
#include "bench_stats.h"
#include "formats/symbol_json.h"
#include "synthetic_graph.h"
#include "platform/process_heap_policy.h"

using namespace ampstudio;
using namespace ampstudio::bench;

namespace {

struct Row {
    std::size_t nodes = 0, edges = 0, nodesAfter = 0;
    double jsonMiB = 0, loadMs = 0, typedMs = 0, classicMs = 0, saveMs = 0, rssMiB = 0;
};


}  // namespace

int main(int argc, char** argv) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    std::vector<std::size_t> sizes{1000, 10000, 100000, 1000000};
    int repeatsOverride = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--sizes") == 0) sizes = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--repeats") == 0) repeatsOverride = std::atoi(argv[i + 1]);
    }
    const auto dir = std::filesystem::temp_directory_path() / "ampstudio-bench-conversion";
    std::filesystem::create_directories(dir);

    std::vector<Row> rows;
    for (const std::size_t n : sizes) {
        const int repeats = repeatsOverride > 0 ? repeatsOverride : (n >= 1000000 ? 3 : n >= 100000 ? 5 : 11);
        const Graph graph = syntheticGraph(n, 42);
        Row row;
        row.nodes = graph.size();
        for (const Node& node : graph.nodes) row.edges += node.inputs.size();

        const auto path = dir / ("synthetic-" + std::to_string(n) + "-symbol.json");
        writeSymbolJsonFile(path, graph);
        row.jsonMiB = static_cast<double>(std::filesystem::file_size(path)) / (1024.0 * 1024.0);

        // Each timed run's result is held and freed untimed before the next run (reset()): freeing
        // the previous result is not part of loading or converting.
        std::optional<Graph> held;
        row.loadMs = medianMs(
            repeats, [&] { held.reset(); }, [&] { held.emplace(readSymbolJsonFile(path)); });
        held.reset();
        const Graph loaded = readSymbolJsonFile(path);
        std::optional<ConversionResult> result;
        const auto resetResult = [&] { result.reset(); };
        ConversionOptions typed;
        row.typedMs = medianMs(repeats, resetResult, [&] { result.emplace(convertGraph(loaded, typed)); });
        ConversionOptions classic;
        classic.mode = ConversionMode::Classic;
        row.classicMs =
            medianMs(repeats, resetResult, [&] { result.emplace(convertGraph(loaded, classic)); });
        result.reset();
        const Graph converted = convertGraph(loaded, typed).graph;
        row.nodesAfter = converted.size();
        const auto out = dir / ("synthetic-" + std::to_string(n) + "-fp16-symbol.json");
        // The file is replaced each run; removing it untimed keeps the old file's release out of it.
        row.saveMs = medianMs(
            repeats, [&] { std::filesystem::remove(out); }, [&] { writeSymbolJsonFile(out, converted); });
        row.rssMiB = peakRssMiB();
        rows.push_back(row);
        std::filesystem::remove(path);
        std::filesystem::remove(out);
    }

    std::printf("# bench_conversion: synthetic MXNet graphs, median milliseconds (save = the typed result)\n");
    std::printf("%-9s %-9s %-11s %-8s %-9s %-10s %-11s %-9s %-12s %-12s\n", "# nodes", "edges", "nodes_typed", "json_MiB", "load_ms",
                "typed_ms", "classic_ms", "save_ms", "load+save_ms", "peak_rss_MiB");
    for (const Row& r : rows) {
        std::printf("%-9zu %-9zu %-11zu %-8.1f %-9.1f %-10.2f %-11.2f %-9.1f %-12.1f %-12.0f\n", r.nodes, r.edges, r.nodesAfter, r.jsonMiB,
                    r.loadMs, r.typedMs, r.classicMs, r.saveMs, r.loadMs + r.saveMs, r.rssMiB);
    }
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const Row& a = rows[i - 1];
        const Row& b = rows[i];
        const double size = static_cast<double>(b.nodes) / static_cast<double>(a.nodes);
        std::printf("# scaling %zu -> %zu nodes (x%.1f): load x%.1f, typed x%.1f, classic x%.1f, save x%.1f\n", a.nodes,
                    b.nodes, size, b.loadMs / a.loadMs, b.typedMs / a.typedMs, b.classicMs / a.classicMs,
                    b.saveMs / a.saveMs);
    }
    return 0;
}
