// The precision debugger's dock as a user drives it: Measure fills the table worst first and marks
// every measured node for the converted view; a bad shape says why; a float32 reference that is
// itself not finite is said so in red; a result for other conversion options reads as out of date;
// a search offers its set to keep in float32.
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include "amp/amp_lists.h"
#include "formats/symbol_json.h"
#include "../engine/graph_builder.h"
#include "precision_panel.h"
#include "precision_run.h"
#include "precision_table_model.h"

using namespace ampstudio;

namespace {

std::shared_ptr<const Graph> mlp() {
    return std::make_shared<Graph>(readSymbolJsonFile(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json"));
}

ConversionOptions float16() {
    ConversionOptions o;
    o.lists = AmpLists::defaults(DType::F16);
    return o;
}

struct Panel {
    PrecisionRun run;
    PrecisionTableModel table;
    PrecisionPanel panel{&run, &table};

    template <typename W>
    W* child(const char* name) {
        return panel.findChild<W*>(QLatin1String(name));
    }
    // Clicks `button` and waits for the run to finish.
    bool runToEnd(const char* button) {
        QSignalSpy finished(&run, &PrecisionRun::finished);
        child<QPushButton>(button)->click();
        return run.isRunning() && finished.wait(60000);
    }
};

}  // namespace

class TestPrecisionPanel : public QObject {
    Q_OBJECT
private slots:
    void measuresAndMarksEveryNode() {
        Panel p;
        p.panel.setConversion(float16());
        p.panel.setModel(mlp(), nullptr);
        QVERIFY(!p.child<QPushButton>("precisionApply")->isEnabled());
        p.child<QLineEdit>("precisionShapes")->setText(QStringLiteral("data=8,784"));
        QSignalSpy changed(&p.panel, &PrecisionPanel::resultChanged);
        QVERIFY(p.runToEnd("precisionMeasure"));
        QVERIFY2(p.panel.statusText().startsWith(QStringLiteral("Measured")), qPrintable(p.panel.statusText()));
        QCOMPARE(changed.count(), 1);
        QVERIFY(p.panel.resultText().contains(QStringLiteral("softmax")));
        QVERIFY(!p.panel.resultText().contains(QStringLiteral("not finite")));

        // The table, worst error first; a row's click selects its node.
        QTableView* view = p.panel.tableView();
        QVERIFY(view->model()->rowCount() >= 3);
        double previous = std::numeric_limits<double>::infinity();
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            const double e = view->model()->index(row, PrecisionTableModel::Error).data(PrecisionTableModel::SortRole).toDouble();
            QVERIFY(e <= previous);
            previous = e;
        }
        QSignalSpy selected(&p.panel, &PrecisionPanel::nodeSelected);
        view->setCurrentIndex(view->model()->index(0, PrecisionTableModel::Error));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toString(),
                 view->model()->index(0, 0).data(PrecisionTableModel::NameRole).toString());

        // Marks for every measured node: the float16 layers and the float32 ones downstream.
        const auto marks = p.panel.errorMarks();
        QCOMPARE(marks.size(), view->model()->rowCount());
        QVERIFY(marks.contains(QStringLiteral("fc1")));
        QVERIFY(marks.value(QStringLiteral("fc1")).error > 0.0);
        QVERIFY(marks.value(QStringLiteral("fc1")).summary.contains(QStringLiteral("own")));
        QVERIFY(marks.contains(QStringLiteral("softmax")));  // float32, its error inherited
        QVERIFY(marks.value(QStringLiteral("softmax")).summary.contains(QStringLiteral("inherited")));

        // Other options: the result stands, marked out of date.
        ConversionOptions other = float16();
        other.excludedSymNames.insert("fc2");
        p.panel.setConversion(other);
        QVERIFY(p.panel.resultText().contains(QStringLiteral("Out of date")));
        p.panel.setConversion(float16());
        QVERIFY(!p.panel.resultText().contains(QStringLiteral("Out of date")));

        // A new model drops the result.
        p.panel.setModel(mlp(), nullptr);
        QCOMPARE(view->model()->rowCount(), 0);
        QVERIFY(p.panel.errorMarks().isEmpty());
    }

