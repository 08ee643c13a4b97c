// The operator facts against MXNet 1.9.1 as documented in shared/reference/README.md.
#include <QtTest>

#include "ops/op_registry.h"

using namespace ampstudio;

namespace {
Node op(const char* name, Attributes attrs = {}) {
    Node n;
    n.op = name;
    n.name = "n";
    n.attrs = std::move(attrs);
    return n;
}
}  // namespace

class TestOpRegistry : public QObject {
    Q_OBJECT
private slots:
    void numOutputs_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("attrs");  // "k=v;k=v"
        QTest::addColumn<int>("expected");
        QTest::newRow("FullyConnected") << "FullyConnected" << "" << 1;
        QTest::newRow("BatchNorm counts hidden mean/var") << "BatchNorm" << "" << 3;
        QTest::newRow("Dropout counts its mask") << "Dropout" << "" << 2;
        QTest::newRow("max Pooling (MKLDNN) has workspace") << "Pooling" << "kernel=(3,3);pool_type=max" << 2;
        QTest::newRow("default pool_type is max") << "Pooling" << "kernel=(2,2)" << 2;
        QTest::newRow("avg Pooling") << "Pooling" << "kernel=(3,3);pool_type=avg" << 1;
        QTest::newRow("global Pooling without kernel") << "Pooling" << "global_pool=True;pool_type=max" << 1;
        QTest::newRow("NHWC max Pooling") << "Pooling" << "kernel=(3,3);layout=NHWC" << 1;
        QTest::newRow("SliceChannel") << "SliceChannel" << "num_outputs=4" << 4;
        QTest::newRow("split alias") << "split" << "num_outputs=3" << 3;
        QTest::newRow("amp_multicast") << "amp_multicast" << "num_outputs=5" << 5;
        QTest::newRow("RNN default") << "RNN" << "mode=lstm" << 1;
        QTest::newRow("RNN lstm states") << "RNN" << "mode=lstm;state_outputs=True" << 3;
        QTest::newRow("RNN gru states") << "RNN" << "mode=gru;state_outputs=1" << 2;
        QTest::newRow("LayerNorm") << "LayerNorm" << "" << 3;
        QTest::newRow("topk both") << "topk" << "ret_typ=both" << 2;
        QTest::newRow("_split_v2 sections") << "_split_v2" << "sections=3" << 3;
        QTest::newRow("_split_v2 indices") << "_split_v2" << "indices=(0,2,5);sections=0" << 3;
        QTest::newRow("unknown op") << "MyCustomOp" << "" << 1;
        QTest::newRow("hostile count is clamped") << "SliceChannel" << "num_outputs=99999999999" << 65536;
        QTest::newRow("garbage count") << "SliceChannel" << "num_outputs=abc" << 1;
    }
    void numOutputs() {
        QFETCH(QString, op);
        QFETCH(QString, attrs);
        QFETCH(int, expected);
        Node n = ::op(op.toStdString().c_str());
        for (const QString& kv : attrs.split(';', Qt::SkipEmptyParts)) {
            const auto parts = kv.split('=');
            n.attrs[parts[0].toStdString()] = parts[1].toStdString();
        }
        QCOMPARE(int(OpRegistry::instance().numOutputs(n)), expected);
    }

    void outputNames() {
        const auto& r = OpRegistry::instance();
        QCOMPARE(r.outputName(op("Convolution"), 0).value(), std::string("output"));
        QCOMPARE(r.outputName(op("BatchNorm"), 2).value(), std::string("var"));
        QCOMPARE(r.outputName(op("SliceChannel", {{"num_outputs", "2"}}), 1).value(), std::string("output1"));
        // Not obvious, per the reference README: only elemwise_add names its output; softmax does,
        // log_softmax does not; make_loss is "loss"; CTCLoss has none.
        QCOMPARE(r.outputName(op("elemwise_add"), 0).value(), std::string("output"));
        QVERIFY(!r.outputName(op("elemwise_mul"), 0).has_value());
        QCOMPARE(r.outputName(op("softmax"), 0).value(), std::string("output"));
        QVERIFY(!r.outputName(op("log_softmax"), 0).has_value());
        QVERIFY(!r.outputName(op("CTCLoss"), 0).has_value());
        QCOMPARE(r.outputName(op("Activation"), 0).value(), std::string("output"));
        QVERIFY(!r.outputName(op("relu"), 0).has_value());
        QVERIFY(!r.outputName(op("amp_cast"), 0).has_value());
        Node var;
        var.name = "x";
        QVERIFY(!r.outputName(var, 0).has_value());
    }

    void mutableInputs() {
        const auto& r = OpRegistry::instance();
        QCOMPARE(r.mutableInputs(op("BatchNorm")), (std::vector<uint32_t>{3, 4}));
        QVERIFY(r.mutableInputs(op("FullyConnected")).empty());
        QVERIFY(r.mutableInputs(op("NoSuchOp")).empty());
    }

    void aliases() {
        const auto& r = OpRegistry::instance();
        QCOMPARE(r.canonicalName("_add"), std::string_view("elemwise_add"));
        QCOMPARE(r.canonicalName("FullyConnected"), std::string_view("FullyConnected"));
        QVERIFY(r.isKnown("_Plus"));
        QVERIFY(!r.isKnown("BatchNormWithReLU"));  // in the bf16 lists, but not an op in 1.9.1
        QCOMPARE(r.opNames().size(), std::size_t(444));
        QVERIFY(std::is_sorted(r.opNames().begin(), r.opNames().end()));
    }

    void inputNames() {
        const auto& r = OpRegistry::instance();
        QCOMPARE(r.inputNames(op("FullyConnected")).value(), (std::vector<std::string>{"data", "weight", "bias"}));
        QCOMPARE(r.inputNames(op("FullyConnected", {{"no_bias", "True"}})).value(),
                 (std::vector<std::string>{"data", "weight"}));
        QCOMPARE(r.inputNames(op("Deconvolution")).value(), (std::vector<std::string>{"data", "weight"}));
        QCOMPARE(r.inputNames(op("BatchNorm")).value().size(), std::size_t(5));
        QCOMPARE(r.inputNames(op("RNN", {{"mode", "lstm"}})).value(),
                 (std::vector<std::string>{"data", "parameters", "state", "state_cell"}));
        QCOMPARE(r.inputNames(op("Concat", {{"num_args", "2"}})).value(), (std::vector<std::string>{"arg0", "arg1"}));
        QVERIFY(!r.inputNames(op("Concat", {{"num_args", "-4"}})).has_value());
        QVERIFY(!r.inputNames(op("SomethingElse")).has_value());
    }

    void inferType() {
        const auto& r = OpRegistry::instance();
        {  // FullyConnected: ElemwiseType
            std::vector<DType> in{DType::F16, DType::Unknown, DType::Unknown}, out{DType::Unknown};
            QVERIFY(r.inferType(op("FullyConnected"), in, out));
            QCOMPARE(in, (std::vector<DType>{DType::F16, DType::F16, DType::F16}));
            QCOMPARE(out[0], DType::F16);
        }
        {  // BatchNorm keeps its parameters and statistics in float32
            std::vector<DType> in(5, DType::Unknown), out(3, DType::Unknown);
            in[0] = DType::BF16;
            QVERIFY(r.inferType(op("BatchNorm"), in, out));
            QCOMPARE(in, (std::vector<DType>{DType::BF16, DType::F32, DType::F32, DType::F32, DType::F32}));
            QCOMPARE(out, (std::vector<DType>{DType::BF16, DType::F32, DType::F32}));
        }
        {  // amp_cast outputs its dtype whatever comes in
            std::vector<DType> in{DType::Unknown}, out{DType::Unknown};
            QVERIFY(r.inferType(op("amp_cast", {{"dtype", "float16"}}), in, out));
            QCOMPARE(out[0], DType::F16);
        }
        {  // amp_multicast: widest of known inputs, unknown otherwise
            std::vector<DType> in{DType::F16, DType::F32}, out(2, DType::Unknown);
            QVERIFY(r.inferType(op("amp_multicast", {{"num_outputs", "2"}}), in, out));
            QCOMPARE(out, (std::vector<DType>{DType::F32, DType::F32}));
            std::vector<DType> in2{DType::F16, DType::Unknown}, out2(2, DType::Unknown);
            QVERIFY(!r.inferType(op("amp_multicast", {{"num_outputs", "2"}}), in2, out2));
        }
        {  // Embedding: output in its dtype attribute (float32 by default)
            std::vector<DType> in{DType::F16, DType::Unknown}, out{DType::Unknown};
            QVERIFY(r.inferType(op("Embedding"), in, out));
            QCOMPARE(out[0], DType::F32);
            QCOMPARE(in[1], DType::F32);
        }
        {  // contradiction
            std::vector<DType> in{DType::F16, DType::F32}, out{DType::Unknown};
            QVERIFY(!r.inferType(op("elemwise_add"), in, out));
        }
    }
};

QTEST_GUILESS_MAIN(TestOpRegistry)
#include "test_op_registry.moc"
