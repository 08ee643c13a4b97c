#include "op_list_editor.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QStringListModel>
#include <QTableView>
#include <QToolBox>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

#include "conditional_fp32_model.h"
#include "formats/load_error.h"
#include "op_list_model.h"
#include "ops/mxnet_op_facts.h"

using namespace ampstudio;

namespace {

constexpr OpList kOpLists[] = {OpList::Target, OpList::Fp32, OpList::Widest, OpList::Neutral};
constexpr int kMaxUserPresets = 10;
const QString kBuiltinFloat16 = QStringLiteral("builtin:float16");
const QString kBuiltinBfloat16 = QStringLiteral("builtin:bfloat16");

QStringList toQStringList(const std::vector<std::string>& names) {
    QStringList list;
    list.reserve(qsizetype(names.size()));
    for (const std::string& n : names) {
        list << QString::fromStdString(n);
    }
    return list;
}

bool isOpListPage(OpListEditor::Page page) {
    return int(page) <= int(OpListEditor::Page::Neutral);
}
OpList opListOf(OpListEditor::Page page) {
    return isOpListPage(page) ? OpList(int(page)) : OpList::None;
}

std::filesystem::path toPath(const QString& path) {
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

}  // namespace

OpListEditor::OpListEditor(ConversionSettings* settings, QWidget* parent) : QWidget(parent) {
    buildUi();
    setSettings(settings);
}

void OpListEditor::buildUi() {
    // --- conversion choices ---
    m_dtypeCombo = new QComboBox(this);
    m_dtypeCombo->setObjectName(QStringLiteral("targetDtypeCombo"));
    m_dtypeCombo->addItem(QStringLiteral("float16"), int(DType::F16));
    m_dtypeCombo->addItem(QStringLiteral("bfloat16"), int(DType::BF16));
    m_dtypeCombo->setToolTip(
        tr("The precision target-dtype ops run in. With unedited lists, switching also "
           "switches to MXNet's default lists for that dtype."));
    connect(m_dtypeCombo, &QComboBox::activated, this, [this](int index) {
        if (m_settings) {
            m_settings->setTargetDtype(DType(m_dtypeCombo->itemData(index).toInt()));
        }
    });

    m_modeCombo = new QComboBox(this);
    m_modeCombo->setObjectName(QStringLiteral("modeCombo"));
    m_modeCombo->addItem(QStringLiteral("typed"), int(ConversionMode::Typed));
    m_modeCombo->setItemData(0, tr("MXNet 1.9.1: knows dtypes and inserts fewer casts"), Qt::ToolTipRole);
    m_modeCombo->addItem(QStringLiteral("classic"), int(ConversionMode::Classic));
    m_modeCombo->setItemData(1, tr("The original AMP proposal (MXNet 1.6 and earlier)"), Qt::ToolTipRole);
    m_modeCombo->setToolTip(tr("Conversion algorithm: typed (MXNet 1.9.1) or classic (MXNet ≤ 1.6)"));
    connect(m_modeCombo, &QComboBox::activated, this, [this](int index) {
        if (m_settings) {
            m_settings->setMode(ConversionMode(m_modeCombo->itemData(index).toInt()));
        }
    });

    m_castOptionalCheck = new QCheckBox(tr("Cast optional params"), this);
    m_castOptionalCheck->setObjectName(QStringLiteral("castOptionalParamsCheck"));
    m_castOptionalCheck->setToolTip(
        tr("Typed mode: store parameters that only target-dtype ops read in the "
           "target dtype (half the bytes) instead of casting them at run time"));
    connect(m_castOptionalCheck, &QCheckBox::clicked, this, [this](bool on) {
        if (m_settings) {
            m_settings->setCastOptionalParams(on);
        }
    });

    // --- presets, import, export ---
    m_presetCombo = new QComboBox(this);
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->setPlaceholderText(tr("Edited lists"));
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(12);
    m_presetCombo->setToolTip(tr("Replace all lists by a preset: MXNet's defaults or a file you imported"));
    connect(m_presetCombo, &QComboBox::activated, this, &OpListEditor::presetActivated);
    m_importButton = new QPushButton(tr("Import…"), this);
    m_importButton->setObjectName(QStringLiteral("importButton"));
    m_importButton->setToolTip(tr("Load the lists from a JSON file (MXNet AMP list schema)"));
    connect(m_importButton, &QPushButton::clicked, this, &OpListEditor::chooseImport);
    m_exportButton = new QPushButton(tr("Export…"), this);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setToolTip(tr("Save the lists as a JSON file (MXNet AMP list schema)"));
    connect(m_exportButton, &QPushButton::clicked, this, &OpListEditor::chooseExport);

    auto* top = new QGridLayout;
    top->addWidget(new QLabel(tr("Target:"), this), 0, 0);
    top->addWidget(m_dtypeCombo, 0, 1);
    top->addWidget(new QLabel(tr("Mode:"), this), 0, 2);
    top->addWidget(m_modeCombo, 0, 3);
    top->addWidget(m_castOptionalCheck, 1, 1, 1, 3);
    top->addWidget(new QLabel(tr("Preset:"), this), 2, 0);
    top->addWidget(m_presetCombo, 2, 1, 1, 3);
    auto* files = new QHBoxLayout;
    files->addStretch();
    files->addWidget(m_importButton);
    files->addWidget(m_exportButton);
    top->addLayout(files, 3, 1, 1, 3);
    top->setColumnStretch(1, 1);
    top->setColumnStretch(3, 1);

    // --- the lists ---
    m_filterEdit = new QLineEdit(this);
    m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip(tr("Show only the entries that contain this text, in every list"));
    connect(m_filterEdit, &QLineEdit::textChanged, this, &OpListEditor::filterChanged);

    // A tool box rather than tabs: six titles with counts do not fit side by side in a narrow dock.
    m_toolBox = new QToolBox(this);
    m_toolBox->setObjectName(QStringLiteral("lists"));
    static const char* const kViewNames[] = {"targetView", "fp32View", "widestView", "neutralView"};
    for (int i = 0; i < 4; ++i) {
        m_opModels[i] = new OpListModel(this);
        m_opProxies[i] = new QSortFilterProxyModel(this);
        m_opProxies[i]->setSourceModel(m_opModels[i]);
        m_opViews[i] = makeListView(m_opProxies[i], QString::fromLatin1(kViewNames[i]));
        m_toolBox->addItem(m_opViews[i], QString());
    }
    m_toolBox->setItemToolTip(int(Page::Fp32), tr("fp32_ops: these ops run in float32; their inputs are cast "
                                                  "to float32"));
    m_toolBox->setItemToolTip(int(Page::Widest),
                              tr("widest_dtype_ops: inputs are cast to the widest of their "
                                 "types (amp_multicast)"));
    m_toolBox->setItemToolTip(int(Page::Neutral),
                              tr("neutral_ops: run in the type of their inputs; typed mode "
                                 "propagates dtypes through them"));

    m_conditionalModel = new ConditionalFp32Model(nullptr, this);
    connect(m_conditionalModel, &ConditionalFp32Model::editRejected, this, [this](const QString& message) {
        showMessage(message, MessageKind::Error);
        emit errorOccurred(message);
    });
    m_conditionalProxy = new QSortFilterProxyModel(this);
    m_conditionalProxy->setSourceModel(m_conditionalModel);
    m_conditionalProxy->setFilterKeyColumn(-1);
    m_conditionalProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_conditionalView = new QTableView(this);
    m_conditionalView->setObjectName(QStringLiteral("conditionalView"));
    m_conditionalView->setModel(m_conditionalProxy);
    m_conditionalView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_conditionalView->verticalHeader()->hide();
    m_conditionalView->horizontalHeader()->setStretchLastSection(true);
    m_conditionalView->horizontalHeader()->setSectionResizeMode(ConditionalFp32Model::OpColumn,
                                                                QHeaderView::ResizeToContents);
    m_conditionalView->horizontalHeader()->setSectionResizeMode(ConditionalFp32Model::ParamColumn,
                                                                QHeaderView::ResizeToContents);
    m_conditionalView->setWordWrap(false);
    m_conditionalView->verticalHeader()->setDefaultSectionSize(m_conditionalView->fontMetrics().height() + 8);
    m_conditionalView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_conditionalView, &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) { showContextMenu(m_conditionalView, pos); });
    connect(m_conditionalView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &OpListEditor::updateActions);
    m_toolBox->addItem(m_conditionalView, QString());
    m_toolBox->setItemToolTip(int(Page::Conditional),
                              tr("conditional_fp32_ops: a node of the op runs in float32 when its attribute "
                                 "param is set to one of the values. Double-click a cell to edit it."));

    m_excludedModel = new OpListModel(this);
    m_excludedModel->setMarkUnmatchable(false);
    m_excludedProxy = new QSortFilterProxyModel(this);
    m_excludedProxy->setSourceModel(m_excludedModel);
    m_excludedView = makeListView(m_excludedProxy, QStringLiteral("excludedView"));
    m_toolBox->addItem(m_excludedView, QString());
    m_toolBox->setItemToolTip(int(Page::Excluded),
                              tr("Nodes (by name) forced out of the lists: typed mode runs "
                                 "them in float32, classic mode copies them unchanged"));
    connect(m_toolBox, &QToolBox::currentChanged, this, [this] {
        updateAddField();
        updateActions();
    });

    // --- adding, removing, moving ---
    m_opNamesModel = new QStringListModel(this);
    QStringList opNames;
    for (const std::string& n : MxnetOpFacts::instance().opNames()) {
        opNames << QString::fromStdString(n);
    }
    m_opNamesModel->setStringList(opNames);
    m_nodeNamesModel = new QStringListModel(this);
    m_completer = new QCompleter(m_opNamesModel, this);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setFilterMode(Qt::MatchContains);
    m_completer->setMaxVisibleItems(12);

    m_addEdit = new QLineEdit(this);
    m_addEdit->setObjectName(QStringLiteral("addEdit"));
    m_addEdit->setCompleter(m_completer);
    m_addEdit->setClearButtonEnabled(true);
    connect(m_addEdit, &QLineEdit::returnPressed, this, &OpListEditor::addFromField);
    m_addButton = new QPushButton(tr("Add"), this);
    m_addButton->setObjectName(QStringLiteral("addButton"));
    connect(m_addButton, &QPushButton::clicked, this, &OpListEditor::addFromField);
    connect(m_addEdit, &QLineEdit::textChanged, this, &OpListEditor::updateActions);

    m_removeButton = new QPushButton(tr("Remove"), this);
    m_removeButton->setObjectName(QStringLiteral("removeButton"));
    m_removeButton->setToolTip(tr("Remove the selected entries (Del)"));
    connect(m_removeButton, &QPushButton::clicked, this, &OpListEditor::removeSelected);

    m_moveMenu = new QMenu(this);
    for (OpList list : kOpLists) {
        QAction* action = m_moveMenu->addAction(QString());
        action->setData(int(list));
        connect(action, &QAction::triggered, this, [this, list] { moveSelected(list); });
    }
    m_moveButton = new QPushButton(tr("Move to"), this);
    m_moveButton->setObjectName(QStringLiteral("moveButton"));
    m_moveButton->setToolTip(tr("Move the selected ops to another list"));
    m_moveButton->setMenu(m_moveMenu);

    auto* addRow = new QHBoxLayout;
    addRow->addWidget(m_addEdit, 1);
    addRow->addWidget(m_addButton);
    auto* editRow = new QHBoxLayout;
    editRow->addWidget(m_moveButton);
    editRow->addWidget(m_removeButton);
    editRow->addStretch();

    m_messageLabel = new QLabel(this);
    m_messageLabel->setObjectName(QStringLiteral("messageLabel"));
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_messageLabel->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_toolBox, 1);
    layout->addLayout(addRow);
    layout->addLayout(editRow);
    layout->addWidget(m_messageLabel);

    updateAddField();
}

