// The nn ops (Convolution, Deconvolution, Pooling, BatchNorm, LayerNorm): forward against direct
// loop references written from MXNet 1.9.1's definitions (or hand-computed values), backward against
// finite differences, every op in f16 and bf16 against f32, and bad attributes (op_check.h).
#include <algorithm>
#include <numeric>

#include "op_check.h"
#include "ops/op_error.h"

Q_DECLARE_METATYPE(ampstudio::Shape)

using namespace ampstudio;
using namespace ampstudio::test;

namespace {

struct Conv2d {
    int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

Attributes convAttrs(const Conv2d& p, int64_t filters, bool noBias) {
    auto t = [](int64_t a, int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; };
    return {{"kernel", t(p.kh, p.kw)},      {"stride", t(p.sh, p.sw)},
            {"pad", t(p.ph, p.pw)},         {"dilate", t(p.dh, p.dw)},
            {"num_filter", std::to_string(filters)}, {"num_group", std::to_string(p.groups)},
            {"no_bias", noBias ? "True" : "False"}};
}

// Direct convolution: out[n,o,y,x] = b[o] + sum_{c in o's group, i, j} in[n,c,y*s-p+i*d,x*s-p+j*d] w[o,c',i,j].
std::vector<float> referenceConvolution(const std::vector<float>& x, const Shape& xs, const std::vector<float>& w,
                                        const Shape& ws, const std::vector<float>* bias, const Conv2d& p,
                                        const Shape& os) {
    std::vector<float> out(static_cast<std::size_t>(shapeSize(os)));
    const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], o = os[1], oh = os[2], ow = os[3];
    const int64_t cg = c / p.groups, og = o / p.groups;
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t f = 0; f < o; ++f) {
            const int64_t g = f / og;
            for (int64_t y = 0; y < oh; ++y) {
                for (int64_t xx = 0; xx < ow; ++xx) {
                    double sum = bias != nullptr ? (*bias)[static_cast<std::size_t>(f)] : 0.0;
                    for (int64_t ci = 0; ci < cg; ++ci) {
                        for (int64_t i = 0; i < ws[2]; ++i) {
                            for (int64_t j = 0; j < ws[3]; ++j) {
                                const int64_t iy = y * p.sh - p.ph + i * p.dh, ix = xx * p.sw - p.pw + j * p.dw;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) {
                                    continue;
                                }
                                sum += double(x[static_cast<std::size_t>(((b * c + g * cg + ci) * h + iy) * wd + ix)]) *
                                       w[static_cast<std::size_t>(((f * cg + ci) * ws[2] + i) * ws[3] + j)];
                            }
                        }
                    }
                    out[static_cast<std::size_t>(((b * o + f) * oh + y) * ow + xx)] = static_cast<float>(sum);
                }
            }
        }
    }
    return out;
}

// Direct transposed convolution: every input element scatters in[n,c,y,x] w[c,o',i,j] to
// out[n, g*og+o', y*s-p+i*d, x*s-p+j*d] (MXNet's weight is (C, num_filter/g, kh, kw)).
std::vector<float> referenceDeconvolution(const std::vector<float>& x, const Shape& xs, const std::vector<float>& w,
                                          const Shape& ws, const std::vector<float>* bias, const Conv2d& p,
                                          const Shape& os) {
    std::vector<double> out(static_cast<std::size_t>(shapeSize(os)), 0.0);
    const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], o = os[1], oh = os[2], ow = os[3];
    const int64_t cg = c / p.groups, og = ws[1];
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t ci = 0; ci < c; ++ci) {
            const int64_t g = ci / cg;
            for (int64_t y = 0; y < h; ++y) {
                for (int64_t xx = 0; xx < wd; ++xx) {
                    const double v = x[static_cast<std::size_t>(((b * c + ci) * h + y) * wd + xx)];
                    for (int64_t f = 0; f < og; ++f) {
                        for (int64_t i = 0; i < ws[2]; ++i) {
                            for (int64_t j = 0; j < ws[3]; ++j) {
                                const int64_t oy = y * p.sh - p.ph + i * p.dh, ox = xx * p.sw - p.pw + j * p.dw;
                                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) {
                                    continue;
                                }
                                out[static_cast<std::size_t>(((b * o + g * og + f) * oh + oy) * ow + ox)] +=
                                    v * w[static_cast<std::size_t>(((ci * og + f) * ws[2] + i) * ws[3] + j)];
                            }
                        }
                    }
                }
            }
        }
    }
    std::vector<float> result(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
        const int64_t f = static_cast<int64_t>(k) / (oh * ow) % o;
        result[k] = static_cast<float>(out[k] + (bias != nullptr ? (*bias)[static_cast<std::size_t>(f)] : 0.0));
    }
    return result;
}

