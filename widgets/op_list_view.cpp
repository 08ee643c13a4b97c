#include "op_list_view.h"

#include <QAction>
#include <QSortFilterProxyModel>

#include <algorithm>

#include "op_list_model.h"

OpListView::OpListView(const QString& objectName, QWidget* parent)
    : QListView(parent), m_names(new OpListModel(this)), m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(m_names);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    setObjectName(objectName);
    setModel(m_proxy);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setUniformItemSizes(true);  // hundreds of rows, one line each
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &OpListView::selectedNamesChanged);
    auto* remove = new QAction(tr("Remove"), this);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    connect(remove, &QAction::triggered, this, &OpListView::removeRequested);
    addAction(remove);
}

void OpListView::setFilter(const QString& text) {
    m_proxy->setFilterFixedString(text);
}

int OpListView::shownCount() const {
    return m_proxy->rowCount();
}

int OpListView::totalCount() const {
    return m_names->rowCount();
}

QStringList OpListView::selectedNames() const {
    QStringList names;
    for (const QModelIndex& index : selectionModel()->selectedRows()) {
        names << index.data().toString();
    }
    std::sort(names.begin(), names.end(), OpListModel::lessThan);
    return names;
}

void OpListView::selectName(const QString& name) {
    const int row = int(m_names->names().indexOf(name));
    const QModelIndex index = m_proxy->mapFromSource(m_names->index(row, 0));
    if (!index.isValid()) {
        clearSelection();
        return;
    }
    selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
    // Queued: a page that has just been opened gets its final size only when the layout runs.
    QMetaObject::invokeMethod(
        this,
        [this, target = QPersistentModelIndex(index)] {
            if (target.isValid()) {
                scrollTo(target);
            }
        },
        Qt::QueuedConnection);
}
