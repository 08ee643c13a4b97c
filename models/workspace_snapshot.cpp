#include "workspace_snapshot.h"

#include <QElapsedTimer>

#include <algorithm>
#include <future>
#include <unordered_map>

#include "amp/amp_lists.h"
#include "amp/param_casting.h"
#include "grouped_drawing_builder.h"
#include "layout/layout_input_from_graph.h"

using namespace ampstudio;

WorkspaceSnapshot computeWorkspaceSnapshot(const WorkspaceInput& input, const std::function<bool()>& cancelled,
                                           const std::function<void(SnapshotStage)>& progress,
                                           const std::function<void(GraphDrawing)>& originalFirst,
                                           const std::function<void(double)>& layoutProgress) {
    const auto stage = [&](SnapshotStage s) {
        if (progress) progress(s);
    };
    WorkspaceSnapshot snapshot;
    snapshot.source = input.source;
    snapshot.options = input.options;
    const Graph& source = *input.source;
    // The original's first view (below) draws from an index of the unconverted graph (variable
    // roles): made on the second core while this one groups (90 ms at 100k operators). Declared
    // before `original`, whose thread reads it, so that it outlives that thread.
    std::future<std::shared_ptr<const ConversionIndex>> unconvertedIndex;
    if (originalFirst && source.size() >= input.originalFirstFrom) {
        unconvertedIndex = std::async(std::launch::async,
                                      [&] { return std::make_shared<const ConversionIndex>(input.source, nullptr); });
    }
    // Grouping decided first: what comes first, and how, depends on it.
    bool grouped = input.grouping == WorkspaceInput::Grouping::On;
    snapshot.openScopes = input.openScopes;
    if (input.grouping == WorkspaceInput::Grouping::Auto && source.size() >= input.autoGroupFrom) {
        ScopeGroups groups;
        std::set<std::string> open = initiallyOpenScopes(source, &groups);
        grouped = groups.items.size() * 2 <= source.size();
        if (grouped) {
            snapshot.beforeGroups = std::make_shared<const ScopeGroups>(std::move(groups));
            snapshot.openScopes = std::move(open);
        }
    }
    if (grouped && !snapshot.beforeGroups) {
        snapshot.beforeGroups = std::make_shared<const ScopeGroups>(groupByScope(source, snapshot.openScopes));
    }
    // Grouped, the original's first view is a few hundred boxes: drawn here at once, before converting.
    if (originalFirst && snapshot.beforeGroups && source.size() >= input.originalFirstFrom) {
        LayoutOptions options;
        options.cancelled = cancelled;
        const LayoutInput layoutInput = groupedLayoutInput(source, *snapshot.beforeGroups, input.metrics);
        const GraphLayout layout = layoutGraph(layoutInput, options);
        if (!layout.cancelled) {
            originalFirst(makeGroupedDrawing(*unconvertedIndex.get(), *snapshot.beforeGroups, layoutInput, layout,
                                             input.options.excludedSymNames, false));
        }
    }
    // On the second core while this one converts; joined before returning (the future's destructor).
    std::future<void> original;
    if (originalFirst && !grouped && source.size() >= input.originalFirstFrom) {
        original = std::async(std::launch::async, [&] {
            LayoutOptions options;
            options.cancelled = cancelled;
            const auto sizeOf = [&](const Node& node) { return drawnNodeSize(node, input.metrics); };
            const LayoutInput layoutInput = layoutInputFromGraph(source, sizeOf);
            const GraphLayout layout = layoutGraph(layoutInput, options);
            if (!layout.cancelled) {
                originalFirst(makeGraphDrawing(*unconvertedIndex.get(), layoutInput, layout, input.options.excludedSymNames, false));
            }
        });
    }

    QElapsedTimer timer;
    timer.start();
    stage(SnapshotStage::Converting);
    try {
        if (input.reuse) {
            snapshot.conversion = input.reuse;
        } else {
            auto result =
                std::make_shared<ConversionResult>(convertModel(source, input.formatSource.get(), input.options));
            if (input.params && !result->source) {  // an ONNX report has its initializer bytes
                fillParamBytes(*input.params, result->storedInTargetDtype, result->report.targetDtype, result->report);
            }
            snapshot.conversion = std::move(result);
        }
    } catch (const ConversionError& e) {
        snapshot.error = QString::fromStdString(e.what());
    } catch (const AmpListsError& e) {
        snapshot.error = QString::fromStdString(e.what());
    }
    snapshot.convertMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    timer.restart();

    LayoutOptions options;
    options.cancelled = cancelled;
    options.progress = layoutProgress;
    const auto sizeOf = [&](const Node& node) { return drawnNodeSize(node, input.metrics); };
    // What each view lays out: the graph's nodes, or its items when grouped; names map one to the other.
    const LayoutInput beforeInput = grouped ? groupedLayoutInput(source, *snapshot.beforeGroups, input.metrics)
                                            : layoutInputFromGraph(source, sizeOf);
    const auto drawingOf = [&](const ConversionIndex& index, const ScopeGroups* groups, const LayoutInput& layoutInput,
                               const GraphLayout& layout, bool converted) {
        return groups ? makeGroupedDrawing(index, *groups, layoutInput, layout, input.options.excludedSymNames, converted)
                      : makeGraphDrawing(index, layoutInput, layout, input.options.excludedSymNames, converted);
    };
    if (!snapshot.conversion) {
        snapshot.beforeIndex = std::make_shared<const ConversionIndex>(input.source, nullptr);
        stage(SnapshotStage::LayingOutOriginal);
        const GraphLayout beforeLayout = layoutGraph(beforeInput, options);
        if (beforeLayout.cancelled) {
            return snapshot;
        }
        stage(SnapshotStage::Drawing);
        snapshot.before = drawingOf(*snapshot.beforeIndex, snapshot.beforeGroups.get(), beforeInput, beforeLayout, false);
        snapshot.layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return snapshot;
    }

    // Aliasing pointers: the indexes keep the conversion alive, not a copy of it.
    const std::shared_ptr<const ConversionReport> report(snapshot.conversion, &snapshot.conversion->report);
    const std::shared_ptr<const Graph> convertedGraph(snapshot.conversion, &snapshot.conversion->graph);
    snapshot.beforeIndex = std::make_shared<const ConversionIndex>(input.source, report);
    snapshot.afterIndex = std::make_shared<const ConversionIndex>(convertedGraph, report);
    const Graph& converted = *convertedGraph;
    if (grouped) {
        snapshot.afterGroups = std::make_shared<const ScopeGroups>(groupByScope(converted, snapshot.openScopes));
    }
    const LayoutInput afterInput = grouped ? groupedLayoutInput(converted, *snapshot.afterGroups, input.metrics)
                                           : layoutInputFromGraph(converted, sizeOf);
    stage(SnapshotStage::LayingOutConverted);
    GraphLayout afterLayout = layoutGraph(afterInput, options);
    if (afterLayout.cancelled) {
        return snapshot;
    }
    // Every original node the conversion kept is in the converted graph under its own name (and
    // every group under its scope); the unreachable ones MXNet drops are laid out around the others.
    const auto namesOf = [&](const Graph& graph, const ScopeGroups* groups) {
        std::vector<std::string_view> names;
        if (groups) {
            for (const ScopeGroups::Item& item : groups->items) names.push_back(item.name);
        } else {
            for (const Node& node : graph.nodes) names.push_back(node.name);
        }
        return names;
    };
    const std::vector<std::string_view> afterNames = namesOf(converted, snapshot.afterGroups.get());
    const std::vector<std::string_view> beforeNames = namesOf(source, snapshot.beforeGroups.get());
    std::unordered_map<std::string_view, int64_t> convertedIndex;
    convertedIndex.reserve(afterNames.size());
    for (std::size_t i = 0; i < afterNames.size(); ++i) {
        convertedIndex.emplace(afterNames[i], static_cast<int64_t>(i));
    }
    std::vector<int64_t> referenceNodeOf(beforeNames.size(), -1);
    for (std::size_t i = 0; i < beforeNames.size(); ++i) {
        if (const auto it = convertedIndex.find(beforeNames[i]); it != convertedIndex.end()) {
            referenceNodeOf[i] = it->second;
        }
    }
    stage(SnapshotStage::LayingOutOriginal);
    const GraphLayout beforeLayout = layoutLike(beforeInput, afterLayout, referenceNodeOf, options);
    if (beforeLayout.cancelled) {
        return snapshot;
    }
    stage(SnapshotStage::Drawing);
    snapshot.after = drawingOf(*snapshot.afterIndex, snapshot.afterGroups.get(), afterInput, afterLayout, true);
    // Each layout goes once drawn: while an edit is computed the shown snapshot lives too, and at
    // 100k operators a layout's edge polylines are tens of MiB.
    afterLayout = GraphLayout{};
    snapshot.before = drawingOf(*snapshot.beforeIndex, snapshot.beforeGroups.get(), beforeInput, beforeLayout, false);
    // One frame for both, so that fit-to-view and scrolling show the same region in each.
    snapshot.before.bounds = snapshot.after.bounds = snapshot.before.bounds.united(snapshot.after.bounds);
    snapshot.layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return snapshot;
}
