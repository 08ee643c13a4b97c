// The ONNX runner (exec/onnx/onnx_runner.h): ONNX's own node tests (Debian's libonnx-testdata, each
// a model with input and expected output protobufs) run for every operator the engine supports,
// with ONNX's backend tolerance (rtol 1e-3, atol 1e-7; integers and bools exact, dtypes and dims
// equal), and the runner's own behaviour on models built here: dynamic axes, shape subgraphs, the
// float16 rounding rule, and clear errors for unsupported ops and wrong inputs.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <iterator>
#include <map>
#include <set>

#include "amp/onnx_conversion.h"
#include "exec/onnx/onnx_compare.h"
#include "exec/onnx/onnx_kernel_util.h"
#include "exec/onnx/onnx_runner.h"
#include "formats/model_file.h"
#include "formats/onnx_program.h"
#include "onnx_test_models.h"
#include "tensor/seeded_random.h"
#include "tensor/float_convert.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;
namespace fs = std::filesystem;

namespace {

const fs::path kTestData = "/usr/share/libonnx-testdata/data";
const fs::path kNodeTests = kTestData / "node";

// Why `actual` differs from `expected`, or "" when it does not (ONNX's assert_allclose).
std::string difference(const HostTensor& expected, const HostTensor& actual) {
    if (expected.dtype() != actual.dtype()) {
        return "dtype " + std::string(dtypeName(actual.dtype())) + ", expected " + std::string(dtypeName(expected.dtype()));
    }
    if (expected.dims() != actual.dims()) return "dims " + dimsString(actual.dims()) + ", expected " + dimsString(expected.dims());
    const bool floating = isFloat(expected.dtype());
    for (int64_t i = 0; i < expected.size(); ++i) {
        const double e = expected.numberAt(i), a = actual.numberAt(i);
        const bool same = floating ? ((std::isnan(e) && std::isnan(a)) || e == a || std::fabs(a - e) <= 1e-7 + 1e-3 * std::fabs(e))
                                   : expected.integerAt(i) == actual.integerAt(i);
        if (!same) {
            return "element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " + std::to_string(e);
        }
    }
    return {};
}

// libonnx-testdata 1.12 stores bfloat16 values as uint16 tensors of the same bits (numpy has no
// bfloat16): read as the dtype the model declares.
HostTensor asDeclared(const HostTensor& t, std::optional<DType> declared) {
    if (t.dtype() != DType::U16 || declared != DType::BF16) return t;
    HostTensor bf(DType::BF16, t.dims());
    std::copy(t.raw(), t.raw() + t.bytes(), bf.mutableRaw());
    return bf;
}

std::string squashed(std::string s) {
    std::string out;
    for (const char c : s) {
        if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// The operator a node test is for: a one-node model's op; for a multi-node one (an "_expanded"
// function body) the op whose name the test's name begins with.
std::string operatorOf(const std::string& test, const OnnxProgram& program) {
    if (program.graph.nodes.size() == 1) return program.graph.nodes[0].op;
    const std::string name = squashed(test.substr(5));
    std::string best;
    for (const std::string& op : onnxOpTypes()) {
        const std::string s = squashed(op);
        if (name.rfind(s, 0) == 0 && s.size() > squashed(best).size()) best = op;
    }
    return best.empty() ? program.graph.nodes.back().op : best;
}

// Node tests whose data contradicts ONNX's specification or the model's own declarations, and what
// the engine does instead (checked by checkDeviation):
// - libonnx-testdata 1.12 makes its float -> bfloat16 casts by truncating the low 16 bits; ONNX's
//   Cast (and the engine, PyTorch and ONNX Runtime) round to nearest even.
// - The CastLike bfloat16 models declare 'like' as [3, 4] and their data gives it as [1]: the
//   runner refuses an input that contradicts its declaration, as ONNX Runtime does.
bool isTruncatingBfloat16Cast(const std::string& test) { return test.find("FLOAT_to_BFLOAT16") != std::string::npos; }
bool isMisdeclaredCastLike(const std::string& test) {
    return test.rfind("test_castlike_", 0) == 0 && test.find("BFLOAT16") != std::string::npos;
}

// "" when the runner does what the comment above says for `test`, else what it did.
std::string checkDeviation(const std::string& test, const fs::path& dir, const OnnxRunner& runner) {
    const OnnxProgram& program = runner.program();
    const fs::path set = dir / "test_data_set_0";
    std::map<std::string, HostTensor> inputs;
    for (std::size_t i = 0; i < program.graph.inputs.size(); ++i) {
        inputs[program.graph.inputs[i].name] = asDeclared(readOnnxTensorFile(set / ("input_" + std::to_string(i) + ".pb")),
                                                          program.graph.inputs[i].dtype);
    }
    if (isMisdeclaredCastLike(test)) {
        try {
            runner.run(inputs);
            return "ran although 'like' contradicts its declared dims";
        } catch (const OnnxRunError& e) {
            if (std::string(e.what()).find("has dims [3, 4], given [1]") == std::string::npos) return e.what();
        }
        const HostTensor& like = inputs.at("like");
        inputs["like"] = HostTensor(like.dtype(), {3, 4});  // as declared; CastLike reads only its dtype
    }
    const HostTensor out = runner.run(inputs).outputs.at(0).second;
    const HostTensor& in = inputs.at(program.graph.inputs[0].name);
    if (isTruncatingBfloat16Cast(test)) {
        for (int64_t i = 0; i < in.size(); ++i) {
            if (out.data<uint16_t>()[i] != floatToBfloat16Bits(in.data<float>()[i])) return "not rounded to nearest even at " + std::to_string(i);
        }
        return {};
    }
    return difference(asDeclared(readOnnxTensorFile(set / "output_0.pb"), program.graph.outputs[0].dtype), out);
}

struct Outcome {
    int passed = 0, failed = 0, unsupported = 0;
    std::vector<std::string> failures;
};

// Runs one node test directory; "" when every data set passed, else what went wrong.
// `unsupported` is set when the runner refused a case it does not implement (OnnxUnsupported).
std::string runNodeTest(const fs::path& dir, const OnnxRunner& runner, bool& unsupported) {
    const OnnxProgram& program = runner.program();
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    }
    std::sort(sets.begin(), sets.end());
    for (const fs::path& set : sets) {
        std::map<std::string, HostTensor> inputs;
        const auto required = program.requiredInputs();
        for (std::size_t i = 0;; ++i) {
            const fs::path file = set / ("input_" + std::to_string(i) + ".pb");
            if (!fs::exists(file)) break;
            if (i >= program.graph.inputs.size()) return "more input files than inputs";
            try {
                const OnnxValueInfo& info = program.graph.inputs[i];
                inputs[info.name] = asDeclared(readOnnxTensorFile(file), info.dtype);
            } catch (const std::exception& e) {
                unsupported = true;  // a string tensor
                return e.what();
            }
        }
        OnnxRunResult result;
        try {
            result = runner.run(inputs);
        } catch (const OnnxUnsupported& e) {
            unsupported = true;
            return e.what();
        } catch (const std::exception& e) {
            return e.what();
        }
        for (std::size_t o = 0; o < result.outputs.size(); ++o) {
            const fs::path file = set / ("output_" + std::to_string(o) + ".pb");
            if (!fs::exists(file)) continue;
            HostTensor expected;
            try {
                expected = readOnnxTensorFile(file);
            } catch (const std::exception& e) {
                unsupported = true;
                return e.what();
            }
            const std::string why = difference(asDeclared(expected, program.graph.outputs[o].dtype), result.outputs[o].second);
            if (!why.empty()) return set.filename().string() + ": output '" + result.outputs[o].first + "': " + why;
        }
    }
    return {};
}



// A model from its graph (opset 17), as the runner's program.
std::shared_ptr<const OnnxProgram> programOf(const onnx::GraphProto& graph, int64_t opset = 17) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto* set = model.add_opset_import();
    set->set_domain("");
    set->set_version(opset);
    *model.mutable_graph() = graph;
    const std::string bytes = model.SerializeAsString();
    return onnxProgramOf(parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "test.onnx"));
}

