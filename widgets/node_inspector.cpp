#include "node_inspector.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <span>
#include <string_view>
#include <unordered_map>

#include "ops/op_registry.h"
#include "ops/variable_roles.h"

using namespace ampstudio;

namespace {

constexpr int kNodeNameRole = Qt::UserRole;  // on column 0 of input/output rows: the node to show
constexpr int kMaxVisibleRows = 10;          // a tree taller than this scrolls inside the dock
constexpr int kMaxListedNames = 3;           // "a, b, c and 4 more" in sentences

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

bool isCastOp(const Node& node) {
    return node.op == "amp_cast" || node.op == "amp_multicast";
}

// The dtype an edge carries, when the conversion knows it; `viaCast` names the cast it goes through
// after conversion when the edge is shown in the original graph.
struct EdgeDtype {
    QString dtype;
    QString viaCast;
};

// Names are long and have no spaces: let a wrapped label break them after underscores.
QString breakable(QString text) {
    return text.replace(QLatin1Char('_'), QStringLiteral("_\u200B"));
}

void setNodeCell(QTreeWidgetItem* item, int column, const QString& name, const QString& toolTip) {
    item->setText(column, name);
    item->setToolTip(column, toolTip);
    item->setData(0, kNodeNameRole, name);
    item->setForeground(column, item->treeWidget()->palette().brush(QPalette::Link));
}

QTreeWidget* makeTree(const QStringList& headers, int stretchColumn) {
    auto* tree = new QTreeWidget;
    tree->setColumnCount(static_cast<int>(headers.size()));
    tree->setHeaderLabels(headers);
    tree->setRootIsDecorated(false);
    tree->setUniformRowHeights(true);
    tree->setAllColumnsShowFocus(true);
    tree->setTextElideMode(Qt::ElideMiddle);  // keeps the "_amp_cast_float16" end of cast names
    tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tree->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    QHeaderView* header = tree->header();
    header->setStretchLastSection(false);
    header->setSectionsMovable(false);
    for (int c = 0; c < tree->columnCount(); ++c) {
        header->setSectionResizeMode(
            c, c == stretchColumn ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
    }
    return tree;
}

// As tall as its rows (up to kMaxVisibleRows), so that short lists take little room in the dock.
void fitHeight(QTreeWidget* tree) {
    const int rows = std::min(tree->topLevelItemCount(), kMaxVisibleRows);
    const int rowHeight = tree->topLevelItemCount() > 0 ? tree->sizeHintForRow(0) : 0;
    tree->setFixedHeight(tree->header()->sizeHint().height() + rows * std::max(rowHeight, 1) +
                         2 * tree->frameWidth());
}

// A section's title with its count; an empty section says "None" instead of showing an empty table.
void finishSection(QGroupBox* box, QTreeWidget* tree, const QString& title) {
    const bool empty = tree->topLevelItemCount() == 0;
    box->setTitle(title);
    tree->setVisible(!empty);
    box->findChild<QLabel*>(QStringLiteral("none"))->setVisible(empty);
    fitHeight(tree);
}

QLabel* makeValueLabel(const QString& objectName) {
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return label;
}

QString listOfNames(std::span<const std::string_view> names) {
    QStringList shown;
    for (std::size_t i = 0; i < names.size() && i < kMaxListedNames; ++i) {
        shown << qs(names[i]);
    }
    if (names.size() > kMaxListedNames) {
        shown << NodeInspector::tr("%n more", nullptr, static_cast<int>(names.size() - kMaxListedNames));
    }
    return QLocale().createSeparatedList(shown);
}

QString sourceText(const SourceOutput& source) {
    return source.output == 0 ? qs(source.node)
                              : NodeInspector::tr("%1 (output %2)")
                                    .arg(qs(source.node), QString::number(source.output));
}

// The graph with every read of an amp_cast / amp_multicast output redirected to what it casts, so
// that classifyVariables sees where a variable really goes (fc1_weight is fc1's weight, not the
// input of fc1_weight_amp_cast_float16). Nodes come in topological order, so one step per edge
// also collapses chains of casts.
Graph readThroughCasts(const Graph& graph) {
    Graph g = graph;
    for (Node& n : g.nodes) {
        for (NodeEntry& e : n.inputs) {
            const Node& source = g.nodes[e.node];
            if (source.op == "amp_cast" && !source.inputs.empty()) {
                e = source.inputs[0];
            } else if (source.op == "amp_multicast" && e.index < source.inputs.size()) {
                e = source.inputs[e.index];
            }
        }
    }
    return g;
}

}  // namespace

// Indexes into the shown graph and report, rebuilt only when either changes, so that inspecting a
// node costs in proportion to its edges even in a graph of 100,000 nodes.
struct NodeInspector::Lookup {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ConversionReport> report;
    std::vector<std::vector<NodeId>> consumers;
    std::vector<VariableRole> roles;  // computed when a variable is first shown
    std::unordered_map<std::string_view, const NodeDecision*> decisions;
    std::unordered_map<std::string_view, const CastRecord*> castsByName;
    std::unordered_multimap<std::string_view, const CastRecord*> castsBySource;
    // The graph is the conversion's result (its cast nodes are the report's); otherwise it is the
    // original, whose edges the report's casts sit on.
    bool graphIsConverted = false;

