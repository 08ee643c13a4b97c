#pragma once
// Under the op-list editor's pages: a field that adds to the current page (an op, a conditional rule
// or a node to exclude, with completion from the known op names or the graph's node names), and
// Move to / Remove (Include, for excluded nodes) for the page's selection. It asks; the editor edits.

#include <QStringList>
#include <functional>
#include <optional>
#include <QWidget>

#include "amp/amp_lists.h"
#include "op_list_page.h"

class QCompleter;
class QLineEdit;
class QMenu;
class QPushButton;
class QStringListModel;

class OpListEditBar : public QWidget {
    Q_OBJECT
public:
    explicit OpListEditBar(QWidget* parent = nullptr);

    QString text() const;  // trimmed
    void clearText();
    // The completion on the excluded-nodes page: `names` is asked for them (and they are sorted)
    // only when that page first shows, not for every model opened (100k names take 0.2 s).
    void setNodeNames(std::function<QStringList()> names);
    // The op names the field completes: MXNet's operators or ONNX's op types.
    void setOpSet(ampstudio::OpSet opSet);
    // The name Move to's entry for `list` shows.
    void setListName(OpList list, const QString& name);

    // Adapts the field to `page`, whose list (for an op-list page) is called `listName`.
    void showPage(OpListPage page, const QString& listName);
    // Enables Move to and Remove when `page` has a selection.
    void showSelection(OpListPage page, bool selected);

    // Move to's entries and Remove's text, for the pages' context menu.
    QMenu* moveMenu() const { return m_moveMenu; }
    QString removeText() const;

signals:
    void addRequested();
    void removeRequested();
    void moveRequested(OpList to);

private:
    QLineEdit* m_addEdit = nullptr;
    QPushButton* m_addButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    QPushButton* m_moveButton = nullptr;
    QMenu* m_moveMenu = nullptr;
    QCompleter* m_completer = nullptr;
    QStringListModel* m_opNamesModel = nullptr;
    std::optional<ampstudio::OpSet> m_opSet;
    QStringListModel* m_nodeNamesModel = nullptr;
    std::function<QStringList()> m_pendingNodeNames;  // set until the excluded page asks for them
    bool m_onExcludedPage = false;
    void fillNodeNames();
};
