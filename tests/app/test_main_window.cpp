// The window as a user meets it: it starts on the demo, lists the model, survives a bad file.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"
#include "node_table_model.h"

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void demoListsTheMlp() {
        MainWindow window;
        QVERIFY(window.openDemo());
        const NodeTableModel* model = window.nodeModel();
        QAbstractItemModelTester tester(const_cast<NodeTableModel*>(model),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 14);
        QCOMPARE(model->index(3, NodeTableModel::OpColumn).data().toString(), QStringLiteral("FullyConnected"));
        QCOMPARE(model->index(3, NodeTableModel::InputsColumn).data().toString(),
                 QStringLiteral("data, fc1_weight, fc1_bias"));
        QCOMPARE(model->index(0, NodeTableModel::OpColumn).data().toString(), QStringLiteral("variable"));
    }

    void opensARealFile() {
        MainWindow window;
        QVERIFY(window.openFile(QStringLiteral(AMS_TESTDATA_DIR "/mxnet/squeezenet_v1.1-symbol.json")));
        QCOMPARE(window.nodeModel()->rowCount(), 121);
    }

    void badFileKeepsTheDocument() {
        MainWindow window;
        QVERIFY(window.openDemo());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken-symbol.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"nodes": [{"op": "null", "name": "x", "inputs": [[5, 0, 0]]}], "heads": [[0, 0, 0]]})");
        f.close();
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        QVERIFY(!window.openFile(path));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("broken-symbol.json")),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(window.nodeModel()->rowCount(), 14);  // the MLP is still there
        QVERIFY(!window.openFile(dir.filePath(QStringLiteral("missing-symbol.json"))));
        QCOMPARE(window.nodeModel()->rowCount(), 14);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