void setDimParam(onnx::ValueInfoProto* value, int dim, const std::string& name) {
    value->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(dim)->set_dim_param(name);
}

onnx::TensorProto* addInt64s(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& values) {
    onnx::TensorProto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (const int64_t v : values) t->add_int64_data(v);
    return t;
}

HostTensor ramp(Dims dims, float step = 0.5f, DType dtype = DType::F32) {
    std::vector<float> v(static_cast<std::size_t>(dimsSize(dims)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = step * static_cast<float>(i) - 3.0f;
    return HostTensor::fromFloats(v, std::move(dims), dtype);
}

// Every model directory of `suite` whose ops the engine runs, by the operator it is for; those that
// use an op the engine lacks are counted in `skipped`.
std::map<std::string, Outcome> runSuite(const fs::path& suite, int& ran, int& skipped) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(suite)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    std::map<std::string, Outcome> byOp;
    for (const fs::path& dir : dirs) {
        const std::string test = dir.filename().string();
        std::shared_ptr<const OnnxProgram> program;
        try {
            program = onnxProgramOf(openModelFile(dir / "model.onnx"));
        } catch (const std::exception&) {
            ++skipped;  // a model libonnx 1.12 cannot read
            continue;
        }
        if (!unsupportedOnnxOps(*program).empty()) {
            ++skipped;
            continue;
        }
        ++ran;
        Outcome& outcome = byOp[operatorOf(test, *program)];
        bool unsupported = false;
        const OnnxRunner runner(program);
        const bool deviates = isTruncatingBfloat16Cast(test) || isMisdeclaredCastLike(test);
        const std::string why = deviates ? checkDeviation(test, dir, runner) : runNodeTest(dir, runner, unsupported);
        if (why.empty()) {
            ++outcome.passed;
        } else if (unsupported) {
            ++outcome.unsupported;
            outcome.failures.push_back(test + " (not supported): " + why);
        } else {
            ++outcome.failed;
            outcome.failures.push_back(test + ": " + why);
        }
    }
    return byOp;
}

// Prints the failures (and, with AMS_ONNX_CONFORMANCE_TABLE set, the README's table) and returns
// how many failed.
int report(const std::string& suite, const std::map<std::string, Outcome>& byOp, int ran, int skipped) {
    int passed = 0, failed = 0, unsupported = 0;
    QStringList table{"| operator | passed | not supported | failed |", "|---|---|---|---|"};
    for (const auto& [op, o] : byOp) {
        passed += o.passed;
        failed += o.failed;
        unsupported += o.unsupported;
        table << QString("| %1 | %2 | %3 | %4 |").arg(QString::fromStdString(op)).arg(o.passed).arg(o.unsupported).arg(o.failed);
        for (const std::string& f : o.failures) qInfo().noquote() << QString::fromStdString(f);
    }
    if (qEnvironmentVariableIsSet("AMS_ONNX_CONFORMANCE_TABLE")) qInfo().noquote() << table.join('\n');
    qInfo().noquote() << QString("%1: %2 ran (%3 passed, %4 not supported, %5 failed), %6 use an op the engine does not run")
                             .arg(QString::fromStdString(suite)).arg(ran).arg(passed).arg(unsupported).arg(failed).arg(skipped);
    return failed;
}

}  // namespace

