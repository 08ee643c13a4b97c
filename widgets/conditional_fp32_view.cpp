#include "conditional_fp32_view.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include <algorithm>

#include "conditional_fp32_model.h"

ConditionalFp32View::ConditionalFp32View(QWidget* parent)
    : QTableView(parent),
      m_rules(new ConditionalFp32Model(nullptr, this)),
      m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(m_rules);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    setObjectName(QStringLiteral("conditionalView"));
    setModel(m_proxy);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    horizontalHeader()->setSectionResizeMode(ConditionalFp32Model::OpColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(ConditionalFp32Model::ParamColumn,
                                             QHeaderView::ResizeToContents);
    setWordWrap(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ConditionalFp32View::selectedRulesChanged);
}

void ConditionalFp32View::setFilter(const QString& text) {
    m_proxy->setFilterFixedString(text);
}

int ConditionalFp32View::shownCount() const {
    return m_proxy->rowCount();
}

int ConditionalFp32View::totalCount() const {
    return m_rules->rowCount();
}

std::vector<int> ConditionalFp32View::selectedRules() const {
    std::vector<int> rows;
    for (const QModelIndex& index : selectionModel()->selectedRows()) {
        rows.push_back(m_proxy->mapToSource(index).row());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

bool ConditionalFp32View::showLastRule(bool editParameter) {
    const int row = m_rules->rowCount() - 1;
    const QModelIndex index = m_proxy->mapFromSource(m_rules->index(
        row, editParameter ? ConditionalFp32Model::ParamColumn : ConditionalFp32Model::ValuesColumn));
    if (!index.isValid()) {
        return false;
    }
    scrollTo(index);
    setCurrentIndex(index);
    if (editParameter) {
        edit(index);
    }
    return true;
}
