#pragma once
// The original and the converted graph side by side, each under a one-line header, with one legend
// below both (the colours mean the same in each). Zoom, scroll and selection follow each other, so a
// node sits at the same place in both views and is selected in both. The main window gives it the
// drawings and headers; it tells which node the user selected and in which graph.

#include <QByteArray>
#include <QWidget>

#include "graph_drawing.h"

class ErrorScaleLegend;
class GraphLegend;
class GraphView;
class QLabel;
class QSplitter;

class GraphComparison : public QWidget {
    Q_OBJECT
public:
    explicit GraphComparison(QWidget* parent = nullptr);
    ~GraphComparison() override;

    GraphView* beforeView() const { return m_beforeView; }
    GraphView* afterView() const { return m_afterView; }

    // Headers are rich text. Returns true when the drawings are of a new document (the view then
    // starts at the top of the graph, see showStartOfGraph).
    // Casts named as the model's format names them (see GraphLegend::setOnnx).
    void setOnnx(bool onnx);
    GraphLegend* legend() const { return m_legend; }
    bool setDrawings(const GraphDrawing& before, const GraphDrawing& after, const QString& beforeHeader,
                     const QString& afterHeader);
    // The whole graph when it fits legibly; a deep network (thousands of layers) fitted whole is a
    // hairline, so it opens at the top instead, as wide as the view allows but never below the zoom
    // at which node shapes are still drawn.
    void showStartOfGraph();
    void showPanes(bool before, bool after);

    // Selects `name` in both views and scrolls it into view; `inAfter` says which graph the node is
    // taken from (the converted one unless the node exists only in the original). Emits nodeSelected.
    void selectNode(const QString& name, bool inAfter);
    // The selection again after new drawings, without scrolling or signals.
    void restoreSelection(const QString& name);

    // Highlights the nodes matching `text` in both views; the counts per view.
    struct Matches {
        int before = 0;
        int after = 0;
    };
    Matches findNodes(const QString& text);
    // Selects the next (or previous) match of `text` in the converted view; false when nothing matches.
    bool selectMatch(const QString& text, bool backwards);

    // The zoom commands act on the converted view; the original follows.
    void fitToView();
    void zoomIn();
    void zoomOut();
    void resetZoom();

    // The converted view coloured by the error measured at each node (its marks set through
    // afterView()->setErrorMarks), with the error scale as the legend; off: by precision.
    void setErrorColouring(bool on);
    bool errorColouring() const;

    QByteArray saveState() const;
    void restoreState(const QByteArray& state);

signals:
    void nodeSelected(const QString& name, bool inAfter);
    void nodeActivated(const QString& name);  // double click in either view
    void nodeContextMenuRequested(const QString& name, const QPoint& globalPos);

private:
    void selectFrom(const QString& name, GraphView* from);

    GraphView* m_beforeView;
    GraphView* m_afterView;
    QLabel* m_beforeHeader;
    QLabel* m_afterHeader;
    QWidget* m_beforePane;
    QWidget* m_afterPane;
    QSplitter* m_splitter;
    GraphLegend* m_legend;
    ErrorScaleLegend* m_errorLegend;
    bool m_syncing = false;  // guards the view synchronisation against feedback
};
