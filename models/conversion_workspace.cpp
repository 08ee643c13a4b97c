#include "conversion_workspace.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPointer>

#include <filesystem>

#include "amp/converted_model.h"
#include "amp/param_casting.h"
#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "graph/name_scopes.h"

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

std::span<const std::byte> bytesOf(const QByteArray& bytes) {
    return std::as_bytes(std::span(bytes.constData(), static_cast<std::size_t>(bytes.size())));
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
        return setDocument(openModelFile(toPath(path)));
    } catch (const LoadError& e) {
        if (error) *error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {  // e.g. std::bad_alloc on an absurd file: still not a crash
        if (error) *error = tr("%1: %2").arg(path, QString::fromLocal8Bit(e.what()));
    }
    return false;
}

bool ConversionWorkspace::openExample(const ExampleModel& example, QString* error) {
    try {
        const QByteArray model = readResource(example.symbolPath);
        const QByteArray params = example.paramsPath.isEmpty() ? QByteArray() : readResource(example.paramsPath);
        ModelDocument document = parseModel(ModelFormat::MxnetCheckpoint, bytesOf(model), bytesOf(params),
                                            example.symbolPath.toStdString());
        document.origin.displayName = example.title.toStdString();
        return setDocument(std::move(document));
    } catch (const LoadError& e) {
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}

bool ConversionWorkspace::setDocument(ModelDocument document) {
    m_document = std::move(document);
    m_snapshot.reset();
    m_grouping = WorkspaceInput::Grouping::Auto;  // decided by the first computation
    m_openScopes.clear();
    // Exclusions name nodes of the old model; the lists and the mode stay, as a user expects when
    // converting several models the same way. A new model starts a new undo history.
    ConversionOptions options = m_settings->options();
    options.excludedSymNames.clear();
    // ONNX models take ONNX op types: untouched default lists follow the model's op set (edited
    // lists are the user's and stay), and classic mode is MXNet 1.6's alone.
    const OpSet opSet = m_document.origin.format == ModelFormat::Onnx ? OpSet::Onnx : OpSet::Mxnet;
    if (options.lists.opSet() != opSet &&
        sameListContent(options.lists, AmpLists::defaults(options.lists.targetDtype, options.lists.opSet()))) {
        options.lists = AmpLists::defaults(options.lists.targetDtype, opSet);
    }
    if (opSet == OpSet::Onnx) options.mode = ConversionMode::Typed;
    m_settings->resetOptions(options);
    emit documentChanged();
    recomputeNow();
    return true;
}

QString ConversionWorkspace::displayName() const { return QString::fromStdString(m_document.origin.displayName); }

QString ConversionWorkspace::symbolPath() const { return fromPath(m_document.origin.model); }

QString ConversionWorkspace::paramsPath() const {
    return m_document.origin.params ? fromPath(*m_document.origin.params) : QString();
}

QString ConversionWorkspace::suggestedOutputPrefix() const {
    const QString suffix = m_settings->options().lists.targetDtype == DType::BF16 ? QStringLiteral("-bf16")
                                                                                   : QStringLiteral("-fp16");
    const QString stem = QString::fromStdString(modelStem(m_document.origin));
    if (stem.isEmpty()) {  // an example: named after its title
        return displayName().section(QLatin1Char(' '), 0, 0).toLower() + suffix;
    }
    return stem + suffix;
}

void ConversionWorkspace::setTextMetrics(const NodeTextMetrics& metrics) {
    m_metrics = metrics;
    if (hasDocument()) {
        scheduleRecompute();
    }
}

void ConversionWorkspace::scheduleRecompute() {
    if (!hasDocument()) {
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
    if (!hasDocument()) {
        return;
    }
    WorkspaceInput input;
    input.source = m_document.graph;
    input.params = m_document.params;
    input.formatSource = m_document.source;
    input.options = m_settings->options();
    input.metrics = m_metrics;
    input.grouping = m_grouping;
    input.openScopes = m_openScopes;
    if (m_snapshot && m_snapshot->conversion && m_snapshot->source == m_document.graph &&
        m_snapshot->options == input.options) {
        input.reuse = m_snapshot->conversion;  // only the grouping changed
    }
    const quint64 serial = ++m_jobSerial;
    // What the job tells the GUI thread on its way arrives queued, and is dropped once the job has
    // been replaced or cancelled.
    const auto postWhileCurrent = [self = QPointer<ConversionWorkspace>(this), serial](auto tell) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, serial, tell = std::move(tell)] {
                if (self && self->m_jobSerial == serial && self->m_tracker.isRunning()) tell(*self);
            },
            Qt::QueuedConnection);
    };
    auto progress = [postWhileCurrent](SnapshotStage stage) {
        postWhileCurrent([stage](ConversionWorkspace& w) { emit w.stageChanged(stage); });
    };
    // A model just opened shows its original as soon as that is laid out; an edit keeps what is shown.
    std::function<void(GraphDrawing)> originalFirst;
    if (!m_snapshot || m_snapshot->source != m_document.graph) {
        originalFirst = [postWhileCurrent](GraphDrawing drawing) {
            postWhileCurrent([drawing = std::move(drawing)](ConversionWorkspace& w) { emit w.originalLaidOut(drawing); });
        };
    }
    // Layout progress in whole percent, each step once: a few dozen queued calls per layout.
    auto layoutProgress = [postWhileCurrent, last = std::make_shared<int>(-1)](double fraction) {
        const int percent = static_cast<int>(fraction * 100);
        if (percent == *last) return;
        *last = percent;
        postWhileCurrent([percent](ConversionWorkspace& w) { emit w.layoutProgress(percent); });
    };
    m_tracker.startJob(
        &m_pool,
        [input = std::move(input), progress, originalFirst, layoutProgress](const std::function<bool()>& cancelled) {
            return computeWorkspaceSnapshot(input, cancelled, progress, originalFirst, layoutProgress);
        },
        [this](WorkspaceSnapshot snapshot) { deliver(std::move(snapshot)); });
    if (!wasBusy) {
        emit busyChanged(true);
    }
}

