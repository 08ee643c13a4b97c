// `ampstudio-cli tune`: the precision debugger headless. Runs the float32 model and its conversion
// on calibration inputs, measures every target-dtype node, searches for a small set of nodes to keep
// in float32 (as exclusions) that meets the tolerance, and writes the converted model, the lists it
// used and a report (`fp32_nodes` with the reason each is there).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "amp/converted_model.h"
#include "backend/backend.h"
#include "cli_commands.h"
#include "cli_errors.h"
#include "cli_inputs.h"
#include "exec/onnx/onnx_precision_search.h"
#include "exec/precision_search.h"
#include "formats/onnx_program.h"
#include "train/calibration_inputs.h"
#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "ops/op_error.h"

namespace ampstudio::cli {
namespace {

nlohmann::json figure(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json toJson(const NodeErrorProfile& p) {
    nlohmann::json j{{"name", p.name},
                     {"op", p.op},
                     {"max_rel_error", figure(p.error.maxRelError)},
                     {"cosine", figure(p.error.cosine)},
                     {"non_finite", p.error.nonFinite},
                     {"own_max_rel_error", p.own ? figure(p.own->maxRelError) : nlohmann::json(nullptr)},
                     {"max_abs", p.stats.maxAbs},
                     {"beyond_max", p.stats.beyondMax},
                     {"below_normal", p.stats.belowNormal},
                     {"reference_non_finite", p.stats.nonFinite}};
    return j;
}

}  // namespace

int runTune(const TuneArgs& args) {
    try {
        const auto metric = precisionMetricFromName(args.metric);
        if (!metric) throw UsageError("--metric: '" + args.metric + "' is not max-rel, max-abs, cosine, top1 or allclose");
        if (!(args.tolerance >= 0.0)) throw UsageError("--tolerance must be a non-negative number");
        if (!(args.atol >= 0.0)) throw UsageError("--atol must be a non-negative number");
        if (args.maxAttempts < 1) throw UsageError("--max-attempts must be at least 1");
        const ConvertArgs& c = args.conversion;
        std::vector<std::filesystem::path> inputs{c.symbol};
        if (c.params) inputs.push_back(*c.params);
        if (c.listsFile) inputs.push_back(*c.listsFile);
        const ModelFiles outputs = modelFilesFor(sniffModelFormat(c.symbol), c.outputPrefix, c.params.has_value());
        const std::filesystem::path listsOut = c.outputPrefix + "-amp-lists.json";
        for (const auto& output : outputs.all()) refuseToOverwriteInput(output, inputs);
        refuseToOverwriteInput(listsOut, inputs);
        if (c.report) refuseToOverwriteInput(*c.report, inputs);

        const ModelDocument source = openModelFile(c.symbol, {.findCompanions = false, .params = c.params});
        const Graph& graph = *source.graph;
        const NDArrayList* params = source.params.get();
        const bool onnx = source.origin.format == ModelFormat::Onnx;
        if (onnx && args.backend == "cuda") throw UsageError("ONNX models run on the CPU (--backend cpu or auto)");
        // MXNet graphs run on the executor, ONNX models on the ONNX runner, in their declared dtypes.
        std::map<std::string, HostArray> modelIn;
        std::map<std::string, HostTensor> onnxIn;
        std::map<std::string, Dims> inputDims;
        if (onnx) {
            try {
                onnxIn = onnxCalibrationInputs(*onnxProgramOf(source), {.randomInputs = args.inputs, .numpyFiles = args.numpyFiles,
                                                                       .dataset = args.data, .samples = args.samples, .seed = args.seed});
            } catch (const CalibrationError& e) {
                throw UsageError(e.what());
            }
            for (const auto& [name, t] : onnxIn) inputDims[name] = t.dims();
        } else {
            modelIn = modelInputs(graph, args.inputs, args.numpyFiles, args.data, args.samples, args.seed);
            for (const auto& [name, a] : modelIn) inputDims[name] = a.shape;
        }

        PrecisionSearchOptions options;
        if (c.lowPrecisionIo && !onnx) {
            throw UsageError("--low-precision-io is for ONNX models (an MXNet model's inputs are float32 data)");
        }
        options.conversion = conversionOptions(c, onnx ? OpSet::Onnx : OpSet::Mxnet);
        options.metric = *metric;
        options.tolerance = args.tolerance;
        options.atol = args.atol;
        options.seed = args.seed;
        options.maxAttempts = args.maxAttempts;
        const auto start = std::chrono::steady_clock::now();
        auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
        int attemptNumber = 0;
        options.progress = [&](const SearchAttempt& a) {
            std::cerr << "  attempt " << ++attemptNumber << ": " << a.fp32Nodes.size() << " node(s) in float32, "
                      << args.metric << " " << std::scientific << std::setprecision(3) << a.value << std::defaultfloat
                      << (a.meets ? " (meets)" : "") << ", " << std::fixed << std::setprecision(1) << seconds() << " s"
                      << std::defaultfloat << '\n';
            return true;
        };
        PrecisionSearchResult r;
        if (onnx) {
            r = searchOnnxFloat32Set(source, onnxIn, options);
        } else {
            auto backend = makeBackend(parseBackendChoice(args.backend), &graph);
            r = searchFloat32Set(graph, params, modelIn, *backend, options);
        }
        const double elapsed = seconds();

        std::cout << "nodes in " << dtypeName(options.conversion.lists.targetDtype) << ": " << r.nodes.size()
                  << "; worst own errors (alone on float32 inputs):\n";
        for (std::size_t i = 0; i < r.nodes.size() && i < 10; ++i) {
            const NodeErrorProfile& p = r.nodes[i];
            std::cout << "  " << std::left << std::setw(40) << p.name << std::right << std::setw(18) << p.op
                      << std::scientific << std::setprecision(3) << std::setw(12)
                      << (p.own ? p.own->maxRelError : NAN) << std::setw(12) << p.error.maxRelError << std::defaultfloat
                      << "  max|x| " << p.stats.maxAbs << '\n';
        }
        std::cout << (r.meets ? "found" : "NOT MET") << ": " << r.fp32Nodes.size() << " node(s) kept in float32";
        for (const std::string& n : r.fp32Nodes) std::cout << (&n == &r.fp32Nodes.front() ? ": " : ", ") << n;
        std::cout << "; " << args.metric << " " << std::scientific << std::setprecision(3) << r.value << std::defaultfloat
                  << " (tolerance " << args.tolerance << "); " << r.attempts.size() << " attempts in " << std::fixed
                  << std::setprecision(1) << elapsed << " s" << std::defaultfloat << '\n';

        ConversionResult conversion = r.conversion;
        if (!conversion.report.dtypeCheck.passed) {
            std::cerr << "ampstudio-cli: the tuned conversion fails its " << (onnx ? "ONNX check" : "MXNet's dtype check")
                      << ", so nothing was saved: "
                      << conversion.report.dtypeCheck.message << '\n';
            return kBadInput;
        }
        const ModelFiles saved = saveConvertedModel(c.outputPrefix, conversion, options.conversion.lists.targetDtype, source, inputs,
                           &conversion.report);
        writeFileAtomically(listsOut, options.conversion.lists.toJson());
        if (c.report) {
            nlohmann::json report{{"model", c.symbol.string()},
                                  {"metric", args.metric},
                                  {"tolerance", args.tolerance},
                                  {"atol", args.atol},
                                  {"value", figure(r.value)},
                                  {"met", r.meets},
                                  {"seed", args.seed},
                                  {"seconds", elapsed},
                                  {"attempts", nlohmann::json::array()},
                                  {"fp32_nodes", nlohmann::json::array()},
                                  {"nodes", nlohmann::json::array()}};
            for (const auto& [name, dims] : inputDims) report["inputs"][name] = dims;
            for (const SearchAttempt& a : r.attempts) {
                report["attempts"].push_back({{"fp32_nodes", a.fp32Nodes}, {"value", figure(a.value)}, {"meets", a.meets}});
            }
            for (const std::string& n : r.fp32Nodes) {
                const auto it = std::find_if(r.nodes.begin(), r.nodes.end(), [&](const auto& p) { return p.name == n; });
                std::string why = "needed to meet the tolerance";
                if (it != r.nodes.end() && it->own) {
                    std::ostringstream text;
                    text << "alone in " << dtypeName(options.conversion.lists.targetDtype) << " on float32 inputs its "
                         << "max relative error is " << it->own->maxRelError << "; without it in float32 the "
                         << args.metric << " exceeds " << args.tolerance;
                    why = text.str();
                }
                report["fp32_nodes"].push_back({{"name", n}, {"why", why}});
            }
            for (const NodeErrorProfile& p : r.nodes) report["nodes"].push_back(toJson(p));
            report["conversion"] = nlohmann::json::parse(conversion.report.toJson());
            writeFileAtomically(*c.report, report.dump(2) + "\n");
        }
        std::cout << "wrote";
        for (const auto& file : saved.all()) std::cout << ' ' << file.string() << ',';
        std::cout << " and " << listsOut.string() << '\n';
        return r.meets ? kSuccess : kBadInput;
    } catch (...) {
        return reportCurrentException(args.conversion.symbol);
    }
}

}  // namespace ampstudio::cli
