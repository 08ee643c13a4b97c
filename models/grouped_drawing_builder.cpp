#include "grouped_drawing_builder.h"

#include <QCoreApplication>
#include <QHash>

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>
#include <vector>

#include "graph/name_scopes.h"

using namespace ampstudio;

namespace {

QString fromStd(const std::string& text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

QString lastPart(const std::string& scope) {
    const std::string_view part = scopeOwnPart(scope);
    return QString::fromUtf8(part.data(), static_cast<qsizetype>(part.size()));
}

QString groupLabel(int nodes, int casts) {
    QString text = QCoreApplication::translate("GroupedDrawing", "%n node(s)", nullptr, nodes);
    if (casts > 0) {
        text += QStringLiteral(" · ") + QCoreApplication::translate("GroupedDrawing", "%n cast(s)", nullptr, casts);
    }
    return text;
}

// Counts by op, most frequent first, then by name.
QList<QPair<QString, int>> byCount(const QHash<QString, int>& counts) {
    QList<QPair<QString, int>> sorted;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) sorted.push_back({it.key(), it.value()});
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    return sorted;
}

// The operators a group runs, most frequent first ("Conv 3 · Relu 3 · Concat 1"): its casts are
// counted on the line above and its variables are weights, not what the scope does.
constexpr qsizetype kMixShown = 3;
QString opMixLine(const QList<QPair<QString, int>>& counts) {
    QString text;
    for (qsizetype i = 0; i < std::min(counts.size(), kMixShown); ++i) {
        if (i > 0) text += QStringLiteral(" · ");
        text += counts[i].first + QLatin1Char(' ') + QString::number(counts[i].second);
    }
    if (counts.size() > kMixShown) text += QStringLiteral(" …");
    return text;
}

}  // namespace

LayoutInput groupedLayoutInput(const Graph& graph, const ScopeGroups& groups, const NodeTextMetrics& metrics) {
    LayoutInput input;
    input.sizes.reserve(groups.items.size());
    for (const ScopeGroups::Item& item : groups.items) {
        if (!item.group) {
            input.sizes.push_back(drawnNodeSize(graph.nodes[item.members.front()], metrics));
            continue;
        }
        const std::size_t titleChars = lastPart(item.name).size();
        const std::size_t labelChars = 36;  // "1,234 nodes · 56 casts", "FullyConnected 195 · Concat 116 · …"
        const double textWidth = std::max(static_cast<double>(titleChars) * metrics.titleCharWidth,
                                          static_cast<double>(labelChars) * metrics.labelCharWidth);
        // Three lines: the scope, its node and cast counts, its op mix.
        input.sizes.push_back({std::clamp(textWidth + 28, 160.0, 280.0), 3 * metrics.lineHeight + 20});
    }
    input.edges = groups.edges;
    return input;
}

GraphDrawing makeGroupedDrawing(const ConversionIndex& index, const ScopeGroups& groups, const LayoutInput& input,
                                const GraphLayout& layout, const std::set<std::string>& excludedNames, bool converted) {
    GraphDrawing drawing;
    drawing.nodes.reserve(static_cast<qsizetype>(groups.items.size()));
    DrawnTexts texts;
    // The dtype each node's output 0 carries, when known: the converted view's edge labels.
    const Graph& graph = *index.graph();
    std::vector<QString> outputDtype(converted ? graph.size() : 0);
    const auto dtypeOut = [&](NodeId n) { return converted ? &outputDtype[n] : nullptr; };
    for (std::size_t i = 0; i < groups.items.size(); ++i) {
        const ScopeGroups::Item& item = groups.items[i];
        DrawnNode drawn;
        if (!item.group) {
            drawn = describeNode(index, item.members.front(), excludedNames, converted, dtypeOut(item.members.front()), &texts);
        } else {
            // The precision most of its operators run in (its variables only when it has nothing else).
            std::array<int, kNodeStyleCount> styles{};
            int casts = 0;
            bool allExcluded = true;
            QHash<QString, int> all, computing;  // every member by op; the operators but casts
            for (const NodeId n : item.members) {
                const DrawnNode member = describeNode(index, n, excludedNames, converted, dtypeOut(n), &texts);
                drawn.contents += member.name + QLatin1Char(' ') + member.op + QLatin1Char('\n');
                ++styles[static_cast<std::size_t>(member.style)];
                const bool cast = member.style == NodeStyle::Cast || member.style == NodeStyle::Multicast;
                casts += cast;
                ++all[member.op];
                if (!cast && !member.op.isEmpty()) ++computing[member.op];
                allExcluded = allExcluded && member.excluded;
            }
            drawn.opCounts = byCount(all);
            drawn.mix = opMixLine(byCount(computing));
            int best = static_cast<int>(NodeStyle::Variable);
            for (int style = 0; style < kNodeStyleCount; ++style) {
                const bool cast = style == int(NodeStyle::Cast) || style == int(NodeStyle::Multicast);
                if (style != int(NodeStyle::Variable) && !cast && styles[style] > 0 &&
                    (best == int(NodeStyle::Variable) || styles[style] > styles[best])) {
                    best = style;
                }
            }
            drawn.name = fromStd(item.name);
            drawn.title = lastPart(item.name);
            drawn.label = groupLabel(static_cast<int>(item.members.size()), casts);
            drawn.style = static_cast<NodeStyle>(best);
            drawn.excluded = allExcluded;
            drawn.members = static_cast<int>(item.members.size());
        }
        const Point& centre = layout.nodePositions[i];
        drawn.centre = QPointF(centre.x, centre.y);
        drawn.size = QSizeF(input.sizes[i].width, input.sizes[i].height);
        drawing.nodes.push_back(std::move(drawn));
    }
    // An edge between two items stands for every read of a node of one by a node of the other: in the
    // converted view it carries their dtype when they all agree (a read of an output other than 0,
    // whose dtype is not known here, disagrees), as a flat edge carries its one read's.
    std::vector<std::optional<QString>> edgeLabel(converted ? input.edges.size() : 0);
    if (converted) {
        const auto key = [](uint32_t a, uint32_t b) { return uint64_t(a) << 32 | b; };
        std::unordered_map<uint64_t, std::size_t> edgeOf;
        edgeOf.reserve(input.edges.size());
        for (std::size_t e = 0; e < input.edges.size(); ++e) edgeOf.emplace(key(input.edges[e].first, input.edges[e].second), e);
        for (std::size_t t = 0; t < graph.size(); ++t) {
            for (const NodeEntry& entry : graph.nodes[t].inputs) {
                const auto it = edgeOf.find(key(groups.itemOf[entry.node], groups.itemOf[t]));
                if (it == edgeOf.end()) continue;  // (inside one item)
                const QString here = entry.index == 0 ? outputDtype[entry.node] : QString();
                std::optional<QString>& label = edgeLabel[it->second];
                label = !label || *label == here ? here : QString();
            }
        }
    }
    drawing.edges.reserve(static_cast<qsizetype>(input.edges.size()));
    for (std::size_t e = 0; e < input.edges.size(); ++e) {
        DrawnEdge edge;
        edge.source = static_cast<int>(input.edges[e].first);
        edge.target = static_cast<int>(input.edges[e].second);
        const EdgePath& path = layout.edges[e];
        for (const Point& p : path.points) edge.points.push_back(QPointF(p.x, p.y));
        if (converted) edge.label = edgeLabel[e].value_or(QString());
        if (path.bundle != EdgePath::kNoBundle) {
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
