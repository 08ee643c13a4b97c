// The AMP operator lists: the shipped MXNet 1.9.1 defaults, the list-file schema (read, write,
// round trip, errors), the overlap rule and the entries that can never match.
#include <QtTest>

#include <QFile>
#include <QJsonDocument>

#include "amp/amp_lists.h"
#include "formats/load_error.h"

using namespace ampstudio;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        qFatal("cannot open %s", qPrintable(path));
    }
    return f.readAll();
}

QString referenceFile(const QString& dtype) {
    return QString(AMS_SOURCE_DIR) + "/../shared/reference/amp-lists-mxnet-1.9.1-" + dtype + ".json";
}
QString shippedFile(const QString& dtype) {
    return QString(AMS_SOURCE_DIR) + "/resources/lists/amp-lists-mxnet-1.9.1-" + dtype + ".json";
}

std::vector<std::string> split(const QString& names) {
    std::vector<std::string> out;
    for (const QString& n : names.split(',', Qt::SkipEmptyParts)) {
        out.push_back(n.trimmed().toStdString());
    }
    return out;
}

}  // namespace

class TestAmpLists : public QObject {
    Q_OBJECT
private slots:
    // Counts from shared/reference/README.md.
    void defaults_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("target");
        QTest::addColumn<int>("fp32");
        QTest::addColumn<int>("neutral");
        QTest::addColumn<int>("widest");
        QTest::addColumn<int>("conditional");
        QTest::addColumn<int>("loss");
        QTest::newRow("float16") << int(DType::F16) << 4 << 136 << 318 << 113 << 2 << 4;
        QTest::newRow("bfloat16") << int(DType::BF16) << 2 << 438 << 15 << 109 << 2 << 4;
    }
    void defaults() {
        QFETCH(int, dtype);
        const AmpLists lists = AmpLists::defaults(DType(dtype));
        QCOMPARE(int(lists.targetDtype), dtype);
        QTEST(int(lists.targetDtypeOps.size()), "target");
        QTEST(int(lists.fp32Ops.size()), "fp32");
        QTEST(int(lists.neutralOps.size()), "neutral");
        QTEST(int(lists.widestDtypeOps.size()), "widest");
        QTEST(int(lists.conditionalFp32Ops.size()), "conditional");
        QTEST(int(lists.lossOutputOps.size()), "loss");
        // loss_output_ops overlap fp32_ops upstream; that is not one of the checked overlaps.
        QVERIFY(lists.overlapErrors().empty());
        lists.validate();
        const ConditionalFp32Op softrelu{"Activation", "act_type", {"softrelu"}};
        QCOMPARE(lists.conditionalFp32Ops.front(), softrelu);
        QCOMPARE(lists.targetDtypeOps.front(), std::string("Convolution"));
    }

    void defaultsRejectOtherDtypes() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AmpLists::defaults(DType::F32));
    }

    // The shipped copies are the reference files, and writing reproduces them byte for byte
    // (extra keys such as bfloat16's bf16_use_fp32_params included, in their place).
    void roundTrip_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("float16") << "float16";
        QTest::newRow("bfloat16") << "bfloat16";
    }
    void roundTrip() {
        QFETCH(QString, dtype);
        const QByteArray text = readAll(shippedFile(dtype));
        QCOMPARE(text, readAll(referenceFile(dtype)));
        const AmpLists lists = AmpLists::fromJson(text.toStdString(), "lists.json");
        QCOMPARE(lists, AmpLists::defaults(dtype == "float16" ? DType::F16 : DType::BF16));
        const std::string written = lists.toJson();
        QCOMPARE(QByteArray::fromStdString(written + "\n"), text);
        QCOMPARE(AmpLists::fromJson(written, "written"), lists);
        QCOMPARE(QJsonDocument::fromJson(QByteArray::fromStdString(written)), QJsonDocument::fromJson(text));
    }

    void bfloat16KeepsExtraKey() {
        const AmpLists lists = AmpLists::defaults(DType::BF16);
        const auto it = std::find_if(lists.otherKeys.begin(), lists.otherKeys.end(),
                                     [](const auto& kv) { return kv.first == "bf16_use_fp32_params"; });
        QVERIFY(it != lists.otherKeys.end());
        QVERIFY(it->second.find("\"BatchNorm\"") != std::string::npos);
        QVERIFY(lists.toJson().find("\"bf16_use_fp32_params\"") != std::string::npos);
    }

    void listsBuiltInCodeWriteSchemaOrder() {
        AmpLists lists;
        lists.targetDtype = DType::BF16;
        lists.targetDtypeOps = {"FullyConnected"};
        lists.fp32Ops = {"exp"};
        lists.conditionalFp32Ops = {{"Activation", "act_type", {"softrelu", "tanh"}}};
        const std::string json = lists.toJson();
        QVERIFY(json.find("\"target_dtype\"") < json.find("\"target_dtype_ops\""));
        QVERIFY(json.find("\"widest_dtype_ops\"") < json.find("\"conditional_fp32_ops\""));
        const AmpLists back = AmpLists::fromJson(json, "code");
        QCOMPARE(back, lists);  // key order is formatting, not content
        QCOMPARE(back.targetDtype, DType::BF16);
    }

    void overlap_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("fp32");
        QTest::addColumn<QString>("conditional");  // op names, each with act_type=softrelu
        QTest::addColumn<QString>("widest");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("disjoint") << "FullyConnected"
                                  << "exp"
                                  << "Activation"
                                  << "" << QStringList{};
        QTest::newRow("target and fp32")
            << "Convolution,FullyConnected"
            << "exp,FullyConnected"
            << ""
            << "" << QStringList{"\"FullyConnected\" is in both target_dtype_ops and fp32_ops"};
        QTest::newRow("target and conditional")
            << "Activation"
            << ""
            << "Activation"
            << "" << QStringList{"\"Activation\" is in both target_dtype_ops and conditional_fp32_ops"};
        QTest::newRow("fp32 and conditional")
            << ""
            << "LeakyReLU"
            << "LeakyReLU"
            << "" << QStringList{"\"LeakyReLU\" is in both fp32_ops and conditional_fp32_ops"};
        QTest::newRow("in all three")
            << "sin"
            << "sin"
            << "sin"
            << ""
            << QStringList{"\"sin\" is in both target_dtype_ops and fp32_ops",
                           "\"sin\" is in both target_dtype_ops and conditional_fp32_ops",
                           "\"sin\" is in both fp32_ops and conditional_fp32_ops"};
        QTest::newRow("widest may overlap") << "FullyConnected"
                                            << "exp"
                                            << ""
                                            << "FullyConnected,exp" << QStringList{};
    }
    void overlap() {
        QFETCH(QString, target);
        QFETCH(QString, fp32);
        QFETCH(QString, conditional);
        QFETCH(QString, widest);
        QFETCH(QStringList, expected);
        AmpLists lists;
        lists.targetDtypeOps = split(target);
        lists.fp32Ops = split(fp32);
        lists.widestDtypeOps = split(widest);
        for (const std::string& op : split(conditional)) {
            lists.conditionalFp32Ops.push_back({op, "act_type", {"softrelu"}});
        }
        QStringList errors;
        for (const std::string& e : lists.overlapErrors()) {
            errors << QString::fromStdString(e);
        }
        QCOMPARE(errors, expected);
        if (expected.isEmpty()) {
            lists.validate();
        } else {
            try {
                lists.validate();
                QFAIL("validate() accepted overlapping lists");
            } catch (const AmpListsError& e) {
                QCOMPARE(QString(e.what()), expected.join('\n'));
            }
        }
    }

    void rejectsBadFiles_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        const QString lists =
            R"("target_dtype_ops": [], "fp32_ops": [], "neutral_ops": [], "widest_dtype_ops": [], )"
            R"("conditional_fp32_ops": [])";
        QTest::newRow("malformed JSON") << "{\"target_dtype\": \n  [}"
                                        << "line 2, column";
        QTest::newRow("not an object") << "[1, 2]"
                                       << "expected a JSON object";
        QTest::newRow("missing target_dtype") << "{" + lists + "}"
                                              << "missing key 'target_dtype'";
        QTest::newRow("missing a list") << R"({"target_dtype": "float16", "fp32_ops": []})"
                                        << "missing key 'target_dtype_ops'";
        QTest::newRow("float32 target") << R"({"target_dtype": "float32", )" + lists + "}"
                                        << "expected \"float16\" or \"bfloat16\"";
        QTest::newRow("list is not an array")
            << R"({"target_dtype": "float16", "target_dtype_ops": "FullyConnected", "fp32_ops": [], )"
               R"("neutral_ops": [], "widest_dtype_ops": [], "conditional_fp32_ops": []})"
            << "key 'target_dtype_ops': expected an array";
        QTest::newRow("entry is not a string")
            << R"({"target_dtype": "float16", "target_dtype_ops": [], "fp32_ops": ["exp", 3], )"
               R"("neutral_ops": [], "widest_dtype_ops": [], "conditional_fp32_ops": []})"
            << "fp32_ops[1]: expected a string";
        QTest::newRow("empty name")
            << R"({"target_dtype": "float16", "target_dtype_ops": [], "fp32_ops": [], )"
               R"("neutral_ops": [""], "widest_dtype_ops": [], "conditional_fp32_ops": []})"
            << "neutral_ops[0]: empty name";
        QTest::newRow("conditional without values")
            << R"({"target_dtype": "float16", "target_dtype_ops": [], "fp32_ops": [], "neutral_ops": [], )"
               R"("widest_dtype_ops": [], "conditional_fp32_ops": )"
               R"([{"op": "Activation", "param": "act_type"}]})"
            << "conditional_fp32_ops[0]: missing key 'values'";
        QTest::newRow("conditional with an unknown key")
            << R"({"target_dtype": "float16", "target_dtype_ops": [], "fp32_ops": [], "neutral_ops": [], )"
               R"("widest_dtype_ops": [], "conditional_fp32_ops": )"
               R"([{"op": "A", "param": "p", "values": [], "x": 1}]})"
            << "unexpected key 'x'";
        QTest::newRow("conditional values not strings")
            << R"({"target_dtype": "float16", "target_dtype_ops": [], "fp32_ops": [], "neutral_ops": [], )"
               R"("widest_dtype_ops": [], "conditional_fp32_ops": )"
               R"([{"op": "A", "param": "p", "values": [true]}]})"
            << "conditional_fp32_ops[0].values[0]: expected a string";
    }
    void rejectsBadFiles() {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        try {
            AmpLists::fromJson(json.toStdString(), "my-lists.json");
            QFAIL("accepted a bad list file");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).startsWith("my-lists.json: "), e.what());
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }

    void missingFileIsLoadError() {
        QVERIFY_THROWS_EXCEPTION(LoadError, AmpLists::fromJsonFile("/nonexistent/lists.json"));
        const AmpLists lists = AmpLists::fromJsonFile(shippedFile("float16").toStdString());
        QCOMPARE(lists, AmpLists::defaults(DType::F16));
    }

    // Aliases in the shipped lists never match: symbol files store canonical names.
    void unmatchableEntries_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("list");
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("canonical");  // empty: not an op at all
        QTest::newRow("float16 _Plus") << int(DType::F16) << "widest_dtype_ops"
                                       << "_Plus"
                                       << "elemwise_add";
        QTest::newRow("float16 Softmax") << int(DType::F16) << "fp32_ops"
                                         << "Softmax"
                                         << "SoftmaxOutput";
        QTest::newRow("float16 split") << int(DType::F16) << "neutral_ops"
                                       << "split"
                                       << "SliceChannel";
        QTest::newRow("bfloat16 _Plus") << int(DType::BF16) << "widest_dtype_ops"
                                        << "_Plus"
                                        << "elemwise_add";
        // Neither an op nor an alias in 1.9.1 (the op is _contrib_BatchNormWithReLU).
        QTest::newRow("bfloat16 BatchNormWithReLU") << int(DType::BF16) << "neutral_ops"
                                                    << "BatchNormWithReLU"
                                                    << "";
    }
    void unmatchableEntries() {
        QFETCH(int, dtype);
        QFETCH(QString, list);
        QFETCH(QString, entry);
        QFETCH(QString, canonical);
        const auto entries = AmpLists::defaults(DType(dtype)).unmatchableEntries();
        const UnmatchableListEntry want{list.toStdString(), entry.toStdString(), canonical.toStdString()};
        QVERIFY2(std::find(entries.begin(), entries.end(), want) != entries.end(), qPrintable(entry));
        // Canonical names are never reported.
        for (const UnmatchableListEntry& u : entries) {
            QVERIFY2(u.entry != "FullyConnected" && u.entry != "elemwise_add", u.entry.c_str());
        }
    }

    void unknownNamesAreUnmatchable() {
        AmpLists lists;
        lists.fp32Ops = {"exp", "NoSuchOp"};
        lists.conditionalFp32Ops = {{"AlsoNoOp", "p", {"v"}}};
        const auto entries = lists.unmatchableEntries();
        QCOMPARE(entries.size(), std::size_t(2));
        QCOMPARE(entries[0], (UnmatchableListEntry{"fp32_ops", "NoSuchOp", ""}));
        QCOMPARE(entries[1], (UnmatchableListEntry{"conditional_fp32_ops", "AlsoNoOp", ""}));
    }
};

QTEST_GUILESS_MAIN(TestAmpLists)
#include "test_amp_lists.moc"
