// MXNet's `.params` (NDArray list): real files written by MXNet read as MXNet reads them, our writer's
// output is byte-identical to MXNet's for dense V2/V3 records, every record version built by hand reads
// correctly, and hostile input is a LoadError naming the byte, never a crash or a huge allocation.
#include <QtTest>

#include <bit>
#include <cstring>
#include <fstream>

#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/ndarray_list.h"

using namespace ampstudio;

Q_DECLARE_METATYPE(ampstudio::NDArrayList)

// Element values are decoded with memcpy below: the format is little-endian.
static_assert(std::endian::native == std::endian::little);

namespace {

constexpr uint32_t kV1 = 0xF993FAC8;
constexpr uint32_t kV2 = 0xF993FAC9;
constexpr uint32_t kV3 = 0xF993FACA;

const QString kFixtures = QStringLiteral(AMS_TEST_FIXTURES_DIR "/ndarray_list/");
const QString kLegacyV0 = QStringLiteral(AMS_TESTDATA_DIR "/mxnet/legacy_ndarray.v0");

// Little-endian bytes assembled by hand from the format description, independent of the writer.
class Bytes {
public:
    Bytes& u32(uint32_t v) { return le(v, 4); }
    Bytes& i32(int32_t v) { return le(static_cast<uint32_t>(v), 4); }
    Bytes& u64(uint64_t v) { return le(v, 8); }
    Bytes& i64(int64_t v) { return le(static_cast<uint64_t>(v), 8); }
    Bytes& f32(float v) { return u32(std::bit_cast<uint32_t>(v)); }
    Bytes& f64(double v) { return u64(std::bit_cast<uint64_t>(v)); }
    Bytes& str(const QByteArray& s) {
        u64(static_cast<uint64_t>(s.size()));
        m_data += s;
        return *this;
    }
    Bytes& raw(const QByteArray& b) {
        m_data += b;
        return *this;
    }
    qint64 size() const { return m_data.size(); }
    const QByteArray& data() const { return m_data; }

    // List header: magic, reserved, array count.
    static Bytes list(uint64_t count, uint64_t reserved = 0) {
        return Bytes().u64(0x112).u64(reserved).u64(count);
    }
    // A dense V2/V3 record up to and including the type flag (cpu(0) context).
    Bytes& dense(uint32_t magic, const std::vector<int64_t>& dims, int32_t flag) {
        u32(magic).i32(0).i32(static_cast<int32_t>(dims.size()));
        for (int64_t d : dims) {
            i64(d);
        }
        return i32(1).i32(0).i32(flag);
    }

private:
    Bytes& le(uint64_t v, int n) {
        for (int i = 0; i < n; ++i) {
            m_data.append(static_cast<char>((v >> (8 * i)) & 0xFF));
        }
        return *this;
    }
    QByteArray m_data;
};

std::span<const std::byte> asBytes(const QByteArray& b) {
    return std::as_bytes(std::span(b.constData(), static_cast<std::size_t>(b.size())));
}

NDArrayList parse(const QByteArray& b) {
    return parseNDArrayList(asBytes(b), "test.params");
}

QByteArray serialize(const NDArrayList& list) {
    const auto bytes = serializeNDArrayList(list);
    return QByteArray(reinterpret_cast<const char*>(bytes.data()), static_cast<qsizetype>(bytes.size()));
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        qFatal("cannot open %s", qPrintable(path));
    }
    return f.readAll();
}

// What a list becomes once written: V1 and pre-V1 records are upgraded to V2.
NDArrayList asWritten(NDArrayList list) {
    for (auto& a : list.arrays) {
        if (a.format == NDArrayRecordFormat::V1 || a.format == NDArrayRecordFormat::PreV1) {
            a.format = NDArrayRecordFormat::V2;
        }
    }
    return list;
}

// The first difference, so that a failed comparison says where.
QString difference(const NDArrayList& a, const NDArrayList& b) {
    if (a.named != b.named) {
        return "named differs";
    }
    if (a.arrays.size() != b.arrays.size()) {
        return QString("array count %1 vs %2").arg(a.arrays.size()).arg(b.arrays.size());
    }
    for (std::size_t i = 0; i < a.arrays.size(); ++i) {
        const auto& x = a.arrays[i];
        const auto& y = b.arrays[i];
        const QString what = x.name != y.name                               ? "name"
                             : x.dtype != y.dtype                           ? "dtype"
                             : x.shape != y.shape                           ? "shape"
                             : x.isNone != y.isNone                         ? "isNone"
                             : x.data != y.data                             ? "data"
                             : x.format != y.format                         ? "format"
                             : x.devType != y.devType || x.devId != y.devId ? "context"
                                                                            : QString();
        if (!what.isEmpty()) {
            return QString("array %1: %2 differs").arg(i).arg(what);
        }
    }
    return {};
}

#define COMPARE_LISTS(actual, expected) \
    QVERIFY2((actual) == (expected), qPrintable(difference((actual), (expected))))

template <typename T>
T elementAt(const NDArrayRecord& r, std::size_t i) {
    T v;
    std::memcpy(&v, r.data.data() + i * sizeof(T), sizeof(T));
    return v;
}

