#include "op_list_edit_bar.h"

#include <QAction>
#include <QCompleter>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QStringListModel>
#include <QVBoxLayout>

#include <utility>

#include <algorithm>

#include "op_list_model.h"
#include "amp/onnx_conversion.h"
#include "ops/mxnet_op_facts.h"

using namespace ampstudio;

OpListEditBar::OpListEditBar(QWidget* parent) : QWidget(parent) {
    m_opNamesModel = new QStringListModel(this);
    setOpSet(OpSet::Mxnet);
    m_nodeNamesModel = new QStringListModel(this);
    m_completer = new QCompleter(m_opNamesModel, this);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setFilterMode(Qt::MatchContains);
    m_completer->setMaxVisibleItems(12);

    m_addEdit = new QLineEdit(this);
    m_addEdit->setObjectName(QStringLiteral("addEdit"));
    m_addEdit->setCompleter(m_completer);
    m_addEdit->setClearButtonEnabled(true);
    connect(m_addEdit, &QLineEdit::returnPressed, this, &OpListEditBar::addRequested);
    m_addButton = new QPushButton(tr("Add"), this);
    m_addButton->setObjectName(QStringLiteral("addButton"));
    connect(m_addButton, &QPushButton::clicked, this, &OpListEditBar::addRequested);
    connect(m_addEdit, &QLineEdit::textChanged, this, [this] { m_addButton->setEnabled(!text().isEmpty()); });

    m_removeButton = new QPushButton(tr("Remove"), this);
    m_removeButton->setObjectName(QStringLiteral("removeButton"));
    m_removeButton->setToolTip(tr("Remove the selected entries (Del)"));
    connect(m_removeButton, &QPushButton::clicked, this, &OpListEditBar::removeRequested);

    m_moveMenu = new QMenu(this);
    for (OpList list : {OpList::Target, OpList::Fp32, OpList::Widest, OpList::Neutral}) {
        QAction* action = m_moveMenu->addAction(QString());
        action->setData(int(list));
        connect(action, &QAction::triggered, this, [this, list] { emit moveRequested(list); });
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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(addRow);
    layout->addLayout(editRow);
}

QString OpListEditBar::text() const {
    return m_addEdit->text().trimmed();
}

void OpListEditBar::clearText() {
    m_addEdit->clear();
}

void OpListEditBar::setNodeNames(std::function<QStringList()> names) {
    m_pendingNodeNames = std::move(names);
    m_nodeNamesModel->setStringList({});
    if (m_onExcludedPage) fillNodeNames();
}

void OpListEditBar::fillNodeNames() {
    if (!m_pendingNodeNames) return;
    QStringList sorted = std::exchange(m_pendingNodeNames, nullptr)();
    std::sort(sorted.begin(), sorted.end(), OpListModel::lessThan);
    m_nodeNamesModel->setStringList(sorted);
}

void OpListEditBar::setListName(OpList list, const QString& name) {
    for (QAction* action : m_moveMenu->actions()) {
        if (OpList(action->data().toInt()) == list)
            action->setText(name);
    }
}

void OpListEditBar::showPage(OpListPage page, const QString& listName) {
    if (isOpListPage(page)) {
        m_addEdit->setPlaceholderText(tr("Add an op to %1…").arg(listName));
        m_addEdit->setToolTip(tr("An MXNet op name; an op in another list moves here"));
    } else if (page == OpListPage::Conditional) {
        m_addEdit->setPlaceholderText(tr("Add: op [param=value, value…]"));
        m_addEdit->setToolTip(
            tr("An op, optionally with the attribute and its values, e.g. "
               "“LeakyReLU act_type=elu, selu”"));
    } else {
        m_addEdit->setPlaceholderText(tr("Exclude a node by name…"));
        m_addEdit->setToolTip(tr("The name of a node of the graph"));
    }
    m_onExcludedPage = page == OpListPage::Excluded;
    if (m_onExcludedPage) fillNodeNames();
    m_completer->setModel(m_onExcludedPage ? m_nodeNamesModel : m_opNamesModel);
}

void OpListEditBar::showSelection(OpListPage page, bool selected) {
    m_removeButton->setEnabled(selected);
    m_moveButton->setEnabled(selected);
    m_moveButton->setVisible(isOpListPage(page));  // rows and node names have nowhere to move
    m_removeButton->setText(page == OpListPage::Excluded ? tr("Include") : tr("Remove"));
    m_removeButton->setToolTip(page == OpListPage::Excluded ? tr("Stop excluding the selected nodes (Del)")
                                                            : tr("Remove the selected entries (Del)"));
    for (QAction* action : m_moveMenu->actions()) {
        action->setEnabled(OpList(action->data().toInt()) != opListOf(page));
    }
    m_addButton->setEnabled(!text().isEmpty());
}

QString OpListEditBar::removeText() const {
    return m_removeButton->text();
}

void OpListEditBar::setOpSet(OpSet opSet) {
    if (m_opSet == opSet) return;
    m_opSet = opSet;
    QStringList opNames;
    for (const std::string& n : opSet == OpSet::Onnx ? onnxOpTypes() : MxnetOpFacts::instance().opNames()) {
        opNames << QString::fromStdString(n);
    }
    m_opNamesModel->setStringList(opNames);
}
