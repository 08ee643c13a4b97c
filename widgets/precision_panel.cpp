#include "precision_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "amp/onnx_conversion.h"
#include "formats/onnx_program.h"
#include "okabe_ito.h"
#include "precision_table_model.h"
#include "train/calibration_inputs.h"

using namespace ampstudio;

namespace {

template <typename W>
W* named(W* w, const char* name) {
    w->setObjectName(QLatin1String(name));
    return w;
}

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString figure(double v) { return std::isfinite(v) ? QString::number(v, 'g', 3) : PrecisionPanel::tr("n/a"); }

// The combo's choices; its data is the engine's metric name, as the CLI's --metric takes it.
QString metricText(PrecisionMetric metric) {
    switch (metric) {
        case PrecisionMetric::MaxRel: return PrecisionPanel::tr("Max relative error");
        case PrecisionMetric::MaxAbs: return PrecisionPanel::tr("Max absolute error");
        case PrecisionMetric::Cosine: return PrecisionPanel::tr("1 − cosine");
        case PrecisionMetric::Top1: return PrecisionPanel::tr("Top-1 disagreement");
        case PrecisionMetric::AllClose: return PrecisionPanel::tr("Element-wise relative error (allclose)");
    }
    return {};
}

enum InputKind { RandomValues, NumpyFiles, FashionMnist, IdxFile };

}  // namespace

