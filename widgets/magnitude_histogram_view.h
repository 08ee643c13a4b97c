#pragma once
// A small histogram of a node's float32 magnitudes (binary exponents, MagnitudeHistogram) against
// the target dtype's range: the bars over a log axis labelled in powers of ten, with what the dtype
// loses shaded — flushed to zero below its smallest subnormal, fewer digits between that and its
// smallest normal, inf above its largest. For the node inspector, about 330 px wide.

#include <QWidget>

#include <optional>

#include "exec/precision_search.h"

class MagnitudeHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit MagnitudeHistogramView(QWidget* parent = nullptr);

    void setHistogram(const ampstudio::MagnitudeHistogram& histogram, ampstudio::DType target);
    void clear();

    QSize sizeHint() const override { return {330, 110}; }
    QSize minimumSizeHint() const override { return {200, 90}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<ampstudio::MagnitudeHistogram> m_histogram;
    ampstudio::DType m_target = ampstudio::DType::F16;
};
