// ONNX through the one entry point for model files: a model built here with libonnx's protobuf
// classes opens as a Graph (variables first, nodes in topological order even when the file's are
// not), saves back with its content unchanged, reads external data only from inside its folder,
// and garbled bytes are LoadErrors. Debian's libonnx-testdata models open too, when installed.
#include <QTemporaryDir>
#include <QtTest>

#include <google/protobuf/util/message_differencer.h>

#include <cstring>
#include <fstream>
#include <random>

#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "formats/onnx_graph_import.h"
#include "formats/onnx_model_copy.h"
#include "formats/onnx_model.h"
#include "onnx_test_models.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;
namespace fs = std::filesystem;

namespace {

const fs::path kTestData = "/usr/share/libonnx-testdata/data";

std::vector<float> iota(std::size_t n, float start) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
    return v;
}

std::string rawOf(const std::vector<float>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

std::vector<std::byte> bytesOf(const std::vector<float>& values) {
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    return {p, p + values.size() * sizeof(float)};
}

// X[1,4] -> MatMul W[4,3] (raw_data) -> Add B[3] (float_data) -> an unnamed Relu -> Y, and a
// custom-domain node beside it. `order` permutes the nodes as they stand in the file.
onnx::ModelProto mlp(std::vector<int> order = {0, 1, 2, 3}) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("test_onnx_format");
    model.set_doc_string("a model built by the test");
    auto* opset = model.add_opset_import();
    opset->set_version(17);
    auto* ms = model.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    auto* meta = model.add_metadata_props();
    meta->set_key("author");
    meta->set_value("AMP Studio");
    onnx::GraphProto* graph = model.mutable_graph();
    graph->set_name("mlp");
    addValue(graph->mutable_input(), "X", {1, 4});
    addValue(graph->mutable_output(), "Y", {1, 3});
    addValue(graph->mutable_output(), "G", {1, 3});
    addValue(graph->mutable_value_info(), "h", {1, 3});
    onnx::TensorProto* w = graph->add_initializer();
    w->set_name("W");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(4);
    w->add_dims(3);
    w->set_raw_data(rawOf(iota(12, 1)));
    onnx::TensorProto* b = graph->add_initializer();
    b->set_name("B");
    b->set_data_type(onnx::TensorProto::FLOAT);
    b->add_dims(3);
    for (const float v : iota(3, -1)) b->add_float_data(v);

    onnx::GraphProto nodes;
    addNode(&nodes, "MatMul", "fc", {"X", "W"}, {"h"})->set_doc_string("the layer");
    addNode(&nodes, "Add", "bias", {"h", "B"}, {"z"});
    addNode(&nodes, "Relu", "", {"z"}, {"Y"});
    onnx::NodeProto* gelu = addNode(&nodes, "Gelu", "gelu", {"z"}, {"G"});
    gelu->set_domain("com.microsoft");
    onnx::AttributeProto* attr = gelu->add_attribute();  // no Gelu has it: kept all the same
    attr->set_name("approximate_slope");
    attr->set_type(onnx::AttributeProto::FLOAT);
    attr->set_f(0.5f);
    for (const int i : order) *graph->add_node() = nodes.node(i);
    return model;
}

