#pragma once
// Turns a graph, its layout and the conversion report into what a GraphView draws: styles by the
// precision each node runs in (the report's decisions), cast badges, dtype labels on edges, display
// texts. Plain functions on values, so they run on the worker thread with the layout.

#include <array>
#include <set>
#include <string_view>
#include <unordered_map>
#include <string>

#include "amp/conversion_index.h"
#include "amp/conversion_report.h"
#include "graph/graph.h"
#include "graph_drawing.h"
#include "layout/graph_layout.h"

// Text metrics measured on the GUI thread (QFontMetricsF) so that node sizes fit the drawn text.
struct NodeTextMetrics {
    double titleCharWidth = 7.5;  // average advance of the bold first line
    double labelCharWidth = 6.5;  // average advance of the second line
    double lineHeight = 15;
};

// The longest label drawn in full; longer names are elided in the middle (the tool tip has it all).
inline constexpr int kMaxLabelChars = 28;

// The size of a node's box for its texts: two lines, at least wide enough for a short op name.
ampstudio::NodeSize drawnNodeSize(const ampstudio::Node& node, const NodeTextMetrics& metrics);

// `report` may be null (nothing converted yet: every node Unchanged). For the converted graph
// (`converted` true) amp_cast / amp_multicast nodes are drawn as casts with a dtype badge and
// edges carry the dtype of the entry when the report knows it; in the original graph the nodes take
// the style of the decision made for them. `edges` are the layout input's edges (same order as
// layout.edges).
// `index` answers for the drawn graph (its report gives decisions and casts; a variable's role is
// read through the casts, since in the converted graph a weight feeds a cast rather than its op's
// weight slot).
// Texts many nodes of one drawing share (op names, variable roles), each made once: a QString per
// node would be an allocation per node, tens of MiB for both views of a 100k-operator graph. Keyed
// by views into the graph, so it lives no longer than the graph it describes.
struct DrawnTexts {
    std::unordered_map<std::string_view, QString> ops;
    std::array<QString, 3> roles;  // by VariableRole, made when first met
};

// Node i of index's graph as drawn (no place or size yet); outputDtype, when given, gets the dtype
// its output 0 carries when known (the converted graph's edge labels). With `texts`, its op and
// title share the strings of the drawing's other nodes.
DrawnNode describeNode(const ampstudio::ConversionIndex& index, std::size_t i,
                       const std::set<std::string>& excludedNames, bool converted, QString* outputDtype = nullptr,
                       DrawnTexts* texts = nullptr);

// The trunks' dtype labels (drawing.trunks from drawnTrunks(layout)): a gathering trunk takes its
// branches' dtype when they agree, a feeding one its source's (the edges' labels, edge i being
// layout edge i).
void labelTrunks(GraphDrawing& drawing, const ampstudio::GraphLayout& layout);

// The layout's trunks (edges sharing their way into or out of one node) as the views draw them: a
// gathering trunk with the arrow at its node, a feeding one labelled once at its source.
QList<DrawnEdge> drawnTrunks(const ampstudio::GraphLayout& layout);

GraphDrawing makeGraphDrawing(const ampstudio::ConversionIndex& index, const ampstudio::LayoutInput& input,
                              const ampstudio::GraphLayout& layout, const std::set<std::string>& excludedNames,
                              bool converted);

// "f16", "bf16", "f32", ... for a dtype name; the name itself for anything else.
QString shortDtypeName(std::string_view dtypeName);