QListView* OpListEditor::makeListView(QSortFilterProxyModel* proxy, const QString& objectName) {
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    auto* view = new QListView(this);
    view->setObjectName(objectName);
    view->setModel(proxy);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setUniformItemSizes(true);  // hundreds of rows, one line each
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this,
            [this, view](const QPoint& pos) { showContextMenu(view, pos); });
    connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &OpListEditor::updateActions);
    auto* remove = new QAction(tr("Remove"), view);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    connect(remove, &QAction::triggered, this, &OpListEditor::removeSelected);
    view->addAction(remove);
    return view;
}

void OpListEditor::setSettings(ConversionSettings* settings) {
    if (m_settings) {
        disconnect(m_settings, nullptr, this, nullptr);
    }
    m_settings = settings;
    m_conditionalModel->setSettings(settings);
    if (m_settings) {
        connect(m_settings, &ConversionSettings::changed, this, &OpListEditor::refresh);
        connect(m_settings, &QObject::destroyed, this, &OpListEditor::refresh);
    }
    clearMessage();
    refresh();
}

void OpListEditor::setNodeNames(const QStringList& names) {
    QStringList sorted = names;
    std::sort(sorted.begin(), sorted.end(), OpListModel::lessThan);
    m_nodeNamesModel->setStringList(sorted);
}

