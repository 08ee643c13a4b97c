#include "exec/onnx/onnx_precision_search.h"

#include <chrono>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "amp/onnx_conversion.h"
#include "exec/float32_set_search.h"
#include "exec/onnx/onnx_compare.h"
#include "exec/onnx/onnx_runner.h"
#include "formats/onnx_program.h"
#include "tensor/float_convert.h"

namespace ampstudio {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool floating(const HostTensor& t) { return t.defined() && isFloat(t.dtype()); }

// Every value as float32 where it has numbers (an int64 output compares as its values); empty else.
std::vector<float> floatsOf(const HostTensor& t) {
    if (!t.defined() || t.dtype() == DType::Unknown) return {};
    try {
        return t.floats();
    } catch (const std::invalid_argument&) {
        return {};  // bool, string
    }
}

// `t` in `dtype` where both are floating and differ (the cast the converted model applies).
HostTensor castLike(const HostTensor& t, DType dtype) {
    if (!floating(t) || !isFloat(dtype) || t.dtype() == dtype) return t;
    const auto n = static_cast<std::size_t>(t.size());
    if (t.dtype() == DType::F32 && (dtype == DType::F16 || dtype == DType::BF16)) {  // one pass, the usual case
        HostTensor out = HostTensor::uninitialized(dtype, t.dims());
        const std::span<const float> in(t.data<float>(), n);
        const std::span<uint16_t> bits(out.mutableData<uint16_t>(), n);
        if (dtype == DType::F16) {
            floatsToHalf(in, bits);
        } else {
            floatsToBfloat16(in, bits);
        }
        return out;
    }
    return HostTensor::fromFloats(t.floats(), t.dims(), dtype);
}

// A conversion and the program the runner executes for it.
struct Attempt {
    ConversionResult conversion;
    std::shared_ptr<const OnnxProgram> program;
    std::unique_ptr<OnnxRunner> runner;
    OnnxRunResult run;
    bool ran = false;  // false: the conversion failed its check and was not run
};

// The names a node's nested graphs read from the scopes around them.
void outerReadsOf(const OnnxGraphProgram& g, std::unordered_set<std::string>& defined, std::vector<std::string>& out) {
    std::unordered_set<std::string> local = defined;
    for (const auto& v : g.inputs) local.insert(v.name);
    for (const auto& [name, t] : g.initializers) local.insert(name);
    for (const OnnxProgramNode& n : g.nodes) {
        for (const std::string& in : n.inputs) {
            if (!in.empty() && !local.contains(in)) out.push_back(in);
        }
        for (const auto& [key, a] : n.attributes) {
            if (a.graph) outerReadsOf(*a.graph, local, out);
        }
        local.insert(n.outputs.begin(), n.outputs.end());
    }
}

}  // namespace

