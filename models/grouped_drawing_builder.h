#pragma once
// What a graph view draws when grouping by name scope is on: one box per collapsed scope (its name,
// node count, casts, and the precision most of its nodes run in) and the nodes outside any, with an
// edge wherever a node of one item reads a node of another. Plain functions, off the GUI thread.

#include <set>
#include <string>

#include "amp/conversion_index.h"
#include "graph/scope_groups.h"
#include "graph_drawing.h"
#include "graph_drawing_builder.h"
#include "layout/graph_layout.h"

// The layout problem of the grouped graph: a box per item, sized for its texts.
ampstudio::LayoutInput groupedLayoutInput(const ampstudio::Graph& graph, const ampstudio::ScopeGroups& groups,
                                          const NodeTextMetrics& metrics);

// `input` and `layout` are the grouped graph's (groupedLayoutInput()); node i of the drawing is item i.
GraphDrawing makeGroupedDrawing(const ampstudio::ConversionIndex& index, const ampstudio::ScopeGroups& groups,
                                const ampstudio::LayoutInput& input, const ampstudio::GraphLayout& layout,
                                const std::set<std::string>& excludedNames, bool converted);
