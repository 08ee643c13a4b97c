#pragma once
// What a right click on a node offers: exclude it from the conversion (or include it again), move
// its operator to another list, copy its name. Every change goes through ConversionSettings, so it is
// one undoable step and the views follow the recomputation like any other edit.

#include <QMenu>

#include "graph/graph.h"

class ConversionSettings;

class NodeContextMenu : public QMenu {
    Q_OBJECT
public:
    // `node` is the node in the original graph, null for a node only the converted graph has (a
    // cast): nothing can be excluded or moved then.
    NodeContextMenu(const QString& nodeName, const ampstudio::Node* node, ConversionSettings* settings,
                    QWidget* parent = nullptr);
};
