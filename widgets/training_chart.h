#pragma once
// A live chart of training columns: the one place that uses QtCharts, so the charting library can be
// swapped without touching the monitor. Series borrow columns (x and y vectors the owner keeps and
// appends to); refresh() decimates the visible x range to about two points per pixel
// (series_decimator.h) and hands each series its points with one QXYSeries::replace — never an
// append per point, never an inf/NaN, never a non-positive value on a logarithmic axis. Animations
// are off.
//
// The x range follows the whole run until the user zooms (mouse wheel) or pans (drag); a double
// click or setFollowing(true) goes back to following. The y axes fit what is visible.

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QWidget>

#include <limits>
#include <memory>
#include <vector>

class QAbstractAxis;
class QChart;
class QChartView;
class QXYSeries;

class TrainingChart : public QWidget {
    Q_OBJECT
public:
    enum class Axis { Left, Right };
    // Log2: the values are plotted as their base-2 logarithm and labelled with powers of two (2¹⁶);
    // Log10: plotted as their decimal logarithm, labelled 0.5, 1, 2, 5 ... Both take only positive
    // values.
    enum class AxisScale { Linear, Log10, Log2 };

    explicit TrainingChart(QWidget* parent = nullptr);
    ~TrainingChart() override;

    void setTitle(const QString& title);
    void setXTitle(const QString& title);
    void setAxisTitle(Axis axis, const QString& title);
    void setAxisScale(Axis axis, AxisScale scale);
    AxisScale axisScale(Axis axis) const;
    // A fixed range instead of fitting the data (accuracy: 0 to 100); min >= max fits again.
    void setAxisFixedRange(Axis axis, double min, double max);
    void setAxisLabelFormat(Axis axis, const QString& format);  // printf-style, linear axes
    void setAxisVisible(Axis axis, bool visible);

    // A line or a set of markers on an axis; returns its id. Markers are drawn as filled circles.
    // `points`: also a marker at every point (a series with one point per epoch).
    int addLine(const QString& name, const QColor& color, qreal width, Axis axis, Qt::PenStyle style = Qt::SolidLine,
                bool points = false);
    int addMarkers(const QString& name, const QColor& color, qreal size, Axis axis);
    // Borrowed columns: they must outlive the series or be replaced (null clears). Call refresh().
    void setData(int series, const std::vector<double>* x, const std::vector<double>* y);
    void setSeriesVisible(int series, bool visible);
    void setSeriesName(int series, const QString& name);
    void setSeriesInLegend(int series, bool shown);

    // Re-decimates the visible series whose columns grew or whose window changed (x range, width,
    // axis scale) and hands each its points; the others keep theirs.
    void refresh();
    // The columns changed in place (not only grew): the next refresh() redoes every series.
    void invalidate();

    bool isFollowing() const { return m_following; }
    void setFollowing(bool following);
    // Shows [min, max] of x and stops following (what a zoom or pan does).
    void setXRange(double min, double max);
    double xMin() const { return m_xMin; }
    double xMax() const { return m_xMax; }

    // Writes the chart as it is on screen (device pixel ratio included) atomically. False with a
    // message naming the file on failure.
    bool exportPng(const QString& path, QString* error) const;
    QImage grabImage() const;

    // What the series holds now (tests, benchmarks).
    QList<QPointF> points(int series) const;
    qsizetype pointCount(int series) const;
    // The smallest value ever handed to a series on `axis` (before the log transform); +inf if none.
    double smallestValueGiven(Axis axis) const;
    // Renders the chart into an off-screen image of the widget's size and returns the milliseconds the
    // render took (the benchmark's redraw figure).
    double timeRender() const;

signals:
    // The pointer entered (or left) a series near `value` (x and the raw y).
    void hovered(int series, QPointF value, bool entered);
    void followingChanged(bool following);
    // The user zoomed or panned (not emitted for setXRange()).
    void xRangeChangedByUser(double min, double max);

private:
    class View;
    struct Series;
    struct AxisState;

    AxisState& state(Axis axis);
    const AxisState& state(Axis axis) const;
    void rebuildAxis(Axis axis);
    void attachToAxes(Series& series);
    int addSeries(QXYSeries* qt, const QString& name, Axis axis);
    void fitAxis(Axis axis, double lo, double hi);
    void userChangedX(double min, double max);
    int plotWidth() const;

    QChart* m_chart;
    View* m_view;
    class QValueAxis* m_xAxis;
    std::vector<std::unique_ptr<Series>> m_series;
    std::unique_ptr<AxisState> m_left, m_right;
    bool m_following = true;
    double m_xMin = 0.0, m_xMax = 1.0;
};