std::vector<uint16_t> halves(const NDArrayRecord& r) {
    std::vector<uint16_t> out(r.data.size() / 2);
    std::memcpy(out.data(), r.data.data(), out.size() * 2);
    return out;
}

NDArrayRecord record(std::string name, DType t, std::vector<int64_t> shape,
                     NDArrayRecordFormat format = NDArrayRecordFormat::V2) {
    NDArrayRecord r;
    r.name = std::move(name);
    r.dtype = t;
    r.shape = std::move(shape);
    r.format = format;
    r.data.resize(static_cast<std::size_t>(r.elementCount()) * dtypeSize(t));
    for (std::size_t i = 0; i < r.data.size(); ++i) {
        r.data[i] = static_cast<std::byte>((i * 37 + 11) & 0xFF);
    }
    return r;
}

NDArrayRecord halfRecord(std::string name, DType t, const std::vector<uint16_t>& bits) {
    NDArrayRecord r = record(std::move(name), t, {static_cast<int64_t>(bits.size())});
    std::memcpy(r.data.data(), bits.data(), bits.size() * 2);
    return r;
}

NDArrayRecord noneRecord(std::string name, NDArrayRecordFormat format) {
    NDArrayRecord r;
    r.name = std::move(name);
    r.isNone = true;
    r.format = format;
    return r;
}

NDArrayList listOf(std::vector<NDArrayRecord> arrays, bool named = true) {
    NDArrayList l;
    l.arrays = std::move(arrays);
    l.named = named;
    return l;
}

// Bit patterns MXNet must keep exactly: NaNs with payloads (quiet, signalling, negative), infinities,
// the smallest and largest subnormals, negative zero.
const std::vector<uint16_t> kF16Special = {0x7E00, 0x7C01, 0xFE3F, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x8000};
const std::vector<uint16_t> kBF16Special = {0x7FC1, 0x7F81, 0xFFC0, 0x7F80, 0xFF80, 0x0001, 0x807F, 0x8000};

// Success or LoadError, and a successful parse must survive a write and a re-read unchanged.
void parseSafely(const QByteArray& bytes) {
    NDArrayList list;
    try {
        list = parse(bytes);
    } catch (const LoadError& e) {
        QVERIFY2(std::string(e.what()).find("byte") != std::string::npos, e.what());
        return;
    }
    const QByteArray written = serialize(list);
    COMPARE_LISTS(parse(written), asWritten(list));
    QCOMPARE(serialize(parse(written)), written);
}

}  // namespace

class TestNDArrayList : public QObject {
    Q_OBJECT
private slots:
    // MXNet's own legacy test file: 6 pre-V1 records of arange(128) float32, no names.
    void legacyV0() {
        const NDArrayList list = readNDArrayListFile(kLegacyV0.toStdString());
        QVERIFY(!list.named);
        QCOMPARE(list.arrays.size(), std::size_t{6});
        for (const auto& a : list.arrays) {
            QCOMPARE(a.format, NDArrayRecordFormat::PreV1);
            QCOMPARE(a.dtype, DType::F32);
            QCOMPARE(a.shape, std::vector<int64_t>{128});
            QVERIFY(!a.isNone);
            QVERIFY(a.name.empty());
            QCOMPARE(a.devType, 1);
            QCOMPARE(a.devId, 0);
            QCOMPARE(a.elementCount(), int64_t{128});
            for (std::size_t i = 0; i < 128; ++i) {
                QCOMPARE(elementAt<float>(a, i), static_cast<float>(i));
            }
        }
        QCOMPARE(list.payloadBytes(), std::size_t{6 * 512});
    }

    void legacyV0WritesV2() {
        const QByteArray original = readAll(kLegacyV0);
        const NDArrayList list = parse(original);
        const QByteArray written = serialize(list);
        // Each V2 record: magic, stype, ndim, one i64 dim, context, type flag, 512 bytes of data.
        QCOMPARE(written.size(), 24 + 6 * (4 + 4 + 4 + 8 + 8 + 4 + 512) + 8);
        for (int i = 0; i < 6; ++i) {
            uint32_t magic;
            std::memcpy(&magic, written.constData() + 24 + i * 544, 4);
            QCOMPARE(magic, kV2);
        }
        const NDArrayList reread = parse(written);
        for (const auto& a : reread.arrays) {
            QCOMPARE(a.format, NDArrayRecordFormat::V2);
        }
        COMPARE_LISTS(reread, asWritten(list));
        QCOMPARE(serialize(reread), written);
    }

