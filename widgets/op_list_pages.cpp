#include "op_list_pages.h"

#include "conditional_fp32_model.h"
#include "conditional_fp32_view.h"
#include "op_list_model.h"
#include "op_list_view.h"
#include "string_lists.h"

using namespace ampstudio;

namespace {

}  // namespace

OpListPages::OpListPages(QWidget* parent) : QToolBox(parent) {
    setObjectName(QStringLiteral("lists"));
    static const char* const kViewNames[] = {"targetView", "fp32View", "widestView", "neutralView"};
    for (int i = 0; i < 4; ++i) {
        m_opViews[i] = new OpListView(QString::fromLatin1(kViewNames[i]), this);
        addPage(m_opViews[i]);
    }
    setItemToolTip(int(OpListPage::Fp32), tr("fp32_ops: these ops run in float32; their inputs are cast "
                                             "to float32"));
    setItemToolTip(int(OpListPage::Widest), tr("widest_dtype_ops: inputs are cast to the widest of their "
                                               "types (amp_multicast)"));
    setItemToolTip(int(OpListPage::Neutral), tr("neutral_ops: run in the type of their inputs; typed mode "
                                                "propagates dtypes through them"));

    m_conditionalView = new ConditionalFp32View(this);
    addPage(m_conditionalView);
    setItemToolTip(int(OpListPage::Conditional),
                   tr("conditional_fp32_ops: a node of the op runs in float32 when its attribute "
                      "param is set to one of the values. Double-click a cell to edit it."));

    m_excludedView = new OpListView(QStringLiteral("excludedView"), this);
    m_excludedView->names()->setMarkUnmatchable(false);
    addPage(m_excludedView);
    setItemToolTip(int(OpListPage::Excluded), tr("Nodes (by name) forced out of the lists: typed mode runs "
                                                 "them in float32, classic mode copies them unchanged"));
}

void OpListPages::addPage(QAbstractItemView* view) {
    connect(view, &QWidget::customContextMenuRequested, this,
            [this, view](const QPoint& pos) { emit contextMenuRequested(view, pos); });
    if (auto* list = qobject_cast<OpListView*>(view)) {
        connect(list, &OpListView::selectedNamesChanged, this, &OpListPages::selectionChanged);
        connect(list, &OpListView::removeRequested, this, &OpListPages::removeRequested);
    } else if (auto* table = qobject_cast<ConditionalFp32View*>(view)) {
        connect(table, &ConditionalFp32View::selectedRulesChanged, this, &OpListPages::selectionChanged);
    }
    addItem(view, QString());
}

OpListView* OpListPages::opListView(OpList list) const {
    return list == OpList::None ? nullptr : m_opViews[int(list)];
}

QAbstractItemView* OpListPages::viewOf(OpListPage page) const {
    if (isOpListPage(page)) {
        return m_opViews[int(page)];
    }
    return page == OpListPage::Conditional ? static_cast<QAbstractItemView*>(m_conditionalView)
                                           : m_excludedView;
}

void OpListPages::showOptions(const ConversionOptions* options) {
    if (!options) {
        for (OpListView* view : m_opViews) {
            view->names()->setNames({});
        }
        m_excludedView->names()->setNames({});
        m_target = DType::F16;
        updateTitles();
        return;
    }
    const AmpLists& lists = options->lists;
    m_opViews[int(OpList::Target)]->names()->setNames(toQStringList(lists.targetDtypeOps));
    m_opViews[int(OpList::Fp32)]->names()->setNames(toQStringList(lists.fp32Ops));
    m_opViews[int(OpList::Widest)]->names()->setNames(toQStringList(lists.widestDtypeOps));
    m_opViews[int(OpList::Neutral)]->names()->setNames(toQStringList(lists.neutralOps));
    QStringList excluded;
    for (const std::string& n : options->excludedSymNames) {
        excluded << QString::fromStdString(n);
    }
    m_excludedView->names()->setNames(excluded);
    m_target = lists.targetDtype;
    const QString dtype = QString::fromUtf8(dtypeName(lists.targetDtype));
    setItemToolTip(int(OpListPage::Target), tr("target_dtype_ops: these ops run in %1; their inputs are "
                                               "cast to %1")
                                                .arg(dtype));
    updateTitles();
}

void OpListPages::setFilter(const QString& text) {
    for (OpListView* view : m_opViews) {
        view->setFilter(text);
    }
    m_conditionalView->setFilter(text);
    m_excludedView->setFilter(text);
    m_filtering = !text.isEmpty();
    updateTitles();
}

void OpListPages::updateTitles() {
    auto title = [&](const QString& name, int shown, int total) {
        return m_filtering ? tr("%1 (%2 of %3)").arg(name).arg(shown).arg(total)
                           : tr("%1 (%2)").arg(name).arg(total);
    };
    const QString names[4] = {ConversionSettings::listName(OpList::Target, m_target), tr("FP32 ops"),
                              tr("Widest-type ops"), tr("Neutral ops")};
    for (int i = 0; i < 4; ++i) {
        setItemText(i, title(names[i], m_opViews[i]->shownCount(), m_opViews[i]->totalCount()));
    }
    setItemText(
        int(OpListPage::Conditional),
        title(tr("Conditional FP32 ops"), m_conditionalView->shownCount(), m_conditionalView->totalCount()));
    setItemText(int(OpListPage::Excluded),
                title(tr("Excluded nodes"), m_excludedView->shownCount(), m_excludedView->totalCount()));
}