    void set(std::shared_ptr<const Graph> g, std::shared_ptr<const ConversionReport> r) {
        const bool graphChanged = g != graph;
        const bool reportChanged = r != report;
        if (graphChanged) {
            graph = std::move(g);
            consumers = graph->consumers();
            roles.clear();
        }
        if (reportChanged) {
            report = std::move(r);
            decisions.clear();
            castsByName.clear();
            castsBySource.clear();
            if (report) {
                decisions.reserve(report->nodes.size());
                for (const NodeDecision& d : report->nodes) {
                    decisions.emplace(d.name, &d);
                }
                for (const CastRecord& c : report->casts) {
                    castsByName.emplace(c.name, &c);
                    if (c.multicastSources.empty()) {
                        castsBySource.emplace(c.source.node, &c);
                    }
                    for (const SourceOutput& s : c.multicastSources) {
                        castsBySource.emplace(s.node, &c);  // a name twice is harmless: castInto checks
                    }
                }
            }
        }
        if (graphChanged || reportChanged) {
            graphIsConverted = std::any_of(graph->nodes.begin(), graph->nodes.end(), [&](const Node& n) {
                return isCastOp(n) && castsByName.count(n.name) > 0;
            });
        }
    }

    const NodeDecision* decision(std::string_view name) const {
        const auto it = decisions.find(name);
        return it == decisions.end() ? nullptr : it->second;
    }

    // The report's record of a cast node of the converted graph.
    const CastRecord* castRecord(const Node& node) const {
        if (!graphIsConverted || !isCastOp(node)) {
            return nullptr;
        }
        const auto it = castsByName.find(node.name);
        return it == castsByName.end() ? nullptr : it->second;
    }

    // The cast that, after conversion, sits on the original edge source[output] -> consumer (an
    // empty consumer: the graph output).
    const CastRecord* castInto(std::string_view source, uint32_t output, std::string_view consumer) const {
        if (graphIsConverted) {
            return nullptr;
        }
        const auto [begin, end] = castsBySource.equal_range(source);
        if (begin == end) {
            return nullptr;
        }
        const SourceOutput wanted{source, output};
        for (auto it = begin; it != end; ++it) {
            const CastRecord& c = *it->second;
            const bool readsIt = c.multicastSources.empty()
                                     ? c.source == wanted
                                     : std::find(c.multicastSources.begin(), c.multicastSources.end(),
                                                 wanted) != c.multicastSources.end();
            if (!readsIt) {
                continue;
            }
            if (consumer.empty()
                    ? c.feedsGraphOutput
                    : std::find(c.consumers.begin(), c.consumers.end(), consumer) != c.consumers.end()) {
                return &c;
            }
        }
        return nullptr;
    }

    EdgeDtype edgeDtype(NodeId sourceId, uint32_t output, std::string_view consumer) const {
        const Node& source = graph->nodes[sourceId];
        if (source.op == "amp_cast") {
            const std::string* dtype = source.attr("dtype");
            return {dtype ? QString::fromStdString(*dtype) : QString(), {}};
        }
        if (source.op == "amp_multicast") {
            return {NodeInspector::tr("widest"), {}};
        }
        if (const CastRecord* c = castInto(source.name, output, consumer)) {
            const QString dtype =
                c->op == "amp_multicast" ? NodeInspector::tr("widest") : qs(c->dtype);
            return {dtype, qs(c->name)};
        }
        // A decision's dtype is that of output 0; other outputs (BatchNorm's mean, var) may differ.
        const NodeDecision* d = decision(source.name);
        if (d != nullptr && output == 0 && d->dtype != DType::Unknown) {
            return {qs(dtypeName(d->dtype)), {}};
        }
        return {};
    }

