// The MXNet differential fixtures (fixtures/mxnet_differential/, written and brought up to date by
// tests/differential/differential.py against real MXNet 1.9.1 and 1.6.0): small graphs on which AMP
// Studio once disagreed with MXNet, or MXNet itself failed. Each folder says what MXNet's result was
// and what AMP Studio must do (expected.json): write MXNet's own graph, write the graph that MXNet
// 1.9.1 was seen to accept (ampstudio-symbol.json), or refuse. Python is needed only to write them.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <map>
#include <string>

#include "amp/conversion.h"
#include "formats/symbol_json.h"

using namespace ampstudio;

namespace {

const QString kFixtures = QStringLiteral(AMS_TEST_FIXTURES_DIR "/mxnet_differential");

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::map<std::string, std::string> attrMap(const Node& n) {
    return {n.attrs.begin(), n.attrs.end()};
}

std::string entryText(const Graph& g, const NodeEntry& e) {
    return g.nodes[e.node].name + ":" + std::to_string(e.index);
}

// The first difference between two graphs that MXNet would see: node order, names, ops, attributes
// (the parameters' __dtype__ marks included), inputs and heads. Empty when they are the same graph.
std::string firstDifference(const Graph& expected, const Graph& got) {
    for (std::size_t i = 0; i < std::min(expected.size(), got.size()); ++i) {
        const Node& a = expected.nodes[i];
        const Node& b = got.nodes[i];
        const std::string where = "node " + std::to_string(i) + " ";
        if (a.name != b.name || a.op != b.op) {
            return where + "is " + b.name + " (" + b.op + "), expected " + a.name + " (" + a.op + ")";
        }
        if (attrMap(a) != attrMap(b)) {
            std::string text = where + a.name + ": attributes differ:";
            for (const auto& [k, v] : attrMap(a)) {
                const std::string* other = b.attr(k);
                if (other == nullptr || *other != v) {
                    text += " " + k + " expected " + v + " got " + (other ? *other : "(none)");
                }
            }
            return text + (a.attrs.size() != b.attrs.size() ? " (and a different count)" : "");
        }
        if (a.inputs.size() != b.inputs.size()) {
            return where + a.name + ": " + std::to_string(b.inputs.size()) + " inputs, expected " +
                   std::to_string(a.inputs.size());
        }
        for (std::size_t k = 0; k < a.inputs.size(); ++k) {
            if (a.inputs[k].node != b.inputs[k].node || a.inputs[k].index != b.inputs[k].index) {
                return where + a.name + ": input " + std::to_string(k) + " is " + entryText(got, b.inputs[k]) +
                       ", expected " + entryText(expected, a.inputs[k]);
            }
        }
    }
    if (expected.size() != got.size()) {
        return std::to_string(got.size()) + " nodes, expected " + std::to_string(expected.size());
    }
    if (expected.heads.size() != got.heads.size()) {
        return "different head counts";
    }
    for (std::size_t k = 0; k < expected.heads.size(); ++k) {
        if (expected.heads[k].node != got.heads[k].node || expected.heads[k].index != got.heads[k].index) {
            return "head " + std::to_string(k) + " is " + entryText(got, got.heads[k]) + ", expected " +
                   entryText(expected, expected.heads[k]);
        }
    }
    return {};
}

}  // namespace

class TestMxnetFixtures : public QObject {
    Q_OBJECT

private slots:
    void fixture_data() {
        QTest::addColumn<QString>("dir");
        const QStringList dirs = QDir(kFixtures).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& d : dirs) {
            QTest::newRow(qPrintable(d)) << kFixtures + "/" + d;
        }
        // A fixture folder that went missing or a checkout without them must not pass silently.
        QVERIFY2(dirs.size() >= 20, qPrintable(QString("only %1 fixture folders").arg(dirs.size())));
    }

    void fixture() {
        QFETCH(QString, dir);
        const QJsonObject options = readJson(dir + "/options.json");
        const QJsonObject expected = readJson(dir + "/expected.json");
        QVERIFY2(!options.isEmpty() && !expected.isEmpty(), "options.json and expected.json");
        const QString mxnet = expected["mxnet"].toString();
        const QString ampstudio = expected["ampstudio"].toString();
        QVERIFY2(QStringList({"ok", "invalid", "failed"}).contains(mxnet), qPrintable(mxnet));
        // The tester records a result MXNet rejects as "invalid": such a fixture is a defect.
        QVERIFY2(QStringList({"equal", "valid", "refused"}).contains(ampstudio), qPrintable(ampstudio));
        // Never refuse (nor rewrite) a conversion whose MXNet result MXNet itself accepts.
        QVERIFY(!(mxnet == "ok" && ampstudio != "equal"));

        const DType target = *dtypeFromName(options["target_dtype"].toString().toStdString());
        ConversionOptions o;
        const QString lists = options["lists"].toString();
        if (lists.startsWith("mxnet-1.9.1-")) {
            o.lists = AmpLists::defaults(target);
        } else {
            o.lists = AmpLists::fromJsonFile((kFixtures + "/amp-lists-" + lists + ".json").toStdString());
        }
        o.lists.targetDtype = target;
        o.mode = options["mode"].toString() == "classic" ? ConversionMode::Classic : ConversionMode::Typed;
        o.castOptionalParams = options["cast_optional_params"].toBool();
        o.dataNames.clear();
        for (const QJsonValue& v : options["data_names"].toArray()) {
            o.dataNames.insert(v.toString().toStdString());
        }
        for (const QJsonValue& v : options["excluded_sym_names"].toArray()) {
            o.excludedSymNames.insert(v.toString().toStdString());
        }

        const Graph source = readSymbolJsonFile((dir + "/source-symbol.json").toStdString());
        const ConversionResult r = convertGraph(source, o);
        if (ampstudio == "refused") {
            QVERIFY2(!r.report.dtypeCheck.passed, "MXNet rejects this result; the dtype check must refuse it");
            return;
        }
        QVERIFY2(r.report.dtypeCheck.passed, r.report.dtypeCheck.message.c_str());
        // Equal: MXNet's own graph. Valid: the graph real MXNet 1.9.1 accepted when the fixture was
        // written (MXNet's own result failed).
        const QString reference = dir + (ampstudio == "equal" ? "/mxnet-symbol.json" : "/ampstudio-symbol.json");
        const Graph want = readSymbolJsonFile(reference.toStdString());
        const std::string difference = firstDifference(want, r.graph);
        QVERIFY2(difference.empty(), difference.c_str());
        // What MXNet's result was decides whether the report may claim MXNet's result is valid.
        if (o.mode == ConversionMode::Typed) {
            QCOMPARE(r.report.mxnetFailure.empty(), mxnet == "ok");
        }
    }
};

QTEST_GUILESS_MAIN(TestMxnetFixtures)
#include "test_mxnet_fixtures.moc"
