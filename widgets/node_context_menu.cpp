#include "node_context_menu.h"

#include <QApplication>
#include <QClipboard>

#include <utility>

#include "conversion_settings.h"

NodeContextMenu::NodeContextMenu(const QString& nodeName, const ampstudio::Node* node, ConversionSettings* settings,
                                 QWidget* parent)
    : QMenu(parent) {
    const bool excluded = settings->options().excludedSymNames.count(nodeName.toStdString()) != 0;
    QAction* exclude = addAction(excluded ? tr("&Include “%1” in the conversion").arg(nodeName)
                                          : tr("&Exclude “%1” (keep it in FP32)").arg(nodeName));
    exclude->setObjectName(QStringLiteral("excludeNode"));
    exclude->setEnabled(node != nullptr);  // casts exist only in the converted graph
    connect(exclude, &QAction::triggered, settings, [settings, nodeName, excluded] { settings->setExcluded(nodeName, !excluded); });

    if (node && !node->isVariable()) {
        const QString op = QString::fromStdString(node->op);
        QMenu* move = addMenu(tr("&Move “%1” to").arg(op));
        move->setObjectName(QStringLiteral("moveOp"));
        const OpList current = settings->listOf(op);
        const std::pair<OpList, QString> targets[] = {
            {OpList::Target, tr("&Target-dtype ops")}, {OpList::Fp32, tr("&FP32 ops")},
            {OpList::Widest, tr("&Widest-type ops")},  {OpList::Neutral, tr("&Neutral ops")},
            {OpList::None, tr("No &list")},
        };
        static const char* const kObjectNames[] = {"moveToTarget", "moveToFp32", "moveToWidest", "moveToNeutral",
                                                   "moveToNone"};
        int i = 0;
        for (const auto& [list, text] : targets) {
            QAction* action = move->addAction(text, settings, [settings, op, list = list] { settings->moveOp(op, list); });
            action->setObjectName(QLatin1String(kObjectNames[i++]));
            action->setCheckable(true);
            action->setChecked(list == current);
            action->setEnabled(list != current);
        }
    }
    addSeparator();
    QAction* copy = addAction(tr("&Copy Name"), this, [nodeName] { QApplication::clipboard()->setText(nodeName); });
    copy->setObjectName(QStringLiteral("copyName"));
}
