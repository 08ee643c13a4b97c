#include "op_list_editor.h"

#include <QAction>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QSaveFile>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

#include "conditional_fp32_model.h"
#include "conditional_fp32_view.h"
#include "conversion_choices_panel.h"
#include "formats/load_error.h"
#include "op_list_edit_bar.h"
#include "op_list_model.h"
#include "op_list_pages.h"
#include "op_list_view.h"
#include "amp/onnx_conversion.h"
#include "ops/mxnet_op_facts.h"
#include "string_lists.h"

using namespace ampstudio;

namespace {

constexpr int kMaxUserPresets = 10;

std::filesystem::path toPath(const QString& path) {
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

}  // namespace

OpListEditor::OpListEditor(ConversionSettings* settings, QWidget* parent) : QWidget(parent) {
    buildUi();
    setSettings(settings);
}

void OpListEditor::buildUi() {
    m_choices = new ConversionChoicesPanel(this);
    connect(m_choices, &ConversionChoicesPanel::builtinPresetChosen, this, &OpListEditor::applyBuiltinPreset);
    connect(m_choices, &ConversionChoicesPanel::userPresetChosen, this, &OpListEditor::applyUserPreset);
    connect(m_choices, &ConversionChoicesPanel::importRequested, this, &OpListEditor::chooseImport);
    connect(m_choices, &ConversionChoicesPanel::exportRequested, this, &OpListEditor::chooseExport);

    m_filterEdit = new QLineEdit(this);
    m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip(tr("Show only the entries that contain this text, in every list"));

    m_pages = new OpListPages(this);
    connect(m_filterEdit, &QLineEdit::textChanged, m_pages, &OpListPages::setFilter);
    connect(m_pages->conditionalView()->rules(), &ConditionalFp32Model::editRejected, this,
            &OpListEditor::reportError);
    connect(m_pages, &OpListPages::selectionChanged, this, &OpListEditor::updateActions);
    connect(m_pages, &OpListPages::removeRequested, this, &OpListEditor::removeSelected);
    connect(m_pages, &OpListPages::contextMenuRequested, this, &OpListEditor::showContextMenu);
    connect(m_pages, &QToolBox::currentChanged, this, [this] {
        updateEditBar();
        updateActions();
    });

    m_editBar = new OpListEditBar(this);
    connect(m_editBar, &OpListEditBar::addRequested, this, &OpListEditor::addFromField);
    connect(m_editBar, &OpListEditBar::removeRequested, this, &OpListEditor::removeSelected);
    connect(m_editBar, &OpListEditBar::moveRequested, this, &OpListEditor::moveSelected);

    m_messageLabel = new QLabel(this);
    m_messageLabel->setObjectName(QStringLiteral("messageLabel"));
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_messageLabel->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_choices);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_pages, 1);
    layout->addWidget(m_editBar);
    layout->addWidget(m_messageLabel);

    updateEditBar();
}

void OpListEditor::setSettings(ConversionSettings* settings) {
    if (m_settings) {
        disconnect(m_settings, nullptr, this, nullptr);
    }
    m_settings = settings;
    m_pages->conditionalView()->rules()->setSettings(settings);
    m_choices->setSettings(settings);
    if (m_settings) {
        connect(m_settings, &ConversionSettings::changed, this, &OpListEditor::refresh);
        connect(m_settings, &QObject::destroyed, this, &OpListEditor::refresh);
    }
    clearMessage();
    refresh();
}

void OpListEditor::setNodeNames(std::function<QStringList()> names) {
    m_editBar->setNodeNames(std::move(names));
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
    updatePresets();
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
    return m_pages->currentPage();
}

void OpListEditor::setCurrentPage(Page page) {
    m_pages->setCurrentPage(page);
}

OpListModel* OpListEditor::opListModel(OpList list) const {
    OpListView* view = m_pages->opListView(list);
    return view ? view->names() : nullptr;
}

ConditionalFp32Model* OpListEditor::conditionalModel() const {
    return m_pages->conditionalView()->rules();
}

OpListModel* OpListEditor::excludedModel() const {
    return m_pages->excludedView()->names();
}