void OpListEditor::setUserPresets(const QStringList& paths) {
    m_userPresets = paths;
    m_userPresets.removeDuplicates();
    while (m_userPresets.size() > kMaxUserPresets) {
        m_userPresets.removeLast();
    }
    // Read them now so that the combo can say which one is in use; one that no longer loads is
    // still offered (choosing it reports why it fails).
    for (const QString& path : m_userPresets) {
        if (!m_userPresetLists.contains(path)) {
            try {
                m_userPresetLists.emplace(path, AmpLists::fromJsonFile(toPath(path)));
            } catch (const std::exception&) {
            }
        }
    }
    updatePresetCombo();
}

void OpListEditor::rememberUserPreset(const QString& path, const AmpLists& lists) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_userPresetLists.insert_or_assign(absolute, lists);
    QStringList paths = m_userPresets;
    paths.removeAll(absolute);
    paths.prepend(absolute);
    setUserPresets(paths);
    emit userPresetsChanged(m_userPresets);
}

OpListEditor::Page OpListEditor::currentPage() const {
    return Page(m_toolBox->currentIndex());
}

void OpListEditor::setCurrentPage(Page page) {
    m_toolBox->setCurrentIndex(int(page));
}

OpListModel* OpListEditor::opListModel(OpList list) const {
    return list == OpList::None ? nullptr : m_opModels[int(list)];
}

