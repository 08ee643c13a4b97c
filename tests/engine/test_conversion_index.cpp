// The questions the inspector, the graph drawing and `inspect --node` ask of a conversion, on the
// bundled examples: decisions, casts and what they cast for whom, the cast sitting on an original
// edge, edge dtypes, variable roles through the casts, and the input/output rows.
#include <QtTest>

#include "amp/conversion.h"
#include "amp/conversion_index.h"
#include "formats/symbol_json.h"

using namespace ampstudio;

namespace {

const std::string kExamples = AMS_SOURCE_DIR "/resources/examples/";

struct Indexed {
    std::shared_ptr<const ConversionResult> result;
    ConversionIndex before;
    ConversionIndex after;
};

Indexed indexExample(const std::string& file, ConversionOptions options = {}) {
    auto source = std::make_shared<const Graph>(readSymbolJsonFile(kExamples + file));
    auto result = std::make_shared<const ConversionResult>(convertGraph(*source, options));
    std::shared_ptr<const ConversionReport> report(result, &result->report);
    return {result, ConversionIndex(source, report),
            ConversionIndex(std::shared_ptr<const Graph>(result, &result->graph), report)};
}

NodeId idOf(const ConversionIndex& index, std::string_view name) {
    const auto id = index.find(name);
    if (!id) throw std::runtime_error("no node " + std::string(name));
    return *id;
}

}  // namespace

class TestConversionIndex : public QObject {
    Q_OBJECT
private slots:
    void whichGraphIsWhich() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        QVERIFY(!mlp.before.graphIsConverted());
        QVERIFY(mlp.after.graphIsConverted());
        QVERIFY(!mlp.before.find("fc1_weight_amp_cast_float16"));
        QVERIFY(mlp.after.find("fc1_weight_amp_cast_float16"));
    }

    void decisionsAndCasts() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        const NodeDecision* fc1 = mlp.after.decision("fc1");
        QVERIFY(fc1);
        QCOMPARE(fc1->rule, DecisionRule::TargetList);
        QCOMPARE(fc1->dtype, DType::F16);
        const CastRecord* cast = mlp.after.castRecord(idOf(mlp.after, "fc1_weight_amp_cast_float16"));
        QVERIFY(cast);
        QCOMPARE(cast->source.node, std::string_view("fc1_weight"));
        QCOMPARE(describeCast(*cast), std::string("casts fc1_weight to float16 for fc1"));
        // An original node is no cast, and on the original graph there are no cast nodes to record.
        QVERIFY(!mlp.after.castRecord(idOf(mlp.after, "fc1")));
        QVERIFY(!mlp.before.castRecord(idOf(mlp.before, "fc1")));
        const CastRecord* output = mlp.after.castRecord(idOf(mlp.after, "fc3_output_amp_cast_float32"));
        QVERIFY(output);
        QCOMPARE(describeCast(*output), std::string("casts fc3 to float32 for softmax"));
    }

    // On the original graph an edge tells the cast it goes through after conversion.
    void castOnAnOriginalEdge() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        const CastRecord* c = mlp.before.castInto("fc1_weight", 0, "fc1");
        QVERIFY(c);
        QCOMPARE(c->name, std::string_view("fc1_weight_amp_cast_float16"));
        QVERIFY(!mlp.before.castInto("fc1_weight", 0, "fc2"));  // not that consumer
        QVERIFY(!mlp.after.castInto("fc1_weight", 0, "fc1"));   // the converted graph has the cast itself
        const std::vector<InputRow> rows = mlp.before.inputs(idOf(mlp.before, "fc1"));
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[1].slotName, std::string("weight"));
        QCOMPARE(rows[1].dtype.dtype, std::string("float16"));
        QCOMPARE(rows[1].dtype.viaCast, std::string("fc1_weight_amp_cast_float16"));
    }

    void edgeDtypesInTheConvertedGraph() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        const std::vector<InputRow> rows = mlp.after.inputs(idOf(mlp.after, "fc1"));
        QCOMPARE(rows.size(), std::size_t(3));
        for (const InputRow& row : rows) {
            QCOMPARE(row.dtype.dtype, std::string("float16"));
            QVERIFY(row.dtype.viaCast.empty());
        }
        QCOMPARE(mlp.after.graph()->nodes[rows[0].source].name, std::string("data_amp_cast_float16"));
        const std::vector<OutputRow> softmax = mlp.after.outputs(idOf(mlp.after, "softmax"));
        QCOMPARE(softmax.size(), std::size_t(1));
        QVERIFY(!softmax[0].consumer);  // the graph output
        QCOMPARE(softmax[0].dtype.dtype, std::string("float32"));
    }

    // A weight is a parameter in both graphs, though in the converted one it feeds a cast.
    void rolesThroughCasts() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        for (const ConversionIndex* index : {&mlp.before, &mlp.after}) {
            QCOMPARE(index->role(idOf(*index, "fc1_weight")), VariableRole::Parameter);
            QCOMPARE(index->role(idOf(*index, "data")), VariableRole::Input);
        }
    }

    void multicast() {
        const Indexed example = indexExample("proposal-example1-symbol.json");
        const NodeId id = idOf(example.after, "cos0_0_amp_multicast");
        const CastRecord* cast = example.after.castRecord(id);
        QVERIFY(cast);
        QCOMPARE(describeCast(*cast),
                 std::string("brings cos0 and sin0 to the widest of their dtypes at run time, for _plus0"));
        const std::vector<OutputRow> outputs = example.after.outputs(id);
        QCOMPARE(outputs.size(), std::size_t(2));
        QCOMPARE(outputs[0].output, 0u);
        QCOMPARE(outputs[1].output, 1u);
        QCOMPARE(outputs[1].dtype.dtype, std::string("widest"));
        // On the original edge cos0 -> _plus0 the multicast is named, and its dtype is "widest".
        const EdgeDtype edge = example.before.edgeDtype(idOf(example.before, "cos0"), 0, "_plus0");
        QCOMPARE(edge.dtype, std::string("widest"));
        QCOMPARE(edge.viaCast, std::string("cos0_0_amp_multicast"));
    }

    // Without a report only casts already in the file have dtypes.
    void graphWithoutAConversion() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        const ConversionIndex bare(mlp.after.graph(), nullptr);
        QVERIFY(!bare.graphIsConverted());
        QVERIFY(!bare.decision("fc1"));
        QVERIFY(!bare.castRecord(idOf(bare, "fc1_weight_amp_cast_float16")));
        const std::vector<InputRow> rows = bare.inputs(idOf(bare, "fc1"));
        QCOMPARE(rows[1].dtype.dtype, std::string("float16"));  // read from the amp_cast's attribute
        const std::vector<OutputRow> outputs = bare.outputs(idOf(bare, "fc1"));
        QVERIFY(!outputs[0].dtype.known());
    }

    void readThroughCastsRestoresTheOriginalEdges() {
        const Indexed mlp = indexExample("mlp-symbol.json");
        const Graph through = readThroughCasts(*mlp.after.graph());
        const Node& fc1 = through.nodes[idOf(mlp.after, "fc1")];
        QCOMPARE(through.node(fc1.inputs[1]).name, std::string("fc1_weight"));
        QCOMPARE(through.node(fc1.inputs[0]).name, std::string("data"));
    }
};

QTEST_GUILESS_MAIN(TestConversionIndex)
#include "test_conversion_index.moc"