QString OpListEditor::message() const {
    return m_messageLabel->text();
}

// --- refreshing from the settings ---

void OpListEditor::refresh() {
    setEnabled(m_settings != nullptr);
    if (!m_settings) {
        m_pages->showOptions(nullptr);
        return;
    }
    m_choices->refresh();
    m_pages->showOptions(&m_settings->options());
    m_editBar->setOpSet(m_settings->options().lists.opSet());
    for (OpList list : {OpList::Target, OpList::Fp32, OpList::Widest, OpList::Neutral}) {
        m_editBar->setListName(list, m_settings->listName(list));
    }
    updatePresets();
    updateEditBar();
    updateActions();
}

// Which preset the lists are, if any: MXNet's own first, then the user's files newest first.
void OpListEditor::updatePresets() {
    int current = -1;
    if (m_settings) {
        const AmpLists& lists = m_settings->options().lists;
        if (sameListContent(lists, AmpLists::defaults(DType::F16, lists.opSet()))) {
            current = 0;
        } else if (sameListContent(lists, AmpLists::defaults(DType::BF16, lists.opSet()))) {
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
    m_choices->showPresets(m_userPresets, current);
}

void OpListEditor::updateEditBar() {
    const Page page = currentPage();
    m_editBar->showPage(page,
                        m_settings && isOpListPage(page) ? m_settings->listName(opListOf(page)) : QString());
}

void OpListEditor::updateActions() {
    const Page page = currentPage();
    const QItemSelectionModel* selection = m_pages->viewOf(page)->selectionModel();
    m_editBar->showSelection(page, selection && selection->hasSelection());
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

void OpListEditor::reportError(const QString& message) {
    showMessage(message, MessageKind::Error);
    emit errorOccurred(message);
}

// --- editing ---

void OpListEditor::addFromField() {
    const QString text = m_editBar->text();
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
QString unknownOpMessage(const QString& op, OpSet opSet) {
    if (opSet == OpSet::Onnx) {
        // Checked as the report checks ONNX lists: against libonnx's schemas (and the newer ops).
        if (isKnownOnnxOpType(op.toStdString())) return {};
        QString message = OpListEditor::tr("“%1” is not an ONNX op type libonnx knows.").arg(op);
        for (const std::string& name : onnxOpTypes()) {
            const QString candidate = QString::fromStdString(name);
            if (candidate.compare(op, Qt::CaseInsensitive) == 0) {
                message += QLatin1Char(' ') + OpListEditor::tr("Did you mean %1?").arg(candidate);
                break;
            }
        }
        return message;
    }
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
    if (const QString unknown = unknownOpMessage(op, m_settings->options().lists.opSet()); !unknown.isEmpty()) {
        reportError(unknown);
        return;  // the text stays in the field, to be corrected
    }
    const OpList from = m_settings->listOf(op);
    const Page page = Page(int(to));
    if (from == to) {
        m_editBar->clearText();
        selectName(page, op);
        showMessage(tr("%1 is already in %2.").arg(op, m_settings->listName(to)), MessageKind::Info);
        return;
    }
    const bool wasConditional = (to == OpList::Target || to == OpList::Fp32) && m_settings->isConditional(op);
    m_settings->moveOp(op, to);
    m_editBar->clearText();
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
        reportError(
            tr("Write an op, optionally followed by param=value, value (e.g. “LeakyReLU "
               "act_type=elu, selu”)."));
        return;
    }
    const QString op = match.captured(1);
    if (const QString unknown = unknownOpMessage(op, m_settings->options().lists.opSet()); !unknown.isEmpty()) {
        reportError(unknown);
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
    m_editBar->clearText();

    QStringList notes;
    if (from == OpList::Target || from == OpList::Fp32) {
        notes << tr("%1 left %2: an op can't be in both a list and conditional FP32.")
                     .arg(op, m_settings->listName(from));
    }
    const QString alias = aliasWarning(op);
    if (!alias.isEmpty()) {
        notes << alias;
    }
    // A rule without a parameter does nothing yet: its parameter cell opens for editing.
    if (m_pages->conditionalView()->showLastRule(row.param.empty()) && row.param.empty()) {
        notes << tr("Set the parameter and its values in the table.");
    }
    if (notes.isEmpty()) {
        clearMessage();
    } else {
        showMessage(notes.join(QLatin1Char(' ')), alias.isEmpty() ? MessageKind::Info : MessageKind::Warning);
    }
}

void OpListEditor::addExcluded(const QString& name) {
    m_editBar->clearText();
    if (m_settings->options().excludedSymNames.contains(name.toStdString())) {
        showMessage(tr("%1 is already excluded.").arg(name), MessageKind::Info);
    } else {
        m_settings->setExcluded(name, true);
        clearMessage();
    }
    selectName(Page::Excluded, name);
}

void OpListEditor::selectName(Page page, const QString& name) {
    OpListView* view = isOpListPage(page) ? m_pages->opListView(opListOf(page)) : m_pages->excludedView();
    view->selectName(name);
}

QStringList OpListEditor::selectedNames() const {
    const Page page = currentPage();
    if (page == Page::Conditional) {
        return {};  // rules are rows, not names
    }
    return (isOpListPage(page) ? m_pages->opListView(opListOf(page)) : m_pages->excludedView())
        ->selectedNames();
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
        const std::vector<int> selected = m_pages->conditionalView()->selectedRules();
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
            QStringList kept = excludedModel()->names();
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
        for (QAction* action : m_editBar->moveMenu()->actions()) {
            move->addAction(action);
        }
    }
    menu.addAction(m_editBar->removeText(), this, &OpListEditor::removeSelected);
    if (page != Page::Conditional) {
        menu.addAction(tr("Copy"), this, [this] {
            QGuiApplication::clipboard()->setText(selectedNames().join(QLatin1Char('\n')));
        });
    }
    menu.exec(view->viewport()->mapToGlobal(pos));
}

// --- presets and files ---

void OpListEditor::applyBuiltinPreset(DType dtype, const QString& name) {
    if (!m_settings) {
        return;
    }
    m_settings->applyLists(AmpLists::defaults(dtype, m_settings->options().lists.opSet()),
                           tr("Load preset %1").arg(name));
    clearMessage();
    updatePresets();  // an edit that changed nothing emits no changed()
}

void OpListEditor::applyUserPreset(const QString& path, const QString& name) {
    if (!m_settings) {
        return;
    }
    // Read again: the file may have been edited since.
    loadListsFile(path, tr("Load preset %1").arg(name));
    updatePresets();  // an edit that changed nothing emits no changed()
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
    const QString fileName = QFileInfo(path).fileName();
    AmpLists lists;
    try {
        lists = AmpLists::fromJsonFile(toPath(path));
    } catch (const LoadError& e) {
        reportError(tr("Cannot load the lists: %1").arg(QString::fromStdString(e.what())));
        return false;
    } catch (const std::exception& e) {
        reportError(tr("Cannot load the lists from %1: %2").arg(path, QString::fromStdString(e.what())));
        return false;
    }
    const std::vector<std::string> overlaps = lists.overlapErrors();
    if (!overlaps.empty()) {
        reportError(tr("Rejected %1: %2").arg(fileName, toQStringList(overlaps).join(QStringLiteral("; "))));
        return false;
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
    const AmpLists& lists = m_settings->options().lists;
    // The schema wants a parameter per row; a row just added may not have one yet.
    for (const ConditionalFp32Op& row : lists.conditionalFp32Ops) {
        if (row.param.empty()) {
            reportError(tr("Cannot export: the conditional FP32 row of %1 has no parameter.")
                            .arg(QString::fromStdString(row.op)));
            return false;
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        reportError(tr("Cannot export to %1: %2").arg(path, file.errorString()));
        return false;
    }
    const std::string json = lists.toJson() + "\n";
    file.write(json.data(), qint64(json.size()));
    if (!file.commit()) {
        reportError(tr("Cannot export to %1: %2").arg(path, file.errorString()));
        return false;
    }
    rememberUserPreset(path, lists);
    showMessage(tr("Exported the lists to %1.").arg(QFileInfo(path).fileName()), MessageKind::Info);
    return true;
}