    void roundTrip_data() {
        QTest::addColumn<NDArrayList>("list");
        for (int flag = 0; flag <= kMaxDTypeFlag; ++flag) {
            const DType t = *dtypeFromFlag(flag);
            QTest::newRow(qPrintable(QString("dtype %1").arg(QString::fromUtf8(dtypeName(t).data()))))
                << listOf({record("arg:w", t, {2, 3}), record("arg:v", t, {5})});
        }
        for (int flag = 0; flag <= kMaxDTypeFlag; ++flag) {
            const DType t = *dtypeFromFlag(flag);
            QTest::newRow(qPrintable(QString("V3 scalar %1").arg(QString::fromUtf8(dtypeName(t).data()))))
                << listOf({record("s", t, {}, NDArrayRecordFormat::V3)});
        }
        QTest::newRow("V3 empty arrays")
            << listOf({record("a", DType::F32, {0}, NDArrayRecordFormat::V3),
                       record("b", DType::F16, {2, 0, 3}, NDArrayRecordFormat::V3)});
        QTest::newRow("V2 zero dim kept") << listOf({record("z", DType::I64, {3, 0})});
        QTest::newRow("none V2 and V3")
            << listOf({noneRecord("arg:n2", NDArrayRecordFormat::V2), record("x", DType::F32, {1}),
                       noneRecord("aux:n3", NDArrayRecordFormat::V3)});
        QTest::newRow("arg and aux names") << listOf(
            {record("arg:fc1_weight", DType::F32, {4, 3}), record("arg:fc1_bias", DType::F32, {4}),
             record("aux:bn_moving_mean", DType::F32, {4}), record("aux:bn_moving_var", DType::F32, {4})});
        QTest::newRow("odd names") << listOf(
            {record("", DType::U8, {1}), record(std::string("a\0b", 3), DType::U8, {1}),
             record("arg:", DType::U8, {1}), record("\xff\xfe", DType::U8, {1})});
        QTest::newRow("unnamed") << listOf({record("", DType::F32, {3}), record("", DType::I32, {2, 2})},
                                           false);
        QTest::newRow("empty list") << listOf({}, true);
        QTest::newRow("f16 specials") << listOf({halfRecord("h", DType::F16, kF16Special)});
        QTest::newRow("bf16 specials") << listOf({halfRecord("b", DType::BF16, kBF16Special)});
        QTest::newRow("f16 specials V3") << [] {
            auto r = halfRecord("h", DType::F16, kF16Special);
            r.format = NDArrayRecordFormat::V3;
            return listOf({r});
        }();
        QTest::newRow("32 dims") << listOf({record("d", DType::U8, std::vector<int64_t>(32, 1))});
        QTest::newRow("gpu context kept") << [] {
            auto r = record("g", DType::F32, {2});
            r.devType = 2;
            r.devId = 3;
            return listOf({r});
        }();
    }
    void roundTrip() {
        QFETCH(NDArrayList, list);
        const QByteArray bytes = serialize(list);
        const NDArrayList reread = parse(bytes);
        COMPARE_LISTS(reread, list);
        QCOMPARE(serialize(reread), bytes);  // a fixed point
    }

    // V1 and pre-V1 records, byte by byte: MXNet 0.x files that only the loader still meets.
    void handBuiltOldRecords() {
        Bytes b = Bytes::list(4);
        // V1: magic, i32 ndim + i64 dims, context, type flag, data.
        b.u32(kV1).i32(2).i64(2).i64(2).i32(1).i32(0).i32(4).i32(10).i32(-20).i32(30).i32(-40);
        // pre-V1: u32 ndim + u32 dims, context, type flag, data.
        b.u32(1).u32(3).i32(2).i32(1).i32(1).f64(0.5).f64(-1.5).f64(1e300);
        b.u32(0);           // pre-V1 none: ndim 0 and nothing else
        b.u32(kV1).i32(0);  // V1 none
        b.u64(4).str("arg:v1").str("arg:legacy").str("aux:none0").str("aux:none1");
        const NDArrayList list = parse(b.data());
        QCOMPARE(list.arrays.size(), std::size_t{4});
        const auto& v1 = list.arrays[0];
        QCOMPARE(v1.format, NDArrayRecordFormat::V1);
        QCOMPARE(v1.dtype, DType::I32);
        QCOMPARE(v1.shape, (std::vector<int64_t>{2, 2}));
        QCOMPARE(elementAt<int32_t>(v1, 1), -20);
        QCOMPARE(elementAt<int32_t>(v1, 3), -40);
        const auto& legacy = list.arrays[1];
        QCOMPARE(legacy.format, NDArrayRecordFormat::PreV1);
        QCOMPARE(legacy.dtype, DType::F64);
        QCOMPARE(legacy.shape, std::vector<int64_t>{3});
        QCOMPARE(legacy.devType, 2);
        QCOMPARE(legacy.devId, 1);
        QCOMPARE(elementAt<double>(legacy, 2), 1e300);
        QVERIFY(list.arrays[2].isNone);
        QCOMPARE(list.arrays[2].format, NDArrayRecordFormat::PreV1);
        QVERIFY(list.arrays[3].isNone);
        QCOMPARE(list.arrays[3].elementCount(), int64_t{0});
        QCOMPARE(list.arrays[1].bareName(), std::string_view("legacy"));
        QVERIFY(list.arrays[3].isAux());

        const QByteArray written = serialize(list);
        COMPARE_LISTS(parse(written), asWritten(list));
    }

