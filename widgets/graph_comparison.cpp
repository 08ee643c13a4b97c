#include "graph_comparison.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

#include "error_scale_legend.h"
#include "graph_legend.h"
#include "graph_view.h"

namespace {

// Below this zoom the views draw the overview (no shapes, no text).
constexpr double kLegibleZoom = 0.25;

// A pane: a one-line header over a graph view.
QWidget* makePane(QLabel* header, GraphView* view, QWidget* parent) {
    auto* pane = new QWidget(parent);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    header->setContentsMargins(6, 4, 6, 0);
    header->setTextFormat(Qt::RichText);
    layout->addWidget(header);
    layout->addWidget(view, 1);
    return pane;
}

}  // namespace

GraphComparison::GraphComparison(QWidget* parent)
    : QWidget(parent),
      m_beforeView(new GraphView(this)),
      m_afterView(new GraphView(this)),
      m_beforeHeader(new QLabel(this)),
      m_afterHeader(new QLabel(this)) {
    m_beforeView->setObjectName(QStringLiteral("beforeView"));
    m_afterView->setObjectName(QStringLiteral("afterView"));
    m_beforePane = makePane(m_beforeHeader, m_beforeView, this);
    m_afterPane = makePane(m_afterHeader, m_afterView, this);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("viewSplitter"));
    m_splitter->addWidget(m_beforePane);
    m_splitter->addWidget(m_afterPane);
    m_splitter->setChildrenCollapsible(false);
    m_legend = new GraphLegend(this);
    m_errorLegend = new ErrorScaleLegend(this);
    m_errorLegend->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_legend);
    layout->addWidget(m_errorLegend);

    // Zoom and scroll follow each other; m_syncing breaks the loop the echo would make.
    const auto syncZoom = [this](GraphView* to) {
        return [this, to](double zoom) {
            if (m_syncing) return;
            m_syncing = true;
            to->setZoom(zoom);
            m_syncing = false;
        };
    };
    const auto syncScroll = [this](GraphView* to) {
        return [this, to](QPointF centre) {
            if (m_syncing) return;
            m_syncing = true;
            to->centreOn(centre);
            m_syncing = false;
        };
    };
    // The receiving view is the context: a view being destroyed never reaches its deleted twin.
    connect(m_beforeView, &GraphView::zoomChanged, m_afterView, syncZoom(m_afterView));
    connect(m_afterView, &GraphView::zoomChanged, m_beforeView, syncZoom(m_beforeView));
    connect(m_beforeView, &GraphView::viewportMoved, m_afterView, syncScroll(m_afterView));
    connect(m_afterView, &GraphView::viewportMoved, m_beforeView, syncScroll(m_beforeView));
    connect(m_beforeView, &GraphView::nodeSelected, this, [this](const QString& name) { selectFrom(name, m_beforeView); });
    connect(m_afterView, &GraphView::nodeSelected, this, [this](const QString& name) { selectFrom(name, m_afterView); });
    connect(m_beforeView, &GraphView::nodeContextMenuRequested, this, &GraphComparison::nodeContextMenuRequested);
    connect(m_afterView, &GraphView::nodeContextMenuRequested, this, &GraphComparison::nodeContextMenuRequested);
    connect(m_beforeView, &GraphView::nodeActivated, this, &GraphComparison::nodeActivated);
    connect(m_afterView, &GraphView::nodeActivated, this, &GraphComparison::nodeActivated);
}

GraphComparison::~GraphComparison() {
    // The views outlive this object's members while QWidget destroys its children: silence them
    // so that no synchronisation slot runs on a half-destroyed widget.
    m_beforeView->blockSignals(true);
    m_afterView->blockSignals(true);
}