    // NumPy files fill the inputs by name; the random shapes then only add what they lack.
    void measuresOnNumpyInputs() {
        Panel p;
        p.panel.setConversion(float16());
        p.panel.setModel(mlp(), nullptr);
        auto* kind = p.child<QComboBox>("precisionInputKind");
        kind->setCurrentIndex(kind->findText(QStringLiteral("NumPy files (.npz, .npy)")));
        p.child<QLineEdit>("precisionShapes")->clear();
        p.child<QLineEdit>("precisionFile")->setText(QStringLiteral(AMS_SOURCE_DIR "/tests/engine/fixtures/numpy/mlp-data.npz"));
        QCOMPARE(p.panel.request(false).inputs.numpyFiles.size(), std::size_t(1));
        QVERIFY(p.runToEnd("precisionMeasure"));
        QVERIFY2(p.panel.statusText().startsWith(QStringLiteral("Measured")), qPrintable(p.panel.statusText()));
    }

    void aBadShapeSaysWhy() {
        Panel p;
        p.panel.setConversion(float16());
        p.panel.setModel(mlp(), nullptr);
        // The MLP without parameters gives no width to suggest: Measure asks for the shapes.
        QVERIFY(p.child<QLineEdit>("precisionShapes")->text().isEmpty());
        QVERIFY(!p.panel.measure());
        QVERIFY2(p.panel.statusText().contains(QStringLiteral("shapes")), qPrintable(p.panel.statusText()));
        p.child<QLineEdit>("precisionShapes")->setText(QStringLiteral("data=8,x"));
        QVERIFY(p.runToEnd("precisionMeasure"));
        QVERIFY2(p.panel.statusText().contains(QStringLiteral("not a shape")), qPrintable(p.panel.statusText()));
        QCOMPARE(p.panel.tableView()->model()->rowCount(), 0);
    }

    // float32 itself overflows (x * 1e30 * 1e30): the figures cover the finite pairs, and the panel
    // says the reference is not finite rather than blaming the conversion.
    void aReferenceThatIsNotFiniteIsSaid() {
        test::GraphBuilder b;
        const NodeEntry data = b.addVariable("data");
        const NodeEntry fc = b.addOp("FullyConnected", "fc", {data, b.addVariable("fc_weight"), b.addVariable("fc_bias")},
                                     {{"num_hidden", "4"}});
        const NodeEntry big = b.addOp("_mul_scalar", "big", {fc}, {{"scalar", "1e30"}});
        const NodeEntry huge = b.addOp("_mul_scalar", "huge", {big}, {{"scalar", "1e30"}});
        Panel p;
        p.panel.setConversion(float16());
        p.panel.setModel(std::make_shared<Graph>(b.finish({huge})), nullptr);
        p.child<QLineEdit>("precisionShapes")->setText(QStringLiteral("data=4,6"));
        QVERIFY(p.runToEnd("precisionMeasure"));
        QVERIFY2(p.panel.resultText().contains(QStringLiteral("reference not finite")), qPrintable(p.panel.resultText()));
    }

    // With nothing to spare (tolerance 0), the search keeps every float16 layer in float32 and
    // offers that set.
    void aSearchOffersItsSet() {
        Panel p;
        p.panel.setConversion(float16());
        p.panel.setModel(mlp(), nullptr);
        p.child<QLineEdit>("precisionShapes")->setText(QStringLiteral("data=8,784"));
        p.child<QLineEdit>("precisionTolerance")->setText(QStringLiteral("0"));
        QVERIFY(p.runToEnd("precisionSearch"));
        QVERIFY2(p.panel.resultText().contains(QStringLiteral("Found")), qPrintable(p.panel.resultText()));
        QPushButton* apply = p.child<QPushButton>("precisionApply");
        QVERIFY(apply->isEnabled());
        QSignalSpy found(&p.panel, &PrecisionPanel::float32SetFound);
        apply->click();
        QCOMPARE(found.count(), 1);
        const QStringList nodes = found.first().first().toStringList();
        QVERIFY(nodes.contains(QStringLiteral("fc1")) && nodes.contains(QStringLiteral("fc3")));
    }
};

QTEST_MAIN(TestPrecisionPanel)
#include "test_precision_panel.moc"
