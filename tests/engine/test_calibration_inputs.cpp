// Calibration inputs as compare, tune and the window's precision view read them: NumPy files made by
// numpy itself (savez, savez_compressed, save; float16, big-endian float64, uint8), their arrays by
// input name and concatenated across files; a training-data spec's samples; and every malformed
// NumPy document refused with a LoadError rather than a crash.
#include <QtTest>

#include <fstream>

#include "formats/load_error.h"
#include "formats/npz_file.h"
#include "formats/symbol_json.h"
#include "tensor/seeded_random.h"
#include "train/calibration_inputs.h"

using namespace ampstudio;

namespace {

const std::string kFixtures = AMS_SOURCE_DIR "/tests/engine/fixtures/numpy/";

Graph mlp() { return readSymbolJsonFile(AMS_SOURCE_DIR "/resources/examples/mlp-symbol.json"); }

std::vector<std::byte> fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    std::memcpy(bytes.data(), chars.data(), chars.size());
    return bytes;
}

}  // namespace

class TestCalibrationInputs : public QObject {
    Q_OBJECT
private slots:
    void numpyArchivesByInputName() {
        // savez: stored members; x = arange(2 * 784) / 1568 as float32.
        const auto inputs = calibrationInputs(mlp(), {.numpyFiles = {kFixtures + "mlp-data.npz"}});
        QCOMPARE(inputs.size(), std::size_t(1));
        const HostArray& data = inputs.at("data");
        QCOMPARE(data.shape, (Shape{2, 784}));
        QCOMPARE(data.values[0], 0.0f);
        QCOMPARE(data.values[1000], float(1000.0f / 1568.0f));

        // savez_compressed (deflated) with float16: the first row, rounded to float16.
        const auto half = readNumpyFile(kFixtures + "mlp-data-compressed.npz");
        QCOMPARE(half.at("data").shape, (std::vector<int64_t>{1, 784}));
        QCOMPARE(half.at("data").values[500], 0.31884765625f);  // float16(500 / 1568)

        // Several files: one input, concatenated along the batch axis.
        const auto both = calibrationInputs(
            mlp(), {.numpyFiles = {kFixtures + "mlp-data.npz", kFixtures + "mlp-data-compressed.npz"}});
        QCOMPARE(both.at("data").shape, (Shape{3, 784}));
        QCOMPARE(both.at("data").values[2 * 784 + 500], 0.31884765625f);

        // A lone .npy (big-endian float64) and an archive's only, unnamed array fill the data input.
        const auto npy = calibrationInputs(mlp(), {.numpyFiles = {kFixtures + "batch.npy"}});
        QCOMPARE(npy.at("data").shape, (Shape{2, 784}));
        QCOMPARE(npy.at("data").values[1567], float(1567.0 / 1568.0));
        const auto unnamed = calibrationInputs(mlp(), {.numpyFiles = {kFixtures + "unnamed.npz"}});
        QCOMPARE(unnamed.at("data").shape, (Shape{2, 784}));
    }

    void numpyMistakesAreSaid() {
        try {
            readNumpyFile(kFixtures + "fortran.npy");
            QFAIL("a Fortran-order array was read");
        } catch (const LoadError& e) {
            QVERIFY2(std::string(e.what()).find("Fortran") != std::string::npos, e.what());
        }
        // Arrays that do not continue each other.
        try {
            calibrationInputs(mlp(), {.numpyFiles = {kFixtures + "mlp-data.npz", kFixtures + "fortran.npy"}});
            QFAIL("mismatched arrays were accepted");
        } catch (const LoadError&) {  // fortran.npy refuses first
        }
        try {
            readNumpyFile(kFixtures + "make_fixtures.py");
            QFAIL("a text file was read as NumPy");
        } catch (const LoadError& e) {
            QVERIFY(std::string(e.what()).find("neither a .npy array nor an .npz archive") != std::string::npos);
        }
        try {
            readNumpyFile(kFixtures + "missing.npz");
            QFAIL("a missing file was read");
        } catch (const LoadError&) {
        }
    }