void ConversionWorkspace::setGrouped(bool grouped) {
    if (!hasDocument() || grouped == (m_grouping == WorkspaceInput::Grouping::On)) {
        return;
    }
    m_grouping = grouped ? WorkspaceInput::Grouping::On : WorkspaceInput::Grouping::Off;
    m_openScopes = grouped ? initiallyOpenScopes(*m_document.graph) : std::set<std::string>{};
    recomputeNow();
}

void ConversionWorkspace::openScope(const QString& scope) {
    if (m_grouping != WorkspaceInput::Grouping::On || !m_openScopes.insert(scope.toStdString()).second) {
        return;
    }
    recomputeNow();
}

bool ConversionWorkspace::collapseScopeOf(const QString& name) {
    if (m_grouping != WorkspaceInput::Grouping::On) {
        return false;
    }
    // The innermost open scope around the item (a group's own name is a scope too), and all inside it.
    const std::string item = name.toStdString();
    std::vector<std::string> around = nameScopes(item);
    around.push_back(item);
    for (auto it = around.rbegin(); it != around.rend(); ++it) {
        if (m_openScopes.count(*it)) {
            const std::string scope = *it;
            std::erase_if(m_openScopes, [&](const std::string& open) {
                return open.rfind(scope, 0) == 0 &&
                       (open.size() == scope.size() || std::string_view("/._").find(open[scope.size()]) != std::string_view::npos);
            });
            recomputeNow();
            return true;
        }
    }
    return false;
}

void ConversionWorkspace::cancelComputation() {
    if (!isBusy()) {
        return;
    }
    m_debounce.stop();
    m_tracker.cancel();
    ++m_jobSerial;
    emit busyChanged(false);
    emit computationCancelled();
}

void ConversionWorkspace::deliver(WorkspaceSnapshot snapshot) {
    if (snapshot.source != m_document.graph) {
        return;  // computed for a document that has been replaced since
    }
    if (m_grouping == WorkspaceInput::Grouping::Auto) {  // the first computation decided
        m_grouping = snapshot.beforeGroups ? WorkspaceInput::Grouping::On : WorkspaceInput::Grouping::Off;
        m_openScopes = snapshot.openScopes;
    }
    m_snapshot = std::make_shared<const WorkspaceSnapshot>(std::move(snapshot));
    emit snapshotReady();
    if (!isBusy()) {
        emit busyChanged(false);
    }
}

std::shared_ptr<const WorkspaceSnapshot> ConversionWorkspace::currentSnapshot() {
    if (!hasDocument()) {
        return nullptr;
    }
    const auto current = [this] {
        return m_snapshot && !isBusy() && m_snapshot->source == m_document.graph &&
               m_snapshot->options == m_settings->options();
    };
    if (!current()) {
        // An edit not computed yet (a save right after it): compute it now and deliver it here, so
        // what is saved is always what the views show next.
        if (m_debounce.isActive() || !m_tracker.isRunning()) {
            recomputeNow();
        }
        m_pool.waitForDone();
        QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    }
    return m_snapshot;
}

std::shared_ptr<const ConversionResult> ConversionWorkspace::currentConversion(QString* error) {
    const auto snapshot = currentSnapshot();
    if (!snapshot) {
        if (error) *error = tr("No model is open.");
        return nullptr;
    }
    if (!snapshot->conversion) {
        if (error) *error = snapshot->error;
        return nullptr;
    }
    return snapshot->conversion;
}

bool ConversionWorkspace::saveConverted(const QString& prefix, QString* error, QStringList* written) {
    const auto conversion = currentConversion(error);
    if (!conversion) {
        return false;
    }
    try {
        ConversionReport report = conversion->report;  // receives the parameter bytes
        const ModelFiles files = saveConvertedModel(prefix.toStdString(), *conversion,
                                                    m_settings->options().lists.targetDtype, m_document, {}, &report);
        if (written) {
            written->clear();
            for (const auto& file : files.all()) written->append(fromPath(file));
        }
        return true;
    } catch (const std::exception& e) {  // SaveError
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}

bool ConversionWorkspace::exportReport(const QString& path, QString* error) {
    const auto conversion = currentConversion(error);
    if (!conversion) {
        return false;
    }
    try {
        refuseToOverwriteInput(toPath(path), m_document.origin.files());
        ConversionReport report = conversion->report;
        if (m_document.params) {
            fillParamBytes(*m_document.params, conversion->storedInTargetDtype, conversion->report.targetDtype, report);
        }
        writeFileAtomically(toPath(path), report.toJson());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
    }
    return false;
}
