// AMP Studio's GUI entry point: opens the file given on the command line, or the bundled demo.
#include <QApplication>
#include <QCommandLineParser>

#include "main_window.h"

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AMP Studio"));
    QApplication::setOrganizationName(QStringLiteral("AMP Studio"));
    QApplication::setApplicationVersion(QStringLiteral(AMPSTUDIO_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Mixed-precision conversion and training studio"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QApplication::translate("main", "MXNet symbol file to open (default: the MLP example)"));
    parser.process(app);

    MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty() || !window.openFile(files.first())) {
        window.openDemo();
    }
    window.show();
    return QApplication::exec();
}
