#pragma once
// The node inspector's "Measured error" section: what the precision debugger measured at the
// shown node — its error in the converted model, the error it creates alone, cosine, its float32
// range against the target dtype as figures and as a histogram, and its range warnings. Hidden
// until a measurement covers the node.

#include <QGroupBox>

#include "exec/precision_search.h"

class MagnitudeHistogramView;
class QLabel;

class NodeErrorBox : public QGroupBox {
    Q_OBJECT
public:
    explicit NodeErrorBox(QWidget* parent = nullptr);

    // `inTarget`: the node computes in the target dtype (a search candidate). Null hides the box.
    void showProfile(const ampstudio::NodeErrorProfile* profile, ampstudio::DType target, bool inTarget);

    QString errorText() const;     // for tests: the error line as shown
    QString warningsText() const;  // the warnings as shown, one per line

private:
    QLabel* m_error;
    QLabel* m_own;
    QLabel* m_cosine;
    QLabel* m_range;
    QLabel* m_warnings;
    MagnitudeHistogramView* m_histogram;
};
