#pragma once
// The key to a graph view's colours: a swatch in each style's shape and fill with its name, plus the
// dashed outline of excluded nodes. In a row for a status bar, in a column for an overlay.

#include <QList>
#include <QRectF>
#include <QWidget>

class GraphLegend : public QWidget {
    Q_OBJECT
public:
    explicit GraphLegend(QWidget* parent = nullptr);
    explicit GraphLegend(Qt::Orientation orientation, QWidget* parent = nullptr);

    Qt::Orientation orientation() const { return m_orientation; }
    void setOrientation(Qt::Orientation orientation);

    // The entries: every NodeStyle in legend order, then "excluded".
    int entryCount() const;
    QString entryText(int entry) const;
    // Whether entry is shown: an ONNX model's casts are Cast nodes, and it has no amp_multicast.
    bool entryShown(int entry) const;

    // Names the casts as the model's format does (amp_cast and amp_multicast for MXNet, Cast for ONNX).
    void setOnnx(bool onnx);
    bool onnx() const { return m_onnx; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Entry {
        QRectF swatch;
        QPointF textOrigin;
        QRectF area;  // swatch and text, for tool tips
    };
    QList<Entry> layoutEntries() const;
    QString entryToolTip(int entry) const;

    Qt::Orientation m_orientation;
    bool m_onnx = false;
};