    // Hand-built V3 (numpy semantics) and the V2 zero-dim case, independent of the writer.
    void handBuiltV2V3() {
        Bytes b = Bytes::list(4);
        b.dense(kV3, {}, 0).f32(2.5f);  // scalar: ndim 0, one element
        b.dense(kV3, {2, 0}, 1);        // empty: no data bytes
        b.u32(kV3).i32(0).i32(-1);      // none
        b.dense(kV2, {3, 0}, 6);        // V2 zero dim: context and type are still stored
        b.u64(0);
        const NDArrayList list = parse(b.data());
        QVERIFY(!list.named);
        QCOMPARE(list.arrays[0].shape, std::vector<int64_t>{});
        QCOMPARE(list.arrays[0].elementCount(), int64_t{1});
        QCOMPARE(elementAt<float>(list.arrays[0], 0), 2.5f);
        QCOMPARE(list.arrays[1].shape, (std::vector<int64_t>{2, 0}));
        QCOMPARE(list.arrays[1].elementCount(), int64_t{0});
        QVERIFY(list.arrays[1].data.empty());
        QVERIFY(list.arrays[2].isNone);
        QCOMPARE(list.arrays[2].format, NDArrayRecordFormat::V3);
        QVERIFY(!list.arrays[3].isNone);
        QCOMPARE(list.arrays[3].shape, (std::vector<int64_t>{3, 0}));
        QCOMPARE(list.arrays[3].dtype, DType::I64);
        // Our writer reproduces these bytes exactly.
        QCOMPARE(serialize(list), b.data());
    }

    // Files written by MXNet 1.9.1 (make_mxnet_fixtures.py beside them).
    void mxnetModuleCheckpoint() {
        const QByteArray file = readAll(kFixtures + "mxnet_mlp_f32.params");
        const NDArrayList list = parse(file);
        QVERIFY(list.named);
        QCOMPARE(list.arrays.size(), std::size_t{4});
        QCOMPARE(list.find("fc1_weight"), 0);
        QCOMPARE(list.find("bn_moving_var"), 3);
        QCOMPARE(list.find("arg:fc1_weight"), -1);
        const auto& w = list.arrays[0];
        QCOMPARE(w.name, std::string("arg:fc1_weight"));
        QCOMPARE(w.format, NDArrayRecordFormat::V2);
        QCOMPARE(w.shape, (std::vector<int64_t>{4, 3}));
        for (std::size_t i = 0; i < 12; ++i) {
            QCOMPARE(elementAt<float>(w, i), static_cast<float>(i));
        }
        QVERIFY(!w.isAux());
        QVERIFY(list.arrays[2].isAux());
        QCOMPARE(list.arrays[2].bareName(), std::string_view("bn_moving_mean"));
        QCOMPARE(list.payloadBytes(), std::size_t{(12 + 4 + 4 + 4) * 4});
        QCOMPARE(serialize(list), file);  // byte-identical to what MXNet wrote
    }

