#pragma once
// What a graph view draws, as a plain value: every node with its place, size, label and the
// precision style it is drawn in, every edge as a polyline with an optional dtype label. It is built
// off the GUI thread from a graph, its conversion report and its layout (graph_drawing_builder.h) and
// handed to GraphView::setDrawing() whole, so the view never reaches into the engine.

#include <QList>
#include <QPair>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

// The precision a node runs in, as the views colour it (legend order).
enum class NodeStyle : quint8 {
    Variable,   // a graph input: data, parameter or auxiliary state
    Target,     // runs in float16 / bfloat16
    Float32,    // runs in float32 (FP32 list, conditional FP32, excluded)
    Widest,     // runs in the widest dtype of its inputs
    Unchanged,  // no rule applies: dtypes pass through
    Cast,       // an inserted amp_cast
    Multicast,  // an inserted amp_multicast
};
inline constexpr int kNodeStyleCount = 7;

struct DrawnNode {
    QString name;   // unique within the graph; selection is synchronised across views by name
    QString op;     // empty for a variable
    QString title;  // first line: the op (or "variable"), shortened for display
    QString label;  // second line: the node name, elided for display (the full name is the tool tip)
    QString badge;  // short dtype badge on casts ("f16", "bf16", "f32", "widest"); empty otherwise
    NodeStyle style = NodeStyle::Unchanged;
    bool excluded = false;  // excluded by name in the conversion options (drawn with a dashed outline)
    int members = 0;        // > 0: a collapsed name scope of that many nodes (name: the scope path)
    QString contents;       // a group's member names and ops, a line each: what a search looks in
    QString mix;            // a group's op mix, most frequent first: its box's third line
    // A group's members by op, most frequent first (then by name), an empty op for its variables:
    // what the tool tip and the inspector list.
    QList<QPair<QString, int>> opCounts;
    QPointF centre;
    QSizeF size;
};

struct DrawnEdge {
    int source = -1;        // index into GraphDrawing::nodes; -1 for a trunk that gathers
    int target = -1;        // -1 for a trunk that feeds
    QList<QPointF> points;  // from the source's bottom centre to the target's top centre
    QString label;          // dtype carried ("f16", "f32", "bf16"), empty when not known; sets the colour
    bool arrow = true;      // false: it ends on a trunk, which carries it on to its target
    bool labelShown = true; // false: the label only colours it (its trunk shows the text)
};

struct GraphDrawing {
    QList<DrawnNode> nodes;
    // One per edge of the graph. An edge that shares a trunk with others into (or out of) one node
    // has only its own part here: from its source to the trunk, or from the trunk to its target.
    QList<DrawnEdge> edges;
    QList<DrawnEdge> trunks;  // each drawn once, however many edges run along it
    QRectF bounds;            // every node and edge lies inside
};
