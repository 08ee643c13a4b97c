#pragma once
// A layered (Sugiyama) layout for directed acyclic graphs, top to bottom, for the graph views
// (DESIGN.md section 6). Graphviz `dot` takes minutes on 5,000-node graphs; this takes well under a
// second, so the GUI can lay out every conversion result itself, off the GUI thread.
//
// The input is abstract (sizes and index pairs) so that the layout does not depend on the IR; see
// layout_input_from_graph.h for the adapter. Phases:
//   1. ranking: longest path from the sources, then sources (parameter variables above all), the
//      chains that hang from them (a variable's cast) and nodes with more edges down than up are
//      pulled to just above their first consumer;
//   2. dummy nodes split edges that span more than one layer; the edges into (or out of) one node
//      that pass three layers or more share a trunk of dummies when there are three or more of them
//      (edge concentration), so a node that gathers thousands of tensors from all over the graph
//      costs a dummy per layer, not per edge and layer (layered_graph.h);
//   3. crossing reduction: alternating barycenter sweeps from the input order and from a
//      depth-first order, the best order kept, then adjacent swaps (transpose); crossings counted per
//      layer pair with the accumulator tree of Barth, Juenger and Mutzel;
//   4. coordinates: Brandes-Koepf (four alignments, balanced), which keeps long edges straight;
//   5. edges as polylines through their dummy nodes.
// Each phase (each sweep) is O((V + E) log V) on flat vectors, V and E counting dummy nodes and
// their edges. Disconnected components are laid out one by one and put side by side, tops aligned,
// in the order of their smallest node; nodes without any edge go last, in one row.
//
// Guarantees for a DAG: no two nodes of a layer are closer than their half widths plus the gap
// (so no rectangles overlap), each layer lies below the previous one, and every edge's polyline
// (edgePolyline(), its trunk included)
// strictly descends from its source's bottom centre, through two points per layer it passes (one
// where that layer has no height), to its target's top centre. The same input and options always
// give the same layout, whatever the order of the edges. Parallel edges are laid out once and
// share one polyline. Edges that close a cycle (not a DAG) are reversed for the layout and so drawn
// upward, each with its whole polyline (no trunk); self-loops get an empty polyline.

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace ampstudio {

struct NodeSize {
    double width = 0;
    double height = 0;
};

struct Point {
    double x = 0;
    double y = 0;
    friend bool operator==(const Point&, const Point&) = default;
};

// Edges that pass layers and end at (or start from) one node with enough others like them share a
// trunk (see EdgeBundle). Such an edge keeps only its own part here: from its source's bottom centre
// to the point where it joins the trunk (a gathering bundle), or from the point where it leaves the
// trunk to its target's top centre (a feeding one); bundlePoint is that point's index in the
// trunk's points. edgePolyline() gives the whole way.
struct EdgePath {
    static constexpr uint32_t kNoBundle = UINT32_MAX;
    std::vector<Point> points;  // from the source's bottom centre to the target's top centre
    uint32_t bundle = kNoBundle;  // index into GraphLayout::bundles
    uint32_t bundlePoint = 0;
};

// A trunk shared by the edges into one node (gathers: its points end at the node's top centre) or
// out of one node (its points start at the node's bottom centre): drawn once, however many edges
// run along it.
struct EdgeBundle {
    std::vector<Point> points;
    uint32_t node = 0;
    bool gathers = false;
};

struct LayoutInput {
    std::vector<NodeSize> sizes;                       // one per node
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // source -> target; the source is drawn above
};

// A preferred place for one node, usually taken from another layout (see layoutLike()).
struct PinnedPlace {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    // The node is put on this layer or, when its inputs force it lower, below it. -1: no preference.
    int64_t layer = -1;
    // Preferred centre. Nodes with an x keep their left-to-right order by x within a layer and are
    // placed as close to it as the other nodes allow; y is the preferred centre line of the layer.
    double x = kNone;
    double y = kNone;
};

enum class CrossingReduction {
    None,  // nodes in input order within each layer (a dummy right after its edge's source)
    // `sweeps` alternating textbook barycenter sweeps from the input order (a node with no neighbour
    // in the layer just fixed keeps its place), and the order after the last one: the baseline.
    PlainBarycenter,
    // The plain sweeps, keeping the best order seen, and as many sweeps from a depth-first order that
    // also move such nodes next to their siblings; the better result, then transposed. Never worse
    // than PlainBarycenter; a quarter to a half fewer crossings on synthetic MXNet-like graphs.
    Full,
};

struct LayoutOptions {
    double layerGap = 48;      // vertical space between the bottom of a layer and the top of the next
    double nodeGap = 24;       // horizontal space between two nodes of a layer
    double edgeGap = 8;        // horizontal space next to an edge passing through a layer
    double componentGap = 48;  // horizontal space between disconnected components
    int sweeps = 16;           // crossing-reduction sweeps (down and up alternate), per starting order
    CrossingReduction crossingReduction = CrossingReduction::Full;
    // Checked between phases, sweeps and alignments: once it returns true the layout stops and
    // returns a result with `cancelled` set, so a stale layout costs at most one sweep more.
    std::function<bool()> cancelled;
    // Told how far the layout is, 0 to 1 (between phases, sweeps and alignments), on the thread
    // that lays out; a few dozen calls per layout.
    std::function<void(double)> progress;
    // Empty, or one entry per node. When any entry has an x, components are not separated and
    // coordinates follow the pins instead of Brandes-Koepf.
    std::vector<PinnedPlace> pinned;
};

struct GraphLayout {
    std::vector<Point> nodePositions;  // centres
    std::vector<uint32_t> nodeLayers;  // 0 at the top
    std::vector<EdgePath> edges;       // in input edge order
    std::vector<EdgeBundle> bundles;
    double width = 0;                  // every node lies within [0, width] x [0, height]
    double height = 0;
    uint32_t layers = 0;
    uint64_t crossings = 0;  // edge crossings between adjacent layers in the final order
    bool cancelled = false;  // the cancel hook stopped the layout; everything else is empty
};

// The whole polyline of layout.edges[edge], through its trunk when it has one.
std::vector<Point> edgePolyline(const GraphLayout& layout, std::size_t edge);

// Throws std::invalid_argument when an edge names a node out of range or `pinned` has the wrong size
// (std::length_error when long edges would need more than 2^32 dummy nodes). Reentrant: layouts may
// run on several threads at once.
GraphLayout layoutGraph(const LayoutInput& input, const LayoutOptions& options = {});

// Lays out a graph whose nodes mostly exist in `reference` (the graph before conversion is the one
// after it minus the inserted casts): referenceNodeOf[i] is node i's index in the reference, or -1.
// Shared nodes take the reference's layer (or lower when their inputs force it), centre and
// left-to-right order within their layer; the other nodes and the edges fill in around them with
// no overlaps and downward edges as always. The result keeps the reference's frame (it moves right
// only if something would lie left of x = 0), so the two views can scroll in step. Options are used
// as given, except `pinned`, which this fills. Throws std::invalid_argument when referenceNodeOf's
// size differs from the node count or an index is outside the reference.
GraphLayout layoutLike(const LayoutInput& input, const GraphLayout& reference,
                       std::span<const int64_t> referenceNodeOf, LayoutOptions options = {});

}  // namespace ampstudio
