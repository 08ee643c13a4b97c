#pragma once
// One op list (or the excluded node names) as a sorted list of strings for a QListView.
// setNames() applies only the difference, as row removals and insertions, so a view keeps its
// selection and scroll position when an edit elsewhere changes a few entries; a wholesale change
// (a preset, a dtype switch) is one model reset.

#include <QAbstractListModel>
#include <QStringList>

#include <vector>

class OpListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        // The op an alias stands for ("_Plus" -> "elemwise_add"); empty for canonical and unknown names.
        CanonicalNameRole = Qt::UserRole + 1,
        // True when the entry can never match a node: an alias or a name that is not an op.
        UnmatchableRole,
    };

    explicit OpListModel(QObject* parent = nullptr);

    // Sorted with lessThan(); duplicates are kept (a hand-written file may have them).
    void setNames(QStringList names);
    const QStringList& names() const { return m_names; }
    // Op lists mark aliases and unknown names (italic, with a tooltip saying why they never match);
    // a list of node names does not. On by default.
    void setMarkUnmatchable(bool on);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    // Case-insensitive order, ties broken case-sensitively: "_contrib_X" < "abs" < "Activation" < "arccos".
    static bool lessThan(const QString& a, const QString& b);

private:
    struct Match {
        bool known = true;
        QString canonical;  // set for an alias
    };
    Match matchOf(const QString& name) const;

    QStringList m_names;
    std::vector<Match> m_matches;  // parallel to m_names
    bool m_markUnmatchable = true;
};