QAbstractItemView* OpListEditor::viewOf(Page page) const {
    if (isOpListPage(page)) {
        return m_opViews[int(page)];
    }
    return page == Page::Conditional ? static_cast<QAbstractItemView*>(m_conditionalView) : m_excludedView;
}

QString OpListEditor::message() const {
    return m_messageLabel->text();
}

// --- refreshing from the settings ---

void OpListEditor::refresh() {
    setEnabled(m_settings != nullptr);
    if (!m_settings) {
        for (OpListModel* model : m_opModels) {
            model->setNames({});
        }
        m_excludedModel->setNames({});
        updateTitles();
        return;
    }
    const ConversionOptions& options = m_settings->options();
    {
        const QSignalBlocker blockDtype(m_dtypeCombo);
        const QSignalBlocker blockMode(m_modeCombo);
        const QSignalBlocker blockCast(m_castOptionalCheck);
        m_dtypeCombo->setCurrentIndex(m_dtypeCombo->findData(int(options.lists.targetDtype)));
        m_modeCombo->setCurrentIndex(m_modeCombo->findData(int(options.mode)));
        m_castOptionalCheck->setChecked(options.castOptionalParams);
        // MXNet ignores cast_optional_params in its classic pass; so does ours.
        m_castOptionalCheck->setEnabled(options.mode == ConversionMode::Typed);
    }
    const AmpLists& lists = options.lists;
    m_opModels[int(OpList::Target)]->setNames(toQStringList(lists.targetDtypeOps));
    m_opModels[int(OpList::Fp32)]->setNames(toQStringList(lists.fp32Ops));
    m_opModels[int(OpList::Widest)]->setNames(toQStringList(lists.widestDtypeOps));
    m_opModels[int(OpList::Neutral)]->setNames(toQStringList(lists.neutralOps));
    QStringList excluded;
    for (const std::string& n : options.excludedSymNames) {
        excluded << QString::fromStdString(n);
    }
    m_excludedModel->setNames(excluded);

    const QString dtype = QString::fromUtf8(dtypeName(lists.targetDtype));
    m_toolBox->setItemToolTip(int(Page::Target), tr("target_dtype_ops: these ops run in %1; their inputs are "
                                                    "cast to %1")
                                                     .arg(dtype));
    for (QAction* action : m_moveMenu->actions()) {
        action->setText(m_settings->listName(OpList(action->data().toInt())));
    }
    updateTitles();
    updatePresetCombo();
    updateAddField();
    updateActions();
}

void OpListEditor::updateTitles() {
    const bool filtering = !m_filterEdit->text().isEmpty();
    auto title = [&](const QString& name, int shown, int total) {
        return filtering ? tr("%1 (%2 of %3)").arg(name).arg(shown).arg(total)
                         : tr("%1 (%2)").arg(name).arg(total);
    };
    const DType target = m_settings ? m_settings->options().lists.targetDtype : DType::F16;
    const QString names[4] = {ConversionSettings::listName(OpList::Target, target), tr("FP32 ops"),
                              tr("Widest-type ops"), tr("Neutral ops")};
    for (int i = 0; i < 4; ++i) {
        m_toolBox->setItemText(i, title(names[i], m_opProxies[i]->rowCount(), m_opModels[i]->rowCount()));
    }
    m_toolBox->setItemText(
        int(Page::Conditional),
        title(tr("Conditional FP32 ops"), m_conditionalProxy->rowCount(), m_conditionalModel->rowCount()));
    m_toolBox->setItemText(int(Page::Excluded), title(tr("Excluded nodes"), m_excludedProxy->rowCount(),
                                                      m_excludedModel->rowCount()));
}

