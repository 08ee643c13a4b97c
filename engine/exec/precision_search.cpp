#include "exec/precision_search.h"

#include "exec/float32_set_search.h"
#include "exec/reused_values.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "exec/executor.h"
#include "ops/mxnet_op_facts.h"
#include "ops/variable_roles.h"

namespace ampstudio {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// "1.2e+05" rather than iostream's six digits.
std::string shortNumber(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v);
    return text;
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, share < 0.001 ? "%.2g %%" : "%.1f %%", 100.0 * share);
    return text;
}

}  // namespace

bool isReductionOp(std::string_view op) {
    static constexpr std::string_view kOps[] = {
        "sum", "mean", "prod", "nansum", "nanprod", "norm", "sum_axis", "_npi_sum", "_npi_mean", "_npi_prod", "softmax",
        "log_softmax", "SoftmaxActivation", "L2Normalization", "moments",
        // ONNX
        "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
        "ReduceSumSquare", "Softmax", "LogSoftmax", "LayerNormalization", "CumSum", "GlobalAveragePool", "LpNormalization"};
    return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

std::vector<std::string> rangeWarnings(const RangeStats& s, DType target,
                                       const std::vector<std::pair<std::string, double>>& paramMaxAbs,
                                       int64_t reducedPerOutput) {
    std::vector<std::string> w;
    const std::string dtype(dtypeName(target));
    const double top = dtypeLargestFinite(target);
    if (s.beyondMax > 0.0) {
        w.push_back("float32 values up to " + shortNumber(s.maxAbs) + " exceed " + dtype + "'s largest (" +
                    shortNumber(top) + "): " + percent(s.beyondMax) + " become inf");
    } else if (target == DType::F16 && s.maxAbs > kActivationWarningThreshold) {
        w.push_back("activations up to " + shortNumber(s.maxAbs) + " pass " + shortNumber(kActivationWarningThreshold) +
                    " (ModelOpt AutoCast's data_max): little headroom before float16's largest");
    }
    if (s.belowNormal >= 0.01) {
        w.push_back(percent(s.belowNormal) + " of the non-zero values lie below " + dtype + "'s smallest normal (" +
                    shortNumber(dtypeSmallestNormal(target)) + "): they lose digits or vanish");
    }
    for (const auto& [name, maxAbs] : paramMaxAbs) {
        if (maxAbs > top) {
            w.push_back("parameter '" + name + "' holds values up to " + shortNumber(maxAbs) + ", beyond " + dtype +
                        "'s largest");
        }
    }
    if (reducedPerOutput > kDeepReductionThreshold) {
        w.push_back("a reduction over " + std::to_string(reducedPerOutput) + " elements per output in " + dtype +
                    " (more than " + std::to_string(kDeepReductionThreshold) + ")");
    }
    if (s.nonFinite > 0) {
        w.push_back("the float32 reference itself has " + std::to_string(s.nonFinite) + " inf/NaN here");
    }
    return w;
}

namespace {

// NaN (undefined) counts as the worst value, so that nothing undefined meets a tolerance.
double worst(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) {
        return kInf;
    }
    return std::max(a, b);
}

// Rows of a (rows, ...) tensor whose argmax differ.
int64_t argmaxDisagreements(const std::vector<float>& r, const std::vector<float>& c, const Shape& shape) {
    if (shape.empty() || shape[0] <= 0 || r.size() != c.size()) {
        return 0;
    }
    const auto rows = static_cast<std::size_t>(shape[0]);
    const std::size_t width = r.size() / rows;
    int64_t differ = 0;
    for (std::size_t row = 0; row < rows && width > 0; ++row) {
        const auto rb = r.begin() + static_cast<std::ptrdiff_t>(row * width);
        const auto cb = c.begin() + static_cast<std::ptrdiff_t>(row * width);
        const auto ri = std::max_element(rb, rb + static_cast<std::ptrdiff_t>(width)) - rb;
        const auto ci = std::max_element(cb, cb + static_cast<std::ptrdiff_t>(width)) - cb;
        differ += ri != ci ? 1 : 0;
    }
    return differ;
}

struct Run {
    ConversionResult conversion;
    std::unique_ptr<Executor> executor;  // a whole run's (the baseline's: every entry at hand)
    ReusingRun reusing;                  // an attempt's, computing what differs
    std::vector<std::vector<float>> outputs;
    bool ran = false;  // false: the conversion failed its dtype check and was not run
};

std::size_t opNodes(const Graph& g) {
    return std::size_t(std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return !n.isVariable(); }));
}

}  // namespace

