#pragma once
// The pages of the op-list editor, titled with their counts ("FP32 ops (41)", "(3 of 41)" while
// a filter is on): the four op lists, the conditional-FP32 rules and the excluded nodes. A tool box
// rather than tabs: six titles with counts do not fit side by side in a narrow dock.

#include <QToolBox>

#include "amp/conversion.h"
#include "op_list_page.h"

class ConditionalFp32View;
class OpListView;
class QAbstractItemView;

class OpListPages : public QToolBox {
    Q_OBJECT
public:
    explicit OpListPages(QWidget* parent = nullptr);

    OpListPage currentPage() const { return OpListPage(currentIndex()); }
    void setCurrentPage(OpListPage page) { setCurrentIndex(int(page)); }

    OpListView* opListView(OpList list) const;  // null for OpList::None
    ConditionalFp32View* conditionalView() const { return m_conditionalView; }
    OpListView* excludedView() const { return m_excludedView; }
    QAbstractItemView* viewOf(OpListPage page) const;

    // Shows the lists and excluded nodes of `options`; null: no settings, every page empty.
    void showOptions(const ampstudio::ConversionOptions* options);
    void setFilter(const QString& text);

signals:
    // The selection of any page changed.
    void selectionChanged();
    // Del on a list page.
    void removeRequested();
    // A right click on `view`'s row at `pos` (viewport coordinates).
    void contextMenuRequested(QAbstractItemView* view, const QPoint& pos);

private:
    void addPage(QAbstractItemView* view);
    void updateTitles();

    OpListView* m_opViews[4] = {};
    ConditionalFp32View* m_conditionalView = nullptr;
    OpListView* m_excludedView = nullptr;
    ampstudio::DType m_target = ampstudio::DType::F16;
    bool m_filtering = false;
};