class TestOnnxExecution : public QObject {
    Q_OBJECT

private slots:
    // Where and the binary ops with an operand repeated along the outer axes or a scalar (the row
    // by row paths): element for element what broadcasting says.
    void broadcastRowsMatchTheRule() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "c", {2, 3, 4}, onnx::TensorProto::BOOL);
        addValue(g.mutable_input(), "m", {4}, onnx::TensorProto::BOOL);
        addValue(g.mutable_input(), "x", {2, 3, 4});
        addValue(g.mutable_input(), "s", {1});
        addValue(g.mutable_input(), "r", {3, 4});
        for (const char* out : {"w1", "w2", "w3", "a1", "a2"}) addValue(g.mutable_output(), out, {2, 3, 4});
        g.mutable_output(2)->mutable_type()->mutable_tensor_type()->mutable_shape()->clear_dim();
        g.mutable_output(2)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
        addNode(&g, "Where", "where1", {"c", "s", "x"}, {"w1"});  // scalar X, whole Y
        addNode(&g, "Where", "where2", {"m", "x", "r"}, {"w2"});  // a mask per column, Y per row
        addNode(&g, "Where", "where3", {"m", "s", "s"}, {"w3"});  // nothing whole: [4], the general loop
        addNode(&g, "Add", "add1", {"x", "r"}, {"a1"});
        addNode(&g, "Sub", "sub1", {"r", "x"}, {"a2"});
        std::vector<float> xs(24), rs(12);
        std::vector<int64_t> cs(24), ms{1, 0, 0, 1};
        for (int i = 0; i < 24; ++i) xs[i] = static_cast<float>(i) * 0.5f, cs[i] = (i * 7) % 3 == 0;
        for (int i = 0; i < 12; ++i) rs[i] = 100.0f + static_cast<float>(i);
        const auto bools = [](const std::vector<int64_t>& v, Dims dims) {
            HostTensor t(DType::Bool, std::move(dims));
            for (std::size_t i = 0; i < v.size(); ++i) t.mutableData<uint8_t>()[i] = v[i] != 0;
            return t;
        };
        const OnnxRunResult result = OnnxRunner(programOf(g)).run({{"c", bools(cs, {2, 3, 4})},
                                                                   {"m", bools(ms, {4})},
                                                                   {"x", HostTensor::fromFloats(xs, {2, 3, 4})},
                                                                   {"s", HostTensor::fromFloats({-1.0f}, {1})},
                                                                   {"r", HostTensor::fromFloats(rs, {3, 4})}});
        const auto out = [&](std::size_t k) { return result.outputs.at(k).second.floats(); };
        QCOMPARE(result.outputs.at(2).second.dims(), (Dims{4}));
        for (int i = 0; i < 24; ++i) {
            QCOMPARE(out(0)[i], cs[i] ? -1.0f : xs[i]);
            QCOMPARE(out(1)[i], ms[i % 4] ? xs[i] : rs[i % 12]);
            if (i < 4) QCOMPARE(out(2)[i], -1.0f);
            QCOMPARE(out(3)[i], xs[i] + rs[i % 12]);
            QCOMPARE(out(4)[i], rs[i % 12] - xs[i]);
        }
    }

    // Softmax's exponential: within 3e-7 of libm's over float's range, 0 below it, NaN kept.
    void fastExpFollowsExp() {
        double worst = 0.0;
        for (float x = -87.0f; x <= 88.0f; x += 0.0137f) {
            const double want = std::exp(static_cast<double>(x));
            worst = std::max(worst, std::fabs(fastExp(x) - want) / want);
        }
        QVERIFY2(worst < 3e-7, qPrintable(QString::number(worst)));
        QCOMPARE(fastExp(0.0f), 1.0f);
        QCOMPARE(fastExp(-std::numeric_limits<float>::infinity()), 0.0f);
        QCOMPARE(fastExp(-100.0f), 0.0f);
        QVERIFY(std::isnan(fastExp(std::numeric_limits<float>::quiet_NaN())));
    }

    void nodeTestsOfEverySupportedOperatorPass() {
        if (!fs::is_directory(kNodeTests)) QSKIP("libonnx-testdata is not installed");
        int ran = 0, skipped = 0;
        const auto byOp = runSuite(kNodeTests, ran, skipped);
        QCOMPARE(report("node tests", byOp, ran, skipped), 0);
        QVERIFY(ran > 700);
    }

    // A batch axis declared symbolic runs with any size, and the shape subgraph exporters write
    // (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) is computed from the actual input.
    void symbolicBatchAndShapeSubgraphRunWithAnySize() {
        onnx::GraphProto g;
        setDimParam(addValue(g.mutable_input(), "x", {1, 3, 4}), 0, "batch");
        addValue(g.mutable_output(), "y", {});
        addInt64s(&g, "zero", {0});
        addInt64s(&g, "minus_one", {-1});
        addNode(&g, "Shape", "shape", {"x"}, {"s"});
        auto* gather = addNode(&g, "Gather", "batch", {"s", "zero"}, {"n"});
        (void)gather;
        setInt(addNode(&g, "Concat", "target", {"n", "minus_one"}, {"t"}), "axis", 0);
        addNode(&g, "Reshape", "flat", {"x", "t"}, {"r"});
        addNode(&g, "Relu", "relu", {"r"}, {"y"});
        const OnnxRunner runner(programOf(g));
        for (const int64_t batch : {1, 5}) {
            const HostTensor x = ramp({batch, 3, 4});
            const OnnxRunResult result = runner.run({{"x", x}});
            const HostTensor& y = result.outputs.at(0).second;
            QCOMPARE(y.dims(), (Dims{batch, 12}));
            for (int64_t i = 0; i < y.size(); ++i) QCOMPARE(y.data<float>()[i], std::max(0.0f, x.data<float>()[i]));
        }
        // A fixed axis still has to match.
        try {
            runner.run({{"x", ramp({2, 4, 4})}});
            QFAIL("ran with dims that contradict the declaration");
        } catch (const OnnxRunError& e) {
            QVERIFY2(std::string(e.what()).find("input 'x' has dims [batch, 3, 4], given [2, 4, 4]") != std::string::npos, e.what());
        }
    }

    // float16 ops compute in float32 and round once on store: Add then Mul in float16 differ from
    // the same in float32 rounded at the end exactly as two roundings do.
    // A run that keeps no values fuses a Conv's lone Relu into it and leaves values that only Convs,
    // Relus and Adds read in oneDNN's layout (planLayouts): the same outputs, bit for bit, as a run
    // that keeps every value (and so neither fuses nor keeps a layout); a graph output is stored
    // plain, and an Add that broadcasts gets its blocked input written plain first.
    void convolutionChainsFuseAndKeepTheirLayout() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "x", {1, 16, 12, 12});
        addValue(g.mutable_output(), "y", {1, 16, 12, 12});
        addValue(g.mutable_output(), "z", {1, 32, 12, 12});
        addValue(g.mutable_output(), "v", {1, 16, 12, 12});
        SeededRandom random(3);
        const auto weights = [&](const std::string& name, std::vector<int64_t> dims) { addSeededFloats(&g, name, dims, random, 0.3); };
        weights("w1", {32, 16, 3, 3});
        weights("w2", {32, 32, 1, 1});
        weights("w3", {16, 32, 3, 3});
        weights("b1", {32});
        weights("c", {16, 1, 1});
        const auto pads = [](onnx::NodeProto* n) {
            auto* a = n->add_attribute();
            a->set_name("pads");
            a->set_type(onnx::AttributeProto::INTS);
            for (int k = 0; k < 4; ++k) a->add_ints(1);
        };
        pads(addNode(&g, "Conv", "c1", {"x", "w1", "b1"}, {"h1"}));
        addNode(&g, "Relu", "r1", {"h1"}, {"a1"});            // fused into c1; a1 read by c2 only
        addNode(&g, "Conv", "c2", {"a1", "w2"}, {"h2"});       // h2 read by c3 and Relu r2: both take it blocked
        pads(addNode(&g, "Conv", "c3", {"h2", "w3"}, {"h3"}));  // h3 read by two Adds
        addNode(&g, "Relu", "r2", {"h2"}, {"z"});              // on the blocked h2, z written plain
        addNode(&g, "Add", "add", {"h3", "x"}, {"y"});         // blocked h3 + plain x
        addNode(&g, "Add", "add2", {"h3", "c"}, {"v"});        // broadcast: h3 written plain first
        const auto program = programOf(g);
        const std::vector<OnnxNodePlan> plan = planLayouts(program->graph);
        QCOMPARE(plan.size(), std::size_t(7));
        QVERIFY(plan[0].fusedRelu && plan[0].output0 == "a1" && plan[0].outputMayStayBlocked);
        QVERIFY(plan[1].skip);
        QVERIFY(plan[2].outputMayStayBlocked && !plan[2].fusedRelu);
        QVERIFY(plan[3].outputMayStayBlocked);
        QVERIFY(!plan[4].outputMayStayBlocked && !plan[5].outputMayStayBlocked);  // graph outputs
        std::vector<float> xs(16 * 144);
        for (float& v : xs) v = float(random.uniform01() - 0.5);
        const std::map<std::string, HostTensor> inputs{{"x", HostTensor::fromFloats(xs, {1, 16, 12, 12})}};
        const OnnxRunner runner(program);
        const OnnxRunResult planned = runner.run(inputs);
        const OnnxRunResult kept = runner.run(inputs, true);
        QCOMPARE(planned.nodesRun, std::size_t(6));  // the fused Relu does not run on its own
        QCOMPARE(planned.outputs.size(), std::size_t(3));
        for (std::size_t o = 0; o < 3; ++o) {
            QCOMPARE(planned.outputs[o].first, kept.outputs[o].first);
            QVERIFY(planned.outputs[o].second.floats() == kept.outputs[o].second.floats());
        }
        QVERIFY(kept.values.contains("h1"));  // a run that keeps values computes h1 apart
    }

    // ResNet's residual blocks in a run that keeps no values: the stem's MaxPool on the blocked
    // layout, each residual Add (and the Relu after it) inside the later Conv among its operands as
    // oneDNN post-ops, the block input's buffer taking the sum where nothing reads it later; 3x3
    // convolutions by Winograd. The same outputs, bit for bit, as a run that keeps every value.
    void residualBlocksRunInsideTheirConvolutions() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "x", {2, 16, 15, 15});
        addValue(g.mutable_output(), "y", {2, 32, 4, 4});
        SeededRandom random(5);
        const auto weights = [&](const std::string& name, std::vector<int64_t> dims) { addSeededFloats(&g, name, dims, random, 0.3); };
        const auto ints = [](onnx::NodeProto* n, const char* name, std::vector<int64_t> values) {
            auto* a = n->add_attribute();
            a->set_name(name);
            a->set_type(onnx::AttributeProto::INTS);
            for (const int64_t v : values) a->add_ints(v);
            return n;
        };
        weights("w0", {16, 16, 3, 3});
        weights("wa", {16, 16, 3, 3});
        weights("wb", {16, 16, 3, 3});
        weights("wc", {32, 16, 3, 3});
        weights("wd", {32, 16, 1, 1});
        weights("bias", {32});
        ints(addNode(&g, "Conv", "stem", {"x", "w0"}, {"s"}), "pads", {1, 1, 1, 1});
        addNode(&g, "Relu", "stem_relu", {"s"}, {"sr"});
        onnx::NodeProto* pool = ints(addNode(&g, "MaxPool", "pool", {"sr"}, {"p"}), "kernel_shape", {3, 3});
        ints(pool, "strides", {2, 2});
        ints(pool, "pads", {1, 1, 1, 1});
        auto* ceil = pool->add_attribute();  // 15 -> 8 with ceil_mode (7 without)
        ceil->set_name("ceil_mode");
        ceil->set_type(onnx::AttributeProto::INT);
        ceil->set_i(1);
        // Block 1: p -> a -> b, b + p, Relu (p read before by a: its buffer takes the sum).
        ints(addNode(&g, "Conv", "a", {"p", "wa"}, {"ha"}), "pads", {1, 1, 1, 1});
        addNode(&g, "Relu", "a_relu", {"ha"}, {"ra"});
        ints(addNode(&g, "Conv", "b", {"ra", "wb"}, {"hb"}), "pads", {1, 1, 1, 1});
        addNode(&g, "Add", "add1", {"hb", "p"}, {"s1"});
        addNode(&g, "Relu", "relu1", {"s1"}, {"o1"});
        // Block 2, down-sampling: the 1x1 Conv comes after the 3x3 one, so the Add goes into it.
        ints(ints(addNode(&g, "Conv", "c", {"o1", "wc", "bias"}, {"hc"}), "pads", {1, 1, 1, 1}), "strides", {2, 2});
        ints(addNode(&g, "Conv", "down", {"o1", "wd"}, {"hd"}), "strides", {2, 2});
        addNode(&g, "Add", "add2", {"hc", "hd"}, {"s2"});
        addNode(&g, "Relu", "relu2", {"s2"}, {"y"});
        const auto program = programOf(g);
        const std::vector<OnnxNodePlan> plan = planLayouts(program->graph);
        QCOMPARE(plan.size(), std::size_t(12));
        QVERIFY(plan[0].fusedRelu && plan[0].outputMayStayBlocked);  // stem + Relu, read by MaxPool
        QVERIFY(plan[2].outputMayStayBlocked);                       // the pool's output, read by a and add1
        QCOMPARE(plan[5].residual, std::string("p"));
        QCOMPARE(plan[5].residualAdd, std::size_t(6));
        QCOMPARE(plan[5].residualRelu, std::size_t(7));
        QCOMPARE(plan[5].residualOutput, std::string("o1"));
        QVERIFY(plan[5].residualMayBeOverwritten && plan[5].residualOutputMayStayBlocked);
        QCOMPARE(plan[8].residualAdd, OnnxNodePlan::kNone);  // c: its output's Add has a later operand
        QCOMPARE(plan[9].residual, std::string("hc"));
        QCOMPARE(plan[9].residualOutput, std::string("y"));
        QVERIFY(plan[9].residualMayBeOverwritten);  // hc: read by add2 alone
        std::vector<float> xs(2 * 16 * 15 * 15);
        for (float& v : xs) v = float(random.uniform01() - 0.5);
        const OnnxRunner runner(program);
        const auto sameBits = [](const OnnxRunResult& a, const OnnxRunResult& b) {
            const std::vector<float> x = a.outputs.at(0).second.floats(), y = b.outputs.at(0).second.floats();
            return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
        };
        const std::map<std::string, HostTensor> inputs{{"x", HostTensor::fromFloats(xs, {2, 16, 15, 15})}};
        const OnnxRunResult planned = runner.run(inputs);
        const OnnxRunResult kept = runner.run(inputs, true);
        QCOMPARE(planned.nodesRun, std::size_t(6));  // 12 less 2 fused Relus, 2 Adds, their 2 Relus
        QCOMPARE(kept.nodesRun, std::size_t(12));
        QCOMPARE(planned.outputs.at(0).second.dims(), (Dims{2, 32, 4, 4}));
        QVERIFY(sameBits(planned, kept));
        // oneDNN's fused Relu makes NaN 0; an input with a NaN runs unfused and keeps it.
        xs[1000] = std::numeric_limits<float>::quiet_NaN();
        const std::map<std::string, HostTensor> withNaN{{"x", HostTensor::fromFloats(xs, {2, 16, 15, 15})}};
        const OnnxRunResult unplanned = runner.run(withNaN);
        const OnnxRunResult keptNaN = runner.run(withNaN, true);
        QCOMPARE(unplanned.nodesRun, std::size_t(12));
        QVERIFY(sameBits(unplanned, keptNaN));
        const std::vector<float> out = unplanned.outputs.at(0).second.floats();
        QVERIFY(std::any_of(out.begin(), out.end(), [](float v) { return std::isnan(v); }));
        QCOMPARE(kept.values.at("p").dims(), (Dims{2, 16, 8, 8}));
    }

    void float16OpsRoundEachOutputOnce() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "a", {4}, onnx::TensorProto::FLOAT16);
        addValue(g.mutable_input(), "b", {4}, onnx::TensorProto::FLOAT16);
        addValue(g.mutable_output(), "y", {4}, onnx::TensorProto::FLOAT16);
        addNode(&g, "Add", "add", {"a", "b"}, {"s"});
        addNode(&g, "Mul", "mul", {"s", "b"}, {"y"});
        const std::vector<float> a{1.0f, 1000.0f, 0.1f, 60000.0f}, b{0.0009765625f, 3.3f, 0.2f, 2.0f};
        const OnnxRunResult r = OnnxRunner(programOf(g)).run({{"a", HostTensor::fromFloats(a, {4}, DType::F16)},
                                                              {"b", HostTensor::fromFloats(b, {4}, DType::F16)}}, true);
        const HostTensor& y = r.outputs.at(0).second;
        QCOMPARE(y.dtype(), DType::F16);
        QCOMPARE(r.values.at("s").dtype(), DType::F16);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const float ha = halfBitsToFloat(floatToHalfBits(a[i])), hb = halfBitsToFloat(floatToHalfBits(b[i]));
            const float s = halfBitsToFloat(floatToHalfBits(ha + hb));
            QCOMPARE(y.data<uint16_t>()[i], floatToHalfBits(s * hb));
        }
        QVERIFY(std::isinf(y.floats()[3]));  // 60000 * 2 overflows float16 where it would on a GPU
    }

    // Every unsupported op is named before anything runs; missing and unknown inputs are errors.
    void unsupportedOpsAndBadInputsAreClearErrors() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "x", {2});
        addValue(g.mutable_output(), "y", {2});
        addNode(&g, "Relu", "relu", {"x"}, {"r"});
        addNode(&g, "NegativeLogLikelihoodLoss", "loss", {"r", "r"}, {"l"});
        addNode(&g, "Det", "det", {"l"}, {"y"});
        try {
            OnnxRunner runner(programOf(g));
            QFAIL("bound a model with unsupported ops");
        } catch (const OnnxUnsupported& e) {
            QCOMPARE(std::string(e.what()), std::string("the model uses operator(s) the engine cannot run: Det, NegativeLogLikelihoodLoss"));
        }
        onnx::GraphProto ok;
        addValue(ok.mutable_input(), "x", {2});
        addValue(ok.mutable_output(), "y", {2});
        addNode(&ok, "Relu", "relu", {"x"}, {"y"});
        const OnnxRunner runner(programOf(ok));
        const auto message = [&](const std::map<std::string, HostTensor>& inputs) {
            try {
                runner.run(inputs);
            } catch (const OnnxRunError& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QCOMPARE(message({}), std::string("input 'x' is not given"));
        QCOMPARE(message({{"x", ramp({2})}, {"z", ramp({2})}}), std::string("the model has no input 'z'"));
        QCOMPARE(message({{"x", HostTensor::fromIntegers({1, 2}, {2})}}), std::string("input 'x' is float32, given int64"));
        // A model asking for an absurd tensor gets an error naming the node, not the machine's memory.
        onnx::GraphProto huge;
        addValue(huge.mutable_output(), "y", {});
        addInt64s(&huge, "dims", {int64_t{1} << 20, int64_t{1} << 20, int64_t{1} << 10});
        addNode(&huge, "ConstantOfShape", "fill", {"dims"}, {"y"});
        try {
            OnnxRunner(programOf(huge)).run({});
            QFAIL("allocated a 4 TiB tensor");
        } catch (const OnnxRunError& e) {
            QVERIFY2(std::string(e.what()).starts_with("node 'fill' (ConstantOfShape): a tensor of [1048576, 1048576, 1024] float32 is larger than"), e.what());
        }
    }

    // compare on ONNX models: the same figures as for MXNet graphs, outputs and nodes by name.
    void compareFindsTheErrorOfAFloat16Conversion() {
        onnx::GraphProto g;
        addValue(g.mutable_input(), "x", {2, 3});
        addValue(g.mutable_output(), "y", {2, 3});
        addNode(&g, "Exp", "exp", {"x"}, {"y"});
        onnx::GraphProto h = g;
        h.mutable_node(0)->set_output(0, "e");
        auto* toHalf = addNode(&h, "Cast", "x_amp_cast_float16", {"x"}, {"x16"});
        setInt(toHalf, "to", onnx::TensorProto::FLOAT16);
        h.mutable_node(0)->set_input(0, "x16");
        auto* back = addNode(&h, "Cast", "y_amp_cast_float32", {"e"}, {"y"});
        setInt(back, "to", onnx::TensorProto::FLOAT);
        // The cast nodes were appended after Exp but Exp reads x16: the order the program runs is topological.
        const ModelComparison c = compareOnnxModels(*programOf(g), *programOf(h), {{"x", ramp({2, 3}, 0.7f)}});
        QCOMPARE(c.outputs.size(), std::size_t(1));
        QCOMPARE(c.outputs[0].name, std::string("y"));
        QCOMPARE(c.outputs[0].convertedDtype, DType::F32);
        QVERIFY(c.outputs[0].maxRelError > 1e-5 && c.outputs[0].maxRelError < 1e-3);
        QCOMPARE(c.nodes.size(), std::size_t(1));
        QCOMPARE(c.nodes[0].name, std::string("exp"));
        QCOMPARE(c.nodes[0].convertedDtype, DType::F16);
    }

    // The models fuzz_onnx_run found crashing kernels with (an updates tensor smaller than its
    // indices, a scalar Concat, a shape product past int64, an output_shape shorter than the spatial
    // axes ...): run as the fuzzer runs them, each gives outputs or an OnnxRunError (under ASan in CI).
    void modelsThatCrashedTheRunnerFail() {
        const fs::path corpus = AMS_SOURCE_DIR "/tests/fuzz/corpus/onnx_run";
        int ran = 0;
        for (const auto& entry : fs::directory_iterator(corpus)) {
            std::ifstream in(entry.path(), std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            std::shared_ptr<const OnnxProgram> program;
            try {
                program = onnxProgramOf(parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "crash"));
            } catch (const std::exception&) {
                continue;
            }
            if (!unsupportedOnnxOps(*program).empty()) continue;
            std::map<std::string, HostTensor> inputs;
            for (const OnnxValueInfo* info : program->requiredInputs()) {
                Dims dims;
                if (info->dims) {
                    for (const auto& d : *info->dims) dims.push_back(d ? std::max<int64_t>(*d, 0) : 2);
                }
                inputs[info->name] = HostTensor(info->dtype.value_or(DType::F32), dims);
            }
            try {
                OnnxRunner(program).run(inputs);
            } catch (const OnnxRunError&) {
            }
            ++ran;
        }
        QVERIFY(ran >= 5);
    }

    // The other model suites of libonnx-testdata: small PyTorch modules exported by torch.onnx
    // (pytorch-converted, pytorch-operator) and hand-made models (simple).
    void exportedModelsOfTheTestDataRun() {
        if (!fs::is_directory(kTestData)) QSKIP("libonnx-testdata is not installed");
        for (const char* suite : {"pytorch-converted", "pytorch-operator", "simple"}) {
            int ran = 0, skipped = 0;
            const auto byOp = runSuite(kTestData / suite, ran, skipped);
            QCOMPARE(report(suite, byOp, ran, skipped), 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestOnnxExecution)
#include "test_onnx_execution.moc"