double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = a.size() == b.size() ? 0.0 : 1e30;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, std::abs(double(a[i]) - b[i]));
    }
    return worst;
}

// Distinct values spaced 0.05 apart in a scrambled order, so no max-pool window has a near tie
// that a finite-difference step could flip.
std::vector<float> distinctValues(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>((i * 37) % n) * 0.05f - 0.025f * static_cast<float>(n);
    }
    return v;
}

void expectOpError(const OpCase& c, const QString& fragment) {
    try {
        OpRunner runner(c, DType::F32, false);
        QFAIL(qPrintable("bound an invalid " + QString::fromStdString(c.op) + ", expected: " + fragment));
    } catch (const OpError& e) {
        QVERIFY2(QString(e.what()).contains("'op'"), e.what());
        QVERIFY2(QString(e.what()).contains(fragment), e.what());
    }
}

void checkLowPrecision(const OpCase& c) {
    const double f16 = precisionError(c, DType::F16);
    QVERIFY2(f16 < precisionTolerance(DType::F16), qPrintable(QString("f16 error %1").arg(f16)));
    const double bf16 = precisionError(c, DType::BF16);
    QVERIFY2(bf16 < precisionTolerance(DType::BF16), qPrintable(QString("bf16 error %1").arg(bf16)));
}

}  // namespace

class TestOpsNn : public QObject {
    Q_OBJECT

private slots:
    // --- Convolution -------------------------------------------------------------------------------
    void convolution_data() {
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("pad");
        QTest::addColumn<int>("dilate");
        QTest::addColumn<int>("groups");
        QTest::addColumn<bool>("noBias");
        QTest::newRow("3x3") << 3 << 1 << 0 << 1 << 1 << false;
        QTest::newRow("stride 2 pad 1") << 3 << 2 << 1 << 1 << 1 << false;
        QTest::newRow("dilate 2") << 3 << 1 << 1 << 2 << 1 << false;
        QTest::newRow("num_group 2") << 3 << 1 << 1 << 1 << 2 << false;
        QTest::newRow("no_bias") << 2 << 2 << 0 << 1 << 1 << true;
        QTest::newRow("all at once") << 3 << 2 << 1 << 2 << 2 << true;
    }
    void convolution() {
        QFETCH(int, kernel);
        QFETCH(int, stride);
        QFETCH(int, pad);
        QFETCH(int, dilate);
        QFETCH(int, groups);
        QFETCH(bool, noBias);
        Conv2d p{kernel, kernel, stride, stride, pad, pad, dilate, dilate, groups};
        const int64_t filters = 4, channels = 4;
        const Shape xs{2, channels, 7, 6};
        const Shape ws{filters, channels / groups, kernel, kernel};
        OpCase inferred{"Convolution", convAttrs(p, filters, noBias), {xs, {}}};
        if (!noBias) {
            inferred.inputShapes.push_back({});
        }
        OpRunner shapes(inferred, DType::F32, false);
        QCOMPARE(shapes.executor().value("in1").shape(), ws);
        OpCase c{"Convolution", convAttrs(p, filters, noBias), {xs, ws}};
        if (!noBias) {
            c.inputShapes.push_back({filters});
        }
        OpRunner runner(c, DType::F32, false);
        const int64_t extent = dilate * (kernel - 1) + 1;
        const Shape os{2, filters, (7 + 2 * pad - extent) / stride + 1, (6 + 2 * pad - extent) / stride + 1};
        QCOMPARE(runner.executor().outputs()[0].shape(), os);
        const auto out = runner.forward(false)[0];
        const std::vector<float> bias = noBias ? std::vector<float>{} : runner.input(2);
        const auto expected = referenceConvolution(runner.input(0), xs, runner.input(1), ws,
                                                   noBias ? nullptr : &bias, p, os);
        QVERIFY2(maxAbsDiff(out, expected) < 1e-4, "Convolution forward differs from the direct loop");
        QVERIFY2(gradientError(c) < 1e-3, "Convolution backward differs from finite differences");
    }

