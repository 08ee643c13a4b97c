// ampstudio-cli as a pipeline runs it: real files in, files and exit statuses out.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "formats/ndarray_list.h"
#include "formats/npz_file.h"
#include "formats/symbol_json.h"
#include "tensor/dtype.h"

using namespace ampstudio;

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run cli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(AMS_CLI_PATH), args);
    if (!p.waitForFinished(60000)) {
        return {};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

const QString kMlp = QStringLiteral(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json");

void writeFile(const QString& path, const char* text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// Parameters for the MLP with MXNet's shapes (FullyConnected weight is num_hidden x input).
NDArrayList mlpParams() {
    NDArrayList list;
    auto add = [&](const char* name, std::vector<int64_t> shape) {
        NDArrayRecord r;
        r.name = std::string("arg:") + name;
        r.shape = shape;
        r.data.resize(static_cast<std::size_t>(r.elementCount()) * 4);
        for (std::size_t i = 0; i < r.data.size() / 4; ++i) {
            const float v = 0.001f * static_cast<float>(i % 1000);
            std::memcpy(r.data.data() + i * 4, &v, 4);
        }
        list.arrays.push_back(std::move(r));
    };
    add("fc1_weight", {128, 784});
    add("fc1_bias", {128});
    add("fc2_weight", {64, 128});
    add("fc2_bias", {64});
    add("fc3_weight", {10, 64});
    add("fc3_bias", {10});
    return list;
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void convertTypedMlp() {
        QTemporaryDir dir;
        const QString prefix = dir.filePath("mlp-fp16");
        const Run r = cli({"convert", kMlp, "--output", prefix, "--report", dir.filePath("report.json")});
        QCOMPARE(r.exitCode, 0);
        const Graph converted = readSymbolJsonFile((prefix + "-symbol.json").toStdString());
        QCOMPARE(converted.size(), std::size_t(22));
        QFile f(dir.filePath("report.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(report["nodes_before"].toInt(), 14);
        QCOMPARE(report["nodes_after"].toInt(), 22);
        QCOMPARE(report["amp_cast"].toInt(), 8);
        QCOMPARE(report["amp_multicast"].toInt(), 0);
        QCOMPARE(report["nodes"].toArray().size(), 14);
        QCOMPARE(report["casts"].toArray().size(), 8);
        for (const char* key : {"param_bytes_before", "param_bytes_after"}) {
            QVERIFY2(report.contains(key), key);
        }
        const QJsonObject fc1 = report["nodes"].toArray()[3].toObject();
        QCOMPARE(fc1["name"].toString(), QStringLiteral("fc1"));
        QCOMPARE(fc1["precision"].toString(), QStringLiteral("float16"));
        QVERIFY(!fc1["reason"].toString().isEmpty());
        QVERIFY(report["casts"].toArray()[0].toObject().contains("consumers"));
    }

    void convertClassicWithListsOnTheCommandLine() {
        QTemporaryDir dir;
        const QString prefix = dir.filePath("mlp-classic");
        // Target list emptied: nothing is cast to float16; SoftmaxOutput (FP32) still casts its inputs.
        Run r = cli({"convert", kMlp, "--output", prefix, "--mode", "classic", "--target-dtype-ops", ""});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readSymbolJsonFile((prefix + "-symbol.json").toStdString()).size(), std::size_t(16));
        r = cli({"convert", kMlp, "--output", prefix, "--mode", "classic"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readSymbolJsonFile((prefix + "-symbol.json").toStdString()).size(), std::size_t(25));
    }

    void castOptionalParamsHalvesTheParameters() {
        QTemporaryDir dir;
        const std::string params = dir.filePath("mlp-0000.params").toStdString();
        writeNDArrayListFile(params, mlpParams());
        const QString prefix = dir.filePath("mlp-fp16");
        const Run r = cli({"convert", kMlp, "--params", QString::fromStdString(params), "--output", prefix,
                           "--cast-optional-params", "--data-names", "data,softmax_label", "--report",
                           dir.filePath("report.json")});
        QCOMPARE(r.exitCode, 0);
        const NDArrayList out = readNDArrayListFile((prefix + "-0000.params").toStdString());
        QCOMPARE(out.arrays.size(), std::size_t(6));
        for (const auto& a : out.arrays) {
            QCOMPARE(a.dtype, DType::F16);
        }
        QFile f(dir.filePath("report.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(report["amp_cast"].toInt(), 2);
        const qint64 before = report["param_bytes_before"].toInteger();
        QCOMPARE(before, qint64(mlpParams().payloadBytes()));
        QCOMPARE(report["param_bytes_after"].toInteger(), before / 2);
    }

    // As a drop on the window: the parameters beside the symbol are found, a .params stands for its
    // checkpoint, and --no-params keeps them out.
    void findsTheCheckpointsParameters() {
        QTemporaryDir dir;
        const QString symbol = dir.filePath("cnn-symbol.json");
        const QString params = dir.filePath("cnn-0003.params");
        QVERIFY(QFile::copy(AMS_SOURCE_DIR "/resources/examples/small-cnn-symbol.json", symbol));
        QVERIFY(QFile::copy(AMS_SOURCE_DIR "/resources/examples/small-cnn-0000.params", params));
        Run r = cli({"convert", symbol, "--output", dir.filePath("a"), "--cast-optional-params"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("using the parameters in") && r.err.contains("cnn-0003.params"), qPrintable(r.err));
        QVERIFY(QFileInfo(dir.filePath("a-0000.params")).size() < QFileInfo(params).size() * 3 / 4);

        r = cli({"convert", params, "--output", dir.filePath("b")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QFileInfo::exists(dir.filePath("b-symbol.json")));
        QVERIFY(QFileInfo::exists(dir.filePath("b-0000.params")));

        r = cli({"convert", symbol, "--output", dir.filePath("c"), "--no-params"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.err.contains("using the parameters"));
        QVERIFY(QFileInfo::exists(dir.filePath("c-symbol.json")));
        QVERIFY(!QFileInfo::exists(dir.filePath("c-0000.params")));

        r = cli({"inspect", symbol, "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("cnn-0003.params"), qPrintable(r.out));
    }

    // A conversion whose result MXNet could not bind is refused: exit 2, the node and its input
    // dtypes on one line, no model written (classic mode casts BatchNorm's float32 statistics).
    void refusesAGraphThatFailsTheDtypeCheck() {
        QTemporaryDir dir;
        const QString symbol = QStringLiteral(AMS_TEST_FIXTURES_DIR "/batchnorm-symbol.json");
        const QString prefix = dir.filePath("bn-classic");
        const Run r = cli({"convert", symbol, "--output", prefix, "--mode", "classic", "--target-dtype-ops", "BatchNorm",
                           "--report", dir.filePath("report.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("fails MXNet's dtype check") && r.err.contains("node 'bn0' (BatchNorm) cannot take inputs (float16, float16, float16, float16, float16)"),
                 qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!QFile::exists(prefix + "-symbol.json"));
        QFile f(dir.filePath("report.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject check = QJsonDocument::fromJson(f.readAll()).object()["dtype_check"].toObject();
        QCOMPARE(check["passed"].toBool(), false);
        QCOMPARE(check["node"].toString(), QString("bn0"));
        QCOMPARE(check["stage"].toString(), QString("binding"));
    }

    // Where MXNet 1.9.1's own typed result is invalid, the CLI saves a valid one and says how it
    // differs; the saved graph reads MXNet's cast where MXNet reads the float32 original.
    void repairsMxnetsStaleDtype() {
        QTemporaryDir dir;
        const QString symbol = dir.filePath("stale-symbol.json");
        writeFile(symbol, R"({"nodes": [
            {"op": "null", "name": "data", "inputs": []},
            {"op": "relu", "name": "relu0", "inputs": [[0,0,0]]},
            {"op": "null", "name": "fc1_weight", "inputs": []},
            {"op": "FullyConnected", "name": "fc1", "attrs": {"no_bias": "True", "num_hidden": "4"}, "inputs": [[1,0,0],[2,0,0]]},
            {"op": "Flatten", "name": "flatten0", "inputs": [[1,0,0]]},
            {"op": "null", "name": "fc2_weight", "inputs": []},
            {"op": "FullyConnected", "name": "fc2", "attrs": {"no_bias": "True", "num_hidden": "4"}, "inputs": [[4,0,0],[5,0,0]]}],
            "arg_nodes": [0,2,5], "heads": [[3,0,0],[6,0,0]]})");
        const QString prefix = dir.filePath("stale-fp16");
        const Run r = cli({"convert", symbol, "--output", prefix, "--report", dir.filePath("report.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("MXNet 1.9.1's own result of this conversion is invalid") &&
                     r.err.contains("flatten0[0] reads relu0_0_amp_cast_float16"),
                 qPrintable(r.err));
        const Graph converted = readSymbolJsonFile((prefix + "-symbol.json").toStdString());
        for (const Node& n : converted.nodes) {
            if (n.name == "flatten0") {
                QCOMPARE(converted.nodes[n.inputs[0].node].name, std::string("relu0_0_amp_cast_float16"));
            }
        }
        QFile f(dir.filePath("report.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject mxnet = QJsonDocument::fromJson(f.readAll()).object()["mxnet_1_9_1"].toObject();
        QCOMPARE(mxnet["result_valid"].toBool(), false);
        QCOMPARE(mxnet["differences"].toArray().size(), 1);
    }

    // tune: exp0 is made fragile on purpose (on the target list, inputs near 10, where float16's
    // spacing moves exp by up to 0.4 %); the search keeps exactly it in float32, writes the model,
    // the lists it used and a report naming it under fp32_nodes with its reason.
    void tuneKeepsTheFragileNode() {
        QTemporaryDir dir;
        const QString symbol = dir.filePath("fragile-symbol.json");
        writeFile(symbol, R"({"nodes": [
            {"op": "null", "name": "data", "inputs": []},
            {"op": "_plus_scalar", "name": "shift0", "attrs": {"scalar": "10"}, "inputs": [[0,0,0]]},
            {"op": "exp", "name": "exp0", "inputs": [[1,0,0]]},
            {"op": "null", "name": "fc0_weight", "inputs": []},
            {"op": "null", "name": "fc0_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc0", "attrs": {"num_hidden": "16"}, "inputs": [[0,0,0],[3,0,0],[4,0,0]]},
            {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[5,0,0]]},
            {"op": "null", "name": "fc1_weight", "inputs": []},
            {"op": "null", "name": "fc1_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "4"}, "inputs": [[6,0,0],[7,0,0],[8,0,0]]}],
            "arg_nodes": [0,3,4,7,8], "heads": [[2,0,0],[9,0,0]]})");
        const QString prefix = dir.filePath("tuned");
        const Run r = cli({"tune", symbol, "--input", "data=8,8", "--seed", "3", "--tolerance", "2e-3",
                           "--target-dtype-ops", "FullyConnected,exp", "--fp32-ops", "", "--output", prefix,
                           "--report", dir.filePath("tune.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("found: 1 node(s) kept in float32: exp0"), qPrintable(r.out + r.err));
        QVERIFY(QFile::exists(prefix + "-symbol.json"));
        QVERIFY(QFile::exists(prefix + "-amp-lists.json"));
        QFile f(dir.filePath("tune.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonArray kept = report["fp32_nodes"].toArray();
        QCOMPARE(kept.size(), 1);
        QCOMPARE(kept[0].toObject()["name"].toString(), QString("exp0"));
        QVERIFY(kept[0].toObject()["why"].toString().contains("alone in float16"));
        QVERIFY(report["met"].toBool());
        QVERIFY(report["attempts"].toArray().size() >= 2);
        // The saved model keeps exp0 in float32: its input is not cast to float16.
        const Graph tuned = readSymbolJsonFile((prefix + "-symbol.json").toStdString());
        bool sawExp = false;
        for (const Node& n : tuned.nodes) {
            if (n.name == "exp0") {
                sawExp = true;
                const Node& in = tuned.nodes[n.inputs[0].node];
                QVERIFY2(in.op != "amp_cast" || *in.attr("dtype") == "float32", in.name.c_str());
            }
        }
        QVERIFY(sawExp);
        // A metric it does not know is a usage error.
        QCOMPARE(cli({"tune", symbol, "--input", "data=8,8", "--metric", "rmse", "--output", prefix}).exitCode, 1);
    }

    // tune and compare read calibration inputs from NumPy files; the report records their shapes, a
    // file that is not NumPy is bad input naming it.
    void numpyCalibrationInputs() {
        QTemporaryDir dir;
        const QString mlp = QStringLiteral(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json");
        const QString npz = QStringLiteral(AMS_SOURCE_DIR "/tests/engine/fixtures/numpy/mlp-data.npz");
        const QString prefix = dir.filePath("tuned");
        const Run r = cli({"tune", mlp, "--inputs", npz, "--tolerance", "1", "--output", prefix, "--report",
                           dir.filePath("tune.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QFile f(dir.filePath("tune.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray shape = QJsonDocument::fromJson(f.readAll()).object()["inputs"].toObject()["data"].toArray();
        QCOMPARE(shape.size(), 2);
        QCOMPARE(shape[0].toInt(), 2);
        QCOMPARE(shape[1].toInt(), 784);
        const Run c = cli({"compare", mlp, prefix + "-symbol.json", "--inputs", npz});
        QVERIFY2(c.exitCode == 0, qPrintable(c.out + c.err));
        const Run bad = cli({"compare", mlp, prefix + "-symbol.json", "--inputs", mlp});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("neither a .npy array nor an .npz archive"), qPrintable(bad.err));
    }

    void exitStatuses_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("stderrFragment");
        QTest::newRow("no subcommand") << QStringList{} << 1 << "";
        QTest::newRow("missing --output") << QStringList{"convert", kMlp} << 1 << "--output";
        QTest::newRow("bad dtype") << QStringList{"convert", kMlp, "--output", "/tmp/x", "--target-dtype", "int8"} << 1
                                   << "target-dtype";
        QTest::newRow("output over input") << QStringList{"convert", kMlp, "--output",
                                                          QStringLiteral(AMS_TESTDATA_DIR "/mxnet/mlp")}
                                           << 1 << "refusing to overwrite";
        QTest::newRow("missing file") << QStringList{"convert", "/nonexistent/x-symbol.json", "--output", "/tmp/x"} << 2
                                      << "/nonexistent/x-symbol.json";
        QTest::newRow("not a model") << QStringList{"inspect", QStringLiteral(AMS_TESTDATA_DIR "/mxnet/SOURCES.md")} << 2
                                     << "SOURCES.md";
        QTest::newRow("overlapping lists") << QStringList{"convert", kMlp, "--output", "/tmp/ams-x", "--fp32-ops",
                                                          "FullyConnected"}
                                           << 2 << "FullyConnected";
        QTest::newRow("malformed conditional") << QStringList{"convert", kMlp, "--output", "/tmp/ams-x",
                                                              "--conditional-fp32-ops", "Activation"}
                                               << 1 << "OP:PARAM";
        QTest::newRow("unknown backend") << QStringList{"train", kMlp, "--data", "synthetic:blobs", "--backend", "tpu"} << 1
                                         << "--backend";
    }
    void exitStatuses() {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, stderrFragment);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, status);
        QVERIFY2(r.err.contains(stderrFragment), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);  // one line
    }

    void inspectJson() {
        const Run r = cli({"inspect", QStringLiteral(AMS_TESTDATA_DIR "/mxnet/legacy-save_000800.json"), "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["nodes"].toInt(), 19);
        QCOMPARE(j["op_counts"].toObject()["FullyConnected"].toInt(), 3);
        QCOMPARE(j["inputs"].toArray(), (QJsonArray{"data", "softmax_label"}));
        QCOMPARE(j["auxiliary_states"].toArray(), (QJsonArray{"batchnorm0_moving_mean", "batchnorm0_moving_var"}));
        QCOMPARE(j["outputs"].toArray(), (QJsonArray{"softmax_output"}));
    }

    // An ONNX model through the same door: libonnx-testdata's PyTorch Conv2d export.
    void inspectOnnx() {
        const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx");
        if (!QFile::exists(model)) {
            QSKIP("libonnx-testdata is not installed");
        }
        Run r = cli({"inspect", model, "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["format"].toString(), QStringLiteral("ONNX"));
        QVERIFY2(j["version"].toString().startsWith("IR "), qPrintable(j["version"].toString()));
        QCOMPARE(j["op_counts"].toObject()["Conv"].toInt(), 1);
        QCOMPARE(j["inputs"].toArray().size(), 1);
        QCOMPARE(j["parameters"].toArray(), (QJsonArray{"1", "2"}));  // the initializers: weight and bias
        QCOMPARE(j["params_file"].toString(), model);
        r = cli({"inspect", model});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(": ONNX, version IR "), qPrintable(r.out));
        // Converting writes PREFIX.onnx: the Conv in float16, its input cast, the output cast back.
        QTemporaryDir dir;
        r = cli({"convert", model, "--output", dir.filePath("out"), "--report", dir.filePath("report.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("2 Cast (typed, float16)"), qPrintable(r.out));
        r = cli({"inspect", dir.filePath("out.onnx"), "--json"});
        QCOMPARE(r.exitCode, 0);
        j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["op_counts"].toObject()["Cast"].toInt(), 2);
        QFile reportFile(dir.filePath("report.json"));
        QVERIFY(reportFile.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll()).object();
        QCOMPARE(report["dtype_check"].toObject()["passed"].toBool(), true);
        QCOMPARE(report["casts"].toArray().size(), 2);
        // --low-precision-io: the input and output become float16, and no cast is left.
        r = cli({"convert", model, "--output", dir.filePath("low"), "--low-precision-io"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("0 Cast"), qPrintable(r.out));
        // bfloat16 needs opset 13; this export is opset 6: everything stays float32, with a note.
        r = cli({"convert", model, "--output", dir.filePath("bf16"), "--target-dtype", "bfloat16"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("bfloat16 needs opset 13"), qPrintable(r.err));
        // The node's decision, as the inspector shows it.
        r = cli({"inspect", model, "--node", "Conv_0"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Conv is in target_dtype_ops"), qPrintable(r.out));
        // Never over the input; --low-precision-io is an ONNX option.
        const QString copy = dir.filePath("in.onnx");
        QVERIFY(QFile::copy(model, copy));
        r = cli({"convert", copy, "--output", dir.filePath("in")});
        QVERIFY(r.exitCode != 0);
        const QString mlp = QStringLiteral(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json");
        r = cli({"convert", mlp, "--output", dir.filePath("mlp"), "--low-precision-io"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--low-precision-io is for ONNX"), qPrintable(r.err));
    }

    // run and compare on ONNX models: the ONNX runner behind the same subcommands; run's outputs
    // as an .npz numpy reads, compare's figures for the float16 conversion.
    void runAndCompareOnnx() {
        const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx");
        if (!QFile::exists(model)) {
            QSKIP("libonnx-testdata is not installed");
        }
        QTemporaryDir dir;
        Run r = cli({"run", model, "--outputs", dir.filePath("y.npz")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("onnx runner (cpu)"), qPrintable(r.out));
        const auto arrays = readNumpyFile(dir.filePath("y.npz").toStdString());
        QCOMPARE(arrays.size(), std::size_t(1));
        QVERIFY(arrays.begin()->second.shape.size() == 4);
        QCOMPARE(arrays.begin()->second.dtype, DType::F32);
        // The outputs of a run fed back as inputs are refused by name, with the model's input named.
        r = cli({"run", model, "--inputs", dir.filePath("y.npz"), "--input", "x=1"});
        QCOMPARE(r.exitCode, 1);
        r = cli({"convert", model, "--output", dir.filePath("half")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        r = cli({"compare", model, dir.filePath("half.onnx"), "--report", dir.filePath("c.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QFile f(dir.filePath("c.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject out = report["outputs"].toArray()[0].toObject();
        QCOMPARE(out["status"].toString(), QStringLiteral("ok"));
        QVERIFY2(out["max_rel_error"].toDouble() > 0.0 && out["max_rel_error"].toDouble() < 1e-2, qPrintable(r.out));
        QCOMPARE(report["nodes"].toArray()[0].toObject()["dtype"].toString(), QStringLiteral("float16"));
        // A model and a conversion in another format are not compared.
        const QString mlp = QStringLiteral(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json");
        r = cli({"compare", model, mlp});
        QCOMPARE(r.exitCode, 1);
        // MXNet models run too, on the executor.
        r = cli({"run", mlp, "--input", "data=2,784", "--outputs", dir.filePath("mlp.npz")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QCOMPARE(readNumpyFile(dir.filePath("mlp.npz").toStdString()).begin()->second.shape, (std::vector<int64_t>{2, 10}));
    }

    // tune on an ONNX model: the ONNX runner measures, the search keeps what the tolerance needs,
    // and the tuned model is an ONNX file that compares exactly where it was kept in float32.
    void tuneOnnx() {
        const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx");
        if (!QFile::exists(model)) {
            QSKIP("libonnx-testdata is not installed");
        }
        QTemporaryDir dir;
        const QString prefix = dir.filePath("tuned");
        Run r = cli({"tune", model, "--tolerance", "1e-6", "--output", prefix, "--report", dir.filePath("tune.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("found: 1 node(s) kept in float32: Conv_0"), qPrintable(r.out + r.err));
        QVERIFY(QFile::exists(prefix + ".onnx"));
        QFile lists(prefix + "-amp-lists.json");
        QVERIFY(lists.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(lists.readAll()).object()["op_set"].toString(), QStringLiteral("onnx"));
        QFile f(dir.filePath("tune.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(report["fp32_nodes"].toArray().size(), 1);
        QCOMPARE(report["fp32_nodes"].toArray()[0].toObject()["name"].toString(), QStringLiteral("Conv_0"));
        QVERIFY(report["nodes"].toArray()[0].toObject()["own_max_rel_error"].toDouble() > 0.0);
        QCOMPARE(report["inputs"].toObject()["0"].toArray().size(), 4);
        r = cli({"compare", model, prefix + ".onnx", "--report", dir.filePath("c.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QFile c(dir.filePath("c.json"));
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QJsonObject out = QJsonDocument::fromJson(c.readAll()).object()["outputs"].toArray()[0].toObject();
        QVERIFY(out.contains("max_abs_error"));
        QCOMPARE(out["max_abs_error"].toDouble(), 0.0);
        // A loose tolerance keeps the plain conversion; ONNX models do not run on CUDA.
        r = cli({"tune", model, "--tolerance", "1e-2", "--output", dir.filePath("loose")});
        QVERIFY2(r.exitCode == 0 && r.out.contains("found: 0 node(s)"), qPrintable(r.out + r.err));
        r = cli({"tune", model, "--backend", "cuda", "--output", dir.filePath("cuda")});
        QCOMPARE(r.exitCode, 1);
    }

    // What the GUI's inspector shows of a node, from the same engine index: the decision and the
    // casts on its edges in the original graph, and a cast of the converted graph with its reason.
    void inspectNodeAnswersAsTheInspector() {
        const QString mlp = QStringLiteral(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json");
        Run r = cli({"inspect", mlp, "--node", "fc1", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["graph"].toString(), QStringLiteral("original"));
        QCOMPARE(j["operator"].toString(), QStringLiteral("FullyConnected"));
        QCOMPARE(j["precision"].toString(), QStringLiteral("float16"));
        QCOMPARE(j["rule"].toString(), QStringLiteral("target_dtype_ops"));
        QCOMPARE(j["attributes"].toObject()["num_hidden"].toString(), QStringLiteral("128"));
        const QJsonArray inputs = j["inputs"].toArray();
        QCOMPARE(inputs.size(), 3);
        QCOMPARE(inputs[1].toObject()["input"].toString(), QStringLiteral("weight"));
        QCOMPARE(inputs[1].toObject()["from"].toString(), QStringLiteral("fc1_weight"));
        QCOMPARE(inputs[1].toObject()["via_cast"].toString(), QStringLiteral("fc1_weight_amp_cast_float16"));
        QCOMPARE(j["outputs"].toArray()[0].toObject()["read_by"].toString(), QStringLiteral("relu1"));

        // Excluded, the same node runs in float32 and nothing casts its inputs.
        r = cli({"inspect", mlp, "--node", "fc1", "--excluded-sym-names", "fc1", "--json"});
        j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["precision"].toString(), QStringLiteral("float32"));
        QCOMPARE(j["rule"].toString(), QStringLiteral("excluded"));
        QVERIFY(j["inputs"].toArray()[1].toObject()["via_cast"].isNull());

        r = cli({"inspect", mlp, "--node", "fc1_weight_amp_cast_float16"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("(converted graph)")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("reason:    casts fc1_weight to float16 for fc1")), qPrintable(r.out));

        r = cli({"inspect", mlp, "--node", "no_such_node"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no node 'no_such_node'")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