PrecisionSearchResult searchOnnxFloat32Set(const ModelDocument& source, const std::map<std::string, HostTensor>& inputs,
                                           const PrecisionSearchOptions& options) {
    if (!isOnnxSource(source.source.get())) throw std::invalid_argument(source.origin.displayName + " is no ONNX model");
    const DType target = options.conversion.lists.targetDtype;
    auto clock = std::chrono::steady_clock::now();
    const auto lap = [&clock] {
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - clock).count();
        clock = now;
        return s;
    };

    // The float32 reference, every value kept.
    const std::shared_ptr<const OnnxProgram> original = onnxProgramOf(source);
    const OnnxRunner referenceRunner(original);
    const OnnxRunResult reference = referenceRunner.run(onnxInputsFor(*original, inputs), true);
    std::vector<std::vector<float>> referenceOutputs;
    std::vector<Shape> shapes;
    for (const auto& [name, t] : reference.outputs) {
        referenceOutputs.push_back(floatsOf(t));
        shapes.push_back(t.dims());
    }
    PrecisionSearchResult result;
    result.referenceSeconds = lap();

    const auto convertWith = [&](const std::vector<std::string>& fp32) {
        ConversionOptions o = options.conversion;
        o.excludedSymNames.insert(fp32.begin(), fp32.end());
        return convertOnnxModel(*source.source, o);
    };
    // What attempts reuse: the reference's values, the baseline's, and those of the set chosen so far
    // (the next attempt usually differs from it by one node).
    OnnxReusableValues reusable;
    std::optional<Attempt> chosenRun, latestRun;
    const auto runWith = [&](const std::vector<std::string>& fp32, bool whole) {
        Attempt a;
        a.conversion = convertWith(fp32);
        if (!a.conversion.report.dtypeCheck.passed) return a;  // an invalid model is no answer
        ModelDocument converted{std::make_shared<Graph>(a.conversion.graph), nullptr, source.origin, a.conversion.source};
        a.program = onnxProgramOf(converted);
        a.runner = std::make_unique<OnnxRunner>(a.program);
        const bool reuse = !whole && options.reuseValues;
        a.run = a.runner->run(onnxInputsFor(*a.program, inputs), true, reuse ? &reusable : nullptr);
        a.ran = true;
        if (!whole) {
            result.searchNodes += a.program->graph.nodes.size();
            result.searchNodesRun += a.run.nodesRun;
        }
        return a;
    };
    const auto metricOf = [&](const OnnxRunResult& run) {
        std::vector<std::vector<float>> outputs;
        for (const auto& [name, t] : run.outputs) outputs.push_back(floatsOf(t));
        return precisionMetricValue(options.metric, referenceOutputs, outputs, shapes, options.atol);
    };
    Float32SetAttempts attempts(options, result, [&](const std::vector<std::string>& fp32) {
        latestRun.reset();
        Attempt a = runWith(fp32, false);
        const double value = a.ran ? metricOf(a.run) : kInf;
        latestRun = std::move(a);
        return value;
    });

    // The baseline: the conversion as the lists decide it, measured node by node.
    Attempt baseline = runWith({}, true);
    if (!baseline.ran) {
        throw std::invalid_argument("the conversion fails its check: " + baseline.conversion.report.dtypeCheck.message);
    }
    attempts.baseline(metricOf(baseline.run));
    for (std::size_t o = 0; o < reference.outputs.size() && o < baseline.run.outputs.size(); ++o) {
        TensorDifference d = compareArrays(referenceOutputs[o], floatsOf(baseline.run.outputs[o].second));
        d.name = reference.outputs[o].first;
        d.shape = shapes[o];
        d.convertedDtype = baseline.run.outputs[o].second.dtype();
        result.outputs.push_back(std::move(d));
    }
    result.baselineSeconds = lap();

    // What gets measured: every main-graph node both models have (by name and op) whose first output
    // is a floating tensor of the same dims in both; those in the target dtype are the candidates.
    std::unordered_map<std::string, const OnnxProgramNode*> originalByName;
    for (const OnnxProgramNode& n : original->graph.nodes) originalByName.emplace(n.name, &n);
    const auto valueOf = [](const OnnxRunResult& run, const std::string& name) -> const HostTensor* {
        const auto it = run.values.find(name);
        return it == run.values.end() ? nullptr : &it->second;
    };
    std::vector<std::pair<const OnnxProgramNode*, const OnnxProgramNode*>> measured;  // (converted, original)
    for (const OnnxProgramNode& n : baseline.program->graph.nodes) {
        const auto it = originalByName.find(n.name);
        if (it == originalByName.end() || it->second->op != n.op || n.outputs.empty() || it->second->outputs.empty()) continue;
        const HostTensor* exact = valueOf(reference, it->second->outputs[0]);
        const HostTensor* converted = valueOf(baseline.run, n.outputs[0]);
        if (exact && converted && floating(*exact) && floating(*converted) && exact->dims() == converted->dims()) {
            measured.emplace_back(&n, it->second);
        }
    }
    std::unordered_map<std::string, double> initializerMaxAbs;  // computed once per initializer
    bool measuring = true;
    for (std::size_t m = 0; m < measured.size() && measuring; ++m) {
        const OnnxProgramNode& node = *measured[m].first;
        const OnnxProgramNode& originalNode = *measured[m].second;
        const HostTensor& exactValue = *valueOf(reference, originalNode.outputs[0]);
        const HostTensor& convertedValue = *valueOf(baseline.run, node.outputs[0]);
        NodeErrorProfile p;
        p.name = node.name;
        p.op = node.op;
        const std::vector<float> exact = exactValue.floats();
        p.error = compareArrays(exact, convertedValue.floats());
        p.stats = rangeStats(exact, target);
        if (convertedValue.dtype() != target) {
            result.float32Nodes.push_back(std::move(p));
            measuring = !options.nodeProgress || options.nodeProgress(m + 1, measured.size());
            continue;
        }
        std::vector<std::pair<std::string, double>> paramRanges;
        for (const std::string& in : originalNode.inputs) {
            const auto init = original->graph.initializers.find(in);
            if (init == original->graph.initializers.end() || !floating(init->second)) continue;
            auto [it, fresh] = initializerMaxAbs.try_emplace(in, 0.0);
            if (fresh) it->second = rangeStats(init->second.floats(), target).maxAbs;
            paramRanges.emplace_back(in, it->second);
        }
        int64_t reduced = 0;
        if (isReductionOp(node.op) && !originalNode.inputs.empty()) {
            if (const HostTensor* in = valueOf(reference, originalNode.inputs[0])) {
                reduced = in->size() / std::max<int64_t>(1, exactValue.size());
            }
        }
        p.warnings = rangeWarnings(p.stats, target, paramRanges, reduced);
        // Alone: the node's float32 inputs, cast as the converted model casts them; what its nested
        // graphs read from outside, the same way.
        try {
            auto alone = std::make_shared<OnnxProgram>();
            alone->opset = baseline.program->opset;
            alone->opsets = baseline.program->opsets;
            const auto provide = [&](const std::string& convertedName, const std::string& originalName) {
                if (convertedName.empty() || alone->graph.initializers.contains(convertedName)) return;
                const HostTensor* wanted = valueOf(baseline.run, convertedName);
                const HostTensor* exactIn = valueOf(reference, originalName);
                if (!wanted) throw std::invalid_argument("no value for '" + convertedName + "'");
                alone->graph.initializers.emplace(convertedName, exactIn ? castLike(*exactIn, wanted->dtype()) : *wanted);
            };
            for (std::size_t k = 0; k < node.inputs.size(); ++k) {
                provide(node.inputs[k], k < originalNode.inputs.size() ? originalNode.inputs[k] : node.inputs[k]);
            }
            std::unordered_set<std::string> none;
            std::vector<std::string> outer;
            for (const auto& [key, a] : node.attributes) {
                if (a.graph) outerReadsOf(*a.graph, none, outer);
            }
            for (const std::string& name : outer) provide(name, name);
            alone->graph.nodes.push_back(node);
            OnnxValueInfo output;
            output.name = node.outputs[0];
            alone->graph.outputs.push_back(std::move(output));
            const OnnxRunResult own = OnnxRunner(alone).run({});
            p.own = compareArrays(exact, own.outputs.at(0).second.floats());
        } catch (const std::exception&) {
            p.own.reset();  // a node that cannot run alone: ranked by its error in the model
        }
        result.nodes.push_back(std::move(p));
        measuring = !options.nodeProgress || options.nodeProgress(m + 1, measured.size());
    }
    if (!measuring) attempts.stop();
    rankByOwnError(result.nodes);
    result.nodesSeconds = lap();
    if (options.measureOnly || attempts.stopped()) {
        result.value = result.attempts.front().value;
        result.meets = result.attempts.front().meets;
        result.conversion = std::move(baseline.conversion);
        return result;
    }

    const auto reuseFrom = [&] {
        reusable.clear();
        if (!options.reuseValues) return;
        reusable.add(referenceRunner.signatures(), reference.values);
        reusable.add(baseline.runner->signatures(), baseline.run.values);
        if (chosenRun) reusable.add(chosenRun->runner->signatures(), chosenRun->run.values);
    };
    // The last attempt's run becomes the chosen set's (its values reused from now on).
    const auto adoptLatest = [&] {
        if (!latestRun) return;
        chosenRun = std::move(latestRun);
        latestRun.reset();
        reuseFrom();
    };
    reuseFrom();
    std::vector<std::string> candidates;
    for (const NodeErrorProfile& p : result.nodes) candidates.push_back(p.name);
    bool meets = result.attempts.front().meets;
    const std::vector<std::string> chosen = chooseFloat32Set(candidates, attempts, adoptLatest, meets);
    result.searchSeconds = lap();
    result.fp32Nodes = chosen;
    result.conversion = convertWith(chosen);
    const SearchAttempt& final = attempts.attempt(chosen);
    result.value = final.value;
    result.meets = meets && final.meets;
    return result;
}

}  // namespace ampstudio