    VariableRole role(NodeId id) {
        if (roles.empty()) {
            const bool hasCasts = std::any_of(graph->nodes.begin(), graph->nodes.end(), isCastOp);
            roles = classifyVariables(hasCasts ? readThroughCasts(*graph) : *graph);
        }
        return roles[id];
    }
};

namespace {

QString roleText(VariableRole role) {
    switch (role) {
        case VariableRole::Parameter:
            return NodeInspector::tr("parameter");
        case VariableRole::AuxiliaryState:
            return NodeInspector::tr("auxiliary state");
        case VariableRole::Input:
            break;
    }
    return NodeInspector::tr("data input");
}

QString precisionText(const NodeDecision& d) {
    const QString dtype = d.dtype == DType::Unknown ? QString() : qs(dtypeName(d.dtype));
    switch (d.precision) {
        case NodePrecision::Variable:
            return dtype.isEmpty() ? NodeInspector::tr("as given (not known before run time)")
                                   : NodeInspector::tr("stored in %1").arg(dtype);
        case NodePrecision::Target:
        case NodePrecision::Float32:
            return dtype;
        case NodePrecision::Widest:
            return dtype.isEmpty() ? NodeInspector::tr("widest of its inputs, at run time") : dtype;
        case NodePrecision::Unchanged:
            return dtype.isEmpty() ? NodeInspector::tr("unchanged: whatever it receives")
                                   : NodeInspector::tr("unchanged: receives %1").arg(dtype);
    }
    return {};
}

QString ruleText(const NodeDecision& d) {
    return d.rule == DecisionRule::NoList ? NodeInspector::tr("no list") : qs(decisionRuleName(d.rule));
}

// The engine's NodeDecision::reason(), in sentences that can be translated.
QString reasonText(const NodeDecision& d, const QString& role) {
    const QString op = qs(d.op);
    const QString detail = qs(d.detail);
    switch (d.rule) {
        case DecisionRule::Variable:
            if (isLowPrecisionFloat(d.dtype)) {
                return NodeInspector::tr(
                           "A %1, read only by target-dtype operators: stored in %2 "
                           "(cast_optional_params).")
                    .arg(role, qs(dtypeName(d.dtype)));
            }
            return NodeInspector::tr("A %1 of the graph: no rule applies to variables.").arg(role);
        case DecisionRule::TargetList:
            return NodeInspector::tr("%1 is in target_dtype_ops: it runs in %2.")
                .arg(op, qs(dtypeName(d.dtype)));
        case DecisionRule::Fp32List:
            return NodeInspector::tr("%1 is in fp32_ops: it runs in float32.").arg(op);
        case DecisionRule::WidestList:
            return NodeInspector::tr("%1 is in widest_dtype_ops: %2.").arg(op, detail);
        case DecisionRule::ConditionalFp32:
            return NodeInspector::tr("%1 is in conditional_fp32_ops and has %2: it runs in float32.")
                .arg(op, detail);
        case DecisionRule::Excluded:
            if (d.precision == NodePrecision::Variable) {
                return NodeInspector::tr(
                    "Excluded by name: its readers take it as float32 (with cast_optional_params, MXNet may still store it in the target dtype when a target-dtype op reads it).");
            }
            return d.precision == NodePrecision::Float32
                       ? NodeInspector::tr("Excluded by name: runs in float32.")
                       : NodeInspector::tr("Excluded by name: its inputs pass through unchanged.");
        case DecisionRule::NeutralList:
            return NodeInspector::tr("%1 is in neutral_ops: it runs in the dtype of its inputs.").arg(op);
        case DecisionRule::NoList:
            return NodeInspector::tr("%1 is in no list: its inputs pass through unchanged.").arg(op);
        case DecisionRule::Unreachable:
            return NodeInspector::tr("Not reachable from the graph outputs: the conversion drops it.");
    }
    return {};
}

QString castReason(const CastRecord& c) {
    if (c.op == "amp_multicast") {
        QStringList sources;
        for (const SourceOutput& s : c.multicastSources) {
            sources << sourceText(s);
        }
        return NodeInspector::tr(
                   "Inserted by the conversion: brings %1 to the widest of their dtypes at run time, "
                   "for %2.")
            .arg(QLocale().createSeparatedList(sources), listOfNames(c.consumers));
    }
    const QString dtype = qs(c.dtype);
    if (c.consumers.empty() && c.feedsGraphOutput) {
        return NodeInspector::tr("Inserted by the conversion: casts %1 to %2 for the graph output.")
            .arg(sourceText(c.source), dtype);
    }
    QString text = NodeInspector::tr("Inserted by the conversion: casts %1 to %2 for %3.")
                       .arg(sourceText(c.source), dtype, listOfNames(c.consumers));
    if (c.feedsGraphOutput) {
        text += QLatin1Char(' ') + NodeInspector::tr("It is also a graph output.");
    }
    return text;
}

QString dtypeCell(const EdgeDtype& e) {
    if (e.dtype.isEmpty()) {
        return QStringLiteral("—");
    }
    return e.viaCast.isEmpty() ? e.dtype : NodeInspector::tr("%1 (cast)").arg(e.dtype);
}

QString dtypeToolTip(const EdgeDtype& e) {
    if (e.dtype.isEmpty()) {
        return NodeInspector::tr("Not known before run time");
    }
    return e.viaCast.isEmpty()
               ? e.dtype
               : NodeInspector::tr("Cast to %1 by %2 in the converted graph").arg(e.dtype, e.viaCast);
}

}  // namespace

NodeInspector::NodeInspector(QWidget* parent) : QWidget(parent), m_lookup(std::make_unique<Lookup>()) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget;
    outer->addWidget(m_stack);

