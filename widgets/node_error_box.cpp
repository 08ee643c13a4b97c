#include "node_error_box.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

#include "magnitude_histogram_view.h"

using namespace ampstudio;

namespace {

QString figure(double v) { return std::isnan(v) ? NodeErrorBox::tr("undefined (no finite pair)") : QString::number(v, 'g', 3); }

QLabel* valueLabel(const QString& objectName) {
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return label;
}

}  // namespace

NodeErrorBox::NodeErrorBox(QWidget* parent) : QGroupBox(tr("Measured error"), parent) {
    setObjectName(QStringLiteral("measuredError"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_error = valueLabel(QStringLiteral("error"));
    m_own = valueLabel(QStringLiteral("ownError"));
    m_cosine = valueLabel(QStringLiteral("cosine"));
    m_range = valueLabel(QStringLiteral("range"));
    form->addRow(tr("In the model:"), m_error);
    form->addRow(tr("Own:"), m_own);
    form->addRow(tr("Cosine:"), m_cosine);
    form->addRow(tr("Float32 range:"), m_range);
    layout->addLayout(form);
    m_histogram = new MagnitudeHistogramView;
    layout->addWidget(m_histogram);
    m_warnings = valueLabel(QStringLiteral("warnings"));
    m_warnings->setTextFormat(Qt::RichText);
    layout->addWidget(m_warnings);
    hide();
}

void NodeErrorBox::showProfile(const NodeErrorProfile* p, DType target, bool inTarget) {
    if (!p) {
        hide();
        return;
    }
    const QString dtype = QString::fromLatin1(dtypeName(target));
    m_error->setText(tr("max relative %1, max absolute %2").arg(figure(p->error.maxRelError), figure(p->error.maxAbsError)) +
                     (p->error.nonFinite > 0 ? tr("; %n inf/NaN", nullptr, int(p->error.nonFinite)) : QString()));
    if (!inTarget) {
        m_own->setText(tr("none: computes in float32, its error is inherited"));
    } else if (p->own) {
        m_own->setText(tr("%1 (alone in %2 on exact float32 inputs)").arg(figure(p->own->maxRelError), dtype));
    } else {
        m_own->setText(tr("not measured: the node cannot run on its own"));
    }
    m_cosine->setText(std::isnan(p->error.cosine) ? tr("undefined") : QString::number(p->error.cosine, 'f', 6));
    QString range = tr("max |x| %1").arg(QString::number(p->stats.maxAbs, 'g', 3));
    if (p->stats.beyondMax > 0) range += tr(", %1 % beyond %2's largest").arg(QLocale().toString(100 * p->stats.beyondMax, 'g', 2), dtype);
    if (p->stats.belowNormal > 0) range += tr(", %1 % below its smallest normal").arg(QLocale().toString(100 * p->stats.belowNormal, 'g', 2));
    if (p->stats.nonFinite > 0) range += tr(", %n inf/NaN in float32", nullptr, int(p->stats.nonFinite));
    m_range->setText(range);
    m_histogram->setHistogram(p->stats.histogram, target);
    QStringList lines;
    for (const std::string& w : p->warnings) lines << QStringLiteral("⚠ ") + QString::fromStdString(w).toHtmlEscaped();
    m_warnings->setText(lines.join(QStringLiteral("<br>")));
    m_warnings->setVisible(!lines.isEmpty());
    show();
}

QString NodeErrorBox::errorText() const { return m_error->text(); }

QString NodeErrorBox::warningsText() const {
    QString t = m_warnings->text();
    return t.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
}
