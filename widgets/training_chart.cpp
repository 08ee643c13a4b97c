#include "training_chart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QImage>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QScatterSeries>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "series_decimator.h"

namespace {

// Heckbert's nice numbers ("Graphics Gems", 1990): a round range and tick step around [lo, hi],
// what QValueAxis::applyNiceNumbers() computes, here so that the range is set only when it changes.
double niceNumber(double x, bool round) {
    const double e = std::floor(std::log10(x));
    const double f = x / std::pow(10.0, e);
    double nf;
    if (round) nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * std::pow(10.0, e);
}

struct NiceRange {
    double min, max;
    int ticks;
};

NiceRange niceRange(double lo, double hi, int ticks) {
    if (!(hi > lo)) return {lo, lo + 1.0, 2};
    const double step = niceNumber(niceNumber(hi - lo, false) / (ticks - 1), true);
    const double min = std::floor(lo / step) * step, max = std::ceil(hi / step) * step;
    return {min, max, static_cast<int>(std::lround((max - min) / step)) + 1};
}

// A plotted y back to the value it stands for.
double rawValue(TrainingChart::AxisScale scale, double plotted) {
    switch (scale) {
        case TrainingChart::AxisScale::Log2: return std::exp2(plotted);
        case TrainingChart::AxisScale::Log10: return std::pow(10.0, plotted);
        case TrainingChart::AxisScale::Linear: break;
    }
    return plotted;
}

// "2¹⁶", "2⁻³": the label of 2^k on a log2 axis.
QString powerOfTwoLabel(int exponent) {
    static const QChar superscripts[] = {u'\u2070', u'\u00B9', u'\u00B2', u'\u00B3', u'\u2074',
                                         u'\u2075', u'\u2076', u'\u2077', u'\u2078', u'\u2079'};
    QString digits = QString::number(std::abs(exponent));
    QString out = QStringLiteral("2");
    if (exponent < 0) out += QChar(u'\u207B');
    for (QChar d : digits) out += superscripts[d.digitValue()];
    return out;
}

}  // namespace

struct TrainingChart::Series {
    QXYSeries* qt = nullptr;
    Axis axis = Axis::Left;
    const std::vector<double>* x = nullptr;
    const std::vector<double>* y = nullptr;
    bool visible = true;
    QList<QPointF> buffer;  // reused across refreshes: no allocation per tick
    // What the points on show were made from: unchanged inputs skip the decimation and, above
    // all, QtCharts' geometry update (it strokes every line for its hover shape, the costliest
    // part of a redraw).
    std::size_t shownSize = 0;
    DecimationWindow shownWindow{0.0, -1.0, 0};
    AxisScale shownScale = AxisScale::Linear;
    double lo = 0.0, hi = 0.0;  // extremes of the points inside the window
};

struct TrainingChart::AxisState {
    AxisScale scale = AxisScale::Linear;
    QAbstractAxis* axis = nullptr;
    Qt::Alignment alignment = Qt::AlignLeft;
    QString title;
    QString labelFormat = QStringLiteral("%.3g");
    double fixedMin = 0.0, fixedMax = 0.0;
    double smallestGiven = std::numeric_limits<double>::infinity();
    int labelsFrom = 1, labelsTo = 0, labelsStep = 0;  // the log2 labels now on the axis
    bool visible = true;
};

