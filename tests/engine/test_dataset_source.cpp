// The dataset names the CLI's --data and the GUI's dataset list accept: each form loads what it says,
// with the documented held-out split and standardisation, and a wrong name or a missing file is
// refused with the accepted forms or the file named.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "formats/load_error.h"
#include "train/dataset_source.h"
#include "train/fashion_mnist.h"

using namespace ampstudio;
namespace fs = std::filesystem;

namespace {

void appendBigEndian(std::string& out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((v >> shift) & 0xFF));
    }
}

// An IDX pair of `count` 2x2 images, image i filled with 255 * (i % 2), labelled i % 3.
void writeIdxPair(const fs::path& dir, const std::string& prefix, uint32_t count) {
    std::string images, labels;
    appendBigEndian(images, 0x00000803);
    appendBigEndian(images, count);
    appendBigEndian(images, 2);
    appendBigEndian(images, 2);
    appendBigEndian(labels, 0x00000801);
    appendBigEndian(labels, count);
    for (uint32_t i = 0; i < count; ++i) {
        images.append(4, static_cast<char>(i % 2 == 0 ? 0 : 255));
        labels.push_back(static_cast<char>(i % 3));
    }
    std::ofstream(dir / (prefix + "-images-idx3-ubyte"), std::ios::binary) << images;
    std::ofstream(dir / (prefix + "-labels-idx1-ubyte"), std::ios::binary) << labels;
}

// Mean and standard deviation of feature `f` over a dataset.
std::pair<double, double> moments(const Dataset& d, int64_t f) {
    const int64_t width = d.sampleSize();
    double sum = 0.0, sq = 0.0;
    for (int64_t i = 0; i < d.size(); ++i) {
        const double v = d.features[static_cast<std::size_t>(i * width + f)];
        sum += v;
        sq += v * v;
    }
    const double mean = sum / static_cast<double>(d.size());
    return {mean, std::sqrt(sq / static_cast<double>(d.size()) - mean * mean)};
}

}  // namespace

class TestDatasetSource : public QObject {
    Q_OBJECT

private slots:
    void syntheticIsHeldOutAndStandardised_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("blobs") << "blobs";
        QTest::newRow("spirals") << "spirals";
        QTest::newRow("regression") << "regression";
    }

    void syntheticIsHeldOutAndStandardised() {
        QFETCH(QString, name);
        DataSourceOptions options;
        options.seed = 7;
        const TrainingData d = loadTrainingData("synthetic:" + name.toStdString(), options);
        const int64_t total = d.train.size() + d.validation.size();
        QVERIFY(total > 0);
        QCOMPARE(d.validation.size(), static_cast<int64_t>(std::llround(0.2 * static_cast<double>(total))));
        QCOMPARE(d.train.sampleShape, d.validation.sampleShape);
        for (int64_t f = 0; f < d.train.sampleSize(); ++f) {
            const auto [mean, sd] = moments(d.train, f);
            QVERIFY2(std::abs(mean) < 1e-4 && std::abs(sd - 1.0) < 1e-3,
                     qPrintable(QString("feature %1: mean %2, sd %3").arg(f).arg(mean).arg(sd)));
        }
        QVERIFY2(QString::fromStdString(d.description).contains(name), d.description.c_str());
        // The same seed gives the same split; another seed another one.
        QCOMPARE(loadTrainingData("synthetic:" + name.toStdString(), options).train.features, d.train.features);
        options.seed = 8;
        QVERIFY(loadTrainingData("synthetic:" + name.toStdString(), options).train.features != d.train.features);
    }

    void csvUsesTheNamedLabelColumn() {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "points.csv";
        {
            std::ofstream out(path);
            out << "a,b,class\n";
            for (int i = 0; i < 10; ++i) {
                out << i << ',' << 2 * i << ',' << i % 2 << '\n';
            }
        }
        DataSourceOptions options;
        options.labelColumn = "class";
        const TrainingData d = loadTrainingData("csv:" + path.string(), options);
        QCOMPARE(d.train.size(), 8);
        QCOMPARE(d.validation.size(), 2);
        QCOMPARE(d.train.sampleShape, (std::vector<int64_t>{2}));
        QCOMPARE(d.train.classCount, 2);
        QVERIFY(std::abs(moments(d.train, 1).first) < 1e-5);
        QVERIFY2(QString::fromStdString(d.description).startsWith("points.csv: 8 training, 2 validation"),
                 d.description.c_str());

        // Without the column: the CSV reader's error, naming the file.
        try {
            loadTrainingData("csv:" + path.string());
            QFAIL("loaded without a label column");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains("points.csv"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(LoadError, loadTrainingData("csv:" + (path.parent_path() / "no.csv").string()));
    }

    void idxDirectoryWithAndWithoutTestFiles() {
        QTemporaryDir tmp;
        const fs::path dir(tmp.path().toStdString());
        writeIdxPair(dir, "train", 50);
        TrainingData d = loadTrainingData("idx:" + dir.string());
        QCOMPARE(d.train.size() + d.validation.size(), 50);
        QCOMPARE(d.validation.size(), 10);
        QCOMPARE(d.train.sampleShape, (std::vector<int64_t>{1, 2, 2}));
        for (float v : d.train.features) {
            QVERIFY(v == 0.0f || v == 1.0f);  // pixels scaled to 0..1, not standardised
        }

        writeIdxPair(dir, "t10k", 6);
        d = loadTrainingData("idx:" + dir.string());
        QCOMPARE(d.train.size(), 50);
        QCOMPARE(d.validation.size(), 6);
        QCOMPARE(d.validation.labels, (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));

        try {
            loadTrainingData("idx:" + (dir / "empty").string());
            QFAIL("loaded an empty directory");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains("train-images-idx3-ubyte"), e.what());
        }
    }

    void unknownNamesListTheAcceptedForms_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown") << "imagenet" << "accepted: fashion-mnist, synthetic:";
        QTest::newRow("synthetic kind") << "synthetic:moons" << "accepted: regression, spirals, blobs";
        QTest::newRow("csv without file") << "csv:" << "csv:FILE";
        QTest::newRow("empty") << "" << "idx:DIR";
    }

    void unknownNamesListTheAcceptedForms() {
        QFETCH(QString, spec);
        QFETCH(QString, expected);
        try {
            loadTrainingData(spec.toStdString());
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }

    void fashionMnistUsesTheTestSetForValidation() {
        if (!fashionMnistAvailable()) {
            QSKIP("dataset-fashion-mnist is not installed (scripts/setup-debian.sh installs it)");
        }
        const TrainingData d = loadTrainingData("fashion-mnist");
        QCOMPARE(d.train.size(), 60000);
        QCOMPARE(d.validation.size(), 10000);
        QCOMPARE(d.train.classCount, 10);
        const auto [lo, hi] = std::minmax_element(d.train.features.begin(), d.train.features.end());
        QCOMPARE(*lo, 0.0f);
        QCOMPARE(*hi, 1.0f);
    }
};

QTEST_GUILESS_MAIN(TestDatasetSource)
#include "test_dataset_source.moc"
