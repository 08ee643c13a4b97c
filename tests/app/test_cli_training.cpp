// `ampstudio-cli train` and `compare` as a user runs them. The Fashion-MNIST cases are the "must
// show" of the engine issue and take about a minute (label slow); they skip when Debian's
// dataset-fashion-mnist is not installed. The synthetic ones are fast.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "train/fashion_mnist.h"

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run cli(const QStringList& args, int timeoutMs = 600000) {
    QProcess p;
    p.start(QStringLiteral(AMS_CLI_PATH), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        return {};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

const QString kMlp = QStringLiteral(AMS_TESTDATA_DIR "/mxnet/mlp-symbol.json");

struct MetricsFile {
    QStringList header;
    std::vector<QStringList> rows;
    int column(const QString& name) const { return static_cast<int>(header.indexOf(name)); }
    double value(std::size_t row, const QString& name) const { return rows[row][column(name)].toDouble(); }
};

MetricsFile readMetrics(const QString& path) {
    QFile f(path);
    MetricsFile m;
    if (!f.open(QIODevice::ReadOnly)) {
        return m;
    }
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    m.header = lines.value(0).split(',');
    for (int i = 1; i < lines.size(); ++i) {
        m.rows.push_back(lines[i].split(','));
    }
    return m;
}

// The accuracy of the last "epoch N: ..., accuracy XX.XX %" progress line.
double lastAccuracy(const QString& out) {
    const auto matches = QRegularExpression(R"(accuracy ([0-9.]+) %)").globalMatch(out);
    double accuracy = -1.0;
    for (auto it = matches; it.hasNext();) {
        accuracy = it.next().captured(1).toDouble() / 100.0;
    }
    return accuracy;
}

double lastTrainLoss(const QString& out) {
    const auto matches = QRegularExpression(R"(train loss ([0-9.eE+-]+))").globalMatch(out);
    double loss = -1.0;
    for (auto it = matches; it.hasNext();) {
        loss = it.next().captured(1).toDouble();
    }
    return loss;
}

QStringList fashionRun(const QString& precision, const QString& metrics) {
    return {"train", kMlp, "--data", "fashion-mnist", "--precision", precision, "--epochs", "1", "--batch-size", "64",
            "--lr", "0.05", "--seed", "3", "--metrics", metrics};
}

}  // namespace

class TestCliTraining : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // --- fast: synthetic data ---

    void trainsSyntheticBlobsAndSaves() {
        const QString prefix = m_dir.filePath("blobs-mlp");
        const QString metrics = m_dir.filePath("blobs.csv");
        // The MLP needs 784 inputs; a CSV of blobs does not fit it, so train a model made for 2 features.
        QFile model(m_dir.filePath("tiny-symbol.json"));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
            {"op": "null", "name": "fc1_weight", "inputs": []}, {"op": "null", "name": "fc1_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "16"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
            {"op": "null", "name": "fc2_weight", "inputs": []}, {"op": "null", "name": "fc2_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "3"}, "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0]]},
            {"op": "null", "name": "softmax_label", "inputs": []},
            {"op": "SoftmaxOutput", "name": "softmax", "inputs": [[6, 0, 0], [7, 0, 0]]}],
            "arg_nodes": [0, 1, 2, 4, 5, 7], "heads": [[8, 0, 0]]})");
        model.close();
        const Run r = cli({"train", model.fileName(), "--data", "synthetic:blobs", "--precision", "amp", "--epochs", "3",
                           "--batch-size", "32", "--metrics", metrics, "--save", prefix});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("epoch 3:"), qPrintable(r.out));
        QVERIFY2(lastAccuracy(r.out) > 0.9, qPrintable(r.out));
        QVERIFY(QFile::exists(prefix + "-symbol.json"));
        QVERIFY(QFile::exists(prefix + "-0003.params"));
        const MetricsFile m = readMetrics(metrics);
        for (const char* column : {"step", "epoch", "loss", "loss_scale", "skipped", "grad_norm", "lr", "samples_per_s"}) {
            QVERIFY2(m.column(column) >= 0, column);
        }
        QCOMPARE(static_cast<int>(m.rows.size()), 3 * (800 / 32));
        // Training again from the saved weights starts where the first run ended.
        const Run again = cli({"train", prefix + "-0003.params", "--data", "synthetic:blobs", "--epochs", "1",
                               "--batch-size", "32", "--lr", "0.001"});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("using the parameters"), qPrintable(again.err));
        QVERIFY(lastAccuracy(again.out) > 0.9);
        // Nodes kept in float32, as the GUI's exclusions train them; a name not in the model is refused.
        const Run excluded = cli({"train", model.fileName(), "--data", "synthetic:blobs", "--precision", "amp",
                                  "--steps", "5", "--excluded-sym-names", "fc1, fc2"});
        QVERIFY2(excluded.exitCode == 0, qPrintable(excluded.err));
        QVERIFY2(excluded.out.contains("2 nodes kept in float32"), qPrintable(excluded.out));
        const Run typo = cli({"train", model.fileName(), "--data", "synthetic:blobs", "--precision", "amp",
                              "--steps", "5", "--excluded-sym-names", "fc9"});
        QCOMPARE(typo.exitCode, 1);
        QVERIFY2(typo.err.contains("'fc9'"), qPrintable(typo.err));
    }

    void badArgumentsAreExplained() {
        Run r = cli({"train", kMlp, "--data", "synthetic:nonsense"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nonsense") && r.err.contains("blobs"), qPrintable(r.err));
        r = cli({"train", kMlp, "--data", "synthetic:regression"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("regression"), qPrintable(r.err));
        r = cli({"train", kMlp, "--data", "synthetic:blobs", "--schedule", "step:0"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("step size"), qPrintable(r.err));
        r = cli({"train", kMlp, "--data", "synthetic:blobs", "--metrics", kMlp});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("overwrite") || r.err.contains("input"), qPrintable(r.err));
        r = cli({"compare", kMlp, kMlp});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--data"), qPrintable(r.err));
    }

    // --- slow: Fashion-MNIST, the engine issue's must-show ---

    void fashionMnistOneEpochEveryMode() {
        if (!ampstudio::fashionMnistAvailable()) {
            QSKIP("dataset-fashion-mnist is not installed");
        }
        std::map<QString, double> loss;
        for (const QString mode : {"fp32", "amp", "fp16-master", "bf16"}) {
            const Run r = cli(fashionRun(mode, m_dir.filePath(mode + ".csv")));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const double accuracy = lastAccuracy(r.out);
            qInfo("%s: test accuracy %.2f %%, final training loss %.4f", qPrintable(mode), 100 * accuracy,
                  lastTrainLoss(r.out));
            QVERIFY2(accuracy >= 0.80, qPrintable(mode + ": " + r.out));
            loss[mode] = lastTrainLoss(r.out);
        }
        QVERIFY2(std::abs(loss["amp"] - loss["fp32"]) <= 0.05 * loss["fp32"],
                 qPrintable(QString("amp %1 vs fp32 %2").arg(loss["amp"]).arg(loss["fp32"])));
    }

    void fp16MasterBacksOffFromHugeScale() {
        if (!ampstudio::fashionMnistAvailable()) {
            QSKIP("dataset-fashion-mnist is not installed");
        }
        const QString metrics = m_dir.filePath("backoff.csv");
        QStringList args = fashionRun("fp16-master", metrics);
        args << "--init-scale" << "16777216";
        const Run r = cli(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const MetricsFile m = readMetrics(metrics);
        QVERIFY(m.rows.size() > 500);
        QCOMPARE(m.value(0, "loss_scale"), 16777216.0);
        QCOMPARE(m.value(0, "skipped"), 1.0);
        int skipped = 0, lastSkipped = -1;
        for (std::size_t i = 0; i < m.rows.size(); ++i) {
            if (m.value(i, "skipped") == 1.0) {
                ++skipped;
                lastSkipped = static_cast<int>(i);
            }
        }
        qInfo("skipped %d steps, the last at step %d; scale %g -> %g", skipped, lastSkipped, m.value(0, "loss_scale"),
              m.value(m.rows.size() - 1, "loss_scale"));
        QVERIFY(skipped >= 1);
        QVERIFY(m.value(m.rows.size() - 1, "loss_scale") < 16777216.0);
        QVERIFY2(lastSkipped < 100, "still overflowing after the first 100 steps");
        // ... then trains normally: the loss of the last 100 steps is well below that of the first applied ones.
        double early = 0, late = 0;
        for (int i = 0; i < 100; ++i) {
            early += m.value(static_cast<std::size_t>(lastSkipped + 1 + i), "loss");
            late += m.value(m.rows.size() - 1 - static_cast<std::size_t>(i), "loss");
        }
        QVERIFY2(late < 0.7 * early, qPrintable(QString("%1 -> %2").arg(early / 100).arg(late / 100)));
        QVERIFY2(lastAccuracy(r.out) >= 0.80, qPrintable(r.out));
    }

    void compareAgainstTypedConversion() {
        if (!ampstudio::fashionMnistAvailable()) {
            QSKIP("dataset-fashion-mnist is not installed");
        }
        // Trained weights, as a user would compare: train fp32, convert, compare.
        const QString prefix = m_dir.filePath("mlp-trained");
        QStringList args = fashionRun("fp32", m_dir.filePath("compare-train.csv"));
        args << "--save" << prefix;
        Run r = cli(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = cli({"convert", prefix + "-symbol.json", "--params", prefix + "-0001.params", "--output",
                 m_dir.filePath("mlp-typed"), "--mode", "typed"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString report = m_dir.filePath("compare.json");
        r = cli({"compare", prefix + "-symbol.json", m_dir.filePath("mlp-typed-symbol.json"), "--params",
                 prefix + "-0001.params", "--data", "fashion-mnist", "--samples", "1000", "--report", report});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("softmax_output"), qPrintable(r.out));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject out = json["outputs"].toArray().at(0).toObject();
        qInfo("softmax output: max rel error %g, max abs %g, cosine %.6f", out["max_rel_error"].toDouble(),
              out["max_abs_error"].toDouble(), out["cosine"].toDouble());
        QVERIFY(out["max_rel_error"].toDouble() < 1e-2);
        QVERIFY(out["max_rel_error"].toDouble() > 0.0);  // f16 really ran
        QCOMPARE(out["non_finite"].toInt(), 0);
        QVERIFY(json["nodes"].toArray().size() >= 5);  // fc1, relu1, fc2, relu2, fc3 (and softmax)
    }

    void sameSeedSameMetrics() {
        if (!ampstudio::fashionMnistAvailable()) {
            QSKIP("dataset-fashion-mnist is not installed");
        }
        QStringList a = fashionRun("amp", m_dir.filePath("seed-a.csv"));
        QStringList b = fashionRun("amp", m_dir.filePath("seed-b.csv"));
        a << "--steps" << "300";
        b << "--steps" << "300";
        QCOMPARE(cli(a).exitCode, 0);
        QCOMPARE(cli(b).exitCode, 0);
        MetricsFile x = readMetrics(m_dir.filePath("seed-a.csv"));
        MetricsFile y = readMetrics(m_dir.filePath("seed-b.csv"));
        QCOMPARE(x.rows.size(), std::size_t{300});
        QCOMPARE(x.header, y.header);
        // Every column but samples_per_s (wall-clock time) is identical, byte for byte.
        const int timing = x.column("samples_per_s");
        for (std::size_t i = 0; i < x.rows.size(); ++i) {
            x.rows[i].removeAt(timing);
            y.rows[i].removeAt(timing);
            QCOMPARE(x.rows[i], y.rows[i]);
        }
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliTraining)
#include "test_cli_training.moc"