PrecisionPanel::PrecisionPanel(PrecisionRun* run, PrecisionTableModel* table, QWidget* parent)
    : QWidget(parent), m_run(run), m_table(table) {
    auto* outer = new QHBoxLayout(this);
    auto* formColumn = new QVBoxLayout;
    outer->addLayout(formColumn, 0);

    // --- inputs ---
    auto* inputsBox = new QGroupBox(tr("Calibration inputs"), this);
    auto* inputs = new QFormLayout(inputsBox);
    inputs->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_inputKind = named(new QComboBox, "precisionInputKind");
    m_inputKind->addItem(tr("Random values (uniform 0..1)"), RandomValues);
    m_inputKind->addItem(tr("NumPy files (.npz, .npy)"), NumpyFiles);
    m_inputKind->addItem(tr("Fashion-MNIST (test images)"), FashionMnist);
    m_inputKind->addItem(tr("IDX images file"), IdxFile);
    inputs->addRow(tr("Values:"), m_inputKind);
    m_shapes = named(new QLineEdit, "precisionShapes");
    m_shapes->setPlaceholderText(QStringLiteral("data=8,3,224,224"));
    m_shapes->setToolTip(tr("NAME=SHAPE for every input, separated by spaces or semicolons (as the CLI's "
                            "--input). With a dataset, the data input's shape gives the layout of a sample."));
    inputs->addRow(tr("Shapes:"), m_shapes);
    auto* idxRow = new QHBoxLayout;
    m_idxFile = named(new QLineEdit, "precisionFile");
    m_idxFile->setToolTip(tr("NumPy files, separated by semicolons: each array fills the input of its name "
                             "(a file's only array fills the data input); or one IDX images file"));
    auto* browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        if (m_inputKind->currentData().toInt() == NumpyFiles) {
            const QStringList paths = QFileDialog::getOpenFileNames(this, tr("NumPy Files"), QString(),
                                                                    tr("NumPy arrays (*.npz *.npy);;All files (*)"));
            if (!paths.isEmpty()) m_idxFile->setText(paths.join(QLatin1Char(';')));
        } else {
            const QString path = QFileDialog::getOpenFileName(this, tr("IDX Images File"), m_idxFile->text());
            if (!path.isEmpty()) m_idxFile->setText(path);
        }
    });
    idxRow->addWidget(m_idxFile);
    idxRow->addWidget(browse);
    inputs->addRow(tr("File:"), idxRow);
    m_samples = named(new QSpinBox, "precisionSamples");
    m_samples->setRange(1, 4096);
    m_samples->setValue(8);
    m_samples->setToolTip(tr("Samples of a dataset (the batch of random values is the shape's first dimension)"));
    m_seed = named(new QSpinBox, "precisionSeed");
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seeds the random values and, without a .params file, the parameters"));
    auto* numbers = new QHBoxLayout;
    numbers->addWidget(m_samples);
    numbers->addWidget(new QLabel(tr("Seed:")));
    numbers->addWidget(m_seed);
    inputs->addRow(tr("Samples:"), numbers);
    formColumn->addWidget(inputsBox);
    connect(m_inputKind, &QComboBox::currentIndexChanged, this, &PrecisionPanel::updateInputsRow);

    // --- search ---
    auto* searchBox = new QGroupBox(tr("Tolerance"), this);
    auto* search = new QFormLayout(searchBox);
    search->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_metric = named(new QComboBox, "precisionMetric");
    for (PrecisionMetric m : {PrecisionMetric::MaxRel, PrecisionMetric::MaxAbs, PrecisionMetric::Cosine, PrecisionMetric::Top1,
                              PrecisionMetric::AllClose}) {
        m_metric->addItem(metricText(m), QString::fromLatin1(precisionMetricName(m)));
    }
    m_metric->setToolTip(tr("Measured over the model's outputs against float32"));
    search->addRow(tr("Metric:"), m_metric);
    m_tolerance = named(new QLineEdit(QStringLiteral("1e-2")), "precisionTolerance");
    auto* validator = new QDoubleValidator(0.0, 1e30, 12, m_tolerance);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    validator->setLocale(QLocale::c());
    m_tolerance->setValidator(validator);
    search->addRow(tr("At most:"), m_tolerance);
    m_maxAttempts = named(new QSpinBox, "precisionMaxAttempts");
    m_maxAttempts->setRange(1, 10000);
    m_maxAttempts->setValue(64);
    m_maxAttempts->setToolTip(tr("Conversions the search may run, the baseline included; it keeps the best set found"));
    search->addRow(tr("Attempts:"), m_maxAttempts);
    formColumn->addWidget(searchBox);

    auto* buttons = new QHBoxLayout;
    m_measure = named(new QPushButton(tr("&Measure")), "precisionMeasure");
    m_measure->setToolTip(tr("Run float32 and the current conversion on the inputs; colour every node by its error"));
    m_search = named(new QPushButton(tr("&Find Float32 Set")), "precisionSearch");
    m_search->setToolTip(tr("Find a small set of nodes to keep in float32 for which the outputs meet the tolerance"));
    m_stop = named(new QPushButton(tr("Stop")), "precisionStop");
    buttons->addWidget(m_measure);
    buttons->addWidget(m_search);
    buttons->addWidget(m_stop);
    formColumn->addLayout(buttons);
    m_apply = named(new QPushButton(tr("&Keep Set in Float32")), "precisionApply");
    m_apply->setToolTip(tr("Add the nodes found to the exclusions, as one step Undo takes back"));
    formColumn->addWidget(m_apply);
    m_colourByError = named(new QCheckBox(tr("Colour the converted graph by error")), "precisionColourByError");
    m_colourByError->setChecked(true);
    formColumn->addWidget(m_colourByError);
    formColumn->addStretch(1);

    // --- results ---
    auto* results = new QVBoxLayout;
    outer->addLayout(results, 1);
    auto* statusRow = new QHBoxLayout;
    m_status = named(new QLabel, "precisionStatus");
    m_status->setTextFormat(Qt::PlainText);
    m_progress = named(new QProgressBar, "precisionProgress");
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_progress);
    results->addLayout(statusRow);
    m_result = named(new QLabel, "precisionResult");
    m_result->setTextFormat(Qt::RichText);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    results->addWidget(m_result);

    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_table);
    m_sorted->setSortRole(PrecisionTableModel::SortRole);
    m_tableView = named(new QTableView, "precisionTable");
    m_tableView->setModel(m_sorted);
    m_tableView->setSortingEnabled(true);
    m_tableView->sortByColumn(PrecisionTableModel::Error, Qt::DescendingOrder);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tableView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tableView->setAlternatingRowColors(true);
    m_tableView->verticalHeader()->hide();
    m_tableView->horizontalHeader()->setStretchLastSection(true);
    m_tableView->horizontalHeader()->setSectionResizeMode(PrecisionTableModel::Node, QHeaderView::Interactive);
    m_tableView->setColumnWidth(PrecisionTableModel::Node, 220);
    results->addWidget(m_tableView, 1);
    connect(m_tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (current.isValid()) emit nodeSelected(current.data(PrecisionTableModel::NameRole).toString());
    });

    connect(m_measure, &QPushButton::clicked, this, &PrecisionPanel::measure);
    connect(m_search, &QPushButton::clicked, this, &PrecisionPanel::findFloat32Set);
    connect(m_stop, &QPushButton::clicked, m_run, &PrecisionRun::stop);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const auto outcome = m_run->outcome();
        if (!outcome || !outcome->result) return;
        QStringList nodes;
        for (const std::string& n : outcome->result->fp32Nodes) nodes.append(fromStd(n));
        if (!nodes.isEmpty()) emit float32SetFound(nodes);
    });
    connect(m_colourByError, &QCheckBox::toggled, this, &PrecisionPanel::colourByErrorChanged);
    connect(m_run, &PrecisionRun::started, this, &PrecisionPanel::updateState);
    connect(m_run, &PrecisionRun::progressChanged, this, &PrecisionPanel::showProgress);
    connect(m_run, &PrecisionRun::finished, this, &PrecisionPanel::showOutcome);
    updateInputsRow();
    updateState();
}

