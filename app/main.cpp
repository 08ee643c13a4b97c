// AMP Studio's GUI entry point: opens the file given on the command line, or the bundled demo.
#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QTimer>
#include <QSettings>

#include "app_settings.h"
#include "appearance.h"
#include "conversion_workspace.h"
#include "graph_view.h"
#include "main_window.h"
#include "platform/process_heap_policy.h"
#include "precision_panel.h"
#include "training_monitor.h"

namespace {

// Waits for the first conversion to be drawn, applies the zoom and selection, grabs the window.
// With `training`, also waits for the training run to end (the README's training screenshot).
int takeScreenshot(MainWindow& window, const QString& path, const QString& node, double zoom, bool training,
                   const QStringList& openScopes) {
    QEventLoop loop;
    const auto settled = [&] {
        return window.workspace()->snapshot() && !window.workspace()->isBusy() &&
               !(training && window.trainingMonitor()->run()->isActive()) && !window.precisionPanel()->isRunning();
    };
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (settled()) loop.quit();
    });
    poll.start(50);
    QTimer::singleShot(training ? 900000 : 300000, &loop, &QEventLoop::quit);
    loop.exec();
    if (!openScopes.isEmpty()) {  // grouped by name scope: open these groups, then wait again
        for (const QString& scope : openScopes) window.workspace()->openScope(scope);
        QTimer::singleShot(300000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (zoom > 0) {
        window.afterView()->setZoom(zoom);
    }
    if (!node.isEmpty()) {
        window.afterView()->selectNode(node);
        emit window.afterView()->nodeSelected(node);
    }
    QTimer::singleShot(300, &loop, &QEventLoop::quit);  // let the views repaint
    loop.exec();
    if (!window.grab().save(path)) {
        qWarning("cannot write %s", qPrintable(path));
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
    // Before any thread starts: freed large blocks stay in the heap for reuse (platform/process_heap_policy.h).
    ampstudio::applyLargeModelHeapPolicy();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AMP Studio"));
    QApplication::setOrganizationName(QStringLiteral("AMP Studio"));
    QApplication::setApplicationVersion(QStringLiteral(AMPSTUDIO_VERSION));

    QSettings settings;
    appearance::installTranslation(app, settings.value(settings::kLanguage).toString());
    appearance::applyTheme(app, settings.value(settings::kTheme, QStringLiteral("system")).toString());

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Mixed-precision conversion and training studio"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QApplication::translate("main", "MXNet symbol or .params file to open (default: the MLP example)"));
    // For the README's screenshots (see README.md): the real window, grabbed once it has drawn.
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QApplication::translate("main", "Save a screenshot of the window and quit."),
                                        QStringLiteral("png"));
    const QCommandLineOption select(QStringLiteral("select"),
                                    QApplication::translate("main", "Select this node (with --screenshot)."),
                                    QStringLiteral("node"));
    const QCommandLineOption zoom(QStringLiteral("zoom"),
                                  QApplication::translate("main", "Zoom factor (with --screenshot)."),
                                  QStringLiteral("factor"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QApplication::translate("main", "Window size WIDTHxHEIGHT (with --screenshot)."),
                                  QStringLiteral("size"));
    const QCommandLineOption train(QStringLiteral("train"),
                                   QApplication::translate("main", "Start training with the saved training settings."));
    const QCommandLineOption measure(QStringLiteral("measure"),
                                     QApplication::translate("main", "Measure the conversion's error node by node "
                                                                     "(the Precision panel's Measure, on its suggested inputs)."));
    const QCommandLineOption openScope(QStringLiteral("open-scope"),
                                       QApplication::translate("main", "Open this name scope's group (with --screenshot; repeatable)."),
                                       QStringLiteral("scope"));
    parser.addOptions({screenshot, select, zoom, size, train, measure, openScope});
    parser.process(app);

    MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty() || !window.openFile(files.first())) {
        window.openDemo();
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (parser.isSet(train) && !window.trainingMonitor()->startTraining()) {
        qWarning("cannot train: %s", qPrintable(window.trainingMonitor()->setupProblem()));
    }
    if (parser.isSet(measure) && !window.measurePrecision()) {
        qWarning("cannot measure: the model has no input to suggest values for");
    }
    if (parser.isSet(screenshot)) {
        return takeScreenshot(window, parser.value(screenshot), parser.value(select),
                              parser.isSet(zoom) ? parser.value(zoom).toDouble() : 0.0, parser.isSet(train),
                              parser.values(openScope));
    }
    return QApplication::exec();
}
