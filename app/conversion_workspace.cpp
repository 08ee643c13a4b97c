#include "conversion_workspace.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <filesystem>

#include "amp/converted_model.h"
#include "formats/atomic_file.h"
#include "formats/checkpoint_files.h"
#include "formats/load_error.h"
#include "formats/symbol_json.h"

using namespace ampstudio;

namespace {

// Long enough to coalesce a burst of edits (typing, repeated undo), short enough to feel immediate.
constexpr int kRecomputeDelayMs = 80;

std::filesystem::path toPath(const QString& path) { return std::filesystem::path(path.toStdU16String()); }
QString fromPath(const std::filesystem::path& path) { return QString::fromStdU16String(path.u16string()); }

QByteArray readResource(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

ConversionWorkspace::ConversionWorkspace(QObject* parent) : QObject(parent), m_settings(new ConversionSettings(this)) {
    // One worker: a newer job waits for the stale one, which stops at its next cancellation check.
    m_pool.setMaxThreadCount(1);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kRecomputeDelayMs);
    connect(&m_debounce, &QTimer::timeout, this, &ConversionWorkspace::recomputeNow);
    connect(m_settings, &ConversionSettings::changed, this, &ConversionWorkspace::scheduleRecompute);
}

ConversionWorkspace::~ConversionWorkspace() {
    m_tracker.cancel();
    m_pool.waitForDone();
}

QList<ExampleModel> ConversionWorkspace::examples() {
    const auto tr = [](const char* text) { return QCoreApplication::translate("ConversionWorkspace", text); };
    return {
        {tr("MLP (three layers)"), QStringLiteral(":/examples/mlp-symbol.json"), {}},
        {tr("Small CNN (LeNet, Fashion-MNIST)"), QStringLiteral(":/examples/small-cnn-symbol.json"),
         QStringLiteral(":/examples/small-cnn-0000.params")},
        {tr("Proposal example 1 (cos, sin, exp, sqrt)"), QStringLiteral(":/examples/proposal-example1-symbol.json"), {}},
        {tr("Proposal example 2 (add_n)"), QStringLiteral(":/examples/proposal-example2-symbol.json"), {}},
    };
}

bool ConversionWorkspace::openFile(const QString& path, QString* error) {
    try {
        const CheckpointFiles files = findCheckpointFiles(toPath(path));
        auto graph = std::make_shared<Graph>(readSymbolJsonFile(files.symbol));
        std::shared_ptr<NDArrayList> params;
        if (files.params) {
            params = std::make_shared<NDArrayList>(readNDArrayListFile(*files.params));
        }
        const QString symbolPath = fromPath(files.symbol);
        return setDocument(std::move(graph), std::move(params), QFileInfo(symbolPath).fileName(), symbolPath,
                           files.params ? fromPath(*files.params) : QString());
    } catch (const LoadError& e) {
        if (error) *error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {  // e.g. std::bad_alloc on an absurd file: still not a crash
        if (error) *error = tr("%1: %2").arg(path, QString::fromLocal8Bit(e.what()));
    }
    return false;
}

bool ConversionWorkspace::openExample(const ExampleModel& example, QString* error) {
    try {
        const QByteArray text = readResource(example.symbolPath);
        auto graph = std::make_shared<Graph>(
            parseSymbolJson(std::string_view(text.constData(), static_cast<std::size_t>(text.size())),
                            example.symbolPath.toStdString()));
        std::shared_ptr<NDArrayList> params;
        if (!example.paramsPath.isEmpty()) {
            const QByteArray bytes = readResource(example.paramsPath);
            params = std::make_shared<NDArrayList>(parseNDArrayList(
                std::as_bytes(std::span(bytes.constData(), static_cast<std::size_t>(bytes.size()))),
                example.paramsPath.toStdString()));
        }
        return setDocument(std::move(graph), std::move(params), example.title, {}, {});
    } catch (const LoadError& e) {
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}

bool ConversionWorkspace::setDocument(std::shared_ptr<const Graph> source, std::shared_ptr<const NDArrayList> params,
                                      const QString& displayName, const QString& symbolPath,
                                      const QString& paramsPath) {
    m_source = std::move(source);
    m_params = std::move(params);
    m_displayName = displayName;
    m_symbolPath = symbolPath;
    m_paramsPath = paramsPath;
    m_snapshot.reset();
    // Exclusions name nodes of the old model; the lists and the mode stay, as a user expects when
    // converting several models the same way. A new model starts a new undo history.
    ConversionOptions options = m_settings->options();
    options.excludedSymNames.clear();
    m_settings->resetOptions(options);
    emit documentChanged();
    recomputeNow();
    return true;
}

QString ConversionWorkspace::suggestedOutputPrefix() const {
    const QString suffix = m_settings->options().lists.targetDtype == DType::BF16 ? QStringLiteral("-bf16")
                                                                                   : QStringLiteral("-fp16");
    if (m_symbolPath.isEmpty()) {
        QString stem = m_displayName.section(QLatin1Char(' '), 0, 0).toLower();
        return stem + suffix;
    }
    const QString prefix = QString::fromStdString(checkpointPrefix(toPath(m_symbolPath)));
    if (!prefix.isEmpty()) {
        return prefix + suffix;
    }
    const QFileInfo info(m_symbolPath);
    return info.path() + QLatin1Char('/') + info.completeBaseName() + suffix;
}

void ConversionWorkspace::setTextMetrics(const NodeTextMetrics& metrics) {
    m_metrics = metrics;
    if (m_source) {
        scheduleRecompute();
    }
}

void ConversionWorkspace::scheduleRecompute() {
    if (!m_source) {
        return;
    }
    const bool wasBusy = isBusy();
    m_debounce.start();
    if (!wasBusy) {
        emit busyChanged(true);
    }
}

void ConversionWorkspace::recomputeNow() {
    const bool wasBusy = isBusy();
    m_debounce.stop();
    if (!m_source) {
        return;
    }
    WorkspaceInput input{m_source, m_params, m_settings->options(), m_metrics};
    m_tracker.startJob(
        &m_pool, [input = std::move(input)](const std::function<bool()>& cancelled) {
            return computeWorkspaceSnapshot(input, cancelled);
        },
        [this](WorkspaceSnapshot snapshot) { deliver(std::move(snapshot)); });
    if (!wasBusy) {
        emit busyChanged(true);
    }
}

void ConversionWorkspace::deliver(WorkspaceSnapshot snapshot) {
    if (snapshot.source != m_source) {
        return;  // computed for a document that has been replaced since
    }
    m_snapshot = std::make_shared<const WorkspaceSnapshot>(std::move(snapshot));
    emit snapshotReady();
    if (!isBusy()) {
        emit busyChanged(false);
    }
}

std::vector<std::filesystem::path> ConversionWorkspace::inputPaths() const {
    std::vector<std::filesystem::path> inputs;
    if (!m_symbolPath.isEmpty()) inputs.push_back(toPath(m_symbolPath));
    if (!m_paramsPath.isEmpty()) inputs.push_back(toPath(m_paramsPath));
    return inputs;
}

bool ConversionWorkspace::saveConverted(const QString& prefix, QString* error, QStringList* written) {
    if (!m_source) {
        if (error) *error = tr("No model is open.");
        return false;
    }
    try {
        const ConversionOptions& options = m_settings->options();
        ConversionResult result = convertGraph(*m_source, options);
        const ConvertedModelFiles files = saveConvertedModel(prefix.toStdString(), result, options.lists.targetDtype,
                                                             m_params.get(), inputPaths(), &result.report);
        if (written) {
            written->clear();
            written->append(fromPath(files.symbol));
            if (files.params) written->append(fromPath(*files.params));
        }
        return true;
    } catch (const std::exception& e) {  // SaveError, ConversionError, AmpListsError
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}

bool ConversionWorkspace::exportReport(const QString& path, QString* error) {
    if (!m_source) {
        if (error) *error = tr("No model is open.");
        return false;
    }
    try {
        refuseToOverwriteInput(toPath(path), inputPaths());
        ConversionResult result = convertGraph(*m_source, m_settings->options());
        if (m_params) {
            fillParamBytes(*m_params, result, result.report);
        }
        writeFileAtomically(toPath(path), result.report.toJson());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}
