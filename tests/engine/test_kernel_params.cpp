// backend/kernel_params: what the CPU and CUDA kernels read from a node, parsed in one place. Each
// row is a node's attribute string as MXNet writes it in a symbol file ("k=v;k=v") with its shapes,
// and what the kernels must see, written out as text; a bad attribute must be an OpError naming the
// node and the problem, never a crash.
#include <QtTest>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/kernel_params.h"
#include "ops/op_error.h"

using namespace ampstudio;

namespace {

// "2,3,8,8|2,5" -> {{2, 3, 8, 8}, {2, 5}}
std::vector<Shape> shapesOf(const QString& text) {
    std::vector<Shape> shapes;
    for (const QString& part : text.split('|', Qt::SkipEmptyParts)) {
        Shape s;
        for (const QString& d : part.split(',', Qt::SkipEmptyParts)) {
            s.push_back(d.trimmed().toLongLong());
        }
        shapes.push_back(s);
    }
    return shapes;
}

// One node with its shapes, alive while the KernelSetup that views it is used.
struct Fixture {
    Node node;
    std::vector<Shape> in, out;
    std::vector<DType> inTypes, outTypes;

    Fixture(const char* op, const QString& attrs, const QString& inShapes, const QString& outShapes = {})
        : in(shapesOf(inShapes)), out(shapesOf(outShapes)), inTypes(in.size(), DType::F32),
          outTypes(out.size(), DType::F32) {
        node.op = op;
        node.name = "n";
        for (const QString& item : attrs.split(';', Qt::SkipEmptyParts)) {
            const auto eq = item.indexOf('=');
            node.attrs.emplace(item.left(eq).toStdString(), item.mid(eq + 1).toStdString());
        }
    }
    KernelSetup setup() const { return {node, in, out, inTypes, outTypes}; }
};

// What a parse gives, as text, or "error: <message>" for an OpError. Any other exception fails.
QString outcome(const std::function<std::string()>& parse) {
    try {
        return QString::fromStdString(parse());
    } catch (const OpError& e) {
        return "error: " + QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return "unexpected " + QString::fromStdString(e.what());
    }
}

// Expected "error: X" matches when the message contains X (it also names the node); anything else
// must be equal.
void compareOutcome(const QString& actual, const QString& expected) {
    if (expected.startsWith("error: ")) {
        QVERIFY2(actual.startsWith("error: node 'n'") && actual.contains(expected.mid(7)), qPrintable(actual));
    } else {
        QCOMPARE(actual, expected);
    }
}

std::string pairText(const Pair& p) { return std::to_string(p[0]) + "x" + std::to_string(p[1]); }

std::string numbers(const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t x : v) {
        s += (s.empty() ? "" : ",") + std::to_string(x);
    }
    return s;
}

std::string layoutText(const AxisLayout& l) {
    return "axis " + std::to_string(l.axis) + " (" + std::to_string(l.outer) + "," + std::to_string(l.channels) + "," +
           std::to_string(l.inner) + ")";
}

std::string floatText(float f) {
    std::ostringstream s;
    s << f;
    return s.str();
}

const char* normalizationName(LossNormalization n) {
    switch (n) {
        case LossNormalization::Null: return "null";
        case LossNormalization::Batch: return "batch";
        case LossNormalization::Valid: return "valid";
    }
    return "?";
}

void addColumns() {
    QTest::addColumn<QString>("attrs");
    QTest::addColumn<QString>("shapes");
    QTest::addColumn<QString>("expected");
}

}  // namespace

