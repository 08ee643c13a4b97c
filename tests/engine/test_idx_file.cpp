// IDX files (MNIST's format), plain and gzip-compressed: small files built byte by byte from the
// format description read back exactly; hostile files (wrong magic, dimensions larger than the data,
// truncated or corrupt gzip, trailing bytes) are LoadErrors naming the file and the place, never a
// crash; and the real Fashion-MNIST of Debian's dataset-fashion-mnist loads with its published counts.
#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <cstring>
#include <fstream>

#include "formats/load_error.h"
#include "train/fashion_mnist.h"
#include "train/idx_file.h"

using namespace ampstudio;
namespace fs = std::filesystem;

namespace {

// Big-endian IDX bytes assembled by hand.
class Idx {
public:
    Idx(uint8_t type, std::vector<uint32_t> dims) {
        m_bytes += '\0';
        m_bytes += '\0';
        m_bytes += static_cast<char>(type);
        m_bytes += static_cast<char>(dims.size());
        for (uint32_t d : dims) {
            be(d, 4);
        }
    }
    Idx& u8(std::initializer_list<int> values) {
        for (int v : values) {
            m_bytes += static_cast<char>(v);
        }
        return *this;
    }
    Idx& be(uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) {
            m_bytes += static_cast<char>((v >> (8 * i)) & 0xFF);
        }
        return *this;
    }
    Idx& f32(float v) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        return be(bits, 4);
    }
    Idx& f64(double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        return be(bits, 8);
    }
    std::string bytes() const { return m_bytes; }

private:
    std::string m_bytes;
};

void writePlain(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void writeGzip(const fs::path& path, const std::string& bytes) {
    gzFile f = gzopen(path.c_str(), "wb");
    QVERIFY(f != nullptr);
    QCOMPARE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), int(bytes.size()));
    QCOMPARE(gzclose(f), Z_OK);
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// Three 2×2 u8 images and their labels.
const std::string kImages = Idx(0x08, {3, 2, 2}).u8({0, 1, 2, 3, 10, 11, 12, 13, 252, 253, 254, 255}).bytes();
const std::string kLabels = Idx(0x08, {3}).u8({2, 0, 1}).bytes();

}  // namespace