void writeModel(const fs::path& path, const onnx::ModelProto& model) {
    std::ofstream out(path, std::ios::binary);
    QVERIFY(model.SerializeToOstream(&out));
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> opsOf(const Graph& graph) {
    std::vector<std::string> ops;
    for (const Node& n : graph.nodes) ops.push_back(n.isVariable() ? "var:" + n.name : n.op + ":" + n.name);
    return ops;
}

// `w` as external data in `location`, `length` bytes at `offset` (negative: no entry).
void makeExternal(onnx::TensorProto* w, const std::string& location, int64_t offset, int64_t length) {
    w->clear_raw_data();
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    const auto entry = [&](const std::string& key, const std::string& value) {
        auto* e = w->add_external_data();
        e->set_key(key);
        e->set_value(value);
    };
    entry("location", location);
    if (offset >= 0) entry("offset", std::to_string(offset));
    if (length >= 0) entry("length", std::to_string(length));
}

// The model with W as external data (see makeExternal).
onnx::ModelProto withExternalW(const std::string& location, int64_t offset, int64_t length) {
    onnx::ModelProto model = mlp();
    makeExternal(model.mutable_graph()->mutable_initializer(0), location, offset, length);
    return model;
}

// The model with W [4, 1024] (16 KiB, over the 1 KiB a save puts in a side file) holding `values`.
onnx::ModelProto withLargeW(const std::vector<float>& values) {
    onnx::ModelProto model = mlp();
    onnx::TensorProto* w = model.mutable_graph()->mutable_initializer(0);
    w->clear_dims();
    w->add_dims(4);
    w->add_dims(1024);
    w->set_raw_data(rawOf(values));
    return model;
}

void writeSideFile(const fs::path& path, std::size_t skip, std::size_t bytes) {
    std::string data(skip, '\0');
    data += rawOf(iota(12, 1));
    data.resize(skip + bytes);
    std::ofstream(path, std::ios::binary) << data;
}

// A graph large enough for the import's and the copy's second threads: unnamed nodes, a node named
// like a value, a name used again and again, attributes, an input that is an initializer's default.
onnx::ModelProto largeModel() {
    onnx::ModelProto model = emptyModelNamed("large");
    onnx::GraphProto* g = model.mutable_graph();
    addValue(g->mutable_input(), "x", {1, 8});
    addValue(g->mutable_input(), "w0", {8, 8});
    std::string h = "x";
    for (int b = 0; b < 8000; ++b) {
        const std::string k = std::to_string(b);
        addFloatInitializer(g, "w" + k, {8, 8})->set_raw_data(std::string(256, '\0'));
        addNode(g, "MatMul", b % 7 == 0 ? "" : "mm" + k, {h, "w" + k}, {"m" + k});
        addNode(g, "Relu", b % 11 == 0 ? "w" + k : "relu", {"m" + k}, {"r" + k});  // "relu" again and again
        setInt(addNode(g, "Softmax", "sm" + k, {"r" + k}, {"s" + k}), "axis", -1);
        h = "s" + k;
    }
    addValue(g->mutable_output(), h, {1, 8});
    return model;
}

}  // namespace

class TestOnnxFormat : public QObject {
    Q_OBJECT
private slots:
    void opensAsAGraph() {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "mlp.onnx";
        writeModel(path, mlp());
        QVERIFY(isModelFileName("dir/MLP.ONNX"));
        QCOMPARE(sniffModelFormat(path), ModelFormat::Onnx);
        const ModelDocument document = openModelFile(path);
        QCOMPARE(document.origin.format, ModelFormat::Onnx);
        QCOMPARE(modelFormatName(document.origin.format), std::string_view("ONNX"));
        QCOMPARE(document.origin.files(), std::vector<fs::path>{path});
        QCOMPARE(modelStem(document.origin), (path.parent_path() / "mlp").string());
        const Graph& g = *document.graph;
        QCOMPARE(opsOf(g), (std::vector<std::string>{"var:X", "var:W", "var:B", "MatMul:fc", "Add:bias", "Relu:Relu_2",
                                                     "com.microsoft.Gelu:gelu"}));
        QCOMPARE(g.nodes[3].inputs, (std::vector<NodeEntry>{{0, 0, 0}, {1, 0, 0}}));
        QCOMPARE(g.nodes[5].inputs, (std::vector<NodeEntry>{{4, 0, 0}}));
        QCOMPARE(g.heads, (std::vector<NodeEntry>{{5, 0, 0}, {6, 0, 0}}));
        QCOMPARE(g.nodes[0].attrs.at("type"), std::string("float32 [1, 4]"));
        QCOMPARE(g.nodes[1].attrs.at("type"), std::string("float32 [4, 3]"));
        QCOMPARE(g.nodes[6].attrs.at("approximate_slope"), std::string("0.5"));
        QCOMPARE(g.attrs.at("onnx_opset_import"), std::string(R"({"":17,"com.microsoft":1})"));
        // The initializers are the parameters, from raw_data and from float_data alike.
        QVERIFY(document.params);
        QCOMPARE(document.params->arrays.size(), std::size_t(2));
        QCOMPARE(document.params->arrays[0].name, std::string("arg:W"));
        QCOMPARE(document.params->arrays[0].shape, (std::vector<int64_t>{4, 3}));
        QCOMPARE(document.params->arrays[0].data, bytesOf(iota(12, 1)));
        QCOMPARE(document.params->arrays[1].data, bytesOf(iota(3, -1)));
        const OnnxModel* model = onnxModelOf(document);
        QVERIFY(model);
        QCOMPARE(model->protoNodeOf, (std::vector<int>{-1, -1, -1, 0, 1, 2, 3}));
    }