void OpListEditor::updatePresetCombo() {
    const QSignalBlocker block(m_presetCombo);
    m_presetCombo->clear();
    m_presetCombo->addItem(tr("MXNet 1.9.1 float16"), kBuiltinFloat16);
    m_presetCombo->addItem(tr("MXNet 1.9.1 bfloat16"), kBuiltinBfloat16);
    for (const QString& path : m_userPresets) {
        m_presetCombo->addItem(QFileInfo(path).fileName(), path);
        m_presetCombo->setItemData(m_presetCombo->count() - 1, path, Qt::ToolTipRole);
    }
    int current = -1;  // shows the placeholder, "Edited lists"
    if (m_settings) {
        const AmpLists& lists = m_settings->options().lists;
        if (sameListContent(lists, AmpLists::defaults(DType::F16))) {
            current = 0;
        } else if (sameListContent(lists, AmpLists::defaults(DType::BF16))) {
            current = 1;
        } else {
            for (int i = 0; i < m_userPresets.size() && current < 0; ++i) {
                auto it = m_userPresetLists.find(m_userPresets[i]);
                if (it != m_userPresetLists.end() && sameListContent(lists, it->second)) {
                    current = 2 + i;
                }
            }
        }
    }
    m_presetCombo->setCurrentIndex(current);
}

void OpListEditor::updateAddField() {
    const Page page = currentPage();
    if (isOpListPage(page)) {
        const QString list = m_settings ? m_settings->listName(opListOf(page)) : QString();
        m_addEdit->setPlaceholderText(tr("Add an op to %1…").arg(list));
        m_addEdit->setToolTip(tr("An MXNet op name; an op in another list moves here"));
    } else if (page == Page::Conditional) {
        m_addEdit->setPlaceholderText(tr("Add: op [param=value, value…]"));
        m_addEdit->setToolTip(
            tr("An op, optionally with the attribute and its values, e.g. "
               "“LeakyReLU act_type=elu, selu”"));
    } else {
        m_addEdit->setPlaceholderText(tr("Exclude a node by name…"));
        m_addEdit->setToolTip(tr("The name of a node of the graph"));
    }
    m_completer->setModel(page == Page::Excluded ? m_nodeNamesModel : m_opNamesModel);
}

void OpListEditor::updateActions() {
    const Page page = currentPage();
    const QItemSelectionModel* selection = viewOf(page)->selectionModel();
    const bool selected = selection && selection->hasSelection();
    m_removeButton->setEnabled(selected);
    m_moveButton->setEnabled(selected);
    m_moveButton->setVisible(isOpListPage(page));  // rows and node names have nowhere to move
    m_removeButton->setText(page == Page::Excluded ? tr("Include") : tr("Remove"));
    m_removeButton->setToolTip(page == Page::Excluded ? tr("Stop excluding the selected nodes (Del)")
                                                      : tr("Remove the selected entries (Del)"));
    for (QAction* action : m_moveMenu->actions()) {
        action->setEnabled(OpList(action->data().toInt()) != opListOf(page));
    }
    m_addButton->setEnabled(!m_addEdit->text().trimmed().isEmpty());
}

void OpListEditor::filterChanged(const QString& text) {
    for (QSortFilterProxyModel* proxy : m_opProxies) {
        proxy->setFilterFixedString(text);
    }
    m_conditionalProxy->setFilterFixedString(text);
    m_excludedProxy->setFilterFixedString(text);
    updateTitles();
}

// --- messages ---

void OpListEditor::showMessage(const QString& text, MessageKind kind) {
    // Colours that read on light and dark palettes alike.
    static const char* const kColors[] = {"", "#b8860b", "#d32f2f"};
    const char* color = kColors[int(kind)];
    m_messageLabel->setStyleSheet(*color ? QStringLiteral("color: %1;").arg(QLatin1String(color))
                                         : QString());
    m_messageLabel->setText(text);
    m_messageLabel->setVisible(!text.isEmpty());
}

void OpListEditor::clearMessage() {
    showMessage(QString(), MessageKind::Info);
}

// --- editing ---

void OpListEditor::addFromField() {
    const QString text = m_addEdit->text().trimmed();
    if (text.isEmpty() || !m_settings) {
        return;
    }
    const Page page = currentPage();
    if (isOpListPage(page)) {
        addOp(text, opListOf(page));
    } else if (page == Page::Conditional) {
        addConditional(text);
    } else {
        addExcluded(text);
    }
}