    // Every prefix of a real .npy, and seeded byte flips in it: a LoadError or an array, never a crash.
    void malformedNpyNeverCrashes() {
        const std::vector<std::byte> good = fileBytes(kFixtures + "batch.npy");
        QVERIFY(good.size() > 200);
        int refused = 0;
        for (std::size_t n = 0; n < good.size(); n += (n < 256 ? 1 : 97)) {
            try {
                parseNpy(std::span(good).first(n), "prefix");
            } catch (const LoadError&) {
                ++refused;
            }
        }
        QVERIFY(refused > 100);
        SeededRandom random(7);
        for (int round = 0; round < 2000; ++round) {
            std::vector<std::byte> bad(good.begin(), good.begin() + 128 + std::ptrdiff_t(random.uniform(0, 200)));
            for (int k = 0; k < 4; ++k) {
                bad[std::size_t(random.uniform(0, 127.99))] = std::byte(uint8_t(random.uniform(0, 255.99)));
            }
            try {
                const NpyArray a = parseNpy(bad, "flipped");
                int64_t count = 1;
                for (int64_t d : a.shape) count *= d;
                QCOMPARE(int64_t(a.values.size()), count);
            } catch (const LoadError&) {
            }
        }
    }

    // A training-data spec's validation samples fill the data input, a random input of the same name
    // giving the layout; the batch is the sample count.
    // run --outputs: every dtype written as numpy names it and read back exactly (bfloat16 as
    // float32, which numpy has no bfloat16 for); scalars, 1-d and empty arrays included.
    void npzWrittenAsNumpyReadsIt() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("out.npz").toStdString();
        HostTensor flags(DType::Bool, {3});
        flags.mutableData<uint8_t>()[1] = 1;
        const std::vector<std::pair<std::string, HostTensor>> arrays{
            {"f32", HostTensor::fromFloats({1.5f, -2.0f, 3.25f, 4.0f, 5.0f, 6.0f}, {2, 3})},
            {"f16", HostTensor::fromFloats({0.1f, 65504.0f}, {2}, DType::F16)},
            {"bf16", HostTensor::fromFloats({0.1f, -3.0e38f}, {2}, DType::BF16)},
            {"ids", HostTensor::fromIntegers({30521, int64_t{1} << 40}, {1, 2})},
            {"scalar", HostTensor::fromIntegers({7}, {}, DType::I32)},
            {"flags", flags},
            {"empty", HostTensor(DType::F32, {0, 4})},
        };
        writeNpzFile(path, arrays);
        const auto read = readNumpyFile(path);
        QCOMPARE(read.size(), arrays.size());
        QCOMPARE(read.at("f32").shape, (std::vector<int64_t>{2, 3}));
        QCOMPARE(read.at("f32").values[2], 3.25f);
        QCOMPARE(read.at("f16").dtype, DType::F16);
        QCOMPARE(read.at("f16").values[1], 65504.0f);
        QCOMPARE(read.at("bf16").dtype, DType::F32);
        QCOMPARE(read.at("bf16").values[0], HostTensor::fromFloats({0.1f}, {1}, DType::BF16).floats()[0]);
        QCOMPARE(read.at("ids").dtype, DType::I64);
        QCOMPARE(read.at("ids").integers, (std::vector<int64_t>{30521, int64_t{1} << 40}));  // exact past 2^24
        QCOMPARE(read.at("scalar").shape, std::vector<int64_t>{});
        QCOMPARE(read.at("scalar").integers, std::vector<int64_t>{7});
        QCOMPARE(read.at("flags").dtype, DType::Bool);
        QCOMPARE(read.at("flags").integers, (std::vector<int64_t>{0, 1, 0}));
        QCOMPARE(read.at("empty").shape, (std::vector<int64_t>{0, 4}));
        // npyTensor gives the model's dtype, integers exactly.
        QCOMPARE(npyTensor(read.at("ids"), DType::I64).integers(), (std::vector<int64_t>{30521, int64_t{1} << 40}));
        QCOMPARE(npyTensor(read.at("f32"), DType::F16).dtype(), DType::F16);
    }

    void trainingDataSpecs() {
        const auto blobs = calibrationInputs(mlp(), {.randomInputs = {"data=1,2"}, .dataset = "synthetic:blobs", .samples = 5});
        QCOMPARE(blobs.at("data").shape, (Shape{5, 2}));
        try {
            calibrationInputs(mlp(), {.dataset = "synthetic:nonsense"});
            QFAIL("an unknown synthetic set was accepted");
        } catch (const CalibrationError&) {
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibrationInputs)
#include "test_calibration_inputs.moc"
