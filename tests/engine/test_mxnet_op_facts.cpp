// The operator facts against MXNet 1.9.1 as documented in shared/reference/README.md.
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "ops/graph_dtypes.h"
#include "ops/mxnet_op_facts.h"

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

class TestMxnetOpFacts : public QObject {
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
        QCOMPARE(int(MxnetOpFacts::instance().numOutputs(n)), expected);
    }

    void outputNames() {
        const auto& r = MxnetOpFacts::instance();
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
        const auto& r = MxnetOpFacts::instance();
        QCOMPARE(r.mutableInputs(op("BatchNorm")), (std::vector<uint32_t>{3, 4}));
        QVERIFY(r.mutableInputs(op("FullyConnected")).empty());
        QVERIFY(r.mutableInputs(op("NoSuchOp")).empty());
    }

    void aliases() {
        const auto& r = MxnetOpFacts::instance();
        QCOMPARE(r.canonicalName("_add"), std::string_view("elemwise_add"));
        QCOMPARE(r.canonicalName("FullyConnected"), std::string_view("FullyConnected"));
        QVERIFY(r.isKnown("_Plus"));
        QVERIFY(!r.isKnown("BatchNormWithReLU"));  // in the bf16 lists, but not an op in 1.9.1
        QCOMPARE(r.opNames().size(), std::size_t(444));
        QVERIFY(std::is_sorted(r.opNames().begin(), r.opNames().end()));
    }

    void inputNames() {
        const auto& r = MxnetOpFacts::instance();
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
        const auto& r = MxnetOpFacts::instance();
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
        {  // amp_cast outputs its dtype once its input is a known float (MXNet's AMPCastType)
            std::vector<DType> in{DType::F32}, out{DType::Unknown};
            QVERIFY(r.inferType(op("amp_cast", {{"dtype", "float16"}}), in, out));
            QCOMPARE(out[0], DType::F16);
            std::vector<DType> unknownIn{DType::Unknown}, unknownOut{DType::Unknown};
            QVERIFY(!r.inferType(op("amp_cast", {{"dtype", "float16"}}), unknownIn, unknownOut));
            QCOMPARE(unknownOut[0], DType::Unknown);
            std::vector<DType> intIn{DType::I32}, intOut{DType::Unknown};
            QVERIFY(r.inferType(op("amp_cast", {{"dtype", "float16"}}), intIn, intOut));
            QCOMPARE(intOut[0], DType::I32);
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

    // Every op MXNet 1.9.1 could type from input 0 alone, as its AMP pass asks, gives here what it
    // gave there: the same success and the same dtypes, for float16, bfloat16 and float32
    // (resources/mxnet/mxnet-1.9.1-op-dtypes.json, probed by calling MXNet's FInferType). The hand
    // rules (BatchNorm, Embedding, the casts) are checked by it as much as the table.
    void passInferenceEqualsMxnet() {
        QFile file(AMS_SOURCE_DIR "/resources/mxnet/mxnet-1.9.1-op-dtypes.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject ops = QJsonDocument::fromJson(file.readAll()).object()["ops"].toObject();
        const auto& r = MxnetOpFacts::instance();
        int compared = 0;
        QStringList mismatches;
        // Each op's main record and its variants (attributes that change its outputs: topk's
        // ret_typ, LeakyReLU's prelu ...).
        std::vector<std::pair<QString, QJsonObject>> records;
        for (auto it = ops.begin(); it != ops.end(); ++it) {
            records.emplace_back(it.key(), it.value().toObject());
            for (const QJsonValue& v : it.value().toObject()["variants"].toArray()) {
                records.emplace_back(it.key(), v.toObject());
            }
        }
        for (const auto& [opName, facts] : records) {
            if (!facts.contains("from_first_input") || facts.contains("probe_error")) {
                continue;
            }
            Node n = op(opName.toUtf8().constData());
            const QJsonObject attrs = facts["attrs_probed"].toObject();
            for (auto a = attrs.begin(); a != attrs.end(); ++a) {
                n.attrs.emplace(a.key().toStdString(), a.value().toString().toStdString());
            }
            n.numOutputs = r.numOutputs(n);
            const QJsonObject byDtype = facts["from_first_input"].toObject();
            for (const char* name : {"float16", "bfloat16", "float32"}) {
                const QJsonObject expected = byDtype[name].toObject();
                const int inputs = facts["num_inputs_probed"].toInt();
                if (inputs == 0 || int(n.numOutputs) != facts["num_outputs_probed"].toInt()) {
                    continue;  // our output count differs (an op the registry does not model)
                }
                std::vector<DType> in(inputs, DType::Unknown), out(n.numOutputs, DType::Unknown);
                in[0] = *dtypeFromName(name);
                const bool ok = r.inferType(n, in, out);
                ++compared;
                const bool mxnetOk = expected["ok"].toBool();
                QString why;
                if (ok != mxnetOk) {
                    why = QString("ok %1, MXNet %2").arg(ok).arg(mxnetOk);
                } else if (ok) {
                    // The outputs the pass records: equal where MXNet gives float16/bfloat16/float32.
                    const QJsonArray mxOut = expected["out"].toArray();
                    for (int k = 0; k < mxOut.size() && k < int(out.size()); ++k) {
                        const auto want = dtypeFromName(mxOut[k].toString().toStdString());
                        const bool recorded = want && isFloat(*want);
                        const bool hidden = k >= facts["mixed"].toObject()["outputs"].toArray().size();
                        if (recorded && !hidden && out[k] != *want) {
                            why = QString("out[%1] %2, MXNet %3").arg(k).arg(dtypeName(out[k]).data()).arg(mxOut[k].toString());
                        }
                    }
                }
                if (!why.isEmpty()) {
                    mismatches << opName + " " + name + " " +
                                      QString::fromUtf8(QJsonDocument(facts["attrs_probed"].toObject()).toJson(QJsonDocument::Compact)) +
                                      ": " + why;
                }
            }
        }
        qInfo("compared %d (op, dtype) pairs", compared);
        QVERIFY2(compared > 1000, "the probe file lost its contents");
        for (const QString& m : mismatches) {
            qWarning("%s", qPrintable(m));
        }
        QCOMPARE(mismatches.size(), 0);
    }

    // The graph-level check accepts what MXNet's InferType accepts (free index and shape inputs)
    // and refuses what it refuses (mixed dtypes into one ElemwiseType op, float16 BatchNorm stats).
    void graphCheckFollowsMxnet_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("second");  // dtype of input 1 when input 0 is float16
        QTest::addColumn<bool>("accepted");
        QTest::newRow("Convolution: weight must match") << "Convolution" << "float32" << false;
        QTest::newRow("slice_like: shape_like is free") << "slice_like" << "float32" << true;
        QTest::newRow("broadcast_like: rhs is free") << "broadcast_like" << "float32" << true;
        QTest::newRow("take: indices are free") << "take" << "float32" << true;
        QTest::newRow("elemwise_add: same dtype") << "elemwise_add" << "float32" << false;
        QTest::newRow("elemwise_add: same dtype, matching") << "elemwise_add" << "float16" << true;
        QTest::newRow("BatchNorm: gamma float32") << "BatchNorm" << "float32" << true;
        QTest::newRow("BatchNorm: gamma float16 refused") << "BatchNorm" << "float16" << false;
        QTest::newRow("no FInferType: SameType never refuses") << "_contrib_BilinearResize2D" << "float32" << true;
        QTest::newRow("InstanceNorm takes float32 data only") << "InstanceNorm" << "float32" << false;
    }
    void graphCheckFollowsMxnet() {
        QFETCH(QString, op);
        QFETCH(QString, second);
        QFETCH(bool, accepted);
        Graph g;
        Node a;
        a.name = "a";
        Node b;
        b.name = "b";
        g.nodes = {a, b};
        Node n = ::op(op.toUtf8().constData());
        if (op == "_contrib_BilinearResize2D") {
            n.attrs.emplace("mode", "like");
        }
        n.inputs = {{0, 0, 0}, {1, 0, 0}};
        const int inputs = op == "BatchNorm" ? 5 : op == "Convolution" || op == "InstanceNorm" ? 3 : 2;
        for (int i = 2; i < inputs; ++i) {
            Node v;
            v.name = "v" + std::to_string(i);
            g.nodes.insert(g.nodes.end() - 0, v);
        }
        for (int i = 2; i < inputs; ++i) {
            n.inputs.push_back({NodeId(i), 0, 0});
        }
        if (op == "Convolution") {
            n.attrs = {{"kernel", "(1,1)"}, {"num_filter", "2"}};
        }
        n.numOutputs = MxnetOpFacts::instance().numOutputs(n);
        g.nodes.push_back(n);
        g.heads = {{NodeId(g.nodes.size() - 1), 0, 0}};
        std::map<std::string, DType> known{{"a", DType::F16}, {"b", *dtypeFromName(second.toStdString())}};
        const GraphDtypes result = inferGraphDtypes(g, known);
        QCOMPARE(!result.conflict.has_value(), accepted);
    }

    // where: x, y and the output share a type; where x and y disagree MXNet assigns nothing and
    // reports no error (the output stays untyped).
    void whereLeavesAMismatchUntyped() {
        Node n = op("where");
        n.inputs = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
        const MxnetOpFacts& r = MxnetOpFacts::instance();
        std::vector<DType> in{DType::F32, DType::F32, DType::F16}, out{DType::Unknown};
        QCOMPARE(r.typeInference(n, in, out), TypeInference::Incomplete);
        QCOMPARE(out[0], DType::Unknown);
        in = {DType::F32, DType::F16, DType::Unknown};
        QCOMPARE(r.typeInference(n, in, out), TypeInference::Complete);
        QCOMPARE(in[2], DType::F16);
        QCOMPARE(out[0], DType::F16);
    }

    // MXNet's FInferType of some ops throws while input 0 is untyped, which fails its InferType:
    // the dtype check says Conflict there; our executor, which types every variable in the end, waits.
    void untypedInputThrowsAsInMxnet_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<bool>("secondKnown");  // input 1 float32
        QTest::addColumn<bool>("throws");
        QTest::newRow("Dropout") << "Dropout" << 1 << false << true;
        QTest::newRow("Embedding, weight known") << "Embedding" << 2 << true << true;
        QTest::newRow("LRN") << "LRN" << 1 << false << true;
        QTest::newRow("relu waits") << "relu" << 1 << false << false;
        QTest::newRow("elemwise_add takes input 1") << "elemwise_add" << 2 << true << false;
        // BilinearSampler throws only while nothing at all is known.
        QTest::newRow("BilinearSampler, nothing known") << "BilinearSampler" << 2 << false << true;
        QTest::newRow("BilinearSampler, grid known") << "BilinearSampler" << 2 << true << false;
    }
    void untypedInputThrowsAsInMxnet() {
        QFETCH(QString, op);
        QFETCH(int, inputs);
        QFETCH(bool, secondKnown);
        QFETCH(bool, throws);
        Node n = ::op(op.toUtf8().constData(), op == "Embedding" ? Attributes{{"input_dim", "4"}, {"output_dim", "2"}}
                                                                 : Attributes{});
        for (int i = 0; i < inputs; ++i) {
            n.inputs.push_back({NodeId(i), 0, 0});
        }
        n.numOutputs = MxnetOpFacts::instance().numOutputs(n);
        const MxnetOpFacts& r = MxnetOpFacts::instance();
        auto call = [&](bool untypedInputThrows) {
            std::vector<DType> in(std::size_t(inputs), DType::Unknown);
            std::vector<DType> out(n.numOutputs, DType::Unknown);
            if (secondKnown) {
                in[1] = DType::F32;
            }
            return r.typeInference(n, in, out, untypedInputThrows);
        };
        QCOMPARE(call(true) == TypeInference::Conflict, throws);
        QVERIFY(call(false) != TypeInference::Conflict);
    }
};

QTEST_GUILESS_MAIN(TestMxnetOpFacts)
#include "test_mxnet_op_facts.moc"