    auto* placeholder = new QLabel(tr("Select a node in a graph view to inspect it."));
    placeholder->setObjectName(QStringLiteral("placeholder"));
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setWordWrap(true);
    placeholder->setEnabled(false);  // greyed: it is a hint, not content
    // Wraps to whatever width the dock has instead of asking for its one-line width.
    placeholder->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_stack->addWidget(placeholder);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    scroll->setWidget(content);
    m_stack->addWidget(scroll);

    // The name: selectable and copyable whole, however long; styled as a heading.
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("name"));
    m_name->setReadOnly(true);
    m_name->setFrame(false);
    m_name->setStyleSheet(QStringLiteral("QLineEdit { background: transparent; }"));
    QFont heading = m_name->font();
    heading.setBold(true);
    heading.setPointSizeF(heading.pointSizeF() * 1.2);
    m_name->setFont(heading);
    layout->addWidget(m_name);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setLabelAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_operator = makeValueLabel(QStringLiteral("operator"));
    m_operator->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_precision = makeValueLabel(QStringLiteral("precision"));
    m_rule = makeValueLabel(QStringLiteral("rule"));
    m_reason = makeValueLabel(QStringLiteral("reason"));
    form->addRow(tr("Operator:"), m_operator);
    form->addRow(tr("Precision:"), m_precision);
    form->addRow(tr("Rule:"), m_rule);
    form->addRow(tr("Reason:"), m_reason);
    layout->addLayout(form);

    const auto addSection = [&](QGroupBox*& box, QTreeWidget*& tree, const QString& objectName,
                                const QStringList& headers, int stretchColumn) {
        box = new QGroupBox;
        auto* boxLayout = new QVBoxLayout(box);
        boxLayout->setContentsMargins(4, 4, 4, 4);
        tree = makeTree(headers, stretchColumn);
        tree->setObjectName(objectName);
        boxLayout->addWidget(tree);
        auto* none = new QLabel(tr("None"));
        none->setObjectName(QStringLiteral("none"));
        none->setEnabled(false);
        boxLayout->addWidget(none);
        layout->addWidget(box);
    };
    addSection(m_attributesBox, m_attributes, QStringLiteral("attributes"), {tr("Key"), tr("Value")}, 1);
    m_attributes->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_attributes->setTextElideMode(Qt::ElideRight);
    addSection(m_inputsBox, m_inputs, QStringLiteral("inputs"),
               {tr("Input"), tr("From"), tr("Output"), tr("Dtype")}, 1);
    addSection(m_outputsBox, m_outputs, QStringLiteral("outputs"), {tr("Output"), tr("Read by"), tr("Dtype")},
               1);
    layout->addStretch(1);

    for (QTreeWidget* tree : {m_inputs, m_outputs}) {
        connect(tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
            const QString name = item->data(0, kNodeNameRole).toString();
            if (!name.isEmpty()) {
                emit nodeActivated(name);
            }
        });
    }
    clear();
}