    void recognisedByItsBytesWhateverItsName() {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "model.bin";
        writeModel(path, mlp());
        QCOMPARE(sniffModelFormat(path), ModelFormat::Onnx);
        QCOMPARE(openModelFile(path).graph->size(), std::size_t(7));
    }

    void fileOrderThatIsNotTopologicalIsSorted() {
        // Relu, Gelu, Add, MatMul in the file: the graph has MatMul, Add, Relu, Gelu (earliest ready first).
        onnx::ModelProto model = mlp({2, 3, 1, 0});
        const std::string bytes = model.SerializeAsString();
        const ModelDocument document =
            parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "shuffled");
        QCOMPARE(opsOf(*document.graph), (std::vector<std::string>{"var:X", "var:W", "var:B", "MatMul:fc", "Add:bias",
                                                                  "Relu:Relu_0", "com.microsoft.Gelu:gelu"}));
        QCOMPARE(onnxModelOf(document)->protoNodeOf, (std::vector<int>{-1, -1, -1, 3, 2, 0, 1}));
        document.graph->validate();
    }

    void subgraphReadsFromOutsideAreDependencies() {
        // An If whose branches read `z` (made by a node later in the file) must come after it.
        onnx::ModelProto model = mlp();
        onnx::GraphProto* graph = model.mutable_graph();
        onnx::NodeProto* cond = addNode(graph, "If", "branch", {"C"}, {"R"});
        addValue(graph->mutable_input(), "C", {});
        addValue(graph->mutable_output(), "R", {1, 3});
        for (const char* branch : {"then_branch", "else_branch"}) {
            onnx::AttributeProto* attr = cond->add_attribute();
            attr->set_name(branch);
            attr->set_type(onnx::AttributeProto::GRAPH);
            onnx::GraphProto* body = attr->mutable_g();
            addNode(body, "Neg", "", {"z"}, {std::string(branch) + "_out"});
            addValue(body->mutable_output(), std::string(branch) + "_out", {1, 3});
        }
        // Move the If to the front of the file.
        auto* nodes = graph->mutable_node();
        for (int i = nodes->size() - 1; i > 0; --i) nodes->SwapElements(i, i - 1);
        const std::string bytes = model.SerializeAsString();
        const Graph g = *parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "if").graph;
        QCOMPARE(opsOf(g), (std::vector<std::string>{"var:X", "var:C", "var:W", "var:B", "MatMul:fc", "Add:bias",
                                                     "If:branch", "Relu:Relu_3", "com.microsoft.Gelu:gelu"}));
        QCOMPARE(g.nodes[6].controlDeps, std::vector<NodeId>{5});
        QCOMPARE(g.nodes[6].attrs.at("then_branch"), std::string("graph (1 nodes)"));
    }

    void brokenGraphsAreLoadErrors_data() {
        QTest::addColumn<int>("defect");
        QTest::addColumn<QString>("reason");
        QTest::newRow("undefined input") << 0 << "which no node, graph input or initializer defines";
        QTest::newRow("cycle") << 1 << "cycle";
        QTest::newRow("defined twice") << 2 << "defined twice";
        QTest::newRow("undefined output") << 3 << "graph output 'nowhere'";
        QTest::newRow("no graph") << 4 << "no IR version or no graph";
    }
    void brokenGraphsAreLoadErrors() {
        QFETCH(int, defect);
        QFETCH(QString, reason);
        onnx::ModelProto model = mlp();
        onnx::GraphProto* graph = model.mutable_graph();
        switch (defect) {
            case 0: graph->mutable_node(1)->set_input(1, "missing"); break;
            case 1: graph->mutable_node(0)->set_input(0, "z"); break;
            case 2: graph->mutable_node(1)->set_output(0, "h"); break;
            case 3: addValue(graph->mutable_output(), "nowhere", {}); break;
            case 4: model.clear_graph(); break;
        }
        const std::string bytes = model.SerializeAsString();
        try {
            (void)parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "broken.onnx");
            QFAIL("no LoadError");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains(reason), e.what());
            QVERIFY2(QString(e.what()).startsWith("broken.onnx"), e.what());
        }
    }

    // A graph large enough for the import's second thread: its IR is the one thread's, field by
    // field (unnamed nodes, a node named like a value, a name used twice, attributes, an input
    // that is an initializer's default), and its failures are the same.
    void aLargeGraphImportsAsOnOneThread() {
        onnx::ModelProto model = largeModel();
        onnx::GraphProto* g = model.mutable_graph();
        QVERIFY(g->node_size() >= 20000);
        const auto same = [](const Graph& a, const Graph& b) {
            if (a.size() != b.size() || a.heads != b.heads) return false;
            for (std::size_t i = 0; i < a.size(); ++i) {
                const Node& x = a.nodes[i];
                const Node& y = b.nodes[i];
                if (x.op != y.op || x.name != y.name || x.inputs != y.inputs || x.controlDeps != y.controlDeps ||
                    x.numOutputs != y.numOutputs || !std::equal(x.attrs.begin(), x.attrs.end(), y.attrs.begin(), y.attrs.end())) {
                    return false;
                }
            }
            return true;
        };
        const OnnxGraphImport one = importOnnxGraph(model.graph(), "large.onnx", false);
        const OnnxGraphImport two = importOnnxGraph(model.graph(), "large.onnx", true);
        QVERIFY(same(one.graph, two.graph));
        QCOMPARE(one.protoNodeOf, two.protoNodeOf);
        QCOMPARE(one.graph.nodes[1].attrs.at("type"), std::string("float32 [8, 8]"));
        QCOMPARE(one.graph.nodes[8001].name, std::string("MatMul_0"));
        QCOMPARE(one.graph.nodes[8002].name, std::string("w0_1"));
        QCOMPARE(one.graph.nodes[8005].name, std::string("relu"));
        QCOMPARE(one.graph.nodes[8008].name, std::string("relu_1"));
        QCOMPARE(one.graph.nodes[8003].attrs.at("axis"), std::string("-1"));
        g->mutable_node(15000)->set_input(0, "missing");
        const auto failure = [&](bool secondCore) {
            try {
                (void)importOnnxGraph(model.graph(), "large.onnx", secondCore);
            } catch (const LoadError& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QVERIFY(!failure(true).empty());
        QCOMPARE(failure(true), failure(false));
    }

    // The copy a conversion starts from: every node as it was (copied on a second thread for a
    // graph this large), the large initializers without their bytes, the small ones whole.
    void aLargeModelsCopyKeepsEveryNode() {
        const onnx::ModelProto model = largeModel();
        const onnx::ModelProto copy = copyWithoutInitializerData(model, 100);
        QCOMPARE(copy.graph().node_size(), model.graph().node_size());
        for (int i = 0; i < model.graph().node_size(); ++i) {
            QVERIFY(google::protobuf::util::MessageDifferencer::Equals(copy.graph().node(i), model.graph().node(i)));
        }
        QCOMPARE(copy.graph().initializer_size(), model.graph().initializer_size());
        QVERIFY(copy.graph().initializer(5).raw_data().empty());
        QCOMPARE(copy.graph().initializer(5).name(), std::string("w5"));
        onnx::ModelProto without = model;
        without.mutable_graph()->clear_node();
        without.mutable_graph()->clear_initializer();
        onnx::ModelProto copyWithout = copy;
        copyWithout.mutable_graph()->clear_node();
        copyWithout.mutable_graph()->clear_initializer();
        QVERIFY(google::protobuf::util::MessageDifferencer::Equals(copyWithout, without));
        const onnx::ModelProto whole = copyWithoutInitializerData(model, 1 << 20);
        QVERIFY(google::protobuf::util::MessageDifferencer::Equals(whole, model));
    }

    void roundTripKeepsTheContent() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        onnx::ModelProto original = mlp({2, 3, 1, 0});  // not even topological: the file's order stays
        onnx::FunctionProto* function = original.add_functions();
        function->set_name("Twice");
        function->set_domain("local");
        function->add_input("a");
        function->add_output("b");
        onnx::NodeProto* inner = function->add_node();
        inner->set_op_type("Add");
        inner->add_input("a");
        inner->add_input("a");
        inner->add_output("b");
        // A field libonnx 1.12 does not know (a newer ONNX's): protobuf keeps it as an unknown field.
        original.mutable_graph()->mutable_node(0)->GetReflection()->MutableUnknownFields(
            original.mutable_graph()->mutable_node(0))->AddVarint(4242, 7);
        const std::string originalBytes = original.SerializeAsString();
        writeModel(root / "net.onnx", original);

        const ModelDocument document = openModelFile(root / "net.onnx");
        const std::vector<fs::path> inputs = document.origin.files();
        // Never over the input.
        QVERIFY_THROWS_EXCEPTION(SaveError, saveModelFile(ModelFormat::Onnx, (root / "net").string(), *document.graph,
                                                          document.params.get(), inputs, 0, document.source.get()));
        QCOMPARE(readAll(root / "net.onnx"), originalBytes);

        const ModelFiles written = saveModelFile(ModelFormat::Onnx, (root / "copy").string(), *document.graph,
                                                 document.params.get(), inputs, 0, document.source.get());
        QCOMPARE(written.all(), std::vector<fs::path>{root / "copy.onnx"});
        const std::string savedBytes = readAll(root / "copy.onnx");
        onnx::ModelProto saved;
        QVERIFY(saved.ParseFromString(savedBytes));
        QVERIFY(google::protobuf::util::MessageDifferencer::Equals(saved, original));
        QCOMPARE(savedBytes, originalBytes);
        QCOMPARE(saved.graph().node(0).GetReflection()->GetUnknownFields(saved.graph().node(0)).field_count(), 1);
    }

    void changedParametersAreWrittenTheRestKept() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeModel(root / "net.onnx", mlp());
        const ModelDocument document = openModelFile(root / "net.onnx");
        NDArrayList trained = *document.params;
        trained.arrays[0].data = bytesOf(iota(12, 100));
        saveModelFile(ModelFormat::Onnx, (root / "trained").string(), *document.graph, &trained, document.origin.files(), 0,
                      document.source.get());
        const ModelDocument reopened = openModelFile(root / "trained.onnx");
        QCOMPARE(reopened.params->arrays[0].data, bytesOf(iota(12, 100)));
        const onnx::TensorProto& b = onnxModelOf(reopened)->proto.graph().initializer(1);
        QCOMPARE(b.float_data_size(), 3);  // untouched: still in float_data
        QVERIFY(!b.has_raw_data());
    }

    void onlyTheModelAsReadIsWritten() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeModel(root / "net.onnx", mlp());
        const ModelDocument document = openModelFile(root / "net.onnx");
        Graph changed = *document.graph;
        changed.nodes[4].op = "Sub";
        QVERIFY_THROWS_EXCEPTION(SaveError, saveModelFile(ModelFormat::Onnx, (root / "a").string(), changed, nullptr, {}, 0,
                                                          document.source.get()));
        QVERIFY_THROWS_EXCEPTION(SaveError, saveModelFile(ModelFormat::Onnx, (root / "b").string(), *document.graph,
                                                          nullptr, {}));
        QVERIFY(!fs::exists(root / "a.onnx"));
        QVERIFY(!fs::exists(root / "b.onnx"));
    }

    void externalDataIsReadAndSavedInline() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        fs::create_directory(root / "data");
        writeSideFile(root / "data" / "w.bin", 16, 48);
        writeModel(root / "net.onnx", withExternalW("data/w.bin", 16, 48));
        const ModelDocument document = openModelFile(root / "net.onnx");
        QCOMPARE(document.params->arrays[0].data, bytesOf(iota(12, 1)));
        QCOMPARE(document.origin.sideFiles, std::vector<fs::path>{fs::canonical(root / "data" / "w.bin")});
        QCOMPARE(document.origin.files().size(), std::size_t(2));  // a save never writes over the side file

        // Without a length the tensor's size is read.
        writeModel(root / "nolength.onnx", withExternalW("data/w.bin", 16, -1));
        QCOMPARE(openModelFile(root / "nolength.onnx").params->arrays[0].data, bytesOf(iota(12, 1)));

        fs::create_directory(root / "elsewhere");
        saveModelFile(ModelFormat::Onnx, (root / "elsewhere" / "copy").string(), *document.graph, document.params.get(),
                      document.origin.files(), 0, document.source.get());
        const ModelDocument copy = openModelFile(root / "elsewhere" / "copy.onnx");
        QVERIFY(copy.origin.sideFiles.empty());
        QCOMPARE(copy.params->arrays[0].data, bytesOf(iota(12, 1)));
        onnx::ModelProto expected = mlp();  // what was external is inline, the rest as it was
        QVERIFY(google::protobuf::util::MessageDifferencer::Equals(onnxModelOf(copy)->proto, expected));
    }

    // W of 64 x 64 (16 KiB) external in the input's side file, B inline: a save writes W to
    // PREFIX.onnx.data at an aligned offset (the model had external data) and B inline; the copy
    // reads back the same values; a save whose side file would replace the input's is refused.
    void aModelWithExternalDataIsSavedWithExternalData() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const std::vector<float> values = iota(4096, 0.5f);
        onnx::ModelProto model = withLargeW(values);
        makeExternal(model.mutable_graph()->mutable_initializer(0), "out.onnx.data", 0, -1);
        std::ofstream(root / "out.onnx.data", std::ios::binary) << rawOf(values);
        // (The model's graph reads W [4, 3]; a [4, 1024] W is fine for the format, not for a runtime.)
        writeModel(root / "in.onnx", model);
        const ModelDocument document = openModelFile(root / "in.onnx");
        QCOMPARE(document.params->arrays[0].data, bytesOf(values));

        // Over the input's side file: refused before anything is written.
        QVERIFY_THROWS_EXCEPTION(SaveError, saveModelFile(ModelFormat::Onnx, (root / "out").string(), *document.graph,
                                                          nullptr, document.origin.files(), 0, document.source.get()));
        QVERIFY(!fs::exists(root / "out.onnx"));

        fs::create_directory(root / "elsewhere");
        const ModelFiles written = saveModelFile(ModelFormat::Onnx, (root / "elsewhere" / "copy").string(), *document.graph,
                                                 nullptr, document.origin.files(), 0, document.source.get());
        QCOMPARE(written.data, std::optional<fs::path>(root / "elsewhere" / "copy.onnx.data"));
        QVERIFY(fs::exists(*written.data));
        const ModelDocument copy = openModelFile(written.model);
        QCOMPARE(copy.origin.sideFiles, std::vector<fs::path>{fs::canonical(*written.data)});
        QCOMPARE(copy.params->arrays[0].data, bytesOf(values));
        QCOMPARE(copy.params->arrays[1].data, bytesOf(iota(3, -1)));
        const onnx::TensorProto& savedW = onnxModelOf(copy)->proto.graph().initializer(0);
        QCOMPARE(savedW.data_location(), onnx::TensorProto::EXTERNAL);
        const onnx::TensorProto& savedB = onnxModelOf(copy)->proto.graph().initializer(1);
        QCOMPARE(savedB.data_location(), onnx::TensorProto::DEFAULT);  // under 1 KiB: inline
        for (const auto& e : savedW.external_data()) {
            if (e.key() == "location") QCOMPARE(e.value(), std::string("copy.onnx.data"));
            if (e.key() == "offset") QCOMPARE(std::stoll(e.value()) % 4096, 0LL);
            if (e.key() == "length") QCOMPARE(e.value(), std::to_string(values.size() * sizeof(float)));
        }
        // Everything but where W's bytes are is as it was.
        onnx::ModelProto expected = onnxModelOf(document)->proto;
        *expected.mutable_graph()->mutable_initializer(0)->mutable_external_data() = savedW.external_data();
        QVERIFY(google::protobuf::util::MessageDifferencer::Equals(onnxModelOf(copy)->proto, expected));
    }

    // A model that inline would pass the limit (2 GiB; here a small one) is written with external
    // data; under the limit, as one file.
    void aModelOverTheInlineLimitIsSavedWithExternalData() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeModel(root / "net.onnx", withLargeW(iota(4096, 2.0f)));
        const ModelDocument document = openModelFile(root / "net.onnx");
        const OnnxModel& onnx = *onnxModelOf(document);
        QVERIFY(!writeOnnxModel(onnx, *document.graph, nullptr, root / "one.onnx", root / "one.onnx.data"));
        QVERIFY(!fs::exists(root / "one.onnx.data"));
        QCOMPARE(readAll(root / "one.onnx"), readAll(root / "net.onnx"));
        QVERIFY(writeOnnxModel(onnx, *document.graph, nullptr, root / "two.onnx", root / "two.onnx.data", 8192));
        QVERIFY(fs::file_size(root / "two.onnx") < 8192);
        const ModelDocument two = openModelFile(root / "two.onnx");
        QCOMPARE(two.params->arrays[0].data, bytesOf(iota(4096, 2.0f)));
        QVERIFY(onnxModelOf(two)->externalDataOnSave);
    }

    void externalDataOutsideTheFolderOrMalformedIsRefused_data() {
        QTest::addColumn<QString>("location");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("length");
        QTest::addColumn<int>("sideBytes");  // bytes of W the side file holds after 16 bytes of padding
        QTest::addColumn<QString>("reason");
        QTest::newRow("../") << "../w.bin" << 16 << 48 << 48 << "leaves the model's folder";
        QTest::newRow("nested ..") << "data/../../w.bin" << 16 << 48 << 48 << "leaves the model's folder";
        QTest::newRow("windows ..") << "data\\..\\..\\w.bin" << 16 << 48 << 48 << "leaves the model's folder";
        QTest::newRow("absolute") << "/etc/passwd" << 0 << 48 << 48 << "leaves the model's folder";
        QTest::newRow("symlink out") << "link/w.bin" << 16 << 48 << 48 << "resolves outside the model's folder";
        QTest::newRow("missing") << "none.bin" << 16 << 48 << 48 << "does not exist";
        QTest::newRow("truncated") << "w.bin" << 16 << 48 << 40 << "fewer than offset 16 + length 48";
        QTest::newRow("truncated, no length") << "w.bin" << 16 << -1 << 40 << "fewer than offset 16 + length 48";
        QTest::newRow("offset past end") << "w.bin" << 4096 << 48 << 48 << "fewer than offset 4096";
        QTest::newRow("wrong length") << "w.bin" << 16 << 44 << 48 << "length 44 disagrees with the tensor's shape";
        QTest::newRow("length not a number") << "w.bin" << 16 << -2 << 48 << "is not a number";
    }
    void externalDataOutsideTheFolderOrMalformedIsRefused() {
        QFETCH(QString, location);
        QFETCH(int, offset);
        QFETCH(int, length);
        QFETCH(int, sideBytes);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const fs::path outer = dir.path().toStdString();
        const fs::path root = outer / "model";
        fs::create_directories(root);
        writeSideFile(outer / "w.bin", 16, 48);  // a file the model must never read
        writeSideFile(root / "w.bin", 16, static_cast<std::size_t>(sideBytes));
        fs::create_directory_symlink(outer, root / "link");
        onnx::ModelProto model = withExternalW(location.toStdString(), offset, length == -2 ? -1 : length);
        if (length == -2) {
            auto* e = model.mutable_graph()->mutable_initializer(0)->add_external_data();
            e->set_key("length");
            e->set_value("48 bytes");
        }
        writeModel(root / "net.onnx", model);
        try {
            (void)openModelFile(root / "net.onnx");
            QFAIL("no LoadError");
        } catch (const LoadError& e) {
            QVERIFY2(QString(e.what()).contains(reason), e.what());
            QVERIFY2(QString(e.what()).contains("tensor 'W'"), e.what());
        }
        // From memory there is no folder: no external data at all.
        const std::string bytes = withExternalW("w.bin", 16, 48).SerializeAsString();
        QVERIFY_THROWS_EXCEPTION(LoadError, parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())),
                                                       {}, "memory"));
    }

    void garbledBytesAreLoadErrorsNeverCrashes() {
        // Every prefix of a model and a few hundred seeded byte flips: each opens or is a LoadError.
        onnx::ModelProto model = mlp({1, 0, 3, 2});
        const std::string good = model.SerializeAsString();
        int refused = 0, opened = 0;
        const auto attempt = [&](const std::string& bytes) {
            try {
                const ModelDocument document =
                    parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "fuzz");
                document.graph->validate();
                ++opened;
            } catch (const LoadError&) {
                ++refused;
            }
        };
        for (std::size_t n = 0; n < good.size(); ++n) attempt(good.substr(0, n));
        std::mt19937 random(19);
        for (int i = 0; i < 600; ++i) {
            std::string bytes = good;
            const int flips = 1 + static_cast<int>(random() % 4);
            for (int f = 0; f < flips; ++f) bytes[random() % bytes.size()] = static_cast<char>(random() & 0xff);
            attempt(bytes);
        }
        for (int i = 0; i < 100; ++i) {
            std::string bytes(random() % 256, '\0');
            for (char& c : bytes) c = static_cast<char>(random() & 0xff);
            attempt(bytes);
        }
        qInfo("%d opened, %d refused", opened, refused);
        QVERIFY(refused > static_cast<int>(good.size()) / 2);
    }

    void debianTestModelsOpen() {
        if (!fs::is_directory(kTestData)) {
            QSKIP("libonnx-testdata is not installed (/usr/share/libonnx-testdata)");
        }
        int opened = 0;
        QStringList failures;
        for (const auto& entry : fs::recursive_directory_iterator(kTestData)) {
            if (entry.path().filename() != "model.onnx") continue;
            try {
                const ModelDocument document = openModelFile(entry.path());
                QCOMPARE(document.origin.format, ModelFormat::Onnx);
                document.graph->validate();
                ++opened;
            } catch (const std::exception& e) {
                failures << QString::fromStdString(e.what());
            }
        }
        qInfo("%d models opened, %lld refused", opened, static_cast<long long>(failures.size()));
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join('\n')));
        QVERIFY(opened > 1000);
    }
};

QTEST_GUILESS_MAIN(TestOnnxFormat)
#include "test_onnx_format.moc"
