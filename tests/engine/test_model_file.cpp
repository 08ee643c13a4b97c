// The one entry point for model files: a dropped symbol or .params file opens as one document
// whichever half was dropped, the CLI's explicit --params wins, bundled bytes parse the same way,
// and a save writes the source's format without ever replacing a file the document came from.
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "formats/ndarray_list.h"
#include "formats/symbol_json.h"

using namespace ampstudio;
namespace fs = std::filesystem;

namespace {

const fs::path kExamples = AMS_SOURCE_DIR "/resources/examples";

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::span<const std::byte> bytesOf(const std::string& text) { return std::as_bytes(std::span(text.data(), text.size())); }

// A copy of the small CNN checkpoint in `dir` as net-symbol.json + net-0003.params.
void copyCheckpoint(const fs::path& dir) {
    fs::copy_file(kExamples / "small-cnn-symbol.json", dir / "net-symbol.json");
    fs::copy_file(kExamples / "small-cnn-0000.params", dir / "net-0003.params");
}

}  // namespace

class TestModelFile : public QObject {
    Q_OBJECT
private slots:
    // A streamed atomic write that fails (a writer's false and errno, or its exception) leaves the
    // target as it was and no temporary beside it; one that succeeds replaces it whole.
    void aFailedStreamedWriteLeavesTheTargetAsItWas() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path target = root / "model.onnx";
        std::ofstream(target) << "old";
        const auto entries = [&] { return std::distance(fs::directory_iterator(root), fs::directory_iterator()); };
        try {
            writeFileAtomically(target, [](int fd) {
                writeAll(fd, bytesOf("partial"));
                errno = ENOSPC;
                return false;
            });
            QFAIL("no SaveError");
        } catch (const SaveError& e) {
            QVERIFY2(std::string(e.what()).find("writing") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(std::strerror(ENOSPC)) != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeFileAtomically(target, [](int) -> bool {
            throw std::runtime_error("the writer's own error");
        }));
        QCOMPARE(readAll(target), std::string("old"));
        QCOMPARE(entries(), 1);
        writeFileAtomically(target, [](int fd) { return writeAll(fd, bytesOf("new")); });
        QCOMPARE(readAll(target), std::string("new"));
        QCOMPARE(entries(), 1);
    }

    void eitherHalfOpensTheCheckpoint_data() {
        QTest::addColumn<QString>("dropped");
        QTest::newRow("symbol") << "net-symbol.json";
        QTest::newRow("params") << "net-0003.params";
    }
    void eitherHalfOpensTheCheckpoint() {
        QFETCH(QString, dropped);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        copyCheckpoint(root);
        QCOMPARE(sniffModelFormat(root / dropped.toStdString()), ModelFormat::MxnetCheckpoint);
        // Located before anything is read (the CLI names the files and checks its outputs first).
        const ModelOrigin located = locateModelFiles(root / dropped.toStdString());
        QCOMPARE(located.model, root / "net-symbol.json");
        QCOMPARE(located.params, std::optional<fs::path>(root / "net-0003.params"));
        const ModelDocument document = openModelFile(root / dropped.toStdString());
        QVERIFY(document.graph);
        QVERIFY(document.params);
        QCOMPARE(document.origin.format, ModelFormat::MxnetCheckpoint);
        QCOMPARE(document.origin.displayName, std::string("net-symbol.json"));
        QCOMPARE(document.origin.model, root / "net-symbol.json");
        QCOMPARE(document.origin.params, std::optional<fs::path>(root / "net-0003.params"));
        QCOMPARE(document.origin.files(), (std::vector<fs::path>{root / "net-symbol.json", root / "net-0003.params"}));
        QCOMPARE(serializeSymbolJson(*document.graph), serializeSymbolJson(readSymbolJsonFile(kExamples / "small-cnn-symbol.json")));
        QCOMPARE(document.params->arrays.size(), readNDArrayListFile(kExamples / "small-cnn-0000.params").arrays.size());
        QCOMPARE(modelStem(document.origin), (root / "net").string());
    }

    void fileNamesADropAccepts() {
        QVERIFY(isModelFileName("dir/resnet-symbol.json"));
        QVERIFY(isModelFileName("RESNET-0012.PARAMS"));
        QVERIFY(!isModelFileName("notes.txt"));
        QVERIFY(!isModelFileName(".json"));  // a name, not only an ending
        QVERIFY(isModelFileName("dir/resnet50.onnx"));
        QVERIFY(!isModelFileName(".onnx"));
    }

