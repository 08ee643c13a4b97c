// The node inspector on the bundled MLP converted with the default options: what it says about an
// operator, a variable and an inserted cast, that its inputs and outputs lead to those nodes, and
// that it clears. With AMS_INSPECTOR_PNG_DIR set, it also writes what it shows as PNGs (350x600),
// to look at.
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

#include "amp/conversion.h"
#include "formats/symbol_json.h"
#include "node_error_box.h"
#include "node_inspector.h"

using namespace ampstudio;

namespace {

const std::string kExamples = AMS_SOURCE_DIR "/resources/examples/";

struct Converted {
    std::shared_ptr<const Graph> before;
    std::shared_ptr<const Graph> after;
    std::shared_ptr<const ConversionReport> report;
};

Converted convertExample(const char* file, ConversionMode mode = ConversionMode::Typed) {
    auto source = std::make_shared<const Graph>(readSymbolJsonFile(kExamples + file));
    ConversionOptions options;
    options.mode = mode;
    auto result = std::make_shared<const ConversionResult>(convertGraph(*source, options));
    return {source, std::shared_ptr<const Graph>(result, &result->graph),
            std::shared_ptr<const ConversionReport>(result, &result->report)};
}

int indexOf(const Graph& g, const char* name) {
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (g.nodes[i].name == name) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

QString text(const NodeInspector& inspector, const char* label) {
    return inspector.findChild<QLabel*>(QString::fromLatin1(label))->text().remove(QChar(0x200B));
}
QTreeWidget* tree(const NodeInspector& inspector, const char* name) {
    return inspector.findChild<QTreeWidget*>(QString::fromLatin1(name));
}
// Column `column` of every row.
QStringList column(QTreeWidget* t, int column) {
    QStringList cells;
    for (int i = 0; i < t->topLevelItemCount(); ++i) {
        cells << t->topLevelItem(i)->text(column);
    }
    return cells;
}

void savePng(NodeInspector& inspector, const QString& name) {
    const QString dir = qEnvironmentVariable("AMS_INSPECTOR_PNG_DIR");
    if (!dir.isEmpty()) {
        QCoreApplication::processEvents();
        QVERIFY(inspector.grab().save(dir + "/" + name + ".png"));
    }
}

}  // namespace

class TestNodeInspector : public QObject {
    Q_OBJECT
private:
    Converted m_mlp = convertExample("mlp-symbol.json");
    NodeInspector* m_inspector = nullptr;

private slots:
    // Sentences list names as English does ("cos0 and sin0") whatever the machine's locale.
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void init() {
        m_inspector = new NodeInspector;
        m_inspector->resize(350, 600);
        m_inspector->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_inspector));
    }
    void cleanup() { delete m_inspector; }

    void startsEmpty() {
        QCOMPARE(m_inspector->nodeName(), QString());
        QVERIFY(m_inspector->findChild<QLabel*>(QStringLiteral("placeholder"))->isVisible());
    }

    void targetOperator() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1"));
        savePng(*m_inspector, "inspector-fc1-after");
        QCOMPARE(m_inspector->nodeName(), QStringLiteral("fc1"));
        QCOMPARE(m_inspector->findChild<QLineEdit*>(QStringLiteral("name"))->text(), QStringLiteral("fc1"));
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("FullyConnected"));
        QCOMPARE(text(*m_inspector, "precision"), QStringLiteral("float16"));
        QCOMPARE(text(*m_inspector, "rule"), QStringLiteral("target_dtype_ops"));
        QVERIFY2(text(*m_inspector, "reason").contains(QStringLiteral("target_dtype_ops")),
                 qPrintable(text(*m_inspector, "reason")));
        // Attributes as the file has them, sorted by key.
        QTreeWidget* attributes = tree(*m_inspector, "attributes");
        QCOMPARE(column(attributes, 0), QStringList{QStringLiteral("num_hidden")});
        QCOMPARE(column(attributes, 1), QStringList{QStringLiteral("128")});
        // In the converted graph fc1 reads the three casts, all float16; relu1 reads its output.
        QTreeWidget* inputs = tree(*m_inspector, "inputs");
        QCOMPARE(column(inputs, 0), (QStringList{"data", "weight", "bias"}));
        QCOMPARE(column(inputs, 1), (QStringList{"data_amp_cast_float16", "fc1_weight_amp_cast_float16",
                                                 "fc1_bias_amp_cast_float16"}));
        QCOMPARE(column(inputs, 3), (QStringList{"float16", "float16", "float16"}));
        QTreeWidget* outputs = tree(*m_inspector, "outputs");
        QCOMPARE(column(outputs, 1), QStringList{"relu1"});
        QCOMPARE(column(outputs, 2), QStringList{"float16"});
    }

    // In the original graph the same node shows where the conversion will put casts.
    void targetOperatorInTheOriginal() {
        m_inspector->showNode(m_mlp.before, m_mlp.report, indexOf(*m_mlp.before, "fc1"));
        savePng(*m_inspector, "inspector-fc1-before");
        QTreeWidget* inputs = tree(*m_inspector, "inputs");
        QCOMPARE(column(inputs, 1), (QStringList{"data", "fc1_weight", "fc1_bias"}));
        QCOMPARE(column(inputs, 3), (QStringList{"float16 (cast)", "float16 (cast)", "float16 (cast)"}));
        QVERIFY(inputs->topLevelItem(0)->toolTip(3).contains(QStringLiteral("data_amp_cast_float16")));
    }

    void variable() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1_weight"));
        savePng(*m_inspector, "inspector-fc1_weight-after");
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("variable (parameter)"));
        QCOMPARE(text(*m_inspector, "rule"), QStringLiteral("variable"));
        QCOMPARE(tree(*m_inspector, "inputs")->topLevelItemCount(), 0);
        QCOMPARE(column(tree(*m_inspector, "outputs"), 1), QStringList{"fc1_weight_amp_cast_float16"});
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "data"));
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("variable (data input)"));
        // No attributes: the section says so instead of showing an empty table.
        QVERIFY(!tree(*m_inspector, "attributes")->isVisible());
        QCOMPARE(tree(*m_inspector, "attributes")->parentWidget()->findChild<QLabel*>(QStringLiteral("none"))->isVisible(),
                 true);
        // The original graph tells the same roles.
        m_inspector->showNode(m_mlp.before, m_mlp.report, indexOf(*m_mlp.before, "fc1_weight"));
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("variable (parameter)"));
    }

    // An ONNX Loop: its reason goes on to the decisions inside its body (ConversionReport::bodyNodes).
    void bodyDecisionsOfAnOnnxLoop() {
        auto graph = std::make_shared<Graph>();
        Node x;
        x.name = "x";
        Node loop;
        loop.op = "Loop";
        loop.name = "loop";
        loop.inputs.push_back({0, 0, 0});
        graph->nodes = {x, loop};
        graph->heads.push_back({1, 0, 0});
        auto report = std::make_shared<ConversionReport>();
        report->nodes = {NodeDecision{"x", "", NodePrecision::Variable, DecisionRule::Variable, DType::F32, ""},
                         NodeDecision{"loop", "Loop", NodePrecision::Unchanged, DecisionRule::NoList, DType::F32, ""}};
        report->bodyNodes = {
            NodeDecision{"loop/body/mm", "MatMul", NodePrecision::Target, DecisionRule::TargetList, DType::F16, ""},
            NodeDecision{"loopy/body/other", "Exp", NodePrecision::Float32, DecisionRule::Fp32List, DType::F32, ""}};
        m_inspector->showNode(graph, report, 1);
        savePng(*m_inspector, "inspector-onnx-loop");
        const QString reason = text(*m_inspector, "reason");
        QVERIFY2(reason.contains(QStringLiteral("Inside its bodies:")), qPrintable(reason));
        QVERIFY2(reason.contains(QStringLiteral("body/mm: float16 (MatMul is in target_dtype_ops")), qPrintable(reason));
        QVERIFY2(!reason.contains(QStringLiteral("other")), qPrintable(reason));  // another node's body
    }

    void cast() {
        m_inspector->showNode(m_mlp.after, m_mlp.report,
                              indexOf(*m_mlp.after, "fc1_weight_amp_cast_float16"));
        savePng(*m_inspector, "inspector-cast-after");
        QCOMPARE(m_inspector->nodeName(), QStringLiteral("fc1_weight_amp_cast_float16"));
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("amp_cast"));
        QCOMPARE(text(*m_inspector, "precision"), QStringLiteral("float16"));
        const QString reason = text(*m_inspector, "reason");
        QVERIFY2(reason.contains(QStringLiteral("fc1_weight to float16")), qPrintable(reason));
        QVERIFY2(reason.contains(QStringLiteral("for fc1")), qPrintable(reason));
        QCOMPARE(column(tree(*m_inspector, "inputs"), 1), QStringList{"fc1_weight"});
        QCOMPARE(column(tree(*m_inspector, "attributes"), 0), QStringList{"dtype"});
        QCOMPARE(column(tree(*m_inspector, "outputs"), 1), QStringList{"fc1"});
        // Narrower than the dock is meant to be: long names elide in the middle, nothing overlaps.
        m_inspector->resize(240, 600);
        savePng(*m_inspector, "inspector-cast-narrow");
    }

    // The trailing cast on the graph output, and the graph output row.
    void outputCast() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "softmax"));
        QCOMPARE(column(tree(*m_inspector, "outputs"), 1), QStringList{"graph output"});
        QCOMPARE(column(tree(*m_inspector, "outputs"), 2), QStringList{"float32"});
        m_inspector->showNode(m_mlp.after, m_mlp.report,
                              indexOf(*m_mlp.after, "fc3_output_amp_cast_float32"));
        QVERIFY(text(*m_inspector, "reason").contains(QStringLiteral("fc3 to float32 for softmax")));
    }

    void multicast() {
        const Converted example = convertExample("proposal-example1-symbol.json");
        m_inspector->showNode(example.after, example.report, indexOf(*example.after, "cos0_0_amp_multicast"));
        savePng(*m_inspector, "inspector-multicast-after");
        const QString reason = text(*m_inspector, "reason");
        QVERIFY2(
            reason.contains(QStringLiteral("cos0 and sin0")) && reason.contains(QStringLiteral("widest")),
            qPrintable(reason));
        QCOMPARE(column(tree(*m_inspector, "outputs"), 0), (QStringList{"0", "1"}));
        QCOMPARE(column(tree(*m_inspector, "outputs"), 1), (QStringList{"_plus0", "_plus0"}));
        // _plus0 reads the two outputs of the multicast.
        m_inspector->showNode(example.after, example.report, indexOf(*example.after, "_plus0"));
        QCOMPARE(column(tree(*m_inspector, "inputs"), 2), (QStringList{"0", "1"}));
        QVERIFY(text(*m_inspector, "reason").contains(QStringLiteral("widest_dtype_ops")));
    }

    void activatingAnInputOrOutputAsksForIt() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1"));
        QSignalSpy spy(m_inspector, &NodeInspector::nodeActivated);
        QTreeWidget* inputs = tree(*m_inspector, "inputs");
        // Keyboard: Enter on the current row.
        inputs->setFocus();
        inputs->setCurrentItem(inputs->topLevelItem(1));
        QTest::keyClick(inputs, Qt::Key_Return);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toString(), QStringLiteral("fc1_weight_amp_cast_float16"));
        // Mouse: a double-click on an output row.
        QTreeWidget* outputs = tree(*m_inspector, "outputs");
        const QRect row = outputs->visualItemRect(outputs->topLevelItem(0));
        QTest::mouseClick(outputs->viewport(), Qt::LeftButton, {},
                          row.center());  // a double-click's first click
        QCOMPARE(spy.count(), 0);
        QTest::mouseDClick(outputs->viewport(), Qt::LeftButton, {}, row.center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toString(), QStringLiteral("relu1"));
        // The graph-output row leads nowhere.
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "softmax"));
        emit outputs->itemActivated(outputs->topLevelItem(0), 1);
        QCOMPARE(spy.count(), 0);
    }

    void clears() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1"));
        m_inspector->clear();
        QCOMPARE(m_inspector->nodeName(), QString());
        QCOMPARE(tree(*m_inspector, "inputs")->topLevelItemCount(), 0);
        QCOMPARE(tree(*m_inspector, "attributes")->topLevelItemCount(), 0);
        QVERIFY(m_inspector->findChild<QLabel*>(QStringLiteral("placeholder"))->isVisible());

        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1"));
        m_inspector->showNode(m_mlp.after, m_mlp.report, -1);
        QCOMPARE(m_inspector->nodeName(), QString());
        QCOMPARE(tree(*m_inspector, "outputs")->topLevelItemCount(), 0);
        m_inspector->showNode(m_mlp.after, m_mlp.report, int(m_mlp.after->size()));
        QCOMPARE(m_inspector->nodeName(), QString());
    }

    // Before any conversion (or when it failed) the inspector still shows the graph.
    void withoutReport() {
        m_inspector->showNode(m_mlp.before, nullptr, indexOf(*m_mlp.before, "fc2"));
        QCOMPARE(text(*m_inspector, "operator"), QStringLiteral("FullyConnected"));
        QCOMPARE(text(*m_inspector, "precision"), QStringLiteral("not converted"));
        QCOMPARE(column(tree(*m_inspector, "inputs"), 1), (QStringList{"relu1", "fc2_weight", "fc2_bias"}));
        QVERIFY(tree(*m_inspector, "inputs")->isColumnHidden(3));
    }

    // BatchNorm names three outputs; the small CNN's relu1 reads the first.
    void namedOutputs() {
        const Converted cnn = convertExample("small-cnn-symbol.json");
        m_inspector->showNode(cnn.after, cnn.report, indexOf(*cnn.after, "bn1"));
        savePng(*m_inspector, "inspector-bn1-after");
        QCOMPARE(column(tree(*m_inspector, "inputs"), 0),
                 (QStringList{"data", "gamma", "beta", "moving_mean", "moving_var"}));
        QCOMPARE(column(tree(*m_inspector, "outputs"), 0), QStringList{"output"});
        QCOMPARE(column(tree(*m_inspector, "outputs"), 1), QStringList{"relu1"});
        QCOMPARE(column(tree(*m_inspector, "outputs"), 2), QStringList{"float16"});
        m_inspector->showNode(cnn.after, cnn.report, indexOf(*cnn.after, "relu1"));
        QCOMPARE(column(tree(*m_inspector, "inputs"), 2), QStringList{"output"});
    }

    // What the precision debugger measured at the node: shown under the decision, hidden without.
    void measuredError() {
        m_inspector->showNode(m_mlp.after, m_mlp.report, indexOf(*m_mlp.after, "fc1"));
        NodeErrorBox* box = m_inspector->measuredErrorBox();
        QVERIFY(!box->isVisible());
        NodeErrorProfile p;
        p.name = "fc1";
        p.op = "FullyConnected";
        p.error.maxRelError = 2.5e-3;
        p.error.maxAbsError = 1e-2;
        p.own = TensorDifference{};
        p.own->maxRelError = 1.5e-3;
        p.stats = rangeStats({1.0f, 700.0f, 1e-6f}, DType::F16);
        p.warnings = {"activations reach 700, past 512"};
        m_inspector->showMeasuredError(&p, DType::F16, true);
        QVERIFY(box->isVisible());
        QVERIFY2(box->errorText().contains(QStringLiteral("0.0025")), qPrintable(box->errorText()));
        QVERIFY(box->warningsText().contains(QStringLiteral("past 512")));
        m_inspector->showMeasuredError(nullptr, DType::F16, false);
        QVERIFY(!box->isVisible());
    }
};

QTEST_MAIN(TestNodeInspector)
#include "test_node_inspector.moc"