class TestKernelParams : public QObject {
    Q_OBJECT
private slots:
    void leakyRelu_data() {
        addColumns();
        QTest::newRow("defaults: leaky, slope 0.25") << "" << "2,3" << "leaky 0.25";
        QTest::newRow("leaky slope") << "act_type=leaky;slope=0.1" << "2,3" << "leaky 0.1";
        QTest::newRow("elu alpha") << "act_type=elu;slope=1.0" << "2,3" << "elu 1";
        QTest::newRow("selu") << "act_type=selu" << "2,3" << "selu 0.25";
        QTest::newRow("gelu") << "act_type=gelu" << "2,3" << "gelu 0.25";
        QTest::newRow("prelu") << "act_type=prelu" << "2,3" << "prelu 0.25";
        QTest::newRow("rrelu refused") << "act_type=rrelu" << "2,3" << "error: rrelu (randomized leaky ReLU) is not supported";
        QTest::newRow("unknown act_type") << "act_type=swish" << "2,3" << "error: act_type";
        QTest::newRow("malformed slope") << "slope=steep" << "2,3" << "error: slope";
    }
    void leakyRelu() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("LeakyReLU", attrs, shapes);
        compareOutcome(outcome([&] {
                           const LeakyReluParams p = leakyReluParams(f.node);
                           const char* names[] = {"leaky", "elu", "selu", "gelu", "prelu"};
                           return names[static_cast<int>(p.type)] + (" " + floatText(p.slope));
                       }),
                       expected);
    }

    void activation_data() {
        addColumns();
        QTest::newRow("default relu") << "" << "4" << "relu";
        QTest::newRow("sigmoid") << "act_type=sigmoid" << "4" << "sigmoid";
        QTest::newRow("tanh") << "act_type=tanh" << "4" << "tanh";
        QTest::newRow("softrelu") << "act_type=softrelu" << "4" << "softrelu";
        QTest::newRow("softsign") << "act_type=softsign" << "4" << "softsign";
        QTest::newRow("LeakyReLU's types are not Activation's") << "act_type=elu" << "4" << "error: act_type";
    }
    void activation() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("Activation", attrs, shapes);
        compareOutcome(outcome([&] {
                           const char* names[] = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};
                           return std::string(names[static_cast<int>(activationType(f.node))]);
                       }),
                       expected);
    }

    void elementwiseScalars_data() {
        addColumns();
        QTest::newRow("_mul_scalar") << "scalar=2.5" << "_mul_scalar" << "scalar 2.5";
        QTest::newRow("scalar defaults to 1") << "" << "_plus_scalar" << "scalar 1";
        QTest::newRow("malformed scalar") << "scalar=two" << "_mul_scalar" << "error: scalar";
        QTest::newRow("clip") << "a_max=6;a_min=0" << "clip" << "clip 0 6";
        QTest::newRow("clip negative bounds") << "a_max=-0.5;a_min=-1.5" << "clip" << "clip -1.5 -0.5";
        QTest::newRow("malformed clip") << "a_max=high;a_min=0" << "clip" << "error: a_max";
        QTest::newRow("Dropout defaults") << "" << "Dropout" << "dropout 0.5 training";
        QTest::newRow("Dropout always") << "mode=always;p=0.1" << "Dropout" << "dropout 0.1 always";
        QTest::newRow("Dropout unknown mode") << "mode=sometimes" << "Dropout" << "error: mode";
    }
    // Here `shapes` names the op.
    void elementwiseScalars() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const std::string op = shapes.toStdString();
        const Fixture f(op.c_str(), attrs, "3");
        compareOutcome(outcome([&] {
                           if (op == "clip") {
                               const ClipParams p = clipParams(f.node);
                               return "clip " + floatText(p.min) + " " + floatText(p.max);
                           }
                           if (op == "Dropout") {
                               const DropoutParams p = dropoutParams(f.node);
                               return "dropout " + floatText(p.p) + (p.always ? " always" : " training");
                           }
                           return "scalar " + floatText(scalarOperand(f.node));
                       }),
                       expected);
    }

    void softmax_data() {
        addColumns();
        QTest::newRow("default last axis") << "" << "2,3,5" << "axis 2 (6,5,1) 1/T 1";
        QTest::newRow("axis 1") << "axis=1" << "2,3,5" << "axis 1 (2,3,5) 1/T 1";
        QTest::newRow("negative axis") << "axis=-3" << "2,3,5" << "axis 0 (1,2,15) 1/T 1";
        QTest::newRow("temperature") << "temperature=2.0" << "2,3" << "axis 1 (2,3,1) 1/T 0.5";
        QTest::newRow("temperature None") << "axis=-1;temperature=None" << "2,3" << "axis 1 (2,3,1) 1/T 1";
        QTest::newRow("axis out of range") << "axis=3" << "2,3,5" << "error: axis 3 is out of range for (2, 3, 5)";
        QTest::newRow("negative axis out of range") << "axis=-4" << "2,3,5" << "error: axis -4 is out of range";
        QTest::newRow("malformed axis") << "axis=last" << "2,3" << "error: axis";
    }
    void softmax() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("softmax", attrs, shapes);
        compareOutcome(outcome([&] {
                           const SoftmaxParams p = softmaxParams(f.setup());
                           return layoutText(p.layout) + " 1/T " + floatText(p.invTemperature);
                       }),
                       expected);
    }

    void reduce_data() {
        addColumns();
        QTest::newRow("all axes") << "" << "2,3,4" << "reduced 1,1,1 kept 1,1,1 count 24";
        QTest::newRow("one axis") << "axis=1" << "2,3,4" << "reduced 0,1,0 kept 2,1,4 count 3";
        QTest::newRow("two axes, negative") << "axis=(0, -1);keepdims=True" << "2,3,4"
                                            << "reduced 1,0,1 kept 1,3,1 count 8";
        QTest::newRow("exclude") << "axis=(1,);exclude=True" << "2,3,4" << "reduced 1,0,1 kept 1,3,1 count 8";
        QTest::newRow("axis given twice") << "axis=(1, -2)" << "2,3,4" << "error: given twice";
        QTest::newRow("axis out of range") << "axis=5" << "2,3,4" << "error: axis";
    }
    void reduce() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("sum", attrs, shapes);
        compareOutcome(outcome([&] {
                           const ReduceParams p = reduceParams(f.setup());
                           std::vector<int64_t> reduced(p.reduced.begin(), p.reduced.end());
                           return "reduced " + numbers(reduced) + " kept " + numbers(p.kept) + " count " +
                                  std::to_string(p.count);
                       }),
                       expected);
    }

    void convolution_data() {
        addColumns();
        // `shapes` names the op here.
        QTest::newRow("resnet 7x7 stem") << "kernel=(7, 7);no_bias=True;num_filter=64;pad=(3, 3);stride=(2, 2)"
                                         << "Convolution" << "groups 1 bias 0 stride 2x2 pad 3x3 dilate 1x1 adj 0x0";
        QTest::newRow("Convolution has a bias by default") << "kernel=(3,3);num_filter=8" << "Convolution"
                                                           << "groups 1 bias 1 stride 1x1 pad 0x0 dilate 1x1 adj 0x0";
        QTest::newRow("depthwise, dilated") << "dilate=(2, 2);kernel=(3, 3);num_filter=32;num_group=32;pad=(2, 2)"
                                            << "Convolution" << "groups 32 bias 1 stride 1x1 pad 2x2 dilate 2x2 adj 0x0";
        QTest::newRow("Deconvolution has no bias by default")
            << "adj=(1, 1);kernel=(4, 4);num_filter=16;pad=(1, 1);stride=(2, 2)" << "Deconvolution"
            << "groups 1 bias 0 stride 2x2 pad 1x1 dilate 1x1 adj 1x1";
        QTest::newRow("Deconvolution with bias") << "kernel=(2,2);no_bias=False;num_filter=4" << "Deconvolution"
                                                 << "groups 1 bias 1 stride 1x1 pad 0x0 dilate 1x1 adj 0x0";
        QTest::newRow("3-D stride") << "kernel=(3,3,3);num_filter=8;stride=(1,1,1)" << "Convolution"
                                    << "error: stride must have 2 entries";
        QTest::newRow("1-D pad") << "kernel=(3,);num_filter=8;pad=(1,)" << "Convolution" << "error: pad must have 2 entries";
        QTest::newRow("malformed tuple") << "kernel=(3,3);num_filter=8;stride=(2;2)" << "Convolution" << "error: stride";
        QTest::newRow("malformed num_group") << "kernel=(3,3);num_filter=8;num_group=two" << "Convolution"
                                             << "error: num_group";
        QTest::newRow("malformed adj") << "adj=(a, b);kernel=(3,3);num_filter=8" << "Deconvolution" << "error: adj";
    }
    void convolution() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const std::string op = shapes.toStdString();
        const Fixture f(op.c_str(), attrs, "1,3,8,8");
        compareOutcome(outcome([&] {
                           const ConvolutionParams p =
                               op == "Deconvolution" ? deconvolutionParams(f.node) : convolutionParams(f.node);
                           return "groups " + std::to_string(p.groups) + " bias " + std::to_string(p.hasBias) +
                                  " stride " + pairText(p.stride) + " pad " + pairText(p.pad) + " dilate " +
                                  pairText(p.dilate) + " adj " + pairText(p.adj);
                       }),
                       expected);
    }

    void pooling_data() {
        addColumns();
        QTest::newRow("resnet max 3x3/2") << "kernel=(3, 3);pad=(1, 1);pool_type=max;stride=(2, 2)" << "1,64,112,112"
                                          << "max kernel 3x3 stride 2x2 pad 1x1 includePad 1";
        QTest::newRow("default pool_type is max") << "kernel=(2,2)" << "1,1,4,4"
                                                  << "max kernel 2x2 stride 1x1 pad 0x0 includePad 1";
        QTest::newRow("avg excluding padding")
            << "count_include_pad=False;kernel=(3, 3);pad=(1, 1);pool_type=avg;stride=(1, 1)" << "1,8,6,6"
            << "avg kernel 3x3 stride 1x1 pad 1x1 includePad 0";
        QTest::newRow("sum") << "kernel=(2,2);pool_type=sum;stride=(2,2)" << "2,3,4,4"
                             << "sum kernel 2x2 stride 2x2 pad 0x0 includePad 1";
        QTest::newRow("global avg: the whole plane") << "global_pool=True;kernel=(1, 1);pool_type=avg" << "1,512,7,5"
                                                     << "global avg kernel 7x5 stride 1x1 pad 0x0 includePad 1";
        QTest::newRow("global ignores its kernel tuple") << "global_pool=True;kernel=(9,9,9)" << "1,2,3,3"
                                                         << "global max kernel 3x3 stride 1x1 pad 0x0 includePad 1";
        QTest::newRow("missing kernel") << "pool_type=max" << "1,1,4,4" << "error: kernel is required";
        QTest::newRow("1-D kernel") << "kernel=(3,)" << "1,1,4,4" << "error: kernel must have 2 entries";
        QTest::newRow("malformed kernel") << "kernel=(3, x)" << "1,1,4,4" << "error: kernel";
        QTest::newRow("lp pooling") << "kernel=(2,2);pool_type=lp" << "1,1,4,4" << "error: pool_type";
        QTest::newRow("3-D data") << "global_pool=True" << "1,4,4" << "error: Pooling needs 4-D NCHW data, got (1, 4, 4)";
    }
    void pooling() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("Pooling", attrs, shapes);
        compareOutcome(outcome([&] {
                           const PoolingParams p = poolingParams(f.setup());
                           const char* types[] = {"max", "avg", "sum"};
                           return std::string(p.global ? "global " : "") + types[static_cast<int>(p.type)] +
                                  " kernel " + pairText(p.kernel) + " stride " + pairText(p.stride) + " pad " +
                                  pairText(p.pad) + " includePad " + std::to_string(p.countIncludePad);
                       }),
                       expected);
    }

    void normalization_data() {
        addColumns();
        // `attrs` starts with the op.
        QTest::newRow("BatchNorm defaults (axis 1)") << "BatchNorm;" << "2,3,4,4"
                                                     << "axis 1 (2,3,16) eps 0.001 momentum 0.9 fixGamma 1 global 0";
        QTest::newRow("BatchNorm as Gluon writes it")
            << "BatchNorm;axis=1;eps=1e-05;fix_gamma=False;momentum=0.9;use_global_stats=False" << "8,64,7,7"
            << "axis 1 (8,64,49) eps 1e-05 momentum 0.9 fixGamma 0 global 0";
        QTest::newRow("BatchNorm channels last") << "BatchNorm;axis=-1;use_global_stats=True" << "2,5,3"
                                                 << "axis 2 (10,3,1) eps 0.001 momentum 0.9 fixGamma 1 global 1";
        QTest::newRow("BatchNorm axis out of range") << "BatchNorm;axis=4" << "2,3,4,4" << "error: axis 4 is out of range";
        QTest::newRow("BatchNorm malformed eps") << "BatchNorm;eps=small" << "2,3" << "error: eps";
        QTest::newRow("BatchNorm malformed fix_gamma") << "BatchNorm;fix_gamma=maybe" << "2,3" << "error: fix_gamma";
        QTest::newRow("LayerNorm defaults (last axis)") << "LayerNorm;" << "4,10,32" << "axis 2 (40,32,1) eps 1e-05";
        QTest::newRow("LayerNorm axis 1") << "LayerNorm;axis=1;eps=1e-12" << "4,10,32" << "axis 1 (4,10,32) eps 1e-12";
        QTest::newRow("LayerNorm axis out of range") << "LayerNorm;axis=-4" << "4,10,32" << "error: axis -4 is out of range";
    }
    void normalization() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const std::string op = attrs.section(';', 0, 0).toStdString();
        const Fixture f(op.c_str(), attrs.section(';', 1), shapes);
        compareOutcome(outcome([&] {
                           if (op == "LayerNorm") {
                               const LayerNormParams p = layerNormParams(f.setup());
                               return layoutText(p.layout) + " eps " + floatText(p.eps);
                           }
                           const BatchNormParams p = batchNormParams(f.setup());
                           return layoutText(p.layout) + " eps " + floatText(p.eps) + " momentum " +
                                  floatText(p.momentum) + " fixGamma " + std::to_string(p.fixGamma) + " global " +
                                  std::to_string(p.useGlobalStats);
                       }),
                       expected);
    }

    void fullyConnected_data() {
        addColumns();
        QTest::newRow("bias by default") << "num_hidden=10" << "4,8|10,8" << "bias 1";
        QTest::newRow("no_bias=True") << "no_bias=True;num_hidden=10" << "4,8|10,8" << "bias 0";
        QTest::newRow("no_bias=1") << "no_bias=1;num_hidden=10" << "4,8|10,8" << "bias 0";
        QTest::newRow("malformed no_bias") << "no_bias=yes please;num_hidden=10" << "4,8|10,8" << "error: no_bias";
    }
    void fullyConnected() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const Fixture f("FullyConnected", attrs, shapes);
        compareOutcome(outcome([&] { return "bias " + std::to_string(fullyConnectedHasBias(f.node)); }), expected);
    }

    void lossHeads_data() {
        addColumns();
        // `attrs` starts with the op; shapes are data|label.
        QTest::newRow("SoftmaxOutput defaults") << "SoftmaxOutput;" << "4,10|4" << "null scale 1 batch 4 rows 4x10x1";
        QTest::newRow("SoftmaxOutput valid, ignore")
            << "SoftmaxOutput;ignore_label=0;normalization=valid;use_ignore=True" << "4,10|4"
            << "valid scale 1 batch 4 rows 4x10x1";
        QTest::newRow("SoftmaxOutput multi_output") << "SoftmaxOutput;multi_output=True;normalization=batch"
                                                    << "2,3,5,5|2,5,5" << "batch scale 1 batch 2 rows 2x3x25";
        QTest::newRow("SoftmaxOutput unknown normalization") << "SoftmaxOutput;normalization=mean" << "4,10|4"
                                                             << "error: normalization";
        QTest::newRow("LinearRegressionOutput") << "LinearRegressionOutput;grad_scale=0.5" << "8,3|8,3"
                                                << "scale 0.5 per row 3";
        QTest::newRow("regression on an empty batch") << "LinearRegressionOutput;" << "0,3|0,3" << "scale 1 per row 1";
        QTest::newRow("regression malformed grad_scale") << "MAERegressionOutput;grad_scale=x" << "8,3|8,3"
                                                         << "error: grad_scale";
        QTest::newRow("MakeLoss valid") << "MakeLoss;normalization=valid;valid_thresh=0.5" << "6,2"
                                        << "valid scale 1 thresh 0.5 batch 6";
        QTest::newRow("MakeLoss batch, scaled") << "MakeLoss;grad_scale=2;normalization=batch" << "6,2"
                                                << "batch scale 2 thresh 0 batch 6";
        QTest::newRow("MakeLoss unknown normalization") << "MakeLoss;normalization=all" << "6,2" << "error: normalization";
    }
    void lossHeads() {
        QFETCH(QString, attrs);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);
        const std::string op = attrs.section(';', 0, 0).toStdString();
        const Fixture f(op.c_str(), attrs.section(';', 1), shapes);
        compareOutcome(outcome([&] {
                           if (op == "SoftmaxOutput") {
                               const SoftmaxOutputParams p = softmaxOutputParams(f.setup());
                               return normalizationName(p.normalization) + (" scale " + floatText(p.gradScale)) +
                                      " batch " + std::to_string(p.batch) + " rows " +
                                      std::to_string(p.layout.outer) + "x" + std::to_string(p.layout.classes) + "x" +
                                      std::to_string(p.layout.inner);
                           }
                           if (op == "MakeLoss") {
                               const MakeLossParams p = makeLossParams(f.setup());
                               return normalizationName(p.normalization) + (" scale " + floatText(p.gradScale)) +
                                      " thresh " + floatText(p.validThresh) + " batch " + std::to_string(p.batch);
                           }
                           const RegressionParams p = regressionParams(f.setup());
                           return "scale " + floatText(p.gradScale) + " per row " + floatText(p.numOutput);
                       }),
                       expected);
    }

    void shapeOps_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("attrs");
        QTest::addColumn<QString>("inShapes");
        QTest::addColumn<QString>("outShapes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("transpose reverses by default") << "transpose" << "" << "2,3,4" << "4,3,2" << "perm 2,1,0";
        QTest::newRow("transpose axes") << "transpose" << "axes=(0, 2, 1)" << "2,3,4" << "2,4,3" << "perm 0,2,1";
        QTest::newRow("transpose negative axes") << "transpose" << "axes=(-1, 0, 1)" << "2,3,4" << "4,2,3"
                                                 << "perm 2,0,1";
        QTest::newRow("transpose malformed axes") << "transpose" << "axes=(0, one)" << "2,3" << "3,2" << "error: axes";
        QTest::newRow("SwapAxis") << "SwapAxis" << "dim1=0;dim2=-1" << "2,3,4" << "4,3,2" << "perm 2,1,0";
        QTest::newRow("SwapAxis out of range") << "SwapAxis" << "dim1=0;dim2=3" << "2,3,4" << "2,3,4"
                                               << "error: dim2 3 is out of range";
        QTest::newRow("Concat along dim 1") << "Concat" << "dim=1;num_args=2" << "2,3|2,5" << "2,8"
                                            << "outer 2 slabs 3,5 total 8";
        QTest::newRow("Concat channels of NCHW") << "Concat" << "dim=1;num_args=2" << "1,2,3,3|1,4,3,3" << "1,6,3,3"
                                                 << "outer 1 slabs 18,36 total 54";
        QTest::newRow("Concat along the last dim") << "Concat" << "dim=-1;num_args=2" << "2,3|2,1" << "2,4"
                                                   << "outer 2 slabs 3,1 total 4";
        QTest::newRow("Concat dim out of range") << "Concat" << "dim=2;num_args=2" << "2,3|2,5" << "2,8"
                                                 << "error: dim 2 is out of range";
        QTest::newRow("SliceChannel") << "SliceChannel" << "axis=1;num_outputs=3" << "4,6" << "4,2|4,2|4,2"
                                      << "outer 4 slabs 2,2,2 total 6";
        QTest::newRow("SliceChannel squeeze_axis") << "SliceChannel" << "axis=0;num_outputs=2;squeeze_axis=True"
                                                   << "2,3,5" << "3,5|3,5" << "outer 1 slabs 15,15 total 30";
        QTest::newRow("SliceChannel malformed axis") << "SliceChannel" << "axis=x;num_outputs=2" << "4,6"
                                                     << "4,3|4,3" << "error: axis";
        QTest::newRow("slice_axis") << "slice_axis" << "axis=1;begin=2;end=5" << "4,10" << "4,3"
                                    << "outer 4 inner 1 size 10 begin 2 len 3";
        QTest::newRow("slice_axis from the end, end None") << "slice_axis" << "axis=-2;begin=-3;end=None" << "4,10,2"
                                                           << "4,3,2" << "outer 4 inner 2 size 10 begin 7 len 3";
        QTest::newRow("slice_axis without begin") << "slice_axis" << "axis=0;end=2" << "4,10" << "2,10"
                                                  << "error: begin";
        QTest::newRow("slice_axis begin None") << "slice_axis" << "axis=0;begin=None;end=2" << "4,10" << "2,10"
                                               << "error: begin";
        QTest::newRow("slice_axis out of range") << "slice_axis" << "axis=2;begin=0;end=1" << "4,10" << "4,1"
                                                 << "error: axis 2 is out of range";
    }
    void shapeOps() {
        QFETCH(QString, op);
        QFETCH(QString, attrs);
        QFETCH(QString, inShapes);
        QFETCH(QString, outShapes);
        QFETCH(QString, expected);
        const std::string name = op.toStdString();
        const Fixture f(name.c_str(), attrs, inShapes, outShapes);
        compareOutcome(outcome([&] {
                           if (name == "transpose") {
                               return "perm " + numbers(transposePerm(f.setup()));
                           }
                           if (name == "SwapAxis") {
                               return "perm " + numbers(swapAxisPerm(f.setup()));
                           }
                           if (name == "slice_axis") {
                               const SliceAxisLayout l = sliceAxisLayout(f.setup());
                               return "outer " + std::to_string(l.outer) + " inner " + std::to_string(l.inner) +
                                      " size " + std::to_string(l.size) + " begin " + std::to_string(l.begin) +
                                      " len " + std::to_string(l.len);
                           }
                           const AxisParts p = name == "Concat" ? concatParts(f.setup()) : sliceChannelParts(f.setup());
                           return "outer " + std::to_string(p.outer) + " slabs " + numbers(p.slab) + " total " +
                                  std::to_string(p.total);
                       }),
                       expected);
    }
};

QTEST_GUILESS_MAIN(TestKernelParams)
#include "test_kernel_params.moc"