void PrecisionPanel::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const NDArrayList> params,
                              std::shared_ptr<const FormatSource> formatSource) {
    m_run->stop();  // its outcome is for the model before; showOutcome() drops it
    m_graph = std::move(graph);
    m_params = std::move(params);
    m_formatSource = std::move(formatSource);
    m_table->setResult(nullptr, m_options.lists.targetDtype);
    QString suggestion;
    if (m_graph && isOnnxSource(m_formatSource.get())) {
        try {  // the declared inputs, symbolic dims given sizes
            suggestion = fromStd(suggestedOnnxRandomInputs(*onnxProgramOf(ModelDocument{m_graph, m_params, {}, m_formatSource})));
        } catch (const std::exception&) {
            suggestion.clear();  // a tensor that cannot be read: Measure says so
        }
    } else if (m_graph) {
        suggestion = fromStd(suggestedRandomInput(*m_graph, m_params.get()));
    }
    m_shapes->setText(suggestion);
    m_result->clear();
    m_status->clear();
    emit resultChanged();
    updateState();
}

void PrecisionPanel::setConversion(const ConversionOptions& options) {
    m_options = options;
    showOutcome();
}

PrecisionRequest PrecisionPanel::request(bool search) const {
    PrecisionRequest r;
    r.source = m_graph;
    r.params = m_params;
    r.formatSource = m_formatSource;
    r.conversion = m_options;
    for (const QString& s : m_shapes->text().split(QRegularExpression(QStringLiteral("[;\\s]+")), Qt::SkipEmptyParts)) {
        r.inputs.randomInputs.push_back(s.toStdString());
    }
    r.inputs.randomInputLabel = tr("Shapes").toStdString();
    switch (m_inputKind->currentData().toInt()) {
        case FashionMnist: r.inputs.dataset = "fashion-mnist"; break;
        case IdxFile: r.inputs.dataset = m_idxFile->text().toStdString(); break;
        case NumpyFiles:
            for (const QString& f : m_idxFile->text().split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
                r.inputs.numpyFiles.push_back(f.trimmed().toStdString());
            }
            break;
        default: break;
    }
    r.inputs.samples = m_samples->value();
    r.inputs.seed = uint64_t(m_seed->value());
    r.metric = precisionMetricFromName(m_metric->currentData().toString().toStdString()).value_or(PrecisionMetric::MaxRel);
    bool ok = false;
    const double tolerance = QLocale::c().toDouble(m_tolerance->text().trimmed(), &ok);
    r.tolerance = ok && tolerance >= 0.0 ? tolerance : 1e-2;
    r.maxAttempts = m_maxAttempts->value();
    r.search = search;
    return r;
}