    void convolutionForwardByHand() {
        // One 2x2 filter [[1, 0], [0, -1]] over [[1, 2, 3], [4, 5, 6], [7, 8, 9]] plus bias 10.
        OpCase c{"Convolution", {{"kernel", "(2, 2)"}, {"num_filter", "1"}}, {{1, 1, 3, 3}, {1, 1, 2, 2}, {1}}};
        c.inputValues = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 0, 0, -1}, {10}};
        QCOMPARE(runOp(c)[0], (std::vector<float>{6, 6, 6, 6}));
    }

    void convolutionLowPrecision() {
        Conv2d p{3, 3, 1, 1, 1, 1, 1, 1, 2};
        OpCase c{"Convolution", convAttrs(p, 6, false), {{2, 4, 5, 5}, {6, 2, 3, 3}, {6}}};
        checkLowPrecision(c);
    }

    // Where the CPU has native bfloat16, Convolution and Deconvolution run oneDNN's bf16 primitives
    // on the stored tensors: what the converting path computes, up to a bf16 rounding step.
    void convolutionNativeBfloat16MatchesConverting_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("noBias");
        QTest::newRow("conv") << "Convolution" << "False";
        QTest::newRow("conv no bias") << "Convolution" << "True";
        QTest::newRow("deconv") << "Deconvolution" << "False";
    }
    void convolutionNativeBfloat16MatchesConverting() {
        if (!cpuNativeBfloat16()) QSKIP("no AVX512_BF16 or AMX here: bfloat16 converts around float32 kernels");
        QFETCH(QString, op);
        QFETCH(QString, noBias);
        const bool deconv = op == "Deconvolution";
        OpCase c{op.toStdString(),
                 {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"pad", "(1, 1)"}, {"stride", deconv ? "(2, 2)" : "(1, 1)"},
                  {"no_bias", noBias.toStdString()}},
                 {{2, 6, 9, 9}, deconv ? Shape{6, 8, 3, 3} : Shape{8, 6, 3, 3}}};
        if (noBias == "False") c.inputShapes.push_back({8});
        const double d = nativeBfloat16Difference(c);
        qInfo("%s native against converting: %.3g", qPrintable(op), d);
        QVERIFY2(d >= 0.0 && d <= 1.0 / 128, qPrintable(QString::number(d)));
    }

    // A non-overlapping max pool is exact in bfloat16; on a CPU with native bf16 it runs oneDNN's
    // bf16 primitives on the stored tensors and must give the converting path's very bits.
    void maxPoolingNativeBfloat16IsExact() {
        if (!cpuNativeBfloat16()) QSKIP("no AVX512_BF16 or AMX here: bfloat16 converts around float32 kernels");
        OpCase c{"Pooling", {{"pool_type", "max"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, {{2, 3, 8, 6}}};
        c.gradOutputs = 1;
        QCOMPARE(nativeBfloat16Difference(c), 0.0);
    }

    void convolutionRejects_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("1-D kernel") << "kernel" << "(3,)" << "kernel must have 2 entries";
        QTest::newRow("3-D kernel") << "kernel" << "(3, 3, 3)" << "kernel must have 2 entries";
        QTest::newRow("NHWC") << "layout" << "NHWC" << "layout NHWC";
        QTest::newRow("groups") << "num_group" << "3" << "multiple of num_group";
        QTest::newRow("zero stride") << "stride" << "(0, 1)" << "stride";
    }
    void convolutionRejects() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        Attributes attrs{{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"no_bias", "True"}};
        attrs[key.toStdString()] = value.toStdString();
        expectOpError({"Convolution", attrs, {{1, 4, 5, 5}, {}}}, fragment);
    }

    // --- Deconvolution -----------------------------------------------------------------------------
    void deconvolution_data() {
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("pad");
        QTest::addColumn<int>("adj");
        QTest::addColumn<int>("dilate");
        QTest::addColumn<int>("groups");
        QTest::addColumn<bool>("noBias");
        QTest::newRow("3x3") << 3 << 1 << 0 << 0 << 1 << 1 << true;
        QTest::newRow("stride 2 pad 1") << 3 << 2 << 1 << 0 << 1 << 1 << true;
        QTest::newRow("stride 2 pad 1 adj 1") << 3 << 2 << 1 << 1 << 1 << 1 << false;
        QTest::newRow("stride 2 adj 1 no pad") << 2 << 2 << 0 << 1 << 1 << 1 << true;
        QTest::newRow("dilate 2") << 3 << 1 << 1 << 0 << 2 << 1 << true;
        QTest::newRow("num_group 2 bias") << 3 << 2 << 1 << 1 << 1 << 2 << false;
    }
    void deconvolution() {
        QFETCH(int, kernel);
        QFETCH(int, stride);
        QFETCH(int, pad);
        QFETCH(int, adj);
        QFETCH(int, dilate);
        QFETCH(int, groups);
        QFETCH(bool, noBias);
        Conv2d p{kernel, kernel, stride, stride, pad, pad, dilate, dilate, groups};
        const int64_t filters = 4, channels = 4;
        const Shape xs{2, channels, 4, 3};
        Attributes attrs = convAttrs(p, filters, noBias);
        attrs["adj"] = "(" + std::to_string(adj) + ", " + std::to_string(adj) + ")";
        const Shape ws{channels, filters / groups, kernel, kernel};
        OpCase inferred{"Deconvolution", attrs, {xs, {}}};
        if (!noBias) {
            inferred.inputShapes.push_back({});
        }
        OpRunner shapes(inferred, DType::F32, false);
        QCOMPARE(shapes.executor().value("in1").shape(), ws);
        OpCase c{"Deconvolution", attrs, {xs, ws}};
        if (!noBias) {
            c.inputShapes.push_back({filters});
        }
        OpRunner runner(c, DType::F32, false);
        auto size = [&](int64_t in) { return stride * (in - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj; };
        const Shape os{2, filters, size(4), size(3)};
        QCOMPARE(runner.executor().outputs()[0].shape(), os);
        const auto out = runner.forward(false)[0];
        const std::vector<float> bias = noBias ? std::vector<float>{} : runner.input(2);
        const auto expected = referenceDeconvolution(runner.input(0), xs, runner.input(1), ws,
                                                     noBias ? nullptr : &bias, p, os);
        QVERIFY2(maxAbsDiff(out, expected) < 1e-4, "Deconvolution forward differs from the direct loop");
        QVERIFY2(gradientError(c) < 1e-3, "Deconvolution backward differs from finite differences");
    }

    void deconvolutionDefaultsToNoBias() {
        OpCase c{"Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "3"}}, {{1, 2, 2, 2}, {}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().value("in1").shape(), (Shape{2, 3, 2, 2}));
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{1, 3, 3, 3}));
    }

    void deconvolutionLowPrecision() {
        Conv2d p{3, 3, 2, 2, 1, 1, 1, 1, 2};
        Attributes attrs = convAttrs(p, 6, false);
        attrs["adj"] = "(1, 1)";
        OpCase c{"Deconvolution", attrs, {{2, 4, 3, 3}, {4, 3, 3, 3}, {6}}};
        checkLowPrecision(c);
    }

    void deconvolutionRejects_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("target_shape") << "target_shape" << "(8, 8)" << "target_shape";
        QTest::newRow("adj >= stride") << "adj" << "(1, 1)" << "adj";
        QTest::newRow("3-D kernel") << "kernel" << "(2, 2, 2)" << "kernel must have 2 entries";
        QTest::newRow("NHWC") << "layout" << "NHWC" << "layout NHWC";
    }
    void deconvolutionRejects() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        Attributes attrs{{"kernel", "(3, 3)"}, {"num_filter", "2"}};
        attrs[key.toStdString()] = value.toStdString();
        expectOpError({"Deconvolution", attrs, {{1, 4, 5, 5}, {}}}, fragment);
    }

    // --- Pooling -----------------------------------------------------------------------------------
    void pooling_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("convention");
        QTest::addColumn<int>("kernel");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("pad");
        QTest::addColumn<bool>("includePad");
        QTest::addColumn<bool>("global");
        QTest::newRow("max valid") << "max" << "valid" << 2 << 2 << 0 << true << false;
        QTest::newRow("max valid pad") << "max" << "valid" << 3 << 2 << 1 << true << false;
        QTest::newRow("max full") << "max" << "full" << 3 << 2 << 0 << true << false;
        QTest::newRow("avg valid") << "avg" << "valid" << 2 << 2 << 0 << true << false;
        QTest::newRow("avg valid pad") << "avg" << "valid" << 3 << 2 << 1 << true << false;
        QTest::newRow("avg full pad") << "avg" << "full" << 3 << 2 << 1 << true << false;
        QTest::newRow("avg full exclude pad") << "avg" << "full" << 3 << 2 << 1 << false << false;
        QTest::newRow("avg valid exclude pad") << "avg" << "valid" << 3 << 1 << 1 << false << false;
        QTest::newRow("sum full") << "sum" << "full" << 2 << 2 << 1 << true << false;
        QTest::newRow("global max") << "max" << "valid" << 0 << 1 << 0 << true << true;
        QTest::newRow("global avg") << "avg" << "valid" << 0 << 1 << 0 << true << true;
    }
    void pooling() {
        QFETCH(QString, type);
        QFETCH(QString, convention);
        QFETCH(int, kernel);
        QFETCH(int, stride);
        QFETCH(int, pad);
        QFETCH(bool, includePad);
        QFETCH(bool, global);
        const int64_t n = 2, ch = 3, h = 7, w = 6;
        Attributes attrs{{"pool_type", type.toStdString()},
                         {"pooling_convention", convention.toStdString()},
                         {"count_include_pad", includePad ? "True" : "False"}};
        if (global) {
            attrs["global_pool"] = "True";
            attrs["kernel"] = "(1, 1)";  // ignored, as in MXNet
        } else {
            attrs["kernel"] = "(" + std::to_string(kernel) + ", " + std::to_string(kernel) + ")";
            attrs["stride"] = "(" + std::to_string(stride) + ", " + std::to_string(stride) + ")";
            attrs["pad"] = "(" + std::to_string(pad) + ", " + std::to_string(pad) + ")";
        }
        OpCase c{"Pooling", attrs, {{n, ch, h, w}}};
        c.inputValues = {distinctValues(static_cast<std::size_t>(n * ch * h * w))};
        c.gradOutputs = 1;
        const int64_t k = global ? h : kernel, kw = global ? w : kernel;
        const int64_t s = global ? 1 : stride, p = global ? 0 : pad;
        auto size = [&](int64_t in, int64_t kk) {
            const int64_t span = in + 2 * p - kk;
            return 1 + (convention == "full" ? (span + s - 1) / s : span / s);
        };
        const int64_t oh = size(h, k), ow = size(w, kw);
        OpRunner runner(c, DType::F32, false);
        const auto outs = runner.forward(false);
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{n, ch, oh, ow}));
        QCOMPARE(outs.size(), std::size_t(type == "max" ? 2 : 1));
        // MXNet's pool.h: the window clipped to the padded input for the including divisor, then to
        // the input for the values and the excluding divisor.
        const auto& x = runner.input(0);
        std::vector<float> expected;
        for (int64_t plane = 0; plane < n * ch; ++plane) {
            for (int64_t y = 0; y < oh; ++y) {
                for (int64_t xx = 0; xx < ow; ++xx) {
                    int64_t hs = y * s - p, ws = xx * s - p;
                    int64_t he = std::min(hs + k, h + p), we = std::min(ws + kw, w + p);
                    const int64_t padded = (he - hs) * (we - ws);
                    hs = std::max<int64_t>(hs, 0);
                    ws = std::max<int64_t>(ws, 0);
                    he = std::min(he, h);
                    we = std::min(we, w);
                    double acc = type == "max" ? -1e30 : 0.0;
                    for (int64_t i = hs; i < he; ++i) {
                        for (int64_t j = ws; j < we; ++j) {
                            const double v = x[static_cast<std::size_t>((plane * h + i) * w + j)];
                            acc = type == "max" ? std::max(acc, v) : acc + v;
                        }
                    }
                    if (type == "avg") {
                        acc /= static_cast<double>(includePad ? padded : (he - hs) * (we - ws));
                    }
                    expected.push_back(static_cast<float>(acc));
                }
            }
        }
        QVERIFY2(maxAbsDiff(outs[0], expected) < 1e-5, "Pooling forward differs from MXNet's definition");
        if (type == "max") {
            QCOMPARE(outs[1], outs[0]);
        }
        QVERIFY2(gradientError(c) < 1e-3, "Pooling backward differs from finite differences");
    }

    void poolingForwardByHand() {
        // 2x2 max and avg over a 4x4 ramp, stride 2.
        std::vector<float> ramp(16);
        std::iota(ramp.begin(), ramp.end(), 0.0f);
        OpCase mx{"Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, {{1, 1, 4, 4}}};
        mx.inputValues = {ramp};
        QCOMPARE(runOp(mx)[0], (std::vector<float>{5, 7, 13, 15}));
        OpCase avg{"Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "avg"}}, {{1, 1, 4, 4}}};
        avg.inputValues = {ramp};
        QCOMPARE(runOp(avg)[0], (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
        // full convention: a 3x3 input, kernel 2, stride 2 gives 2x2 (valid would give 1x1).
        OpCase full{"Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}},
                    {{1, 1, 3, 3}}};
        full.inputValues = {{1, 2, 3, 4, 5, 6, 7, 8, 9}};
        QCOMPARE(runOp(full)[0], (std::vector<float>{5, 6, 8, 9}));
    }

    void poolingGlobalWithoutKernel() {
        // A global pool needs no kernel; without one MXNet's MKLDNN build has no workspace output.
        OpCase c{"Pooling", {{"global_pool", "True"}, {"pool_type", "max"}}, {{2, 3, 4, 5}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().outputs().size(), std::size_t(1));
        QCOMPARE(runner.executor().outputs()[0].shape(), (Shape{2, 3, 1, 1}));
    }

    void poolingLowPrecision_data() {
        QTest::addColumn<QString>("type");
        QTest::newRow("max") << "max";
        QTest::newRow("avg") << "avg";
        QTest::newRow("sum") << "sum";
    }
    void poolingLowPrecision() {
        QFETCH(QString, type);
        OpCase c{"Pooling",
                 {{"pool_type", type.toStdString()}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"},
                  {"pooling_convention", "full"}},
                 {{2, 3, 8, 7}}};
        checkLowPrecision(c);
    }

    void poolingRejects_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("lp") << "pool_type" << "lp" << "pool_type";
        QTest::newRow("3-D kernel") << "kernel" << "(2, 2, 2)" << "kernel must have 2 entries";
        QTest::newRow("convention") << "pooling_convention" << "same" << "pooling_convention";
        QTest::newRow("NHWC") << "layout" << "NHWC" << "layout NHWC";
        QTest::newRow("kernel too big") << "kernel" << "(9, 9)" << "exceeds";
        QTest::newRow("no kernel") << "kernel" << "()" << "kernel is required";
    }
    void poolingRejects() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        Attributes attrs{{"kernel", "(2, 2)"}, {"pool_type", "avg"}};
        attrs[key.toStdString()] = value.toStdString();
        expectOpError({"Pooling", attrs, {{1, 2, 5, 5}}}, fragment);
    }

    // --- BatchNorm ---------------------------------------------------------------------------------
    void batchNormTrainingForward() {
        // (N=2, C=2, 1, 2): channel 0 holds {1, 3, 5, 7}, channel 1 {2, 2, 4, 4}.
        OpCase c{"BatchNorm", {{"fix_gamma", "False"}, {"eps", "0.001"}, {"momentum", "0.9"}},
                 {{2, 2, 1, 2}, {2}, {2}, {2}, {2}}};
        c.inputValues = {{1, 3, 2, 2, 5, 7, 4, 4}, {2, 0.5f}, {1, -1}, {0.5f, 0}, {2, 1}};
        c.noGrad = {3, 4};
        OpRunner runner(c, DType::F32, true);
        const auto outs = runner.forward(true);
        QCOMPARE(outs.size(), std::size_t(3));
        // Batch statistics: mean 4 and 3, biased variance 5 and 1.
        const double inv0 = 1.0 / std::sqrt(5.001), inv1 = 1.0 / std::sqrt(1.001);
        const std::vector<double> x{1, 3, 2, 2, 5, 7, 4, 4};
        for (std::size_t i = 0; i < x.size(); ++i) {
            const bool ch0 = (i / 2) % 2 == 0;
            const double expected = ch0 ? (x[i] - 4) * inv0 * 2 + 1 : (x[i] - 3) * inv1 * 0.5 - 1;
            QVERIFY2(std::abs(outs[0][i] - expected) < 1e-5, qPrintable(QString::number(i)));
        }
        // Output 1 is the batch mean, output 2 the inverse standard deviation (as MXNet's).
        QVERIFY(std::abs(outs[1][0] - 4) < 1e-6 && std::abs(outs[1][1] - 3) < 1e-6);
        QVERIFY(std::abs(outs[2][0] - inv0) < 1e-6 && std::abs(outs[2][1] - inv1) < 1e-6);
        // moving = moving * 0.9 + batch * 0.1, with the biased batch variance.
        const auto mean = download(runner.backend(), runner.executor().value("in3"));
        const auto var = download(runner.backend(), runner.executor().value("in4"));
        QVERIFY(std::abs(mean[0] - (0.45f + 0.4f)) < 1e-6 && std::abs(mean[1] - 0.3f) < 1e-6);
        QVERIFY(std::abs(var[0] - (1.8f + 0.5f)) < 1e-6 && std::abs(var[1] - (0.9f + 0.1f)) < 1e-6);
    }

    void batchNormInference() {
        // Inference normalises with the moving statistics and leaves them alone; fix_gamma (the
        // default) ignores gamma.
        OpCase c{"BatchNorm", {}, {{1, 2, 2, 1}, {2}, {2}, {2}, {2}}};
        c.inputValues = {{1, 3, 2, 2}, {5, 5}, {0.5f, 0}, {1, 2}, {3.999f, 0.999f}};
        c.noGrad = {3, 4};
        c.training = false;
        OpRunner runner(c, DType::F32, false);
        const auto outs = runner.forward(false);
        const std::vector<float> expected{0.5f + 0.0f, 0.5f + 1.0f, 0.0f, 0.0f};
        QVERIFY2(maxAbsDiff(outs[0], expected) < 1e-5, "BatchNorm inference differs");
        QVERIFY(std::abs(outs[1][0] - 1) < 1e-6 && std::abs(outs[2][1] - 1) < 1e-5);
        QCOMPARE(download(runner.backend(), runner.executor().value("in3")), (std::vector<float>{1, 2}));
        QCOMPARE(download(runner.backend(), runner.executor().value("in4")), (std::vector<float>{3.999f, 0.999f}));
        // use_global_stats does the same in training.
        OpCase g = c;
        g.attrs["use_global_stats"] = "True";
        g.training = true;
        OpRunner global(g, DType::F32, true);
        QVERIFY2(maxAbsDiff(global.forward(true)[0], expected) < 1e-5, "use_global_stats differs");
        QCOMPARE(download(global.backend(), global.executor().value("in3")), (std::vector<float>{1, 2}));
    }

    void batchNormGradient_data() {
        QTest::addColumn<QString>("fixGamma");
        QTest::addColumn<QString>("globalStats");
        QTest::addColumn<bool>("training");
        QTest::addColumn<int>("axis");
        QTest::newRow("training") << "False" << "False" << true << 1;
        QTest::newRow("training fix_gamma") << "True" << "False" << true << 1;
        QTest::newRow("training axis -1") << "False" << "False" << true << -1;
        QTest::newRow("use_global_stats") << "False" << "True" << true << 1;
        QTest::newRow("inference") << "False" << "False" << false << 1;
    }
    void batchNormGradient() {
        QFETCH(QString, fixGamma);
        QFETCH(QString, globalStats);
        QFETCH(bool, training);
        QFETCH(int, axis);
        const int64_t channels = axis == 1 ? 3 : 2;
        OpCase c{"BatchNorm",
                 {{"fix_gamma", fixGamma.toStdString()},
                  {"use_global_stats", globalStats.toStdString()},
                  {"axis", std::to_string(axis)}},
                 {{2, 3, 2, 2}, {channels}, {channels}, {channels}, {channels}}};
        c.inputValues = {{}, {}, {}, {}, std::vector<float>(static_cast<std::size_t>(channels), 0.7f)};
        c.noGrad = {3, 4};
        c.gradOutputs = 1;
        c.training = training;
        QVERIFY2(gradientError(c) < 1e-3, "BatchNorm backward differs from finite differences");
        if (fixGamma == "True") {
            OpRunner runner(c, DType::F32, true);
            const auto grads = runner.backward({std::vector<float>(24, 1.0f), std::vector<float>(3, 0.0f),
                                                std::vector<float>(3, 0.0f)},
                                               true);
            QCOMPARE(grads[1], std::vector<float>(3, 0.0f));
        }
    }

    void batchNormLowPrecision_data() {
        QTest::addColumn<bool>("training");
        QTest::newRow("training") << true;
        QTest::newRow("inference") << false;
    }
    void batchNormLowPrecision() {
        // gamma, beta and the moving statistics stay float32 with f16/bf16 data (dtype inference).
        QFETCH(bool, training);
        OpCase c{"BatchNorm", {{"fix_gamma", "False"}}, {{4, 3, 3, 3}, {3}, {3}, {3}, {3}}};
        c.inputValues = {{}, {}, {}, {}, {0.5f, 1.0f, 1.5f}};
        c.noGrad = {1, 2, 3, 4};
        c.training = training;
        checkLowPrecision(c);
        OpRunner low(c, DType::F16, false);
        QCOMPARE(low.executor().value("in0").dtype(), DType::F16);
        QCOMPARE(low.executor().value("in1").dtype(), DType::F32);
        QCOMPARE(low.executor().outputs()[1].dtype(), DType::F32);
    }

    void batchNormRejects() {
        OpCase c{"BatchNorm", {{"axis", "4"}}, {{2, 3, 2, 2}, {}, {}, {}, {}}};
        c.noGrad = {3, 4};
        expectOpError(c, "axis 4");
        OpCase wrong{"BatchNorm", {}, {{2, 3, 2, 2}, {4}, {}, {}, {}}};
        wrong.noGrad = {3, 4};
        expectOpError(wrong, "gamma");
    }

    // --- LayerNorm ---------------------------------------------------------------------------------
    void layerNormForward() {
        // Rows {1, 2, 3} and {2, 2, 2}: mean 2 and 2, std sqrt(2/3 + eps) and sqrt(eps).
        OpCase c{"LayerNorm", {{"eps", "0.00001"}}, {{2, 3}, {3}, {3}}};
        c.inputValues = {{1, 2, 3, 2, 2, 2}, {1, 2, 3}, {0, 0, 1}};
        const auto outs = runOp(c);
        QCOMPARE(outs.size(), std::size_t(3));
        const double s = std::sqrt(2.0 / 3.0 + 1e-5);
        const std::vector<float> expected{static_cast<float>(-1 / s), 0.0f, static_cast<float>(3 / s + 1), 0, 0, 1};
        QVERIFY2(maxAbsDiff(outs[0], expected) < 1e-5, "LayerNorm forward differs");
        QVERIFY2(maxAbsDiff(outs[1], {2, 2}) < 1e-6, "LayerNorm mean differs");
        QVERIFY2(maxAbsDiff(outs[2], {static_cast<float>(s), std::sqrt(1e-5f)}) < 1e-6, "LayerNorm std differs");
    }

    void layerNormShapes() {
        OpCase c{"LayerNorm", {{"axis", "1"}}, {{2, 4, 3}, {}, {}}};
        OpRunner runner(c, DType::F32, false);
        QCOMPARE(runner.executor().value("in1").shape(), (Shape{4}));
        QCOMPARE(runner.executor().outputs()[1].shape(), (Shape{2, 1, 3}));
        QCOMPARE(runner.executor().outputs()[2].shape(), (Shape{2, 1, 3}));
    }

    void layerNormGradient_data() {
        QTest::addColumn<int>("axis");
        QTest::newRow("last") << -1;
        QTest::newRow("middle") << 1;
        QTest::newRow("first") << 0;
    }
    void layerNormGradient() {
        QFETCH(int, axis);
        const Shape data{5, 4, 6};
        const int64_t channels = data[static_cast<std::size_t>(axis < 0 ? axis + 3 : axis)];
        OpCase c{"LayerNorm", {{"axis", std::to_string(axis)}}, {data, {channels}, {channels}}};
        c.gradOutputs = 1;
        const double error = gradientError(c);
        QVERIFY2(error < 1e-3,
                 qPrintable(QString("LayerNorm backward differs from finite differences by %1").arg(error)));
    }

    void layerNormLowPrecision() {
        OpCase c{"LayerNorm", {}, {{4, 16}, {16}, {16}}};
        checkLowPrecision(c);
    }

    void layerNormRejects() {
        expectOpError({"LayerNorm", {{"axis", "2"}}, {{2, 3}, {}, {}}}, "axis 2");
    }
};

QTEST_GUILESS_MAIN(TestOpsNn)
#include "test_ops_nn.moc"
