#pragma once
// One consistent state of the conversion workspace, computed off the GUI thread in one job: the
// conversion of the source graph with the user's options, the layouts of both graphs and the
// drawings of both views. The converted graph is laid out first and the original like it (its nodes
// are the converted graph's minus the casts), so shared nodes sit at the same place in both views. The GUI swaps the whole snapshot in at once, so the views, the counts and the
// inspector never disagree.

#include <QString>

#include <functional>
#include <memory>
#include <set>

#include "amp/conversion.h"
#include "amp/conversion_index.h"
#include "formats/ndarray_list.h"
#include "graph_drawing.h"
#include "graph_drawing_builder.h"
#include "graph/scope_groups.h"
#include "layout/graph_layout.h"

struct WorkspaceInput {
    std::shared_ptr<const ampstudio::Graph> source;
    std::shared_ptr<const ampstudio::NDArrayList> params;  // may be null
    // The model in its format's terms (ONNX: the ModelProto the pass converts); null for MXNet.
    std::shared_ptr<const ampstudio::FormatSource> formatSource;
    ampstudio::ConversionOptions options;
    NodeTextMetrics metrics;
    // From this many nodes on, a computation given an `originalFirst` hook also lays the original
    // out on its own, beside the conversion, and hands that drawing over as soon as it is done, so
    // a large model shows before its conversion is laid out (the final snapshot then lays the
    // original out like the conversion, as always).
    std::size_t originalFirstFrom = 2000;
    // Grouping by name scope (graph/scope_groups.h). Auto: on when the graph has autoGroupFrom nodes
    // or more and its first grouped view has at most half as many items; then with
    // initiallyOpenScopes(). On: with `openScopes`.
    enum class Grouping { Auto, On, Off };
    Grouping grouping = Grouping::Off;
    std::set<std::string> openScopes;
    std::size_t autoGroupFrom = 2000;
    // The conversion of the same source and options, when only the grouping changed: reused.
    std::shared_ptr<const ampstudio::ConversionResult> reuse;
};

struct WorkspaceSnapshot {
    std::shared_ptr<const ampstudio::Graph> source;
    ampstudio::ConversionOptions options;  // what `conversion` was computed with
    // Null when the conversion failed; `error` says why and the drawings show the original only.
    std::shared_ptr<const ampstudio::ConversionResult> conversion;
    QString error;
    // What the inspector asks of each graph, indexed here off the GUI thread (after: null when the
    // conversion failed).
    std::shared_ptr<const ampstudio::ConversionIndex> beforeIndex;
    std::shared_ptr<const ampstudio::ConversionIndex> afterIndex;
    GraphDrawing before;
    GraphDrawing after;
    // Grouped by name scope: the drawings' nodes are these items (null when drawn flat).
    std::shared_ptr<const ampstudio::ScopeGroups> beforeGroups;
    std::shared_ptr<const ampstudio::ScopeGroups> afterGroups;
    std::set<std::string> openScopes;  // with which the groups were made
    double convertMs = 0;
    double layoutMs = 0;  // both layouts and drawings
};

// What a snapshot computation is doing, in order, for the status bar of a large model.
enum class SnapshotStage { Converting, LayingOutConverted, LayingOutOriginal, Drawing };

// Returns a snapshot with empty drawings once `cancelled` says the job is stale. `progress`, when
// set, is called (on the computing thread) as each stage begins.
// `originalFirst`, when set (and the graph is large enough), is called once with the original laid
// out on its own (styled as unconverted), before this returns: grouped, on this thread before the
// conversion starts; flat, on another thread beside the conversion. `layoutProgress` hears each
// stage's layout go from 0 to 1 (LayoutOptions::progress), on the computing thread.
WorkspaceSnapshot computeWorkspaceSnapshot(const WorkspaceInput& input, const std::function<bool()>& cancelled,
                                           const std::function<void(SnapshotStage)>& progress = {},
                                           const std::function<void(GraphDrawing)>& originalFirst = {},
                                           const std::function<void(double)>& layoutProgress = {});