NodeInspector::~NodeInspector() = default;

QString NodeInspector::nodeName() const {
    return m_nodeName;
}

void NodeInspector::clear() {
    m_nodeName.clear();
    m_name->clear();
    for (QLabel* label : {m_operator, m_precision, m_rule, m_reason}) {
        label->clear();
    }
    for (QTreeWidget* tree : {m_attributes, m_inputs, m_outputs}) {
        tree->clear();
    }
    // Drop the graph and report: the inspector must not keep a closed document alive.
    *m_lookup = Lookup();
    m_stack->setCurrentIndex(0);
}

void NodeInspector::showNode(std::shared_ptr<const Graph> graph,
                             std::shared_ptr<const ConversionReport> report, int nodeIndex) {
    if (!graph || nodeIndex < 0 || static_cast<std::size_t>(nodeIndex) >= graph->size()) {
        clear();
        return;
    }
    m_lookup->set(std::move(graph), std::move(report));
    const NodeId id = static_cast<NodeId>(nodeIndex);
    const Node& node = m_lookup->graph->nodes[id];

    m_nodeName = QString::fromStdString(node.name);
    m_name->setText(m_nodeName);
    m_name->setCursorPosition(0);
    m_name->setToolTip(m_nodeName);
    if (node.isVariable()) {
        m_operator->setText(tr("variable (%1)").arg(roleText(m_lookup->role(id))));
    } else {
        m_operator->setText(QString::fromStdString(node.op));
    }
    showPrecision(id);
    fillAttributes(node);
    fillInputs(node);
    fillOutputs(id);
    m_stack->setCurrentIndex(1);
}

void NodeInspector::showPrecision(NodeId id) {
    const Node& node = m_lookup->graph->nodes[id];
    const ConversionReport* report = m_lookup->report.get();
    if (const CastRecord* cast = m_lookup->castRecord(node)) {
        m_precision->setText(cast->op == "amp_multicast" ? tr("widest of its inputs, at run time")
                                                         : qs(cast->dtype));
        m_rule->setText(tr("inserted by the conversion"));
        m_reason->setText(breakable(castReason(*cast)));
        return;
    }
    const NodeDecision* d = report ? m_lookup->decision(node.name) : nullptr;
    if (d != nullptr) {
        const QString role = node.isVariable() ? roleText(m_lookup->role(id)) : QString();
        m_precision->setText(precisionText(*d));
        m_rule->setText(ruleText(*d));
        m_reason->setText(breakable(reasonText(*d, role)));
        return;
    }
    // No conversion (or a node it does not know): what the file itself says.
    const std::string* dtype = node.op == "amp_cast" ? node.attr("dtype") : nullptr;
    m_precision->setText(dtype ? QString::fromStdString(*dtype) : tr("not converted"));
    m_rule->setText(QStringLiteral("—"));
    m_reason->setText(report ? tr("The conversion report does not mention this node.")
                             : tr("No conversion has run on this graph."));
}

void NodeInspector::fillAttributes(const Node& node) {
    m_attributes->clear();
    // Attributes are kept sorted by key (graph/attributes.h), which is the order to show.
    for (const auto& [key, value] : node.attrs) {
        auto* item = new QTreeWidgetItem(m_attributes);
        item->setText(0, QString::fromStdString(key));
        item->setText(1, QString::fromStdString(value));
        item->setToolTip(0, item->text(0));
        item->setToolTip(1, item->text(1));
    }
    finishSection(m_attributesBox, m_attributes, tr("Attributes (%1)").arg(node.attrs.size()));
}

