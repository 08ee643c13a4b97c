#pragma once
// One list page of the op-list editor: the names of an op list, or the excluded nodes, sorted and
// filtered, several selectable at once. Del asks to remove the selection; what removing means (and
// what the context menu offers) is the editor's to decide.

#include <QListView>
#include <QStringList>

class OpListModel;
class QSortFilterProxyModel;

class OpListView : public QListView {
    Q_OBJECT
public:
    explicit OpListView(const QString& objectName, QWidget* parent = nullptr);

    OpListModel* names() const { return m_names; }

    // Shows only the names that contain `text` (case-insensitive).
    void setFilter(const QString& text);
    int shownCount() const;
    int totalCount() const;

    QStringList selectedNames() const;  // in the model's order
    // Selects `name` and scrolls to it; clears the selection when it is not shown.
    void selectName(const QString& name);

signals:
    void removeRequested();
    void selectedNamesChanged();

private:
    OpListModel* m_names;
    QSortFilterProxyModel* m_proxy;
};