std::optional<PrecisionMetric> precisionMetricFromName(std::string_view name) {
    if (name == "max-rel") return PrecisionMetric::MaxRel;
    if (name == "max-abs") return PrecisionMetric::MaxAbs;
    if (name == "cosine") return PrecisionMetric::Cosine;
    if (name == "top1") return PrecisionMetric::Top1;
    if (name == "allclose") return PrecisionMetric::AllClose;
    return std::nullopt;
}

std::string_view precisionMetricName(PrecisionMetric metric) {
    switch (metric) {
        case PrecisionMetric::MaxRel: return "max-rel";
        case PrecisionMetric::MaxAbs: return "max-abs";
        case PrecisionMetric::Cosine: return "cosine";
        case PrecisionMetric::Top1: return "top1";
        case PrecisionMetric::AllClose: return "allclose";
    }
    return "?";
}

double dtypeLargestFinite(DType t) { return t == DType::BF16 ? 3.3895313892515355e38 : 65504.0; }
double dtypeSmallestNormal(DType t) { return t == DType::BF16 ? 1.1754943508222875e-38 : 6.103515625e-05; }

int MagnitudeHistogram::binOf(int exponent) {
    const int d = exponent - kLowestExponent;
    const int bin = d >= 0 ? d / kOctavesPerBin : -((-d + kOctavesPerBin - 1) / kOctavesPerBin);  // floor
    return std::clamp(bin, 0, kBins - 1);
}

RangeStats rangeStats(const std::vector<float>& values, DType target) {
    RangeStats s;
    s.count = static_cast<int64_t>(values.size());
    const double top = dtypeLargestFinite(target);
    const double normal = dtypeSmallestNormal(target);
    int64_t finite = 0, beyond = 0, nonZero = 0, below = 0;
    for (float v : values) {
        if (!std::isfinite(v)) {
            ++s.nonFinite;
            continue;
        }
        const double a = std::abs(static_cast<double>(v));
        ++finite;
        s.maxAbs = std::max(s.maxAbs, a);
        beyond += a > top ? 1 : 0;
        if (a > 0.0) {
            ++nonZero;
            below += a < normal ? 1 : 0;
            // floor(log2 a): a normal float's biased exponent field; frexp only for subnormals.
            const int field = int((std::bit_cast<uint32_t>(v) >> 23) & 0xffu);
            int exponent = field - 127;
            if (field == 0) {
                std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
                --exponent;
            }
            ++s.histogram.bins[std::size_t(MagnitudeHistogram::binOf(exponent))];
        } else {
            ++s.histogram.zeros;
        }
    }
    s.beyondMax = finite > 0 ? double(beyond) / double(finite) : 0.0;
    s.belowNormal = nonZero > 0 ? double(below) / double(nonZero) : 0.0;
    return s;
}

namespace {

// numpy.allclose's criterion as a relative figure (see PrecisionMetric::AllClose).
double allcloseValue(const std::vector<float>& r, const std::vector<float>& c, double atol) {
    if (r.size() != c.size()) return kInf;
    double value = 0.0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        const double ri = r[i], ci = c[i];
        if (!std::isfinite(ri) || !std::isfinite(ci)) {
            if (ri == ci) continue;  // the same inf (allclose's equal_nan is off: NaN never meets)
            return kInf;
        }
        const double excess = std::abs(ci - ri) - atol;
        if (excess <= 0.0) continue;
        value = std::max(value, ri == 0.0 ? kInf : excess / std::abs(ri));
    }
    return value;
}

}  // namespace

double precisionMetricValue(PrecisionMetric metric, const std::vector<std::vector<float>>& reference,
                            const std::vector<std::vector<float>>& converted, const std::vector<Shape>& shapes,
                            double atol) {
    double value = 0.0;
    int64_t rows = 0, differ = 0;
    for (std::size_t h = 0; h < reference.size() && h < converted.size(); ++h) {
        if (metric == PrecisionMetric::AllClose) {
            value = worst(value, allcloseValue(reference[h], converted[h], atol));
            continue;
        }
        const TensorDifference d = compareArrays(reference[h], converted[h]);
        switch (metric) {
            case PrecisionMetric::MaxRel: value = worst(value, d.maxRelError); break;
            case PrecisionMetric::MaxAbs: value = worst(value, d.maxAbsError); break;
            case PrecisionMetric::Cosine: value = worst(value, 1.0 - d.cosine); break;
            case PrecisionMetric::AllClose: break;
            case PrecisionMetric::Top1:
                differ += argmaxDisagreements(reference[h], converted[h], shapes[h]);
                rows += shapes[h].empty() ? 0 : shapes[h][0];
                if (d.nonFinite > 0) {
                    value = kInf;  // an inf/NaN logit has no meaningful argmax
                }
                break;
        }
    }
    if (metric == PrecisionMetric::Top1 && rows > 0) {
        value = worst(value, double(differ) / double(rows));
    }
    return value;
}