// Zooms with the wheel and pans with a left-button drag along x; a double click follows again.
class TrainingChart::View : public QChartView {
public:
    View(QChart* chart, TrainingChart* owner) : QChartView(chart), m_owner(owner) {
        setRubberBand(QChartView::NoRubberBand);
        setRenderHint(QPainter::Antialiasing);
        setMouseTracking(true);
        setFrameShape(QFrame::NoFrame);
    }

protected:
    void wheelEvent(QWheelEvent* event) override {
        const QRectF area = chart()->plotArea();
        const double pos = event->position().x();
        if (area.width() <= 0 || event->angleDelta().y() == 0) {
            return;
        }
        const double lo = m_owner->m_xMin, hi = m_owner->m_xMax;
        const double at = lo + std::clamp((pos - area.left()) / area.width(), 0.0, 1.0) * (hi - lo);
        const double factor = std::pow(0.8, event->angleDelta().y() / 120.0);
        m_owner->userChangedX(at - (at - lo) * factor, at + (hi - at) * factor);
        event->accept();
    }
    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() == Qt::LeftButton) {
            m_dragFrom = event->position().x();
            m_dragRange = {m_owner->m_xMin, m_owner->m_xMax};
            m_dragging = true;
            setCursor(Qt::ClosedHandCursor);
        }
        QChartView::mousePressEvent(event);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        if (m_dragging && (event->buttons() & Qt::LeftButton)) {
            const double width = chart()->plotArea().width();
            const double dx = event->position().x() - m_dragFrom;
            if (width > 0 && std::abs(dx) >= 1.0) {
                const double shift = -dx / width * (m_dragRange.second - m_dragRange.first);
                m_owner->userChangedX(m_dragRange.first + shift, m_dragRange.second + shift);
            }
        }
        QChartView::mouseMoveEvent(event);  // hover events for the series' tooltips
    }
    void mouseReleaseEvent(QMouseEvent* event) override {
        if (event->button() == Qt::LeftButton) {
            m_dragging = false;
            unsetCursor();
        }
        QChartView::mouseReleaseEvent(event);
    }
    void mouseDoubleClickEvent(QMouseEvent* event) override {
        m_owner->setFollowing(true);
        event->accept();
    }
    void resizeEvent(QResizeEvent* event) override {
        QChartView::resizeEvent(event);
        m_owner->refresh();  // the bucket count is the plot's width
    }

private:
    TrainingChart* m_owner;
    bool m_dragging = false;
    double m_dragFrom = 0.0;
    std::pair<double, double> m_dragRange;
};

TrainingChart::TrainingChart(QWidget* parent)
    : QWidget(parent),
      m_chart(new QChart),
      m_view(new View(m_chart, this)),
      m_xAxis(new QValueAxis(m_chart)),
      m_left(std::make_unique<AxisState>()),
      m_right(std::make_unique<AxisState>()) {
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->setBackgroundRoundness(0);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    const QPalette pal = palette();
    m_chart->setBackgroundBrush(pal.color(QPalette::Base));
    m_chart->setTitleBrush(pal.color(QPalette::Text));
    m_chart->legend()->setLabelColor(pal.color(QPalette::Text));
    m_xAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_xAxis->setTickCount(6);
    m_chart->addAxis(m_xAxis, Qt::AlignBottom);
    m_right->alignment = Qt::AlignRight;
    rebuildAxis(Axis::Left);
    rebuildAxis(Axis::Right);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_view->setMinimumHeight(180);
    QFont small = m_chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_chart->legend()->setFont(small);
}

TrainingChart::~TrainingChart() = default;

TrainingChart::AxisState& TrainingChart::state(Axis axis) { return axis == Axis::Left ? *m_left : *m_right; }
const TrainingChart::AxisState& TrainingChart::state(Axis axis) const {
    return axis == Axis::Left ? *m_left : *m_right;
}

void TrainingChart::setTitle(const QString& title) { m_chart->setTitle(title); }

void TrainingChart::setXTitle(const QString& title) { m_xAxis->setTitleText(title); }

void TrainingChart::setAxisTitle(Axis axis, const QString& title) {
    state(axis).title = title;
    state(axis).axis->setTitleText(title);
}

void TrainingChart::setAxisScale(Axis axis, AxisScale scale) {
    if (state(axis).scale == scale) return;
    state(axis).scale = scale;
    rebuildAxis(axis);
    refresh();
}

TrainingChart::AxisScale TrainingChart::axisScale(Axis axis) const { return state(axis).scale; }

void TrainingChart::setAxisFixedRange(Axis axis, double min, double max) {
    state(axis).fixedMin = min;
    state(axis).fixedMax = max;
    refresh();
}

void TrainingChart::setAxisLabelFormat(Axis axis, const QString& format) {
    state(axis).labelFormat = format;
    if (auto* value = qobject_cast<QValueAxis*>(state(axis).axis); value && state(axis).scale == AxisScale::Linear) {
        value->setLabelFormat(format);
    }
}

void TrainingChart::setAxisVisible(Axis axis, bool visible) {
    state(axis).visible = visible;
    state(axis).axis->setVisible(visible);
}