class TestIdxFile : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void readsImagesAndLabels_data() {
        QTest::addColumn<bool>("gzip");
        QTest::newRow("plain") << false;
        QTest::newRow("gzip") << true;
    }
    void readsImagesAndLabels() {
        QFETCH(bool, gzip);
        const fs::path images = path(gzip ? "img-idx3-ubyte.gz" : "img-idx3-ubyte");
        const fs::path labels = path(gzip ? "lab-idx1-ubyte.gz" : "lab-idx1-ubyte");
        if (gzip) {
            writeGzip(images, kImages);
            writeGzip(labels, kLabels);
        } else {
            writePlain(images, kImages);
            writePlain(labels, kLabels);
        }
        const IdxArray array = readIdxFile(images);
        QCOMPARE(array.type, IdxType::UInt8);
        QCOMPARE(array.dims, (std::vector<int64_t>{3, 2, 2}));
        QCOMPARE(array.elementCount(), 12);
        QCOMPARE(array.toFloats().back(), 255.0f);

        const Dataset data = loadIdxDataset(images, labels);
        QCOMPARE(data.size(), 3);
        QCOMPARE(data.sampleShape, (std::vector<int64_t>{1, 2, 2}));
        QCOMPARE(data.features, (std::vector<float>{0, 1, 2, 3, 10, 11, 12, 13, 252, 253, 254, 255}));
        QCOMPARE(data.labels, (std::vector<int32_t>{2, 0, 1}));
        QCOMPARE(data.classCount, 3);
        QVERIFY(data.task == DatasetTask::Classification);
    }

    // The other IDX element types, big-endian in the file.
    void decodesEveryType() {
        const fs::path p = path("types.idx");
        writePlain(p, Idx(0x09, {2}).u8({0xFF, 0x7F}).bytes());
        QCOMPARE(readIdxFile(p).toInt32s(), (std::vector<int32_t>{-1, 127}));
        writePlain(p, Idx(0x0B, {2}).be(0xFFFE, 2).be(0x0102, 2).bytes());
        QCOMPARE(readIdxFile(p).toInt32s(), (std::vector<int32_t>{-2, 258}));
        writePlain(p, Idx(0x0C, {2}).be(0x80000000u, 4).be(0x01020304, 4).bytes());
        QCOMPARE(readIdxFile(p).toInt32s(), (std::vector<int32_t>{INT32_MIN, 0x01020304}));
        writePlain(p, Idx(0x0D, {1, 2}).f32(1.5f).f32(-2.25f).bytes());
        QCOMPARE(readIdxFile(p).toFloats(), (std::vector<float>{1.5f, -2.25f}));
        writePlain(p, Idx(0x0E, {2}).f64(0.125).f64(-1e10).bytes());
        const IdxArray doubles = readIdxFile(p);
        QCOMPARE(doubles.toFloats(), (std::vector<float>{0.125f, -1e10f}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, doubles.toInt32s());
        // A rank-2 array of samples keeps its flat sample shape.
        writePlain(p, Idx(0x08, {2, 3}).u8({1, 2, 3, 4, 5, 6}).bytes());
        writePlain(path("types-labels.idx"), Idx(0x08, {2}).u8({0, 4}).bytes());
        const Dataset flat = loadIdxDataset(p, path("types-labels.idx"));
        QCOMPARE(flat.sampleShape, (std::vector<int64_t>{3}));
        QCOMPARE(flat.classCount, 5);
    }

    // Every row: a file that must be refused with a LoadError whose message holds `reason`.
    void hostileFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<QString>("reason");
        auto raw = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
        QTest::newRow("empty") << QByteArray() << false << "file ends in the magic number";
        QTest::newRow("wrong magic") << QByteArray("PK\x03\x04 zip file", 13) << false << "not an IDX file";
        QTest::newRow("magic of little-endian writer")
            << QByteArray("\x03\x08\x00\x00", 4) << false << "magic number 0x03080000";
        QTest::newRow("unknown type") << raw(Idx(0x07, {1}).u8({0}).bytes()) << false << "not an IDX file";
        QTest::newRow("rank 0") << QByteArray("\x00\x00\x08\x00", 4) << false << "not an IDX file";
        QTest::newRow("truncated dimensions")
            << raw(Idx(0x08, {3, 2, 2}).bytes().substr(0, 10)) << false << "file ends in the dimensions";
        QTest::newRow("dims larger than the file")
            << raw(Idx(0x08, {60000, 28, 28}).u8({1, 2, 3}).bytes()) << false
            << "dimensions 60000 x 28 x 28 need 47040000 bytes of data but the file has 3";
        QTest::newRow("dims larger than the gzip data")
            << raw(Idx(0x08, {60000, 28, 28}).u8({1, 2, 3}).bytes()) << true << "file ends in the data";
        QTest::newRow("dimension product overflows")
            << raw(Idx(0x0E, {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}).bytes()) << false << "too large";
        QTest::newRow("bytes after the data")
            << raw(kLabels + "xyz") << false << "unexpected bytes after the data";
        QTest::newRow("bytes after the gzip data")
            << raw(kLabels + "xyz") << true << "unexpected bytes after the data";
    }
    void hostileFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, gzip);
        QFETCH(QString, reason);
        const fs::path p = path(gzip ? "hostile.gz" : "hostile");
        const std::string content(bytes.constData(), std::size_t(bytes.size()));
        if (gzip) {
            writeGzip(p, content);
        } else {
            writePlain(p, content);
        }
        try {
            readIdxFile(p);
            QFAIL("no error");
        } catch (const LoadError& e) {
            QCOMPARE(e.file(), p.string());
            QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
        }
    }

    // Damaged gzip files: the stream's own checks (length, CRC) must be noticed.
    void damagedGzip_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("reason");
        QTest::newRow("cut in the middle") << "half"
                                           << "gzip stream is truncated";
        QTest::newRow("trailer missing") << "trailer"
                                         << "gzip stream is truncated";
        QTest::newRow("CRC wrong") << "crc"
                                   << "corrupt gzip data";
    }
    void damagedGzip() {
        QFETCH(QString, damage);
        QFETCH(QString, reason);
        const fs::path p = path("damaged.gz");
        // Enough data that the compressed stream is long enough to cut.
        std::string bytes = Idx(0x08, {64, 32}).bytes();
        for (int i = 0; i < 64 * 32; ++i) {
            bytes += static_cast<char>((i * 7919) % 251);
        }
        writeGzip(p, bytes);
        std::string gz = readAll(p);
        QVERIFY(gz.size() > 100);
        if (damage == QLatin1String("half")) {
            gz.resize(gz.size() / 2);
        } else if (damage == QLatin1String("trailer")) {
            gz.resize(gz.size() - 8);  // CRC32 and ISIZE
        } else {
            gz[gz.size() - 8] = static_cast<char>(gz[gz.size() - 8] ^ 0x5A);
        }
        writePlain(p, gz);
        try {
            readIdxFile(p);
            QFAIL("no error");
        } catch (const LoadError& e) {
            QCOMPARE(e.file(), p.string());
            QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
            QVERIFY2(QString::fromStdString(e.where()).startsWith(QLatin1String("uncompressed byte")),
                     e.what());
        }
    }

    void missingFile() {
        try {
            readIdxFile(path("does-not-exist.gz"));
            QFAIL("no error");
        } catch (const LoadError& e) {
            QCOMPARE(e.reason(), std::string("no such file"));
        }
    }

    void datasetMismatches_data() {
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("reason");
        auto raw = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
        QTest::newRow("fewer labels") << raw(Idx(0x08, {2}).u8({0, 1}).bytes()) << "2 labels for 3 samples";
        QTest::newRow("rank-2 labels")
            << raw(Idx(0x08, {3, 1}).u8({0, 1, 2}).bytes()) << "rank-1 label array";
        QTest::newRow("negative label")
            << raw(Idx(0x09, {3}).u8({0, 0xFF, 1}).bytes()) << "negative class label -1";
        QTest::newRow("float labels")
            << raw(Idx(0x0D, {3}).f32(0).f32(1).f32(2).bytes()) << "must be integers";
    }
    void datasetMismatches() {
        QFETCH(QByteArray, labels);
        QFETCH(QString, reason);
        writePlain(path("mm-images"), kImages);
        writePlain(path("mm-labels"), std::string(labels.constData(), std::size_t(labels.size())));
        try {
            loadIdxDataset(path("mm-images"), path("mm-labels"));
            QFAIL("no error");
        } catch (const LoadError& e) {
            QCOMPARE(e.file(), path("mm-labels").string());
            QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
        }
    }

    void fashionMnistMissing() {
        const fs::path empty = path("no-fashion-here");
        fs::create_directories(empty);
        QVERIFY(!fashionMnistAvailable(empty));
        try {
            loadFashionMnist(empty);
            QFAIL("no error");
        } catch (const LoadError& e) {
            QCOMPARE(e.file(), empty.string());
            QVERIFY2(QString::fromStdString(e.reason()).contains(QLatin1String("dataset-fashion-mnist")),
                     e.what());
        }
    }

    // The real dataset (Xiao et al. 2017): 60,000 + 10,000 images of 28×28, 10 classes, 6,000 training
    // images per class.
    void fashionMnist() {
        if (!fashionMnistAvailable()) {
            QSKIP(
                "Fashion-MNIST is not installed in /usr/share/datasets/fashion-mnist (Debian package "
                "dataset-fashion-mnist)");
        }
        const FashionMnist fm = loadFashionMnist();
        QCOMPARE(fm.train.size(), 60000);
        QCOMPARE(fm.test.size(), 10000);
        QCOMPARE(fm.train.sampleShape, (std::vector<int64_t>{1, 28, 28}));
        QCOMPARE(fm.test.sampleShape, (std::vector<int64_t>{1, 28, 28}));
        QCOMPARE(fm.train.features.size(), std::size_t(60000) * 784);
        QCOMPARE(fm.train.classCount, 10);
        QCOMPARE(fm.train.classNames.size(), std::size_t(10));
        QCOMPARE(fm.train.classCounts(), std::vector<int64_t>(10, 6000));
        QCOMPARE(fm.test.classCounts(), std::vector<int64_t>(10, 1000));
        for (int32_t label : fm.train.labels) {
            QVERIFY(label >= 0 && label <= 9);
        }
        const auto [lo, hi] = std::minmax_element(fm.train.features.begin(), fm.train.features.end());
        QCOMPARE(*lo, 0.0f);
        QCOMPARE(*hi, 255.0f);
        // The first training image is an ankle boot (label 9), as the dataset's README shows.
        QCOMPARE(fm.train.labels.front(), 9);
    }
};

QTEST_GUILESS_MAIN(TestIdxFile)
#include "test_idx_file.moc"