    void mxnetDTypes() {
        const QByteArray file = readAll(kFixtures + "mxnet_dtypes.params");
        const NDArrayList list = parse(file);
        const std::vector<std::pair<std::string, DType>> expected = {
            {"float32", DType::F32}, {"float64", DType::F64}, {"float16", DType::F16}, {"uint8", DType::U8},
            {"int32", DType::I32},   {"int8", DType::I8},     {"int64", DType::I64}};
        for (const auto& [name, t] : expected) {
            const int i = list.find(name);
            QVERIFY2(i >= 0, name.c_str());
            const auto& a = list.arrays[static_cast<std::size_t>(i)];
            QCOMPARE(a.dtype, t);
            QCOMPARE(a.shape, (std::vector<int64_t>{2, 3}));
            QCOMPARE(a.data.size(), 6 * dtypeSize(t));
            for (std::size_t k = 0; k < 6; ++k) {
                double v = 0;
                switch (t) {
                    case DType::F32:
                        v = elementAt<float>(a, k);
                        break;
                    case DType::F64:
                        v = elementAt<double>(a, k);
                        break;
                    case DType::U8:
                        v = elementAt<uint8_t>(a, k);
                        break;
                    case DType::I32:
                        v = elementAt<int32_t>(a, k);
                        break;
                    case DType::I8:
                        v = elementAt<int8_t>(a, k);
                        break;
                    case DType::I64:
                        v = static_cast<double>(elementAt<int64_t>(a, k));
                        break;
                    case DType::F16: {
                        // 0..5 in binary16: exact, so the bits are known.
                        const uint16_t bits[] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400, 0x4500};
                        QCOMPARE(elementAt<uint16_t>(a, k), bits[k]);
                        v = static_cast<double>(k);
                        break;
                    }
                    default:
                        QFAIL("unexpected dtype");
                }
                QCOMPARE(v, static_cast<double>(k));
            }
        }
        const auto& f16 = list.arrays[static_cast<std::size_t>(list.find("f16_special"))];
        QCOMPARE(f16.dtype, DType::F16);
        QCOMPARE(halves(f16),
                 (std::vector<uint16_t>{0x7E00, 0x7C01, 0xFE3F, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x8000}));
        const auto& bf16 = list.arrays[static_cast<std::size_t>(list.find("bf16_special"))];
        QCOMPARE(bf16.dtype, DType::BF16);
        QCOMPARE(halves(bf16), (std::vector<uint16_t>{0x3F80, 0x4000, 0x7FC1, 0xFF80, 0x0001, 0x8000}));
        QCOMPARE(serialize(list), file);
    }

    void mxnetUnnamedList() {
        const QByteArray file = readAll(kFixtures + "mxnet_unnamed.params");
        const NDArrayList list = parse(file);
        QVERIFY(!list.named);
        QCOMPARE(list.arrays.size(), std::size_t{2});
        QCOMPARE(list.arrays[1].dtype, DType::I32);
        QCOMPARE(elementAt<int32_t>(list.arrays[1], 3), 3);
        QCOMPARE(list.find(""), 0);
        QCOMPARE(serialize(list), file);
    }

    void mxnetNumpyV3() {
        const QByteArray file = readAll(kFixtures + "mxnet_numpy_v3.params");
        const NDArrayList list = parse(file);
        const auto& scalar = list.arrays[static_cast<std::size_t>(list.find("scalar"))];
        QCOMPARE(scalar.format, NDArrayRecordFormat::V3);
        QVERIFY(scalar.shape.empty());
        QVERIFY(!scalar.isNone);
        QCOMPARE(scalar.elementCount(), int64_t{1});
        QCOMPARE(elementAt<float>(scalar, 0), 2.5f);
        const auto& empty = list.arrays[static_cast<std::size_t>(list.find("empty"))];
        QCOMPARE(empty.shape, (std::vector<int64_t>{2, 0}));
        QVERIFY(empty.data.empty());
        const auto& vector = list.arrays[static_cast<std::size_t>(list.find("vector"))];
        QCOMPARE(vector.dtype, DType::I64);
        QCOMPARE(elementAt<int64_t>(vector, 1), int64_t{1});
        QCOMPARE(serialize(list), file);
    }

    // row_sparse and csr records are densified; they then write as dense V2.
    void mxnetSparse() {
        const NDArrayList list = parse(readAll(kFixtures + "mxnet_sparse.params"));
        const auto& rs = list.arrays[static_cast<std::size_t>(list.find("rs"))];
        QCOMPARE(rs.shape, (std::vector<int64_t>{5, 2}));
        const std::vector<float> rsDense = {0, 0, 1, 2, 0, 0, 3, 4, 0, 0};
        for (std::size_t i = 0; i < rsDense.size(); ++i) {
            QCOMPARE(elementAt<float>(rs, i), rsDense[i]);
        }
        const auto& cs = list.arrays[static_cast<std::size_t>(list.find("cs"))];
        QCOMPARE(cs.shape, (std::vector<int64_t>{3, 4}));
        const std::vector<float> csDense = {1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0};
        for (std::size_t i = 0; i < csDense.size(); ++i) {
            QCOMPARE(elementAt<float>(cs, i), csDense[i]);
        }
        const QByteArray written = serialize(list);
        COMPARE_LISTS(parse(written), list);
    }

    void reservedFieldIgnored() {
        Bytes b = Bytes::list(1, 0xDEADBEEF);
        b.dense(kV2, {1}, 0).f32(1.0f).u64(1).str("x");
        const NDArrayList list = parse(b.data());
        QCOMPARE(list.arrays.size(), std::size_t{1});
        QCOMPARE(serialize(list).mid(8, 8), QByteArray(8, '\0'));  // written as 0
    }

    void emptyList() {
        const QByteArray b = Bytes::list(0).u64(0).data();
        const NDArrayList list = parse(b);
        QVERIFY(list.arrays.empty());
        QCOMPARE(serialize(list), b);
    }

    void helpers() {
        NDArrayList list =
            listOf({record("arg:a", DType::F16, {2, 3}), record("aux:a", DType::F32, {4}),
                    record("plain", DType::I8, {0, 7}), noneRecord("aux:n", NDArrayRecordFormat::V2)});
        QCOMPARE(list.arrays[0].elementCount(), int64_t{6});
        QCOMPARE(list.arrays[2].elementCount(), int64_t{0});
        QCOMPARE(list.arrays[3].elementCount(), int64_t{0});
        QCOMPARE(record("s", DType::F32, {}, NDArrayRecordFormat::V3).elementCount(), int64_t{1});
        NDArrayRecord overflow;
        overflow.shape = {int64_t{1} << 40, int64_t{1} << 40};
        QCOMPARE(overflow.elementCount(), int64_t{-1});
        QCOMPARE(list.arrays[2].bareName(), std::string_view("plain"));
        QCOMPARE(list.find("a"), 0);  // the first of arg:a / aux:a
        QCOMPARE(list.find("n"), 3);
        QCOMPARE(list.find("missing"), -1);
        QCOMPARE(list.payloadBytes(), std::size_t{12 + 16});
    }

    void serializeRejects_data() {
        QTest::addColumn<NDArrayList>("list");
        QTest::addColumn<QString>("fragment");
        auto short_ = record("w", DType::F32, {2, 3});
        short_.data.pop_back();
        QTest::newRow("payload size") << listOf({short_}) << "does not match shape";
        auto negative = record("w", DType::F32, {2});
        negative.shape = {-2};
        QTest::newRow("negative dim") << listOf({negative}) << "negative dim";
        auto noneWithData = noneRecord("n", NDArrayRecordFormat::V2);
        noneWithData.shape = {1};
        QTest::newRow("none with shape") << listOf({noneWithData}) << "none array";
        QTest::newRow("names on unnamed list") << listOf({record("x", DType::F32, {1})}, false) << "unnamed";
        QTest::newRow("33 dims") << listOf({record("d", DType::U8, std::vector<int64_t>(33, 1))})
                                 << "exceeds 32";
        auto unknown = record("u", DType::F32, {1});
        unknown.dtype = DType::Unknown;
        QTest::newRow("unknown dtype") << listOf({unknown}) << "unknown dtype";
    }
    void serializeRejects() {
        QFETCH(NDArrayList, list);
        QFETCH(QString, fragment);
        try {
            serializeNDArrayList(list);
            QFAIL("no exception");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "out.params";
        QVERIFY_THROWS_EXCEPTION(SaveError, writeNDArrayListFile(path, list));
        QVERIFY(!std::filesystem::exists(path));
    }

    void fileRoundTrip() {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "model-0000.params";
        const NDArrayList list =
            listOf({record("arg:w", DType::BF16, {3, 3}), record("aux:m", DType::F32, {3})});
        writeNDArrayListFile(path, list);
        COMPARE_LISTS(readNDArrayListFile(path), list);
        try {
            readNDArrayListFile(path.parent_path() / "missing.params");
            QFAIL("no exception");
        } catch (const LoadError& e) {
            QVERIFY(QString(e.what()).contains("missing.params"));
        }
    }

    void hostile_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qint64>("offset");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* name, const Bytes& b, qint64 offset, const char* fragment) {
            QTest::newRow(name) << b.data() << offset << QString(fragment);
        };
        const qint64 rec = 24;  // the first record follows magic, reserved and count

        row("empty file", Bytes(), 0, "truncated");
        row("truncated list magic", Bytes().u32(0x112), 0, "truncated");
        row("wrong list magic", Bytes().u64(0x113).u64(0).u64(0).u64(0), 0, "magic 0x113");
        row("no array count", Bytes().u64(0x112).u64(0), 16, "truncated");
        row("array count 2^62", Bytes::list(uint64_t{1} << 62).u64(0), 16, "cannot fit");
        row("array count 1000", Bytes::list(1000).dense(kV2, {1}, 0).f32(0).u64(0), 16, "cannot fit");
        row("no name count", Bytes::list(1).dense(kV2, {1}, 0).f32(1), rec + 36, "name count");
        // After a 48-byte record, so that the array count still looks plausible.
        const auto first = [] { return Bytes::list(2).dense(kV2, {4}, 0).f32(1).f32(2).f32(3).f32(4); };
        row("truncated record magic", first().raw(QByteArray("\xc9\xfa", 2)), rec + 48, "array 1: truncated");
        row("truncated storage type", first().u32(kV2).raw(QByteArray(2, '\0')), rec + 52, "storage type");
        row("truncated dims", Bytes::list(1).u32(kV2).i32(0).i32(3).i64(1).i64(2).u32(0), rec + 28, "dim 2");
        row("truncated context", Bytes::list(1).u32(kV2).i32(0).i32(1).i64(1).i32(1).raw(QByteArray(2, '\0')),
            rec + 24, "context device id");
        row("truncated type flag",
            Bytes::list(1).u32(kV2).i32(0).i32(1).i64(1).i32(1).i32(0).raw(QByteArray(3, '\0')), rec + 28,
            "type flag");
        row("truncated payload", Bytes::list(1).dense(kV2, {4}, 0).f32(1).f32(2), rec + 32, "exceeds");
        row("V2 ndim -1", Bytes::list(1).u32(kV2).i32(0).i32(-1).u64(0), rec + 8, "ndim -1 is negative");
        row("V1 ndim -7", Bytes::list(1).u32(kV1).i32(-7).u64(0), rec + 4, "ndim -7 is negative");
        row("V3 ndim -2", Bytes::list(1).u32(kV3).i32(0).i32(-2).u64(0), rec + 8, "ndim -2 is negative");
        row("V2 ndim 33", Bytes::list(1).u32(kV2).i32(0).i32(33).u64(0), rec + 8, "exceeds 32");
        row("V2 ndim INT_MAX", Bytes::list(1).u32(kV2).i32(0).i32(0x7FFFFFFF).u64(0), rec + 8, "exceeds 32");
        row("pre-V1 ndim 33", Bytes::list(1).u32(33).u64(0), rec, "neither a record magic");
        row("garbage magic", Bytes::list(1).u32(0xDEADBEEF).u64(0), rec, "0xdeadbeef");
        row("truncated pre-V1 dims", Bytes::list(1).u32(3).u32(1).u32(1), rec + 12, "truncated");
        row("negative dim", Bytes::list(1).dense(kV2, {2, -3}, 0).u64(0), rec + 20, "dim 1 is negative");
        row("shape product overflows",
            Bytes::list(1).dense(kV2, {int64_t{1} << 32, int64_t{1} << 32}, 0).u64(0), rec + 8,
            "shape product overflows");
        row("byte size overflows", Bytes::list(1).dense(kV2, {int64_t{1} << 62}, 0).u64(0), rec + 8,
            "byte size overflows");
        row("payload past end", Bytes::list(1).dense(kV2, {1000000000}, 0).f32(1).u64(0), rec + 32,
            "exceeds");
        row("pre-V1 payload past end", Bytes::list(1).u32(2).u32(0xFFFF).u32(0xFFFF).i32(1).i32(0).i32(1),
            rec + 24, "exceeds");
        row("unknown type flag 13", Bytes::list(1).dense(kV2, {1}, 13).f32(0).u64(0), rec + 28,
            "unknown type flag 13");
        row("unknown type flag -1", Bytes::list(1).dense(kV2, {1}, -1).f32(0).u64(0), rec + 28,
            "unknown type flag -1");
        row("unknown storage type", Bytes::list(1).u32(kV2).i32(3).i32(1).i64(1).u64(0), rec + 4,
            "unknown storage type 3");
        row("negative storage type", Bytes::list(1).u32(kV2).i32(-1).i32(1).i64(1).u64(0), rec + 4,
            "unknown storage type -1");
        row("sparse in V3", Bytes::list(1).u32(kV3).i32(1).i32(1).i64(1).u64(0), rec + 4, "V3");
        row("name count mismatch", Bytes::list(1).dense(kV2, {1}, 0).f32(0).u64(2).str("a").str("b"),
            rec + 36, "name count 2");
        row("name length past end", Bytes::list(1).dense(kV2, {1}, 0).f32(0).u64(1).u64(100).raw("abc"),
            rec + 44, "name 0: name length 100");
        row("name length 2^63", Bytes::list(1).dense(kV2, {1}, 0).f32(0).u64(1).u64(uint64_t{1} << 63),
            rec + 44, "exceeds");
        row("truncated name length", Bytes::list(1).dense(kV2, {1}, 0).f32(0).u64(1).u32(1), rec + 44,
            "truncated");
        row("trailing garbage", Bytes::list(1).dense(kV2, {1}, 0).f32(0).u64(1).str("a").raw("xyz"), rec + 53,
            "3 unexpected bytes");
        row("second record broken",
            Bytes::list(2).dense(kV2, {1}, 0).f32(0).dense(kV2, {1}, 99).f32(0).u64(0), rec + 36 + 28,
            "array 1: unknown type flag 99");

        // Sparse records (V2, stype 1 = row_sparse, 2 = csr): storage shape comes before the shape.
        const auto rowSparse = [](std::vector<int64_t> rows, int32_t auxFlag = 6) {
            Bytes b = Bytes::list(1);
            b.u32(kV2).i32(1).i32(2).i64(static_cast<int64_t>(rows.size())).i64(1);  // storage shape (nnz, 1)
            b.i32(2).i64(4).i64(1).i32(1).i32(0).i32(0);                             // shape (4, 1), cpu, f32
            b.i32(auxFlag).i32(1).i64(static_cast<int64_t>(rows.size()));
            for (std::size_t i = 0; i < rows.size(); ++i) {
                b.f32(1.0f);
            }
            for (int64_t r : rows) {
                auxFlag == 4 ? b.i32(static_cast<int32_t>(r)) : b.i64(r);
            }
            return b.u64(0);
        };
        const qint64 rsValues = rec + 4 + 4 + 20 + 20 + 12 + 4 + 12;  // first value
        row("row_sparse index out of range", rowSparse({1, 4}), rsValues + 8 + 8,
            "row index 4 is outside [0, 4)");
        row("row_sparse index negative", rowSparse({-1}), rsValues + 4, "row index -1");
        row("row_sparse unsorted", rowSparse({2, 1}), rsValues + 8 + 8, "not strictly increasing");
        row("row_sparse duplicate", rowSparse({2, 2}), rsValues + 8 + 8, "not strictly increasing");
        row("row_sparse aux float", rowSparse({1}, 0), rec + 60, "must be int64 or int32");
        row("row_sparse too many rows", rowSparse({0, 1, 2, 3, 3}), rec + 8, "does not fit shape");
        {
            Bytes b = Bytes::list(1);
            b.u32(kV2).i32(1).i32(2).i64(1).i64(2);  // storage (1, 2) vs shape (4, 1)
            b.i32(2).i64(4).i64(1).i32(1).i32(0).i32(0).i32(6).i32(1).i64(1).f32(0).f32(0).i64(0).u64(0);
            row("row_sparse storage columns", b, rec + 8, "does not fit shape");
        }
        {
            Bytes b = Bytes::list(1);  // indices shape (2,) for 1 stored row
            b.u32(kV2).i32(1).i32(2).i64(1).i64(1).i32(2).i64(4).i64(1).i32(1).i32(0).i32(0);
            b.i32(6).i32(1).i64(2).f32(0).i64(0).i64(1).u64(0);
            row("row_sparse aux shape", b, rec + 64, "should be (1,)");
        }
        {
            // Tiny file, dense shape of 2^40 x 1 float32 = 4 TiB: refused before any allocation.
            Bytes b = Bytes::list(1);
            b.u32(kV2).i32(1).i32(2).i64(0).i64(1).i32(2).i64(int64_t{1} << 40).i64(1).i32(1).i32(0).i32(0);
            b.i32(6).i32(1).i64(0).u64(0);
            row("densify over the limit", b, rec + 28,
                "densifying this sparse array needs 4398046511104 bytes");
        }
        const auto csr = [](std::vector<int64_t> indptr, std::vector<int64_t> cols,
                            std::vector<int64_t> shape) {
            Bytes b = Bytes::list(1);
            b.u32(kV2).i32(2).i32(1).i64(static_cast<int64_t>(cols.size()));
            b.i32(static_cast<int32_t>(shape.size()));
            for (int64_t d : shape) {
                b.i64(d);
            }
            b.i32(1).i32(0).i32(0);
            b.i32(6).i32(1).i64(static_cast<int64_t>(indptr.size()));
            b.i32(6).i32(1).i64(static_cast<int64_t>(cols.size()));
            for (std::size_t i = 0; i < cols.size(); ++i) {
                b.f32(1.0f);
            }
            for (int64_t p : indptr) {
                b.i64(p);
            }
            for (int64_t c : cols) {
                b.i64(c);
            }
            return b.u64(0);
        };
        // Offsets for a 2-d csr with nnz 2: header 8, storage 12, shape 20, ctx+type 12, aux 2 x 16,
        // values 8.
        const qint64 indptrAt = rec + 8 + 12 + 20 + 12 + 32 + 8;
        row("csr indptr not from 0", csr({1, 2, 2}, {0, 1}, {2, 3}), indptrAt, "indptr does not start at 0");
        row("csr indptr not to nnz", csr({0, 1, 1}, {0, 1}, {2, 3}), indptrAt + 16, "does not end at nnz");
        row("csr indptr decreasing", csr({0, 2, 1, 2}, {0, 1}, {3, 3}), indptrAt + 16, "not non-decreasing");
        row("csr column out of range", csr({0, 2, 2}, {0, 3}, {2, 3}), indptrAt + 24 + 8, "column index 3");
        row("csr columns unsorted", csr({0, 2, 2}, {1, 0}, {2, 3}), indptrAt + 24 + 8,
            "not strictly increasing");
        row("csr 3-d shape", csr({0, 2, 2}, {0, 1}, {2, 3, 1}), rec + 20, "2-d shape");
        row("csr indptr length", csr({0, 2}, {0, 1}, {2, 3}), rec + 56, "should be (3,)");
    }
    void hostile() {
        QFETCH(QByteArray, bytes);
        QFETCH(qint64, offset);
        QFETCH(QString, fragment);
        try {
            parse(bytes);
            QFAIL("parsed without error");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains("byte"), e.what());
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
            QCOMPARE(QString::fromStdString(e.where()), QString("byte %1").arg(offset));
            QCOMPARE(QString::fromStdString(e.file()), QString("test.params"));
        }
    }

    // Every proper prefix of a file with every kind of record is a LoadError.
    void everyTruncationFails() {
        Bytes b = Bytes::list(5);
        b.dense(kV2, {2}, 2).u32(0x3C003C00);
        b.dense(kV3, {}, 0).f32(1);
        b.u32(kV1).i32(1).i64(1).i32(1).i32(0).i32(5).raw("x");
        b.u32(1).u32(1).i32(1).i32(0).i32(3).raw("y");
        b.u32(kV2).i32(1).i32(1).i64(1).i32(1).i64(3).i32(1).i32(0).i32(0).i32(6).i32(1).i64(1).f32(7).i64(2);
        b.u64(5).str("arg:a").str("b").str("c").str("d").str("aux:e");
        const QByteArray full = b.data();
        QCOMPARE(parse(full).arrays.size(), std::size_t{5});
        for (qsizetype n = 0; n < full.size(); ++n) {
            QVERIFY_THROWS_EXCEPTION(LoadError, parse(full.left(n)));
        }
        // Flipping any byte gives a valid list or a LoadError, never anything else.
        for (qsizetype i = 0; i < full.size(); ++i) {
            for (char mask : {'\x01', '\x80', '\xff'}) {
                QByteArray flipped = full;
                flipped[i] = static_cast<char>(flipped[i] ^ mask);
                parseSafely(flipped);
            }
        }
    }

    // Every file in the fixture folder, including the inputs that once crashed the fuzzer
    // (fuzz-*.bin): a valid list or a LoadError, and a valid list survives a round trip.
    void fixtureFilesParseSafely() {
        const QDir dir(kFixtures);
        const QStringList files = dir.entryList({"*.params", "*.bin"}, QDir::Files);
        QVERIFY(files.size() >= 5);
        for (const QString& f : files) {
            parseSafely(readAll(dir.filePath(f)));
        }
    }
};

QTEST_GUILESS_MAIN(TestNDArrayList)
#include "test_ndarray_list.moc"