PrecisionSearchResult searchFloat32Set(const Graph& source, const NDArrayList* params,
                                       const std::map<std::string, HostArray>& inputs, Backend& backend,
                                       const PrecisionSearchOptions& options) {
    const DType target = options.conversion.lists.targetDtype;
    ExecContext ctx;
    ctx.training = false;
    ctx.seed = options.seed;

    auto clock = std::chrono::steady_clock::now();
    auto lap = [&clock] {
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - clock).count();
        clock = now;
        return s;
    };
    // The float32 reference, kept bound: every entry's float32 value stays at hand.
    std::unique_ptr<Executor> reference = bindForInference(source, inputs, backend);
    loadValues(*reference, params, inputs, backend, options.seed);
    reference->forward(ctx);
    std::vector<std::vector<float>> referenceOutputs;
    std::vector<Shape> shapes;
    for (const NodeEntry& h : source.heads) {
        referenceOutputs.push_back(downloadFloats(backend, reference->entryValue(h)));
        shapes.push_back(reference->entryValue(h).shape());
    }

    PrecisionSearchResult result;
    result.referenceSeconds = lap();
    auto convertWith = [&](const std::vector<std::string>& fp32) {
        ConversionOptions o = options.conversion;
        o.excludedSymNames.insert(fp32.begin(), fp32.end());
        return convertGraph(source, o);
    };
    // What the attempts reuse: the reference's values, the baseline's once it has run, and those of
    // the set chosen so far (the next attempt usually differs from it by one node).
    ReusableValues reusable;
    if (options.reuseValues) reusable.add(*reference);
    std::optional<Run> chosenRun, latestRun;
    auto runWith = [&](const std::vector<std::string>& fp32, bool whole) {
        Run run;
        run.conversion = convertWith(fp32);
        if (!run.conversion.report.dtypeCheck.passed) {
            return run;  // never used: an invalid model is no answer
        }
        run.ran = true;
        if (!whole && options.reuseValues) {
            run.reusing = runReusing(run.conversion.graph, reusable, params, inputs, backend, ctx);
            result.searchNodesRun += run.reusing.nodesRun;
            run.outputs = run.reusing.outputs;
        } else {
            run.executor = bindForInference(run.conversion.graph, inputs, backend);
            loadValues(*run.executor, params, inputs, backend, options.seed);
            run.executor->forward(ctx);
            for (const NodeEntry& h : run.conversion.graph.heads) {
                run.outputs.push_back(downloadFloats(backend, run.executor->entryValue(h)));
            }
            if (!whole) result.searchNodesRun += opNodes(run.conversion.graph);
        }
        if (!whole) result.searchNodes += opNodes(run.conversion.graph);
        return run;
    };
    Float32SetAttempts attempts(options, result, [&](const std::vector<std::string>& fp32) {
        latestRun.reset();
        Run run = runWith(fp32, false);
        const double value = run.ran ? precisionMetricValue(options.metric, referenceOutputs, run.outputs, shapes, options.atol) : kInf;
        latestRun = std::move(run);
        return value;
    });

    // The baseline: the conversion as the lists decide it, measured node by node.
    Run baseline = runWith({}, true);
    if (!baseline.ran) {
        throw std::invalid_argument("the conversion fails its dtype check: " + baseline.conversion.report.dtypeCheck.message);
    }
    attempts.baseline(precisionMetricValue(options.metric, referenceOutputs, baseline.outputs, shapes, options.atol));
    for (std::size_t h = 0; h < source.heads.size() && h < baseline.outputs.size(); ++h) {
        TensorDifference d = compareArrays(referenceOutputs[h], baseline.outputs[h]);
        d.name = outputEntryName(source.nodes[source.heads[h].node], source.heads[h].index);
        d.shape = shapes[h];
        d.convertedDtype = baseline.executor->entryValue(baseline.conversion.graph.heads[h]).dtype();
        result.outputs.push_back(std::move(d));
    }
    result.baselineSeconds = lap();
    std::map<std::string, NodeId, std::less<>> sourceByName;
    for (NodeId n = 0; n < source.size(); ++n) {
        sourceByName.emplace(source.nodes[n].name, n);
    }
    const Graph& converted = baseline.conversion.graph;
    // What gets measured: every compute node the two graphs share (by name and op); those whose
    // output is in the target dtype are the search's candidates, the rest inherit error only.
    std::vector<std::pair<NodeId, NodeId>> measured;  // (converted, source)
    for (NodeId c = 0; c < converted.size(); ++c) {
        const Node& node = converted.nodes[c];
        const auto s = sourceByName.find(node.name);
        if (!node.isVariable() && s != sourceByName.end() && source.nodes[s->second].op == node.op) {
            measured.emplace_back(c, s->second);
        }
    }
    bool measuring = true;
    for (std::size_t m = 0; m < measured.size() && measuring; ++m) {
        const auto [c, sourceId] = measured[m];
        const Node& node = converted.nodes[c];
        const Node& original = source.nodes[sourceId];
        const bool inTarget = baseline.executor->entryValue({c, 0, 0}).dtype() == target;
        NodeErrorProfile p;
        p.name = node.name;
        p.op = node.op;
        const std::vector<float> exact = downloadFloats(backend, reference->entryValue({sourceId, 0, 0}));
        p.error = compareArrays(exact, downloadFloats(backend, baseline.executor->entryValue({c, 0, 0})));
        p.stats = rangeStats(exact, target);
        if (!inTarget) {
            result.float32Nodes.push_back(std::move(p));
            measuring = !options.nodeProgress || options.nodeProgress(m + 1, measured.size());
            continue;
        }
        std::vector<std::pair<std::string, double>> paramRanges;
        for (const NodeEntry& in : original.inputs) {
            const Node& producer = source.nodes[in.node];
            if (producer.isVariable() && !options.conversion.dataNames.contains(producer.name)) {
                paramRanges.emplace_back(producer.name, rangeStats(downloadFloats(backend, reference->entryValue(in)), target).maxAbs);
            }
        }
        int64_t reduced = 0;
        if (isReductionOp(node.op) && !original.inputs.empty()) {
            const int64_t outSize = std::max<int64_t>(1, int64_t(exact.size()));
            reduced = reference->entryValue(original.inputs[0]).size() / outSize;
        }
        p.warnings = rangeWarnings(p.stats, target, paramRanges, reduced);
        // Alone: the node's float32 inputs, cast as the converted model casts them.
        try {
            Graph g;
            BindOptions bo;
            bo.forTraining = false;
            std::vector<NodeEntry> ins;
            for (std::size_t k = 0; k < node.inputs.size() && k < original.inputs.size(); ++k) {
                const Tensor& exactIn = reference->entryValue(original.inputs[k]);
                Node v;
                v.name = "in" + std::to_string(k);
                g.nodes.push_back(v);
                bo.shapes[v.name] = exactIn.shape();
                bo.dtypes[v.name] = DType::F32;
                NodeEntry e{NodeId(g.nodes.size() - 1), 0, 0};
                const DType wanted = baseline.executor->entryValue(node.inputs[k]).dtype();
                if (wanted != DType::F32) {
                    Node cast;
                    cast.op = "amp_cast";
                    cast.name = v.name + "_cast";
                    cast.attrs.emplace("dtype", std::string(dtypeName(wanted)));
                    cast.inputs = {e};
                    g.nodes.push_back(cast);
                    e = {NodeId(g.nodes.size() - 1), 0, 0};
                }
                ins.push_back(e);
            }
            Node copy = node;
            copy.inputs = ins;
            copy.controlDeps.clear();
            g.nodes.push_back(copy);
            g.heads = {{NodeId(g.nodes.size() - 1), 0, 0}};
            Executor alone(g, backend, bo);
            for (std::size_t k = 0; k < ins.size(); ++k) {
                uploadFloats(backend, downloadFloats(backend, reference->entryValue(original.inputs[k])),
                             alone.value("in" + std::to_string(k)));
            }
            alone.forward(ctx);
            p.own = compareArrays(exact, downloadFloats(backend, alone.entryValue(g.heads[0])));
        } catch (const std::exception&) {
            p.own.reset();  // an op that cannot run alone: ranked by its error in the model
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

    // The baseline stays bound for the search; the set chosen so far joins it as it changes.
    auto reuseFrom = [&] {
        if (!options.reuseValues) return;
        reusable = ReusableValues();
        reusable.add(*reference);
        reusable.add(*baseline.executor);
        if (chosenRun) reusable.add(chosenRun->reusing);
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
    for (const NodeErrorProfile& p : result.nodes) {
        candidates.push_back(p.name);
    }
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
