// `ampstudio-cli compare`: the original and the converted model forward on the same inputs and
// parameters; per output and per node (where names match) the error of the conversion.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "amp/converted_model.h"
#include "backend/backend.h"
#include "cli_commands.h"
#include "cli_errors.h"
#include "cli_inputs.h"
#include "exec/model_compare.h"
#include "exec/onnx/onnx_compare.h"
#include "formats/onnx_program.h"
#include "train/calibration_inputs.h"
#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "ops/op_error.h"
#include "ops/variable_roles.h"
#include "tensor/seeded_random.h"
#include "train/fashion_mnist.h"
#include "train/idx_file.h"

namespace ampstudio::cli {
namespace {

// A figure, or null where it is undefined (NaN: no finite pair to compute it over).
nlohmann::json figure(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json toJson(const TensorDifference& d) {
    return {{"name", d.name},
            {"shape", d.shape},
            {"dtype", std::string(dtypeName(d.convertedDtype))},
            {"status", std::string(d.status())},
            {"max_abs_error", figure(d.maxAbsError)},
            {"max_rel_error", figure(d.maxRelError)},
            {"cosine", figure(d.cosine)},
            {"finite_pairs", d.finitePairs},
            {"elements", d.elements},
            {"non_finite", d.nonFinite},
            {"reference_non_finite", d.referenceNonFinite},
            {"reference_max_abs", d.referenceMaxAbs}};
}

// Column widths that fit the longest name and shape of the rows printed (GluonCV's node names run
// past 40 characters), so that a row's figures always line up under their headers.
struct TableWidths {
    int name = 36;
    int shape = 14;
};

TableWidths tableWidths(std::span<const TensorDifference> a, std::span<const TensorDifference> b) {
    TableWidths w;
    for (auto rows : {a, b}) {
        for (const TensorDifference& d : rows) {
            w.name = std::max(w.name, static_cast<int>(d.name.size()) + 1);
            w.shape = std::max(w.shape, static_cast<int>(shapeString(d.shape).size()) + 2);
        }
    }
    return w;
}

void printDifference(const TensorDifference& d, const TableWidths& w) {
    std::cout << "  " << std::left << std::setw(w.name) << d.name << std::right << std::setw(w.shape) << shapeString(d.shape)
              << std::setw(9) << dtypeName(d.convertedDtype) << std::scientific << std::setprecision(3)
              << std::setw(12) << d.maxAbsError << std::setw(12) << d.maxRelError << std::fixed << std::setprecision(6);
    if (std::isnan(d.cosine)) {
        std::cout << std::setw(11) << "n/a";
    } else {
        std::cout << std::setw(11) << d.cosine;
    }
    std::cout << std::setw(8) << d.nonFinite << std::defaultfloat;
    if (!d.referenceFinite()) {
        std::cout << "  REFERENCE NOT FINITE (" << d.referenceNonFinite << " inf/NaN)";
    }
    std::cout << '\n';
}

}  // namespace

int runCompare(const CompareArgs& args) {
    try {
        if (args.report) {
            std::vector<std::filesystem::path> inputs{args.symbol, args.converted};
            if (args.params) inputs.push_back(*args.params);
            refuseToOverwriteInput(*args.report, inputs);
        }
        const ModelDocument referenceModel = openModelFile(args.symbol, {.findCompanions = false, .params = args.params});
        const ModelDocument convertedModel = openModelFile(args.converted, {.findCompanions = false, .params = std::nullopt});
        const Graph& reference = *referenceModel.graph;
        const Graph& converted = *convertedModel.graph;
        const NDArrayList* params = referenceModel.params.get();
        if ((referenceModel.origin.format == ModelFormat::Onnx) != (convertedModel.origin.format == ModelFormat::Onnx)) {
            throw UsageError("the two models are in different formats");
        }

        ModelComparison result;
        std::map<std::string, Dims> inputDims;
        if (referenceModel.origin.format == ModelFormat::Onnx) {
            // ONNX models run on the ONNX runner (CPU), their inputs in the dtypes they declare.
            if (args.backend == "cuda") throw UsageError("ONNX models run on the CPU (--backend cpu or auto)");
            const auto referenceProgram = onnxProgramOf(referenceModel);
            std::map<std::string, HostTensor> inputs;
            try {
                inputs = onnxCalibrationInputs(*referenceProgram, {.randomInputs = args.inputs, .numpyFiles = args.numpyFiles,
                                                                    .dataset = args.data, .samples = args.samples, .seed = args.seed});
            } catch (const CalibrationError& e) {
                throw UsageError(e.what());
            }
            for (const auto& [name, t] : inputs) inputDims[name] = t.dims();
            result = compareOnnxModels(*referenceProgram, *onnxProgramOf(convertedModel), inputs);
        } else {
            const std::map<std::string, HostArray> inputs =
                modelInputs(reference, args.inputs, args.numpyFiles, args.data, args.samples, args.seed);
            for (const auto& [name, a] : inputs) inputDims[name] = a.shape;
            auto backend = makeBackend(parseBackendChoice(args.backend), &converted);
            result = compareModels(reference, converted, params, inputs, *backend, args.seed);
        }
        // A float32 reference that overflows is no reference: said first, before any figure.
        bool referenceFinite = true;
        for (const TensorDifference& d : result.outputs) {
            if (!d.referenceFinite()) {
                referenceFinite = false;
                std::cout << "WARNING: the float32 reference output '" << d.name << "' has " << d.referenceNonFinite
                          << " inf/NaN of " << d.elements << " values; the figures below cover the " << d.finitePairs
                          << " finite pairs only: reference not finite\n";
            }
        }
        // A reference below float16's normal range cannot survive a float16 conversion; said first too,
        // so that a cosine of 0 is not read as a broken conversion.
        const bool hasFloat16 = std::any_of(converted.nodes.begin(), converted.nodes.end(), [](const Node& n) {
            const std::string* dtype = n.attr("dtype");
            return (n.op == "amp_cast" || n.op == "Cast") && dtype != nullptr && *dtype == "float16";
        }) || std::any_of(result.nodes.begin(), result.nodes.end(), [](const TensorDifference& d) { return d.convertedDtype == DType::F16; });
        for (const TensorDifference& d : result.outputs) {
            if (hasFloat16 && d.referenceFinite() && d.referenceBelowFloat16()) {
                std::cout << "WARNING: the float32 reference output '" << d.name << "' is tiny (max |r| = "
                          << d.referenceMaxAbs << ", below float16's smallest normal 6.1e-05): float16 keeps few or "
                          << "no digits of such values"
                          << (params ? "" : "; with seeded parameters activations can vanish with depth, so compare "
                                            "with the model's real parameters (--params)")
                          << '\n';
            }
        }
        std::vector<TensorDifference> worst = result.nodes;
        std::stable_sort(worst.begin(), worst.end(),
                         [](const auto& a, const auto& b) { return a.maxRelError > b.maxRelError; });
        worst.resize(std::min<std::size_t>(worst.size(), 10));
        const TableWidths widths = tableWidths(result.outputs, worst);
        std::cout << "  " << std::left << std::setw(widths.name) << "output" << std::right << std::setw(widths.shape) << "shape"
                  << std::setw(9) << "dtype" << std::setw(12) << "max abs" << std::setw(12) << "max rel"
                  << std::setw(11) << "cosine" << std::setw(8) << "inf/nan" << '\n';
        for (const TensorDifference& d : result.outputs) printDifference(d, widths);
        std::cout << "nodes in both models: " << result.nodes.size() << "; largest relative errors:\n";
        for (const TensorDifference& d : worst) printDifference(d, widths);
        if (args.report) {
            nlohmann::json report{{"reference", args.symbol.string()},
                                  {"converted", args.converted.string()},
                                  {"seed", args.seed},
                                  {"status", referenceFinite ? "ok" : "reference not finite"},
                                  {"outputs", nlohmann::json::array()},
                                  {"nodes", nlohmann::json::array()}};
            for (const auto& [name, dims] : inputDims) report["inputs"][name] = dims;
            for (const TensorDifference& d : result.outputs) report["outputs"].push_back(toJson(d));
            for (const TensorDifference& d : result.nodes) report["nodes"].push_back(toJson(d));
            writeFileAtomically(*args.report, report.dump(2) + "\n");
        }
        return kSuccess;
    } catch (...) {
        return reportCurrentException(args.symbol);
    }
}

}  // namespace ampstudio::cli