// Random values need shapes: without them nothing starts and the status says what to give.
bool PrecisionPanel::inputsGiven() {
    if (m_inputKind->currentData().toInt() != RandomValues || !m_shapes->text().trimmed().isEmpty()) return true;
    // An ONNX model's inputs of fixed dims are filled without shapes (one with symbolic dims is named
    // in the error, which the status shows).
    if (isOnnxSource(m_formatSource.get())) return true;
    m_status->setText(tr("Give the inputs' shapes (NAME=SHAPE, e.g. data=8,784), or choose NumPy files or a dataset"));
    return false;
}

bool PrecisionPanel::measure() {
    if (!inputsGiven() || !m_run->start(request(false))) return false;
    m_status->setText(tr("Measuring…"));
    return true;
}

bool PrecisionPanel::findFloat32Set() {
    if (!inputsGiven() || !m_run->start(request(true))) return false;
    m_status->setText(tr("Searching…"));
    return true;
}

bool PrecisionPanel::colourByError() const { return m_colourByError->isChecked(); }
QString PrecisionPanel::statusText() const { return m_status->text(); }
QString PrecisionPanel::resultText() const { return m_result->text(); }

QHash<QString, GraphView::NodeErrorMark> PrecisionPanel::errorMarks() const {
    QHash<QString, GraphView::NodeErrorMark> marks;
    const PrecisionSearchResult* r = m_table->result();
    if (!r) return marks;
    auto add = [&](const NodeErrorProfile& p, bool inTarget) {
        GraphView::NodeErrorMark mark;
        mark.error = p.error.finitePairs > 0 ? p.error.maxRelError : std::nan("");
        for (const std::string& w : p.warnings) mark.warnings.append(fromStd(w));
        mark.summary = inTarget && p.own ? tr("error %1 (own %2) against float32").arg(figure(mark.error), figure(p.own->maxRelError))
                                         : tr("error %1 against float32 (inherited)").arg(figure(mark.error));
        marks.insert(fromStd(p.name), mark);
    };
    for (const NodeErrorProfile& p : r->nodes) add(p, true);
    for (const NodeErrorProfile& p : r->float32Nodes) add(p, false);
    return marks;
}

void PrecisionPanel::updateInputsRow() {
    const int kind = m_inputKind->currentData().toInt();
    m_idxFile->setEnabled(kind == IdxFile || kind == NumpyFiles);
    m_idxFile->setPlaceholderText(kind == NumpyFiles ? tr("inputs.npz; more.npz") : tr("images-idx3-ubyte"));
    m_samples->setEnabled(kind == FashionMnist || kind == IdxFile);
}

void PrecisionPanel::updateState() {
    const bool running = m_run->isRunning();
    const bool ready = m_graph != nullptr && !running;
    m_measure->setEnabled(ready);
    m_search->setEnabled(ready);
    m_stop->setEnabled(running);
    const auto outcome = m_run->outcome();
    const bool current = outcome && outcome->result && outcome->request.source == m_graph &&
                         outcome->request.conversion == m_options;
    m_apply->setEnabled(!running && current && outcome->request.search && !outcome->result->fp32Nodes.empty());
    m_progress->setVisible(running);
}

void PrecisionPanel::showProgress() {
    updateState();
    if (!m_run->isRunning()) return;
    const PrecisionProgress p = m_run->progress();
    switch (p.phase) {
        case PrecisionProgress::Phase::Idle:
        case PrecisionProgress::Phase::Preparing:
            m_status->setText(tr("Running float32 and the conversion…"));
            m_progress->setRange(0, 0);
            break;
        case PrecisionProgress::Phase::Measuring:
            m_status->setText(tr("Measuring node %1 of %2…").arg(p.nodesDone).arg(p.nodesTotal));
            m_progress->setRange(0, int(p.nodesTotal));
            m_progress->setValue(int(p.nodesDone));
            break;
        case PrecisionProgress::Phase::Searching: {
            QString text = tr("Attempt %1: %n node(s) in float32", nullptr, p.last ? int(p.last->fp32Nodes.size()) : 0)
                               .arg(p.attempts);
            if (p.last) text += tr(", metric %1").arg(figure(p.last->value));
            if (p.best) text += tr("; best so far %n node(s)", nullptr, int(p.best->fp32Nodes.size()));
            m_status->setText(text);
            m_progress->setRange(0, m_maxAttempts->value());
            m_progress->setValue(p.attempts);
            break;
        }
    }
}

