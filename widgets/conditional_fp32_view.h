#pragma once
// The conditional-FP32 page of the op-list editor: one row per (op, parameter, values) rule, each
// cell editable in place, filtered by the editor's filter in every column.

#include <QTableView>

#include <vector>

class ConditionalFp32Model;
class QSortFilterProxyModel;

class ConditionalFp32View : public QTableView {
    Q_OBJECT
public:
    explicit ConditionalFp32View(QWidget* parent = nullptr);

    ConditionalFp32Model* rules() const { return m_rules; }

    void setFilter(const QString& text);
    int shownCount() const;
    int totalCount() const;

    std::vector<int> selectedRules() const;  // rows of rules(), ascending
    // Scrolls to the last rule (the one just added) and makes it current: its parameter cell, opened
    // for editing, when `editParameter`, else its values. False when the filter hides it.
    bool showLastRule(bool editParameter);

signals:
    void selectedRulesChanged();

private:
    ConditionalFp32Model* m_rules;
    QSortFilterProxyModel* m_proxy;
};