// Replaces the axis object by one of the scale's kind and re-attaches the side's series.
void TrainingChart::rebuildAxis(Axis which) {
    AxisState& s = state(which);
    if (s.axis != nullptr) {
        m_chart->removeAxis(s.axis);
        delete s.axis;
    }
    switch (s.scale) {
        case AxisScale::Linear: {
            auto* a = new QValueAxis;
            a->setLabelFormat(s.labelFormat);
            a->setTickCount(6);
            s.axis = a;
            break;
        }
        case AxisScale::Log10:
        case AxisScale::Log2: {
            auto* a = new QCategoryAxis;
            a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
            s.axis = a;
            s.labelsFrom = 1;
            s.labelsTo = 0;
            break;
        }
    }
    s.axis->setTitleText(s.title);
    s.axis->setVisible(s.visible);
    const QPalette pal = palette();
    s.axis->setLabelsBrush(pal.color(QPalette::Text));
    s.axis->setTitleBrush(pal.color(QPalette::Text));
    QColor grid = pal.color(QPalette::Text);
    grid.setAlphaF(0.12f);
    s.axis->setGridLineColor(grid);
    s.axis->setMinorGridLineColor(QColor(grid.red(), grid.green(), grid.blue(), 14));
    m_chart->addAxis(s.axis, s.alignment);
    for (auto& series : m_series) {
        if (series->axis == which) attachToAxes(*series);
    }
    if (which == Axis::Left) {
        m_xAxis->setLabelsBrush(pal.color(QPalette::Text));
        m_xAxis->setTitleBrush(pal.color(QPalette::Text));
        m_xAxis->setGridLineColor(grid);
    }
}

void TrainingChart::attachToAxes(Series& series) {
    if (!series.qt->attachedAxes().contains(m_xAxis)) series.qt->attachAxis(m_xAxis);
    series.qt->attachAxis(state(series.axis).axis);
}

int TrainingChart::addLine(const QString& name, const QColor& color, qreal width, Axis axis, Qt::PenStyle style,
                           bool points) {
    auto* line = new QLineSeries;
    line->setPen(QPen(color, width, style, Qt::RoundCap, Qt::RoundJoin));
    if (points) {
        line->setPointsVisible(true);
        line->setMarkerSize(std::max<qreal>(6.0, 3 * width));
    }
    return addSeries(line, name, axis);
}

int TrainingChart::addMarkers(const QString& name, const QColor& color, qreal size, Axis axis) {
    auto* scatter = new QScatterSeries;
    scatter->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    scatter->setMarkerSize(size);
    scatter->setColor(color);
    scatter->setBorderColor(color.darker(140));
    return addSeries(scatter, name, axis);
}

// Puts a styled series on the chart and its axes, and reports hovering in raw values.
int TrainingChart::addSeries(QXYSeries* qt, const QString& name, Axis axis) {
    auto series = std::make_unique<Series>();
    qt->setName(name);
    series->qt = qt;
    series->axis = axis;
    m_chart->addSeries(qt);
    attachToAxes(*series);
    const int id = static_cast<int>(m_series.size());
    connect(qt, &QXYSeries::hovered, this, [this, id](const QPointF& p, bool entered) {
        emit hovered(id, QPointF(p.x(), rawValue(state(m_series[id]->axis).scale, p.y())), entered);
    });
    m_series.push_back(std::move(series));
    return id;
}

void TrainingChart::setData(int id, const std::vector<double>* x, const std::vector<double>* y) {
    m_series.at(static_cast<std::size_t>(id))->x = x;
    m_series.at(static_cast<std::size_t>(id))->y = y;
    m_series.at(static_cast<std::size_t>(id))->shownWindow.buckets = 0;
}

void TrainingChart::invalidate() {
    for (auto& s : m_series) s->shownWindow.buckets = 0;
}

void TrainingChart::setSeriesVisible(int id, bool visible) {
    Series& s = *m_series.at(static_cast<std::size_t>(id));
    s.visible = visible;
    s.qt->setVisible(visible);
    refresh();
}

void TrainingChart::setSeriesName(int id, const QString& name) { m_series.at(static_cast<std::size_t>(id))->qt->setName(name); }

void TrainingChart::setSeriesInLegend(int id, bool shown) {
    for (QLegendMarker* marker : m_chart->legend()->markers(m_series.at(static_cast<std::size_t>(id))->qt)) {
        marker->setVisible(shown);
    }
}

int TrainingChart::plotWidth() const {
    const int area = static_cast<int>(m_chart->plotArea().width());
    return area >= 16 ? area : std::max(100, width() - 80);
}

