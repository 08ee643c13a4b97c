#include "graph_drawing_builder.h"

#include <QCoreApplication>

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "ops/variable_roles.h"

using namespace ampstudio;

namespace {

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

QString elided(const QString& text) {
    if (text.size() <= kMaxLabelChars) {
        return text;
    }
    // Middle elision keeps both the scope prefix and the distinguishing suffix ("..._weight").
    const int keep = kMaxLabelChars - 1;
    return text.left(keep - keep / 2) + QChar(0x2026) + text.right(keep / 2);
}

NodeStyle styleOf(NodePrecision precision) {
    switch (precision) {
        case NodePrecision::Variable: return NodeStyle::Variable;
        case NodePrecision::Target: return NodeStyle::Target;
        case NodePrecision::Float32: return NodeStyle::Float32;
        case NodePrecision::Widest: return NodeStyle::Widest;
        case NodePrecision::Unchanged: return NodeStyle::Unchanged;
    }
    return NodeStyle::Unchanged;
}

// The variable's role as its node title, translated (QCoreApplication::translate is thread-safe).
QString roleTitle(VariableRole role) {
    switch (role) {
        case VariableRole::Parameter: return QCoreApplication::translate("GraphDrawing", "parameter");
        case VariableRole::AuxiliaryState: return QCoreApplication::translate("GraphDrawing", "auxiliary state");
        case VariableRole::Input: break;
    }
    return QCoreApplication::translate("GraphDrawing", "input");
}

}  // namespace

QString shortDtypeName(std::string_view name) {
    if (name == "float16") return QStringLiteral("f16");
    if (name == "bfloat16") return QStringLiteral("bf16");
    if (name == "float32") return QStringLiteral("f32");
    if (name == "float64") return QStringLiteral("f64");
    return fromStd(name);
}

NodeSize drawnNodeSize(const Node& node, const NodeTextMetrics& metrics) {
    // Variables show their role ("parameter") as the title, at most "auxiliary state".
    const std::size_t titleChars = node.isVariable() ? 15 : node.op.size();
    const std::size_t labelChars = std::min<std::size_t>(node.name.size(), kMaxLabelChars);
    const double textWidth = std::max(static_cast<double>(titleChars) * metrics.titleCharWidth,
                                      static_cast<double>(labelChars) * metrics.labelCharWidth);
    const double padding = 20;  // both sides, and room for a cast's badge overlapping the corner
    return {std::clamp(textWidth + padding, 80.0, 260.0), 2 * metrics.lineHeight + 12};
}

DrawnNode describeNode(const ConversionIndex& index, std::size_t i, const std::set<std::string>& excludedNames,
                       bool converted, QString* outputDtype, DrawnTexts* texts) {
    const Graph& graph = *index.graph();
    const ConversionReport* report = index.report().get();
    const Node& node = graph.nodes[i];
    DrawnNode drawn;
    drawn.name = fromStd(node.name);
    if (!texts) {
        drawn.op = fromStd(node.op);
    } else if (!node.op.empty()) {
        QString& shared = texts->ops[node.op];
        if (shared.isNull()) shared = fromStd(node.op);
        drawn.op = shared;
    }
    if (node.isVariable()) {
        const VariableRole role = index.role(static_cast<NodeId>(i));
        if (!texts) {
            drawn.title = roleTitle(role);
        } else {
            QString& shared = texts->roles[static_cast<std::size_t>(role)];
            if (shared.isNull()) shared = roleTitle(role);
            drawn.title = shared;
        }
    } else {
        drawn.title = drawn.op;
    }
    drawn.label = elided(drawn.name);
    drawn.excluded = excludedNames.count(node.name) != 0;
    // A cast the report inserted, or one the file held already (a converted model converted again).
    if (converted && (index.castRecord(static_cast<NodeId>(i)) || (isAmpCastOp(node.op) && report))) {
        const bool multicast = node.op == "amp_multicast";
        drawn.style = multicast ? NodeStyle::Multicast : NodeStyle::Cast;
        const std::string* dtype = node.attr("dtype");
        drawn.badge = multicast ? QStringLiteral("widest") : shortDtypeName(dtype ? *dtype : std::string());
        if (!multicast && outputDtype) {
            *outputDtype = drawn.badge;
        }
    } else if (const NodeDecision* decision = index.decision(node.name)) {
        drawn.style = styleOf(decision->precision);
        if (decision->dtype != DType::Unknown && outputDtype) {
            *outputDtype = shortDtypeName(dtypeName(decision->dtype));
        }
    } else {
        drawn.style = node.isVariable() ? NodeStyle::Variable : NodeStyle::Unchanged;
    }
    return drawn;
}

