#include "workspace_snapshot.h"

#include <QElapsedTimer>

#include <algorithm>
#include <future>
#include <unordered_map>

#include "amp/amp_lists.h"
#include "amp/param_casting.h"
#include "layout/layout_input_from_graph.h"

using namespace ampstudio;

WorkspaceSnapshot computeWorkspaceSnapshot(const WorkspaceInput& input, const std::function<bool()>& cancelled,
                                           const std::function<void(SnapshotStage)>& progress,
                                           const std::function<void(GraphDrawing)>& originalFirst) {
    const auto stage = [&](SnapshotStage s) {
        if (progress) progress(s);
    };
    WorkspaceSnapshot snapshot;
    snapshot.source = input.source;
    snapshot.options = input.options;
    const Graph& source = *input.source;
    // On the second core while this one converts; joined before returning (the future's destructor).
    std::future<void> original;
    if (originalFirst && source.size() >= input.originalFirstFrom) {
        original = std::async(std::launch::async, [&] {
            LayoutOptions options;
            options.cancelled = cancelled;
            const auto sizeOf = [&](const Node& node) { return drawnNodeSize(node, input.metrics); };
            const LayoutInput layoutInput = layoutInputFromGraph(source, sizeOf);
            const GraphLayout layout = layoutGraph(layoutInput, options);
            if (!layout.cancelled) {
                const ConversionIndex unconverted(input.source, nullptr);
                originalFirst(makeGraphDrawing(unconverted, layoutInput, layout, input.options.excludedSymNames, false));
            }
        });
    }

    QElapsedTimer timer;
    timer.start();
    stage(SnapshotStage::Converting);
    try {
        auto result = std::make_shared<ConversionResult>(convertModel(source, input.formatSource.get(), input.options));
        if (input.params && !result->source) {  // an ONNX report has its initializer bytes
            fillParamBytes(*input.params, result->storedInTargetDtype, result->report.targetDtype, result->report);
        }
        snapshot.conversion = std::move(result);
    } catch (const ConversionError& e) {
        snapshot.error = QString::fromStdString(e.what());
    } catch (const AmpListsError& e) {
        snapshot.error = QString::fromStdString(e.what());
    }
    snapshot.convertMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    timer.restart();

    LayoutOptions options;
    options.cancelled = cancelled;
    const auto sizeOf = [&](const Node& node) { return drawnNodeSize(node, input.metrics); };
    const LayoutInput beforeInput = layoutInputFromGraph(source, sizeOf);
    if (!snapshot.conversion) {
        snapshot.beforeIndex = std::make_shared<const ConversionIndex>(input.source, nullptr);
        stage(SnapshotStage::LayingOutOriginal);
        const GraphLayout beforeLayout = layoutGraph(beforeInput, options);
        if (beforeLayout.cancelled) {
            return snapshot;
        }
        stage(SnapshotStage::Drawing);
        snapshot.before = makeGraphDrawing(*snapshot.beforeIndex, beforeInput, beforeLayout,
                                           input.options.excludedSymNames, false);
        snapshot.layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return snapshot;
    }

    // Aliasing pointers: the indexes keep the conversion alive, not a copy of it.
    const std::shared_ptr<const ConversionReport> report(snapshot.conversion, &snapshot.conversion->report);
    const std::shared_ptr<const Graph> convertedGraph(snapshot.conversion, &snapshot.conversion->graph);
    snapshot.beforeIndex = std::make_shared<const ConversionIndex>(input.source, report);
    snapshot.afterIndex = std::make_shared<const ConversionIndex>(convertedGraph, report);
    const Graph& converted = *convertedGraph;
    const LayoutInput afterInput = layoutInputFromGraph(converted, sizeOf);
    stage(SnapshotStage::LayingOutConverted);
    const GraphLayout afterLayout = layoutGraph(afterInput, options);
    if (afterLayout.cancelled) {
        return snapshot;
    }
    // Every original node the conversion kept is in the converted graph under its own name; the
    // unreachable ones MXNet drops are laid out around the others.
    std::unordered_map<std::string_view, int64_t> convertedIndex;
    convertedIndex.reserve(converted.size());
    for (std::size_t i = 0; i < converted.size(); ++i) {
        convertedIndex.emplace(converted.nodes[i].name, static_cast<int64_t>(i));
    }
    std::vector<int64_t> referenceNodeOf(source.size(), -1);
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (const auto it = convertedIndex.find(source.nodes[i].name); it != convertedIndex.end()) {
            referenceNodeOf[i] = it->second;
        }
    }
    stage(SnapshotStage::LayingOutOriginal);
    const GraphLayout beforeLayout = layoutLike(beforeInput, afterLayout, referenceNodeOf, options);
    if (beforeLayout.cancelled) {
        return snapshot;
    }
    stage(SnapshotStage::Drawing);
    snapshot.after = makeGraphDrawing(*snapshot.afterIndex, afterInput, afterLayout, input.options.excludedSymNames, true);
    snapshot.before =
        makeGraphDrawing(*snapshot.beforeIndex, beforeInput, beforeLayout, input.options.excludedSymNames, false);
    // One frame for both, so that fit-to-view and scrolling show the same region in each.
    snapshot.before.bounds = snapshot.after.bounds = snapshot.before.bounds.united(snapshot.after.bounds);
    snapshot.layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return snapshot;
}