    void explicitParamsWithoutCompanions() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        copyCheckpoint(root);
        const ModelDocument alone = openModelFile(root / "net-symbol.json", {.findCompanions = false});
        QVERIFY(!alone.params);
        QCOMPARE(alone.origin.files(), std::vector<fs::path>{root / "net-symbol.json"});
        // The CLI's --params names any file, whatever its name.
        fs::copy_file(root / "net-0003.params", root / "weights.bin");
        const ModelDocument given =
            openModelFile(root / "net-symbol.json", {.findCompanions = false, .params = root / "weights.bin"});
        QVERIFY(given.params);
        QCOMPARE(given.origin.params, std::optional<fs::path>(root / "weights.bin"));
    }

    void bundledBytesParseAsFiles() {
        const std::string symbol = readAll(kExamples / "small-cnn-symbol.json");
        const std::string params = readAll(kExamples / "small-cnn-0000.params");
        const ModelDocument document = parseModel(ModelFormat::MxnetCheckpoint, bytesOf(symbol), bytesOf(params), "Small CNN");
        QVERIFY(document.params);
        QCOMPARE(document.origin.displayName, std::string("Small CNN"));
        QVERIFY(document.origin.files().empty());  // nothing on disk to protect
        QCOMPARE(modelStem(document.origin), std::string());
        const ModelDocument symbolOnly = parseModel(ModelFormat::MxnetCheckpoint, bytesOf(symbol), {}, "Small CNN");
        QVERIFY(!symbolOnly.params);
    }

    void badFilesAreLoadErrors_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << "empty-symbol.json" << QByteArray() << "";
        QTest::newRow("not json") << "notes.txt" << QByteArray("hello, world") << "";
        QTest::newRow("other json") << "config.json" << QByteArray("{\"lr\": 0.1}") << "";
        QTest::newRow("truncated params") << "x-0000.params" << QByteArray("\x12\x01\0\0\0\0\0\0\x01", 9) << "";
        QTest::newRow("empty onnx") << "empty.onnx" << QByteArray() << "";
        QTest::newRow("text as onnx") << "notes.onnx" << QByteArray("hello, world") << "";
        QTest::newRow("truncated onnx") << "cut.onnx" << QByteArray("\x08\x08\x3a\x7f\x0a", 5) << "";
    }
    void badFilesAreLoadErrors() {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / name.toStdString();
        std::ofstream(path, std::ios::binary).write(content.constData(), content.size());
        try {
            (void)openModelFile(path);
            QFAIL("no LoadError");
        } catch (const LoadError& e) {
            QVERIFY2(!std::string(e.what()).empty(), e.what());
            QVERIFY2(std::string(e.what()).find(path.filename().string()) != std::string::npos, e.what());
        }
    }

    void missingFileIsALoadError() {
        QVERIFY_THROWS_EXCEPTION(LoadError, openModelFile("/nonexistent/dir/net-symbol.json"));
    }

    void savingWritesTheSourceFormatAndProtectsInputs() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        copyCheckpoint(root);
        const ModelDocument document = openModelFile(root / "net-symbol.json");
        const std::string before = readAll(root / "net-0003.params");

        const ModelFiles planned = modelFilesFor(ModelFormat::MxnetCheckpoint, (root / "out").string(), true, 7);
        QCOMPARE(planned.model, root / "out-symbol.json");
        QCOMPARE(planned.params, std::optional<fs::path>(root / "out-0007.params"));
        QCOMPARE(modelFilesFor(ModelFormat::MxnetCheckpoint, "x", false).all(), std::vector<fs::path>{"x-symbol.json"});

        // Epoch 3 under the input's prefix names the input's parameters: refused before anything is written.
        const std::vector<fs::path> inputs = document.origin.files();
        QVERIFY_THROWS_EXCEPTION(SaveError, saveModelFile(ModelFormat::MxnetCheckpoint, (root / "net").string(),
                                                          *document.graph, document.params.get(), inputs, 3));
        QCOMPARE(readAll(root / "net-0003.params"), before);

        const ModelFiles written = saveModelFile(ModelFormat::MxnetCheckpoint, (root / "copy").string(), *document.graph,
                                                 document.params.get(), inputs);
        QCOMPARE(written.all(), (std::vector<fs::path>{root / "copy-symbol.json", root / "copy-0000.params"}));
        const ModelDocument reopened = openModelFile(written.model);
        QCOMPARE(serializeSymbolJson(*reopened.graph), serializeSymbolJson(*document.graph));
        QCOMPARE(serializeNDArrayList(*reopened.params), serializeNDArrayList(*document.params));
    }
};

QTEST_GUILESS_MAIN(TestModelFile)
#include "test_model_file.moc"