namespace {

// Empty when `op` is a known op name; otherwise the message that says so (with a suggestion when
// only the case is wrong: "fullyconnected" -> FullyConnected).
QString unknownOpMessage(const QString& op) {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    if (registry.isKnown(op.toStdString())) {
        return {};
    }
    QString message = OpListEditor::tr("“%1” is not an MXNet 1.9.1 operator.").arg(op);
    for (const std::string& name : registry.opNames()) {
        const QString candidate = QString::fromStdString(name);
        if (candidate.compare(op, Qt::CaseInsensitive) == 0) {
            message += QLatin1Char(' ') + OpListEditor::tr("Did you mean %1?").arg(candidate);
            break;
        }
    }
    return message;
}

// Empty for a canonical name; for an alias, the warning that the entry never matches.
QString aliasWarning(const QString& op) {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    const std::string name = op.toStdString();
    const std::string_view canonical = registry.canonicalName(name);
    if (canonical == name) {
        return {};
    }
    return OpListEditor::tr(
               "%1 is an alias of %2: symbol files store canonical names, so this entry never "
               "matches a node.")
        .arg(op, QString::fromUtf8(canonical.data(), qsizetype(canonical.size())));
}

}  // namespace

void OpListEditor::addOp(const QString& op, OpList to) {
    if (const QString unknown = unknownOpMessage(op); !unknown.isEmpty()) {
        showMessage(unknown, MessageKind::Error);
        emit errorOccurred(unknown);
        return;  // the text stays in the field, to be corrected
    }
    const OpList from = m_settings->listOf(op);
    const Page page = Page(int(to));
    if (from == to) {
        m_addEdit->clear();
        selectName(page, op);
        showMessage(tr("%1 is already in %2.").arg(op, m_settings->listName(to)), MessageKind::Info);
        return;
    }
    const bool wasConditional = (to == OpList::Target || to == OpList::Fp32) && m_settings->isConditional(op);
    m_settings->moveOp(op, to);
    m_addEdit->clear();
    selectName(page, op);

    QStringList notes;
    notes << (from == OpList::None ? tr("Added %1 to %2.").arg(op, m_settings->listName(to))
                                   : tr("Moved %1 from %2 to %3.")
                                         .arg(op, m_settings->listName(from), m_settings->listName(to)));
    if (wasConditional) {
        notes << tr("Its conditional FP32 rows were removed: an op can't be in both.");
    }
    const QString alias = aliasWarning(op);
    if (!alias.isEmpty()) {
        notes << alias;
    }
    showMessage(notes.join(QLatin1Char(' ')), alias.isEmpty() ? MessageKind::Info : MessageKind::Warning);
}

void OpListEditor::addConditional(const QString& text) {
    // "op" or "op param=value, value"
    static const QRegularExpression kSyntax(QStringLiteral(R"(^(\S+)(?:\s+([^=\s]+)\s*=\s*(.*))?$)"));
    const QRegularExpressionMatch match = kSyntax.match(text);
    if (!match.hasMatch()) {
        const QString message =
            tr("Write an op, optionally followed by param=value, value (e.g. “LeakyReLU "
               "act_type=elu, selu”).");
        showMessage(message, MessageKind::Error);
        emit errorOccurred(message);
        return;
    }
    const QString op = match.captured(1);
    if (const QString unknown = unknownOpMessage(op); !unknown.isEmpty()) {
        showMessage(unknown, MessageKind::Error);
        emit errorOccurred(unknown);
        return;
    }
    ConditionalFp32Op row;
    row.op = op.toStdString();
    row.param = match.captured(2).toStdString();
    for (const QString& part : match.captured(3).split(QLatin1Char(','))) {
        if (!part.trimmed().isEmpty()) {
            row.values.push_back(part.trimmed().toStdString());
        }
    }
    const OpList from = m_settings->listOf(op);
    m_settings->addConditionalFp32(row);
    m_addEdit->clear();

    QStringList notes;
    if (from == OpList::Target || from == OpList::Fp32) {
        notes << tr("%1 left %2: an op can't be in both a list and conditional FP32.")
                     .arg(op, m_settings->listName(from));
    }
    const QString alias = aliasWarning(op);
    if (!alias.isEmpty()) {
        notes << alias;
    }
    const int row_ = m_conditionalModel->rowCount() - 1;
    const QModelIndex index = m_conditionalProxy->mapFromSource(m_conditionalModel->index(
        row_, row.param.empty() ? ConditionalFp32Model::ParamColumn : ConditionalFp32Model::ValuesColumn));
    if (index.isValid()) {
        m_conditionalView->scrollTo(index);
        m_conditionalView->setCurrentIndex(index);
        if (row.param.empty()) {
            notes << tr("Set the parameter and its values in the table.");
            m_conditionalView->edit(index);
        }
    }
    if (notes.isEmpty()) {
        clearMessage();
    } else {
        showMessage(notes.join(QLatin1Char(' ')), alias.isEmpty() ? MessageKind::Info : MessageKind::Warning);
    }
}