void PrecisionPanel::showOutcome() {
    updateState();
    const auto outcome = m_run->outcome();
    if (!outcome || m_run->isRunning()) return;
    if (outcome->request.source != m_graph) {  // a run for the model before this one
        return;
    }
    if (!outcome->result) {
        m_status->setText(tr("Failed: %1").arg(outcome->error));
        QPalette warn = m_status->palette();
        warn.setColor(QPalette::WindowText, okabe_ito::kVermillion);
        m_status->setPalette(warn);
        return;
    }
    m_status->setPalette(palette());
    const PrecisionSearchResult& r = *outcome->result;
    const DType target = outcome->request.conversion.lists.targetDtype;
    if (m_table->result() != &r) {
        // The table shares the outcome's result; the outcome keeps it alive as long as the table does.
        m_table->setResult(std::shared_ptr<const PrecisionSearchResult>(outcome, &r), target);
        emit resultChanged();
    }
    const QString metric = m_metric->itemText(m_metric->findData(QString::fromLatin1(precisionMetricName(outcome->request.metric))));
    const QString seconds = QLocale().toString(outcome->seconds, 'f', 1);
    m_status->setText(outcome->request.search
                          ? tr("Searched in %1 s: %n attempt(s)", nullptr, int(r.attempts.size())).arg(seconds)
                          : tr("Measured %n node(s) in %1 s", nullptr, int(r.nodes.size() + r.float32Nodes.size())).arg(seconds));

    QStringList lines;
    for (const TensorDifference& d : r.outputs) {
        QString line = tr("Output <b>%1</b>: max rel %2, max abs %3, cosine %4")
                           .arg(fromStd(d.name).toHtmlEscaped(), figure(d.maxRelError), figure(d.maxAbsError),
                                QString::number(d.cosine, 'f', 6));
        if (!d.referenceFinite()) {
            line += QStringLiteral(" — <span style='color:%1'><b>%2</b></span>")
                        .arg(okabe_ito::kVermillion.name(),
                             tr("reference not finite: float32 itself gives %n inf/NaN value(s); the figures cover "
                                "the finite pairs only", nullptr, int(d.referenceNonFinite)));
        } else if (d.nonFinite > 0) {
            line += QStringLiteral(" — <span style='color:%1'><b>%2</b></span>")
                        .arg(okabe_ito::kVermillion.name(),
                             tr("%n value(s) not finite in %1", nullptr, int(d.nonFinite)).arg(QString::fromLatin1(dtypeName(target))));
        }
        lines.append(line);
    }
    if (outcome->request.search) {
        const QString value = figure(r.value);
        if (r.meets) {
            lines.append(tr("<b>Found:</b> %n node(s) in float32 give %1 %2 (at most %3)", nullptr, int(r.fp32Nodes.size()))
                             .arg(metric, value, QString::number(outcome->request.tolerance, 'g', 3)));
        } else {
            lines.append(QStringLiteral("<span style='color:%1'>%2</span>")
                             .arg(okabe_ito::kVermillion.name(),
                                  tr("<b>Not met:</b> the best set (%n node(s)) gives %1 %2, above %3", nullptr,
                                     int(r.fp32Nodes.size()))
                                      .arg(metric, value, QString::number(outcome->request.tolerance, 'g', 3))));
        }
        if (r.stopped) lines.append(tr("Stopped: the best set so far."));
        if (!r.fp32Nodes.empty()) {
            QStringList names;
            for (const std::string& n : r.fp32Nodes) names.append(fromStd(n).toHtmlEscaped());
            lines.append(names.join(QStringLiteral(", ")));
        }
    } else if (r.stopped) {
        lines.append(tr("Stopped: the nodes measured so far."));
    }
    if (!(outcome->request.conversion == m_options)) {
        lines.append(QStringLiteral("<i>%1</i>").arg(tr("Out of date: the conversion has changed since; measure again.")));
    }
    m_result->setText(lines.join(QStringLiteral("<br>")));
}