void TrainingChart::refresh() {
    if (m_following) {
        double last = 0.0;
        for (const auto& s : m_series) {
            if (s->visible && s->x != nullptr && !s->x->empty()) last = std::max(last, s->x->back());
        }
        const NiceRange x = niceRange(0.0, std::max(last, 1.0), 6);
        m_xMin = x.min;
        m_xMax = x.max;
        if (m_xAxis->tickCount() != x.ticks) m_xAxis->setTickCount(x.ticks);
    }
    if (m_xAxis->min() != m_xMin || m_xAxis->max() != m_xMax) m_xAxis->setRange(m_xMin, m_xMax);

    const DecimationWindow window{m_xMin, m_xMax, plotWidth()};
    double lo[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    double hi[2] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (auto& s : m_series) {
        if (!s->visible || s->x == nullptr || s->y == nullptr) {
            if (s->qt->count() > 0) s->qt->clear();
            s->shownSize = 0;
            s->shownWindow.buckets = 0;
            continue;
        }
        AxisState& axis = state(s->axis);
        const int side = s->axis == Axis::Left ? 0 : 1;
        const std::size_t size = std::min(s->x->size(), s->y->size());
        const bool unchanged = size == s->shownSize && s->shownWindow.xMin == window.xMin &&
                               s->shownWindow.xMax == window.xMax && s->shownWindow.buckets == window.buckets &&
                               s->shownScale == axis.scale;
        if (!unchanged) {
            const ValueDomain domain = axis.scale == AxisScale::Linear ? ValueDomain::Finite : ValueDomain::Positive;
            decimateMinMax(*s->x, *s->y, window, domain, s->buffer);
            s->lo = std::numeric_limits<double>::infinity();
            s->hi = -std::numeric_limits<double>::infinity();
            for (QPointF& p : s->buffer) {
                axis.smallestGiven = std::min(axis.smallestGiven, p.y());
                if (axis.scale == AxisScale::Log2) p.setY(std::log2(p.y()));
                if (axis.scale == AxisScale::Log10) p.setY(std::log10(p.y()));
                if (p.x() >= m_xMin && p.x() <= m_xMax) {
                    s->lo = std::min(s->lo, p.y());
                    s->hi = std::max(s->hi, p.y());
                }
            }
            s->qt->replace(s->buffer);
            s->shownSize = size;
            s->shownWindow = window;
            s->shownScale = axis.scale;
        }
        lo[side] = std::min(lo[side], s->lo);
        hi[side] = std::max(hi[side], s->hi);
    }
    fitAxis(Axis::Left, lo[0], hi[0]);
    fitAxis(Axis::Right, lo[1], hi[1]);
}

void TrainingChart::fitAxis(Axis which, double lo, double hi) {
    AxisState& s = state(which);
    if (s.fixedMin < s.fixedMax) {
        lo = s.fixedMin;
        hi = s.fixedMax;
    } else if (!(lo <= hi)) {  // nothing visible
        lo = s.scale == AxisScale::Log10 ? -1.0 : 0.0;
        hi = 1.0;
    } else if (s.scale == AxisScale::Log10) {
        const double pad = std::max(0.03, 0.05 * (hi - lo));
        lo -= pad;
        hi += pad;
    } else if (s.scale == AxisScale::Log2) {
        lo -= 0.6;
        hi += 0.6;
    } else {
        const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(0.05 * std::abs(hi), 0.5);
        lo -= pad;
        hi += pad;
    }
    switch (s.scale) {
        case AxisScale::Linear: {
            auto* axis = static_cast<QValueAxis*>(s.axis);
            // Ticks at 0.5, 1, 1.5 rather than 0.0501, 1.12; a fixed range keeps its own ends.
            const NiceRange nice = s.fixedMin < s.fixedMax ? NiceRange{lo, hi, 6} : niceRange(lo, hi, 6);
            if (axis->tickCount() != nice.ticks) axis->setTickCount(nice.ticks);
            if (axis->min() != nice.min || axis->max() != nice.max) axis->setRange(nice.min, nice.max);
            break;
        }
        case AxisScale::Log10: {
            // Plotted as log10, labelled 0.2, 0.5, 1, 2, 5 ... (or whole decades when those crowd).
            auto* axis = static_cast<QCategoryAxis*>(s.axis);
            lo = std::floor(lo * 20.0) / 20.0;  // the range moves in twentieths of a decade only
            hi = std::ceil(hi * 20.0) / 20.0;
            if (axis->min() != lo || axis->max() != hi) axis->setRange(lo, hi);
            const double height = m_chart->plotArea().height() >= 16 ? m_chart->plotArea().height() : 120.0;
            const int fit = std::max(2, static_cast<int>(height / 28.0));
            std::vector<double> marks;
            for (const std::initializer_list<double>& mantissas : {std::initializer_list<double>{1, 2, 5}, {1}}) {
                marks.clear();
                for (int k = static_cast<int>(std::floor(lo)); k <= static_cast<int>(std::ceil(hi)); ++k) {
                    for (double m : mantissas) {
                        const double at = std::log10(m) + k;
                        if (at >= lo && at <= hi) marks.push_back(at);
                    }
                }
                if (static_cast<int>(marks.size()) <= fit) break;
            }
            while (static_cast<int>(marks.size()) > fit && marks.size() > 2) {  // every other decade
                std::vector<double> half;
                for (std::size_t i = 0; i < marks.size(); i += 2) half.push_back(marks[i]);
                marks = half;
            }
            const int key = static_cast<int>(marks.size()) * 100000 + static_cast<int>(std::lround((marks.empty() ? 0 : marks[0]) * 1000));
            if (key != s.labelsStep || s.labelsFrom != static_cast<int>(std::lround(lo * 20)) ||
                s.labelsTo != static_cast<int>(std::lround(hi * 20))) {
                for (const QString& label : axis->categoriesLabels()) axis->remove(label);
                axis->setStartValue(lo);
                for (double at : marks) axis->append(QString::number(std::pow(10.0, at), 'g', 3), at);
                s.labelsStep = key;
                s.labelsFrom = static_cast<int>(std::lround(lo * 20));
                s.labelsTo = static_cast<int>(std::lround(hi * 20));
            }
            break;
        }
        case AxisScale::Log2: {
            auto* axis = static_cast<QCategoryAxis*>(s.axis);
            lo = std::floor(lo * 2.0) / 2.0;  // half powers of two: the range moves only when it must
            hi = std::ceil(hi * 2.0) / 2.0;
            if (axis->min() != lo || axis->max() != hi) axis->setRange(lo, hi);
            // Powers of two as labels, one per 28 pixels at most (QtCharts elides labels it cannot
            // space out).
            const int from = static_cast<int>(std::ceil(lo)), to = static_cast<int>(std::floor(hi));
            const double height = m_chart->plotArea().height() >= 16 ? m_chart->plotArea().height() : 120.0;
            const int fit = std::max(2, static_cast<int>(height / 28.0));
            const int step = std::max(1, static_cast<int>(std::ceil((to - from + 1) / static_cast<double>(fit))));
            if (from != s.labelsFrom || to != s.labelsTo || step != s.labelsStep) {
                for (const QString& label : axis->categoriesLabels()) axis->remove(label);
                axis->setStartValue(lo);
                for (int k = from - ((from % step) + step) % step; k <= to; k += step) {
                    if (k >= from) axis->append(powerOfTwoLabel(k), k);
                }
                s.labelsFrom = from;
                s.labelsTo = to;
                s.labelsStep = step;
            }
            break;
        }
    }
}

void TrainingChart::setFollowing(bool following) {
    if (m_following == following) return;
    m_following = following;
    refresh();
    emit followingChanged(following);
}

void TrainingChart::setXRange(double min, double max) {
    if (!(max > min)) return;
    m_xMin = min;
    m_xMax = max;
    if (m_following) {
        m_following = false;
        emit followingChanged(false);
    }
    refresh();
}

void TrainingChart::userChangedX(double min, double max) {
    if (!(max - min >= 2.0)) {  // no closer than two steps across the plot
        const double mid = 0.5 * (min + max);
        min = mid - 1.0;
        max = mid + 1.0;
    }
    setXRange(min, max);
    emit xRangeChangedByUser(m_xMin, m_xMax);
}

QImage TrainingChart::grabImage() const { return m_view->grab().toImage(); }

bool TrainingChart::exportPng(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !grabImage().save(&file, "PNG") || !file.commit()) {
        if (error) *error = tr("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QList<QPointF> TrainingChart::points(int id) const {
    return m_series.at(static_cast<std::size_t>(id))->qt->points();
}

qsizetype TrainingChart::pointCount(int id) const { return m_series.at(static_cast<std::size_t>(id))->qt->count(); }

double TrainingChart::smallestValueGiven(Axis axis) const { return state(axis).smallestGiven; }

double TrainingChart::timeRender() const {
    const qreal dpr = m_view->devicePixelRatioF();
    QImage image(m_view->size() * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::transparent);
    QElapsedTimer timer;
    timer.start();
    {
        QPainter painter(&image);
        m_view->render(&painter);
    }
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}
