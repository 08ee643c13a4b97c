#pragma once
// The key to the error colouring: the scale as a gradient bar labelled in decades of relative error,
// the grey of nodes that were not measured, and the warning mark. Shown in place of the precision
// legend while the converted view is coloured by error.

#include <QWidget>

class ErrorScaleLegend : public QWidget {
    Q_OBJECT
public:
    explicit ErrorScaleLegend(QWidget* parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
};
