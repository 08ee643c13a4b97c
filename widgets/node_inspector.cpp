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

#include "amp/conversion_index.h"
#include "node_error_box.h"
#include "ops/variable_roles.h"

using namespace ampstudio;

namespace {

constexpr int kNodeNameRole = Qt::UserRole;  // on column 0 of input/output rows: the node to show
constexpr int kMaxVisibleRows = 10;          // a tree taller than this scrolls inside the dock
constexpr int kMaxListedNames = 3;           // "a, b, c and 4 more" in sentences

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

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

}  // namespace

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

// An ONNX If / Loop / Scan node's body decisions (ConversionReport::bodyNodes), one line each, as
// "then_branch/MatMul_0: float16 (MatMul is in target_dtype_ops ...)"; empty for any other node.
QString bodyDecisionsText(const ConversionReport& report, const std::string& node) {
    const std::string prefix = node + "/";
    constexpr int kShown = 12;
    QStringList lines;
    int more = 0;
    for (const NodeDecision& d : report.bodyNodes) {
        if (!d.name.starts_with(prefix)) continue;
        if (lines.size() == kShown) {
            ++more;
            continue;
        }
        lines << NodeInspector::tr("%1: %2 (%3)")
                     .arg(qs(d.name.substr(prefix.size())), precisionText(d), reasonText(d, QString()));
    }
    if (lines.isEmpty()) return {};
    if (more > 0) lines << NodeInspector::tr("… and %n more (see the report)", nullptr, more);
    return NodeInspector::tr("Inside its bodies:") + QStringLiteral("\n") + lines.join(QStringLiteral("\n"));
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

// "widest" is the one dtype word to translate: an amp_multicast's output, decided at run time.
QString dtypeText(const EdgeDtype& e) {
    return e.dtype == "widest" ? NodeInspector::tr("widest") : QString::fromStdString(e.dtype);
}

QString dtypeCell(const EdgeDtype& e) {
    if (!e.known()) {
        return QStringLiteral("—");
    }
    return e.viaCast.empty() ? dtypeText(e) : NodeInspector::tr("%1 (cast)").arg(dtypeText(e));
}

QString dtypeToolTip(const EdgeDtype& e) {
    if (!e.known()) {
        return NodeInspector::tr("Not known before run time");
    }
    return e.viaCast.empty() ? dtypeText(e)
                             : NodeInspector::tr("Cast to %1 by %2 in the converted graph")
                                   .arg(dtypeText(e), QString::fromStdString(e.viaCast));
}

}  // namespace

NodeInspector::NodeInspector(QWidget* parent) : QWidget(parent) {
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
    m_errorBox = new NodeErrorBox;
    layout->addWidget(m_errorBox);

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

void NodeInspector::showMeasuredError(const NodeErrorProfile* profile, DType target, bool inTarget) {
    m_errorBox->showProfile(profile, target, inTarget);
}

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
    m_index.reset();
    m_stack->setCurrentIndex(0);
}

void NodeInspector::showNode(std::shared_ptr<const Graph> graph,
                             std::shared_ptr<const ConversionReport> report, int nodeIndex) {
    if (!graph) {
        clear();
        return;
    }
    // Indexed again only when the graph or the report changes.
    if (!m_index || m_index->graph() != graph || m_index->report() != report) {
        m_index = std::make_shared<const ConversionIndex>(std::move(graph), std::move(report));
    }
    showNode(m_index, nodeIndex);
}

void NodeInspector::showNode(std::shared_ptr<const ConversionIndex> index, int nodeIndex) {
    if (!index || nodeIndex < 0 || static_cast<std::size_t>(nodeIndex) >= index->graph()->size()) {
        clear();
        return;
    }
    m_index = std::move(index);
    const NodeId id = static_cast<NodeId>(nodeIndex);
    const Node& node = m_index->graph()->nodes[id];

    m_nodeName = QString::fromStdString(node.name);
    m_name->setText(m_nodeName);
    m_name->setCursorPosition(0);
    m_name->setToolTip(m_nodeName);
    if (node.isVariable()) {
        m_operator->setText(tr("variable (%1)").arg(roleText(m_index->role(id))));
    } else {
        m_operator->setText(QString::fromStdString(node.op));
    }
    showPrecision(id);
    fillAttributes(node);
    fillInputs(id);
    fillOutputs(id);
    m_stack->setCurrentIndex(1);
}