void OpListEditor::addExcluded(const QString& name) {
    m_addEdit->clear();
    if (m_settings->options().excludedSymNames.contains(name.toStdString())) {
        showMessage(tr("%1 is already excluded.").arg(name), MessageKind::Info);
    } else {
        m_settings->setExcluded(name, true);
        clearMessage();
    }
    selectName(Page::Excluded, name);
}

void OpListEditor::selectName(Page page, const QString& name) {
    const OpListModel* model = isOpListPage(page) ? m_opModels[int(page)] : m_excludedModel;
    const QSortFilterProxyModel* proxy = isOpListPage(page) ? m_opProxies[int(page)] : m_excludedProxy;
    const int row = int(model->names().indexOf(name));
    const QModelIndex index = proxy->mapFromSource(model->index(row, 0));
    QAbstractItemView* view = viewOf(page);
    if (!index.isValid()) {
        view->clearSelection();
        return;
    }
    view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
    // Queued: a page that has just been opened gets its final size only when the layout runs.
    QMetaObject::invokeMethod(
        view,
        [view, target = QPersistentModelIndex(index)] {
            if (target.isValid()) {
                view->scrollTo(target);
            }
        },
        Qt::QueuedConnection);
}

QStringList OpListEditor::selectedNames() const {
    QStringList names;
    const QAbstractItemView* view = viewOf(currentPage());
    for (const QModelIndex& index : view->selectionModel()->selectedRows()) {
        names << index.data().toString();
    }
    std::sort(names.begin(), names.end(), OpListModel::lessThan);
    return names;
}

std::vector<int> OpListEditor::selectedConditionalRows() const {
    std::vector<int> rows;
    for (const QModelIndex& index : m_conditionalView->selectionModel()->selectedRows()) {
        rows.push_back(m_conditionalProxy->mapToSource(index).row());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void OpListEditor::moveSelected(OpList to) {
    if (!m_settings || !isOpListPage(currentPage())) {
        return;
    }
    const QStringList names = selectedNames();
    if (names.isEmpty()) {
        return;
    }
    const bool anyConditional = (to == OpList::Target || to == OpList::Fp32) &&
                                std::any_of(names.begin(), names.end(), [this](const QString& n) {
                                    return m_settings->isConditional(n);
                                });
    m_settings->moveOps(names, to);
    if (to == OpList::None) {
        clearMessage();
    } else {
        QString message =
            names.size() == 1
                ? tr("Moved %1 to %2.").arg(names.front(), m_settings->listName(to))
                : tr("Moved %n ops to %1.", "", int(names.size())).arg(m_settings->listName(to));
        if (anyConditional) {
            message +=
                QLatin1Char(' ') + tr("Their conditional FP32 rows were removed: an op can't be in both.");
        }
        showMessage(message, MessageKind::Info);
    }
}

void OpListEditor::removeSelected() {
    if (!m_settings) {
        return;
    }
    const Page page = currentPage();
    if (isOpListPage(page)) {
        moveSelected(OpList::None);
    } else if (page == Page::Conditional) {
        const std::vector<int> selected = selectedConditionalRows();
        if (selected.empty()) {
            return;
        }
        const auto& rows = m_settings->options().lists.conditionalFp32Ops;
        std::vector<ConditionalFp32Op> kept;
        for (int i = 0; i < int(rows.size()); ++i) {
            if (!std::binary_search(selected.begin(), selected.end(), i)) {
                kept.push_back(rows[std::size_t(i)]);
            }
        }
        const QString text = selected.size() == 1
                                 ? tr("Remove %1 from conditional FP32 ops")
                                       .arg(QString::fromStdString(rows[std::size_t(selected.front())].op))
                                 : tr("Remove %n conditional FP32 rows", "", int(selected.size()));
        m_settings->setConditionalFp32(kept, text);  // removing never creates an overlap
        clearMessage();
    } else {
        const QStringList names = selectedNames();
        if (names.size() == 1) {
            m_settings->setExcluded(names.front(), false);
        } else if (!names.isEmpty()) {
            QStringList kept = m_excludedModel->names();
            for (const QString& n : names) {
                kept.removeAll(n);
            }
            m_settings->setExcludedNodes(kept);
        }
        clearMessage();
    }
}

void OpListEditor::showContextMenu(QAbstractItemView* view, const QPoint& pos) {
    if (!view->indexAt(pos).isValid()) {
        return;
    }
    QMenu menu(this);
    const Page page = currentPage();
    if (isOpListPage(page)) {
        QMenu* move = menu.addMenu(tr("Move to"));
        for (QAction* action : m_moveMenu->actions()) {
            move->addAction(action);
        }
    }
    menu.addAction(m_removeButton->text(), this, &OpListEditor::removeSelected);
    if (page != Page::Conditional) {
        menu.addAction(tr("Copy"), this, [this] {
            QGuiApplication::clipboard()->setText(selectedNames().join(QLatin1Char('\n')));
        });
    }
    menu.exec(view->viewport()->mapToGlobal(pos));
}

// --- presets and files ---

void OpListEditor::presetActivated(int index) {
    if (!m_settings || index < 0) {
        return;
    }
    const QString key = m_presetCombo->itemData(index).toString();
    const QString name = m_presetCombo->itemText(index);
    if (key == kBuiltinFloat16 || key == kBuiltinBfloat16) {
        const DType dtype = key == kBuiltinFloat16 ? DType::F16 : DType::BF16;
        m_settings->applyLists(AmpLists::defaults(dtype), tr("Load preset %1").arg(name));
        clearMessage();
    } else {
        // Read again: the file may have been edited since.
        loadListsFile(key, tr("Load preset %1").arg(name));
    }
    updatePresetCombo();  // an edit that changed nothing emits no changed()
}

void OpListEditor::chooseImport() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Op Lists"), QString(),
                                                      tr("AMP lists (*.json);;All files (*)"));
    if (!path.isEmpty()) {
        importFile(path);
    }
}