void NodeInspector::fillInputs(const Node& node) {
    m_inputs->clear();
    const OpRegistry& registry = OpRegistry::instance();
    const auto slotNames = node.isVariable() ? std::nullopt : registry.inputNames(node);
    bool anyMultiOutputSource = false;
    bool anyDtypeKnown = false;
    for (uint32_t i = 0; i < node.inputs.size(); ++i) {
        const NodeEntry& e = node.inputs[i];
        const Node& source = m_lookup->graph->node(e);
        anyMultiOutputSource = anyMultiOutputSource || source.numOutputs > 1;
        auto* item = new QTreeWidgetItem(m_inputs);
        const QString slot =
            slotNames && i < slotNames->size() ? QString::fromStdString((*slotNames)[i]) : QString::number(i);
        item->setText(0, slot);
        item->setToolTip(0, tr("Input %1 of %2").arg(QString::number(i), m_nodeName));

        const QString sourceName = QString::fromStdString(source.name);
        const QString entryName = QString::fromStdString(outputEntryName(source, e.index));
        setNodeCell(item, 1, sourceName,
                    tr("%1 (output %2: %3)\nDouble-click to show it")
                        .arg(sourceName, QString::number(e.index), entryName));
        const auto outputName = registry.outputName(source, e.index);
        item->setText(2, source.isVariable() ? QString()
                         : outputName        ? QString::fromStdString(*outputName)
                                             : QString::number(e.index));
        item->setToolTip(2, entryName);

        const EdgeDtype dtype = m_lookup->edgeDtype(e.node, e.index, node.name);
        anyDtypeKnown = anyDtypeKnown || !dtype.dtype.isEmpty();
        item->setText(3, dtypeCell(dtype));
        item->setToolTip(3, dtypeToolTip(dtype));
    }
    // The output column says something only when a source has several outputs (BatchNorm, SliceChannel).
    m_inputs->setColumnHidden(2, !anyMultiOutputSource);
    // Without a conversion only casts already in the file have known dtypes.
    m_inputs->setColumnHidden(3, !m_lookup->report && !anyDtypeKnown);
    finishSection(m_inputsBox, m_inputs, tr("Inputs (%1)").arg(node.inputs.size()));
}

void NodeInspector::fillOutputs(NodeId id) {
    m_outputs->clear();
    const Graph& graph = *m_lookup->graph;
    const Node& node = graph.nodes[id];
    const OpRegistry& registry = OpRegistry::instance();
    const auto outputLabel = [&](uint32_t index) {
        if (node.isVariable()) {
            return QString();
        }
        const auto name = registry.outputName(node, index);
        return name ? QString::fromStdString(*name) : QString::number(index);
    };
    bool anyDtypeKnown = false;
    const auto addRow = [&](uint32_t index, const EdgeDtype& dtype) {
        anyDtypeKnown = anyDtypeKnown || !dtype.dtype.isEmpty();
        auto* item = new QTreeWidgetItem(m_outputs);
        item->setText(0, outputLabel(index));
        item->setToolTip(0, QString::fromStdString(outputEntryName(node, index)));
        item->setText(2, dtypeCell(dtype));
        item->setToolTip(2, dtypeToolTip(dtype));
        return item;
    };

    int rows = 0;
    // One row per consumer and output it reads (a node that reads the same output twice is one row).
    for (NodeId consumerId : m_lookup->consumers[id]) {
        const Node& consumer = graph.nodes[consumerId];
        std::vector<uint32_t> read;
        for (const NodeEntry& e : consumer.inputs) {
            if (e.node == id && std::find(read.begin(), read.end(), e.index) == read.end()) {
                read.push_back(e.index);
            }
        }
        std::sort(read.begin(), read.end());
        const QString reader = QString::fromStdString(consumer.name);
        for (uint32_t index : read) {
            QTreeWidgetItem* item = addRow(index, m_lookup->edgeDtype(id, index, consumer.name));
            setNodeCell(
                item, 1, reader,
                tr("%1 (%2)\nDouble-click to show it").arg(reader, QString::fromStdString(consumer.op)));
            ++rows;
        }
    }
    for (const NodeEntry& head : graph.heads) {
        if (head.node == id) {
            QTreeWidgetItem* item = addRow(head.index, m_lookup->edgeDtype(id, head.index, {}));
            item->setText(1, tr("graph output"));
            item->setToolTip(1, tr("An output of the graph"));
            QFont italic = item->font(1);
            italic.setItalic(true);
            item->setFont(1, italic);
            ++rows;
        }
    }
    m_outputs->setColumnHidden(0, node.numOutputs <= 1);
    m_outputs->setColumnHidden(2, !m_lookup->report && !anyDtypeKnown);
    finishSection(m_outputsBox, m_outputs, tr("Outputs (%1)").arg(rows));
}