void NodeInspector::showGroup(const QString& scope, const QString& contents, const QString& precision,
                              const QString& ops) {
    clear();
    m_nodeName = scope;
    m_name->setText(scope);
    m_name->setCursorPosition(0);
    m_name->setToolTip(scope);
    m_operator->setText(contents);
    m_precision->setText(precision);
    m_rule->setText(tr("a name scope, collapsed (double-click opens it)"));
    m_reason->setText(breakable(ops));
    m_stack->setCurrentIndex(1);
}

void NodeInspector::showPrecision(NodeId id) {
    const Node& node = m_index->graph()->nodes[id];
    const ConversionReport* report = m_index->report().get();
    if (const CastRecord* cast = m_index->castRecord(id)) {
        m_precision->setText(cast->op == "amp_multicast" ? tr("widest of its inputs, at run time")
                                                         : qs(cast->dtype));
        m_rule->setText(tr("inserted by the conversion"));
        m_reason->setText(breakable(castReason(*cast)));
        return;
    }
    const NodeDecision* d = report ? m_index->decision(node.name) : nullptr;
    if (d != nullptr) {
        const QString role = node.isVariable() ? roleText(m_index->role(id)) : QString();
        m_precision->setText(precisionText(*d));
        m_rule->setText(ruleText(*d));
        QString reason = reasonText(*d, role);
        if (const QString bodies = bodyDecisionsText(*report, node.name); !bodies.isEmpty()) {
            reason += QStringLiteral("\n") + bodies;
        }
        m_reason->setText(breakable(reason));
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

void NodeInspector::fillInputs(NodeId id) {
    m_inputs->clear();
    const Graph& graph = *m_index->graph();
    bool anyMultiOutputSource = false;
    bool anyDtypeKnown = false;
    for (const InputRow& row : m_index->inputs(id)) {
        const Node& source = graph.nodes[row.source];
        anyMultiOutputSource = anyMultiOutputSource || source.numOutputs > 1;
        auto* item = new QTreeWidgetItem(m_inputs);
        item->setText(0, QString::fromStdString(row.slotName));
        item->setToolTip(0, tr("Input %1 of %2").arg(QString::number(row.slot), m_nodeName));

        const QString sourceName = QString::fromStdString(source.name);
        const QString entryName = QString::fromStdString(row.entryName);
        setNodeCell(item, 1, sourceName,
                    tr("%1 (output %2: %3)\nDouble-click to show it")
                        .arg(sourceName, QString::number(row.output), entryName));
        item->setText(2, QString::fromStdString(row.outputName));
        item->setToolTip(2, entryName);

        anyDtypeKnown = anyDtypeKnown || row.dtype.known();
        item->setText(3, dtypeCell(row.dtype));
        item->setToolTip(3, dtypeToolTip(row.dtype));
    }
    // The output column says something only when a source has several outputs (BatchNorm, SliceChannel).
    m_inputs->setColumnHidden(2, !anyMultiOutputSource);
    // Without a conversion only casts already in the file have known dtypes.
    m_inputs->setColumnHidden(3, !m_index->report() && !anyDtypeKnown);
    finishSection(m_inputsBox, m_inputs, tr("Inputs (%1)").arg(graph.nodes[id].inputs.size()));
}

void NodeInspector::fillOutputs(NodeId id) {
    m_outputs->clear();
    const Graph& graph = *m_index->graph();
    const Node& node = graph.nodes[id];
    bool anyDtypeKnown = false;
    int rows = 0;
    for (const OutputRow& row : m_index->outputs(id)) {
        anyDtypeKnown = anyDtypeKnown || row.dtype.known();
        auto* item = new QTreeWidgetItem(m_outputs);
        item->setText(0, QString::fromStdString(row.outputName));
        item->setToolTip(0, QString::fromStdString(outputEntryName(node, row.output)));
        item->setText(2, dtypeCell(row.dtype));
        item->setToolTip(2, dtypeToolTip(row.dtype));
        if (row.consumer) {
            const Node& consumer = graph.nodes[*row.consumer];
            const QString reader = QString::fromStdString(consumer.name);
            setNodeCell(item, 1, reader,
                        tr("%1 (%2)\nDouble-click to show it").arg(reader, QString::fromStdString(consumer.op)));
        } else {
            item->setText(1, tr("graph output"));
            item->setToolTip(1, tr("An output of the graph"));
            QFont italic = item->font(1);
            italic.setItalic(true);
            item->setFont(1, italic);
        }
        ++rows;
    }
    m_outputs->setColumnHidden(0, node.numOutputs <= 1);
    m_outputs->setColumnHidden(2, !m_index->report() && !anyDtypeKnown);
    finishSection(m_outputsBox, m_outputs, tr("Outputs (%1)").arg(rows));
}