QList<DrawnEdge> drawnTrunks(const GraphLayout& layout) {
    QList<DrawnEdge> trunks;
    trunks.reserve(static_cast<qsizetype>(layout.bundles.size()));
    for (const EdgeBundle& bundle : layout.bundles) {
        DrawnEdge trunk;
        (bundle.gathers ? trunk.target : trunk.source) = static_cast<int>(bundle.node);
        trunk.points.reserve(static_cast<qsizetype>(bundle.points.size()));
        for (const Point& p : bundle.points) {
            trunk.points.push_back(QPointF(p.x, p.y));
        }
        trunk.arrow = bundle.gathers;
        trunk.labelShown = !bundle.gathers;
        trunks.push_back(std::move(trunk));
    }
    return trunks;
}

void labelTrunks(GraphDrawing& drawing, const GraphLayout& layout) {
    std::vector<std::optional<QString>> trunkLabel(layout.bundles.size());
    for (std::size_t e = 0; e < layout.edges.size() && e < static_cast<std::size_t>(drawing.edges.size()); ++e) {
        if (const uint32_t b = layout.edges[e].bundle; b != EdgePath::kNoBundle) {
            const QString& label = drawing.edges[static_cast<qsizetype>(e)].label;
            trunkLabel[b] = !trunkLabel[b] || *trunkLabel[b] == label ? label : QString();
        }
    }
    for (std::size_t b = 0; b < trunkLabel.size(); ++b) {
        drawing.trunks[static_cast<qsizetype>(b)].label = trunkLabel[b].value_or(QString());
    }
}

GraphDrawing makeGraphDrawing(const ConversionIndex& index, const LayoutInput& input, const GraphLayout& layout,
                              const std::set<std::string>& excludedNames, bool converted) {
    const Graph& graph = *index.graph();

    GraphDrawing drawing;
    drawing.nodes.reserve(static_cast<qsizetype>(graph.size()));
    // The dtype each node's output 0 carries, when known, for the edge labels of the converted graph.
    std::vector<QString> outputDtype(graph.size());
    DrawnTexts texts;
    for (std::size_t i = 0; i < graph.size(); ++i) {
        DrawnNode drawn = describeNode(index, i, excludedNames, converted, &outputDtype[i], &texts);
        const Point& centre = layout.nodePositions[i];
        drawn.centre = QPointF(centre.x, centre.y);
        drawn.size = QSizeF(input.sizes[i].width, input.sizes[i].height);
        drawing.nodes.push_back(std::move(drawn));
    }

    // Which edges read only output 0 of their source: only those can be labelled with its dtype.
    // Every (source, target) read, sorted, with a flag for a read of another output: one flat array
    // (a map per node was 14 MiB of empty tables at 259k nodes).
    const auto readKey = [](std::size_t source, std::size_t target) { return (uint64_t(source) << 32 | target) << 1; };
    std::vector<uint64_t> reads;
    if (converted) {
        for (std::size_t t = 0; t < graph.size(); ++t) {
            for (const NodeEntry& entry : graph.nodes[t].inputs) reads.push_back(readKey(entry.node, t) | (entry.index != 0));
        }
        std::sort(reads.begin(), reads.end());
    }
    // Whether target reads output 0 of source and nothing else of it: the unflagged key present,
    // the flagged one (which sorts right after it) not.
    const auto readsOnlyFirst = [&](std::size_t source, std::size_t target) {
        const uint64_t key = readKey(source, target);
        const auto it = std::lower_bound(reads.begin(), reads.end(), key);
        return it != reads.end() && *it == key && !std::binary_search(it, reads.end(), key | 1);
    };
    drawing.edges.reserve(static_cast<qsizetype>(input.edges.size()));
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        const auto [source, target] = input.edges[e];
        DrawnEdge edge;
        edge.source = static_cast<int>(source);
        edge.target = static_cast<int>(target);
        const auto& points = layout.edges[e].points;
        edge.points.reserve(static_cast<qsizetype>(points.size()));
        for (const Point& p : points) {
            edge.points.push_back(QPointF(p.x, p.y));
        }
        if (converted) {
            if (readsOnlyFirst(source, target)) {
                edge.label = outputDtype[source];
            }
        }
        if (const EdgePath& path = layout.edges[e]; path.bundle != EdgePath::kNoBundle) {
            const bool gathers = layout.bundles[path.bundle].gathers;
            edge.arrow = !gathers;      // a branch into a gathering trunk ends on it
            edge.labelShown = gathers;  // a feeding trunk shows its source's dtype once
        }
        drawing.edges.push_back(std::move(edge));
    }
    drawing.trunks = drawnTrunks(layout);
    labelTrunks(drawing, layout);
    drawing.bounds = QRectF(0, 0, layout.width, layout.height);
    return drawing;
}
