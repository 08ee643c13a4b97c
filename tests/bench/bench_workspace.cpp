// The workspace as a user times it: from opening (dropping) a model to both views drawn, and from
// one list edit to the converted view redrawn. Runs the real MainWindow offscreen; the conversion
// and layout run on the workspace's worker thread as in the app, so the figures include the hop
// back to the GUI thread and the scene rebuild.
//
//   QT_QPA_PLATFORM=offscreen bench_workspace [--repeats N] [--sizes 1000,5000] [--gathering 20000,100000]
//                                            [--real on|off] [--write-synthetic DIR]
//
// --gathering: issue 24's graphs of that many operators with one node gathering every unread tensor
// (gatheringGraph() in synthetic_graph.h); --scoped: the same with scoped names, which open grouped
// by name scope. Run the largest alone: the peak memory is the process's.
//
// Targets: opening squeezenet_v1.1 shows both views in under 1 s (issue 3); gathering graphs of 20k
// and 100k operators in under 3 s and 20 s, under 1 GB at 100k (issue 24).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <QUndoStack>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_stats.h"
#include "conversion_settings.h"
#include "conversion_workspace.h"
#include "formats/symbol_json.h"
#include "graph_view.h"
#include "main_window.h"
#include "synthetic_graph.h"
#include "platform/process_heap_policy.h"

using namespace ampstudio;
using namespace ampstudio::bench;

namespace {

// Spins the event loop until the workspace's latest snapshot is on screen.
void waitUntilShown(MainWindow& window) {
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (window.workspace()->snapshot() && !window.workspace()->isBusy()) loop.quit();
    });
    // Every millisecond, not continuously: a 0 ms timer spins the GUI thread, which takes one of the
    // two cores from the work being timed (the original laid out beside the conversion).
    poll.start(1);
    loop.exec();
}

struct Row {
    std::string model;
    std::size_t nodesBefore = 0, nodesAfter = 0;
    double originalMs = 0, openMs = 0, editMs = 0, undoMs = 0, closeMs = 0;
};

Row measure(const std::string& label, const QString& path, int repeats) {
    Row row;
    row.model = label;
    auto owned = std::make_unique<MainWindow>();
    MainWindow& window = *owned;
    window.resize(1400, 860);
    window.show();
    // When the original first shows: the workspace's originalLaidOut (a large model), else the snapshot.
    QElapsedTimer sinceOpen;
    double originalAt = -1;
    std::vector<double> original;
    QObject::connect(window.workspace(), &ConversionWorkspace::originalLaidOut, &window, [&] {
        if (originalAt < 0) originalAt = static_cast<double>(sinceOpen.nsecsElapsed()) / 1e6;
    });
    row.openMs = medianMs(repeats, [&] {
        originalAt = -1;
        sinceOpen.start();
        window.openFile(path);
        waitUntilShown(window);
        original.push_back(originalAt >= 0 ? originalAt : static_cast<double>(sinceOpen.nsecsElapsed()) / 1e6);
    });
    std::sort(original.begin(), original.end());
    row.originalMs = original[original.size() / 2];
    {  // (not held past here: a third snapshot alive during the edits would be the bench's, not the app's)
        const auto snapshot = window.workspace()->snapshot();
        row.nodesBefore = snapshot->source->size();
        row.nodesAfter = snapshot->conversion ? snapshot->conversion->report.nodesAfter : 0;
    }
    // An edit as the context menu makes it: the debounce delay is part of what the user waits for.
    ConversionSettings* settings = window.workspace()->settings();
    std::vector<double> edit, undo;
    for (int i = 0; i < repeats; ++i) {
        QElapsedTimer timer;
        timer.start();
        settings->moveOp(QStringLiteral("Convolution"), OpList::Fp32);
        settings->moveOp(QStringLiteral("FullyConnected"), OpList::Fp32);
        waitUntilShown(window);
        edit.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
        timer.restart();
        settings->undoStack()->undo();
        settings->undoStack()->undo();
        waitUntilShown(window);
        undo.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(edit.begin(), edit.end());
    std::sort(undo.begin(), undo.end());
    row.editMs = edit[edit.size() / 2];
    row.undoMs = undo[undo.size() / 2];
    QElapsedTimer closing;  // what closing the window (or quitting) costs: every item deleted
    closing.start();
    owned.reset();
    row.closeMs = static_cast<double>(closing.nsecsElapsed()) / 1e6;
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    // As the programs do (app/main.cpp), so the figures are theirs.
    ampstudio::applyLargeModelHeapPolicy();
    QApplication app(argc, argv);
    int repeats = 7;
    std::vector<std::size_t> sizes{1000, 5000};
    std::vector<std::size_t> gathering, scoped;
    bool real = true;
    std::filesystem::path syntheticDir = std::filesystem::temp_directory_path() / "ampstudio-bench-workspace";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--sizes") == 0) sizes = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--gathering") == 0) gathering = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--scoped") == 0) scoped = parseSizeList(argv[i + 1]);
        if (std::strcmp(argv[i], "--real") == 0) real = std::strcmp(argv[i + 1], "off") != 0;
        if (std::strcmp(argv[i], "--write-synthetic") == 0) syntheticDir = argv[i + 1];
    }
    std::filesystem::create_directories(syntheticDir);

    std::vector<std::pair<std::string, QString>> models;
    for (const char* name : {"mlp", "squeezenet_v1.1", "lstm_ptb"}) {
        if (!real) break;
        models.emplace_back(name, QStringLiteral(AMS_TESTDATA_DIR "/mxnet/") + QLatin1String(name) +
                                      QStringLiteral("-symbol.json"));
    }
    for (const std::size_t n : sizes) {
        const auto path = syntheticDir / ("synthetic-" + std::to_string(n) + "-symbol.json");
        writeSymbolJsonFile(path, syntheticGraph(n, 42));
        models.emplace_back("synthetic-" + std::to_string(n), QString::fromStdString(path.string()));
    }
    for (const std::size_t n : gathering) {
        const auto path = syntheticDir / ("gathering-" + std::to_string(n) + "-symbol.json");
        writeSymbolJsonFile(path, gatheringGraph(n, 42));
        models.emplace_back("gathering-" + std::to_string(n), QString::fromStdString(path.string()));
    }
    for (const std::size_t n : scoped) {  // grouped by name scope at first open
        const auto path = syntheticDir / ("scoped-" + std::to_string(n) + "-symbol.json");
        writeSymbolJsonFile(path, scopedGatheringGraph(n, 42));
        models.emplace_back("scoped-" + std::to_string(n), QString::fromStdString(path.string()));
    }

    std::printf("# bench_workspace: MainWindow offscreen 1400x860, median ms over %d runs\n", repeats);
    std::printf("# original = openFile() until the original shows; open = until both views show the conversion; edit = two ops moved to FP32 "
                "(debounce included) until the converted view is redrawn; undo = both undone; close = the window deleted, once\n");
    std::printf("%-18s %8s %8s %11s %10s %10s %10s %10s\n", "# model", "before", "after", "original_ms", "open_ms",
                "edit_ms", "undo_ms", "close_ms");
    for (const auto& [label, path] : models) {
        const Row row = measure(label, path, repeats);
        std::printf("%-18s %8zu %8zu %11.1f %10.1f %10.1f %10.1f %10.1f\n", row.model.c_str(), row.nodesBefore,
                    row.nodesAfter, row.originalMs, row.openMs, row.editMs, row.undoMs, row.closeMs);
        std::fflush(stdout);
    }
    std::printf("# peak_rss_MiB %.0f\n", peakRssMiB());
    return 0;
}