void OpListEditor::chooseExport() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Op Lists"), QStringLiteral("amp-lists.json"), tr("AMP lists (*.json)"));
    if (!path.isEmpty()) {
        exportFile(path);
    }
}

bool OpListEditor::importFile(const QString& path) {
    return loadListsFile(path, tr("Import %1").arg(QFileInfo(path).fileName()));
}

bool OpListEditor::loadListsFile(const QString& path, const QString& undoText) {
    if (!m_settings) {
        return false;
    }
    auto fail = [this](const QString& message) {
        showMessage(message, MessageKind::Error);
        emit errorOccurred(message);
        return false;
    };
    const QString fileName = QFileInfo(path).fileName();
    AmpLists lists;
    try {
        lists = AmpLists::fromJsonFile(toPath(path));
    } catch (const LoadError& e) {
        return fail(tr("Cannot load the lists: %1").arg(QString::fromStdString(e.what())));
    } catch (const std::exception& e) {
        return fail(tr("Cannot load the lists from %1: %2").arg(path, QString::fromStdString(e.what())));
    }
    const std::vector<std::string> overlaps = lists.overlapErrors();
    if (!overlaps.empty()) {
        return fail(tr("Rejected %1: %2").arg(fileName, toQStringList(overlaps).join(QStringLiteral("; "))));
    }
    m_settings->applyLists(lists, undoText);
    rememberUserPreset(path, lists);

    // Aliases are common in MXNet's own lists; names that are no op at all are worth a word.
    QStringList unknown;
    for (const UnmatchableListEntry& entry : lists.unmatchableEntries()) {
        if (entry.canonical.empty()) {
            unknown << QString::fromStdString(entry.entry);
        }
    }
    if (unknown.isEmpty()) {
        showMessage(tr("Loaded %1.").arg(fileName), MessageKind::Info);
    } else {
        showMessage(tr("Loaded %1. %n entries are not MXNet 1.9.1 operators and never match a node: %2", "",
                       int(unknown.size()))
                        .arg(fileName, unknown.join(QStringLiteral(", "))),
                    MessageKind::Warning);
    }
    return true;
}

bool OpListEditor::exportFile(const QString& path) {
    if (!m_settings) {
        return false;
    }
    auto fail = [this](const QString& message) {
        showMessage(message, MessageKind::Error);
        emit errorOccurred(message);
        return false;
    };
    const AmpLists& lists = m_settings->options().lists;
    // The schema wants a parameter per row; a row just added may not have one yet.
    for (const ConditionalFp32Op& row : lists.conditionalFp32Ops) {
        if (row.param.empty()) {
            return fail(tr("Cannot export: the conditional FP32 row of %1 has no parameter.")
                            .arg(QString::fromStdString(row.op)));
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(tr("Cannot export to %1: %2").arg(path, file.errorString()));
    }
    const std::string json = lists.toJson() + "\n";
    file.write(json.data(), qint64(json.size()));
    if (!file.commit()) {
        return fail(tr("Cannot export to %1: %2").arg(path, file.errorString()));
    }
    rememberUserPreset(path, lists);
    showMessage(tr("Exported the lists to %1.").arg(QFileInfo(path).fileName()), MessageKind::Info);
    return true;
}