bool GraphComparison::setDrawings(const GraphDrawing& before, const GraphDrawing& after, const QString& beforeHeader,
                                  const QString& afterHeader) {
    const bool newDocument =
        m_beforeView->drawing().nodes.isEmpty() || before.nodes.size() != m_beforeView->drawing().nodes.size();
    m_beforeView->setDrawing(before);
    m_afterView->setDrawing(after);
    m_beforeHeader->setText(beforeHeader);
    m_afterHeader->setText(afterHeader);
    return newDocument;
}

void GraphComparison::setOnnx(bool onnx) { m_legend->setOnnx(onnx); }

void GraphComparison::showStartOfGraph() {
    const QRectF bounds = m_afterView->drawing().bounds;
    const QSizeF viewport = m_afterView->viewport()->size();
    if (bounds.isEmpty() || viewport.isEmpty()) {
        m_afterView->fitToView();
        return;
    }
    const double fitWhole = std::min(viewport.width() / bounds.width(), viewport.height() / bounds.height());
    if (fitWhole >= kLegibleZoom) {
        m_afterView->fitToView();
        return;
    }
    const double zoom = std::clamp(viewport.width() / bounds.width(), kLegibleZoom, 1.0);
    m_afterView->setZoom(zoom);
    // Centred on the nodes of the first screenful, top aligned.
    const double visibleHeight = viewport.height() / zoom;
    double left = bounds.right();
    double right = bounds.left();
    for (const DrawnNode& node : m_afterView->drawing().nodes) {
        if (node.centre.y() < bounds.top() + visibleHeight) {
            left = std::min(left, node.centre.x());
            right = std::max(right, node.centre.x());
        }
    }
    const QPointF centre(left <= right ? (left + right) / 2 : bounds.center().x(), bounds.top() + visibleHeight / 2);
    m_afterView->centreOn(centre);
    m_beforeView->centreOn(centre);
}

void GraphComparison::showPanes(bool before, bool after) {
    m_beforePane->setVisible(before);
    m_afterPane->setVisible(after);
}

void GraphComparison::selectNode(const QString& name, bool inAfter) {
    selectFrom(name, inAfter ? m_afterView : m_beforeView);
}

void GraphComparison::selectFrom(const QString& name, GraphView* from) {
    if (m_syncing) {
        return;
    }
    m_syncing = true;
    const bool inAfter = from == m_afterView || !m_beforeView->hasNode(name);
    from->selectNode(name, true);
    GraphView* other = from == m_afterView ? m_beforeView : m_afterView;
    other->selectNode(name, true);
    m_syncing = false;
    emit nodeSelected(name, inAfter);
}

void GraphComparison::restoreSelection(const QString& name) {
    m_syncing = true;
    m_beforeView->selectNode(name, false);
    m_afterView->selectNode(name, false);
    m_syncing = false;
}

GraphComparison::Matches GraphComparison::findNodes(const QString& text) {
    return {m_beforeView->findNodes(text), m_afterView->findNodes(text)};
}

bool GraphComparison::selectMatch(const QString& text, bool backwards) {
    if (m_afterView->findNodes(text) == 0) {
        return false;
    }
    if (backwards) {
        m_afterView->selectPreviousMatch();
    } else {
        m_afterView->selectNextMatch();
    }
    return true;
}

void GraphComparison::fitToView() { m_afterView->fitToView(); }
void GraphComparison::zoomIn() { m_afterView->zoomIn(); }
void GraphComparison::zoomOut() { m_afterView->zoomOut(); }
void GraphComparison::resetZoom() { m_afterView->resetZoom(); }

QByteArray GraphComparison::saveState() const { return m_splitter->saveState(); }
void GraphComparison::restoreState(const QByteArray& state) { m_splitter->restoreState(state); }

void GraphComparison::setErrorColouring(bool on) {
    m_afterView->setColouring(on ? GraphView::Colouring::Error : GraphView::Colouring::Precision);
    m_legend->setVisible(!on);
    m_errorLegend->setVisible(on);
}

bool GraphComparison::errorColouring() const { return m_afterView->colouring() == GraphView::Colouring::Error; }
