// Finding the other half of an MXNet checkpoint (PREFIX-symbol.json / PREFIX-NNNN.params), and
// saving a conversion beside its input without ever replacing it.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "amp/conversion.h"
#include "amp/converted_model.h"
#include "formats/atomic_file.h"
#include "formats/checkpoint_files.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"

using namespace ampstudio;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& path, const std::string& text = "x") { std::ofstream(path) << text; }

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

class TestCheckpointFiles : public QObject {
    Q_OBJECT
private slots:
    void prefix_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("symbol") << "dir/resnet-18-symbol.json" << "dir/resnet-18";
        QTest::newRow("params") << "dir/resnet-18-0012.params" << "dir/resnet-18";
        QTest::newRow("five-digit epoch") << "m-12345.params" << "m";
        QTest::newRow("three digits are not an epoch") << "m-123.params" << "";
        QTest::newRow("no dash") << "m0012.params" << "";
        QTest::newRow("plain json") << "model.json" << "";
        QTest::newRow("only the suffix") << "-symbol.json" << "";
        QTest::newRow("only the epoch") << "-0000.params" << "";
    }
    void prefix() {
        QFETCH(QString, file);
        QFETCH(QString, prefix);
        QCOMPARE(QString::fromStdString(checkpointPrefix(file.toStdString())), prefix);
    }

    void symbolFindsItsNewestParams() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "net-symbol.json");
        touch(root / "net-0001.params");
        touch(root / "net-0010.params");
        touch(root / "net-0002.params");
        touch(root / "net2-0099.params");   // another prefix
        touch(root / "network-0050.params");
        fs::create_directory(root / "net-0077.params");  // not a file
        const CheckpointFiles files = findCheckpointFiles(root / "net-symbol.json");
        QCOMPARE(files.symbol, root / "net-symbol.json");
        QVERIFY(files.params);
        QCOMPARE(*files.params, root / "net-0010.params");
    }

    void symbolWithoutParams() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "net-symbol.json");
        QVERIFY(!findCheckpointFiles(root / "net-symbol.json").params);
        QVERIFY(!findCheckpointFiles(root / "other.json").params);
        QVERIFY(!findCheckpointFiles(root / "missing-dir" / "x-symbol.json").params);  // no throw
    }

    void paramsFindTheirSymbol() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "net-symbol.json");
        touch(root / "net-0003.params");
        const CheckpointFiles files = findCheckpointFiles(root / "net-0003.params");
        QCOMPARE(files.symbol, root / "net-symbol.json");
        QCOMPARE(*files.params, root / "net-0003.params");
        // Without its symbol, the .params file itself is what loading will report on.
        touch(root / "lonely-0000.params");
        const CheckpointFiles lonely = findCheckpointFiles(root / "lonely-0000.params");
        QCOMPARE(lonely.symbol, root / "lonely-0000.params");
        QVERIFY(!lonely.params);
    }

    void savingRefusesToReplaceAnInput() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path symbol = root / "cnn-symbol.json";
        const fs::path params = root / "cnn-0000.params";
        fs::copy_file(AMS_SOURCE_DIR "/resources/examples/small-cnn-symbol.json", symbol);
        fs::copy_file(AMS_SOURCE_DIR "/resources/examples/small-cnn-0000.params", params);
        const ModelDocument source = openModelFile(symbol);
        QCOMPARE(source.origin.params, std::optional<fs::path>(params));
        const std::string paramsBefore = readAll(params);
        ConversionOptions options;
        options.castOptionalParams = true;
        const ConversionResult result = convertGraph(*source.graph, options);
        // The symbol output would be a new file, but the params output is the input: nothing is written.
        QVERIFY_THROWS_EXCEPTION(SaveError, saveConvertedModel((root / "cnn").string(), result, DType::F16, source));
        QCOMPARE(readAll(params), paramsBefore);
        QCOMPARE(readAll(symbol), readAll(AMS_SOURCE_DIR "/resources/examples/small-cnn-symbol.json"));

        ConversionReport report = result.report;
        const ModelFiles files = saveConvertedModel((root / "cnn-fp16").string(), result, DType::F16, source, {}, &report);
        QCOMPARE(files.model, root / "cnn-fp16-symbol.json");
        QCOMPARE(*files.params, root / "cnn-fp16-0000.params");
        QCOMPARE(serializeSymbolJson(readSymbolJsonFile(files.model)), serializeSymbolJson(result.graph));
        const NDArrayList saved = readNDArrayListFile(*files.params);
        QVERIFY(report.paramsKnown);
        QCOMPARE(report.paramBytesAfter, uint64_t(saved.payloadBytes()));
        QVERIFY(report.paramBytesAfter < report.paramBytesBefore);
        QVERIFY(!result.storedInTargetDtype.empty());
        for (const std::string& name : result.storedInTargetDtype) {
            const int index = saved.find(name);
            QVERIFY2(index >= 0, name.c_str());
            QCOMPARE(saved.arrays[std::size_t(index)].dtype, DType::F16);
        }
        // Without parameters only the symbol is written.
        const ModelDocument bare = openModelFile(symbol, {.findCompanions = false});
        QVERIFY(!bare.params);
        const ModelFiles symbolOnly = saveConvertedModel((root / "bare").string(), result, DType::F16, bare);
        QVERIFY(!symbolOnly.params);
        QVERIFY(!fs::exists(root / "bare-0000.params"));
    }
};

QTEST_GUILESS_MAIN(TestCheckpointFiles)
#include "test_checkpoint_files.moc"
