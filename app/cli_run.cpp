// `ampstudio-cli run`: a model forward on the given inputs; every output's dtype, dims and range
// printed, and all of them written to an .npz when asked. MXNet models run on the executor (CPU or
// CUDA), ONNX models on the ONNX runner (CPU).
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>

#include "backend/backend.h"
#include "cli_commands.h"
#include "cli_errors.h"
#include "cli_inputs.h"
#include "exec/model_run.h"
#include "exec/onnx/onnx_runner.h"
#include "formats/atomic_file.h"
#include "formats/model_file.h"
#include "formats/npz_file.h"
#include "formats/onnx_program.h"
#include "ops/variable_roles.h"
#include "train/calibration_inputs.h"

namespace ampstudio::cli {
namespace {

void printOutput(const std::string& name, const HostTensor& t) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0.0;
    int64_t nonFinite = 0;
    for (int64_t i = 0; i < t.size(); ++i) {
        const double v = t.numberAt(i);
        if (!std::isfinite(v)) {
            ++nonFinite;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    const int64_t finite = t.size() - nonFinite;
    std::cout << "  " << std::left << std::setw(28) << name << std::right << std::setw(10) << dtypeName(t.dtype()) << "  "
              << std::left << std::setw(18) << dimsString(t.dims()) << std::right;
    if (finite > 0) {
        std::cout << std::setprecision(6) << "min " << lo << "  max " << hi << "  mean " << sum / static_cast<double>(finite);
    }
    if (nonFinite > 0) std::cout << "  inf/nan " << nonFinite;
    std::cout << '\n';
}

}  // namespace

int runRun(const RunArgs& args) {
    try {
        if (args.outputs) {
            std::vector<std::filesystem::path> inputs{args.model};
            if (args.params) inputs.push_back(*args.params);
            for (const std::string& f : args.numpyFiles) inputs.emplace_back(f);
            refuseToOverwriteInput(*args.outputs, inputs);
        }
        const ModelDocument document = openModelFile(args.model, {.findCompanions = false, .params = args.params});
        const CalibrationSpec spec{.randomInputs = args.inputs, .numpyFiles = args.numpyFiles, .dataset = args.data,
                                   .samples = args.samples, .seed = args.seed};
        std::vector<std::pair<std::string, HostTensor>> outputs;
        if (document.origin.format == ModelFormat::Onnx) {
            if (args.backend == "cuda") throw UsageError("ONNX models run on the CPU (--backend cpu or auto)");
            const auto program = onnxProgramOf(document);
            const OnnxRunner runner(program);
            std::map<std::string, HostTensor> inputs;
            try {
                inputs = onnxCalibrationInputs(*program, spec);
            } catch (const CalibrationError& e) {
                throw UsageError(e.what());
            }
            std::cout << "onnx runner (cpu), inputs:";
            for (const auto& [name, t] : inputs) std::cout << ' ' << name << ' ' << dtypeName(t.dtype()) << ' ' << dimsString(t.dims());
            std::cout << '\n';
            outputs = runner.run(inputs).outputs;
        } else {
            const Graph& graph = *document.graph;
            const std::map<std::string, HostArray> inputs = modelInputs(graph, args.inputs, args.numpyFiles, args.data, args.samples, args.seed);
            auto backend = makeBackend(parseBackendChoice(args.backend), &graph);
            auto executor = bindForInference(graph, inputs, *backend);
            loadValues(*executor, document.params.get(), inputs, *backend, args.seed);
            ExecContext ctx;
            ctx.seed = args.seed;
            executor->forward(ctx);
            std::cout << backend->name() << '\n';
            for (std::size_t h = 0; h < graph.heads.size(); ++h) {
                const Tensor& t = executor->entryValue(graph.heads[h]);
                const DType stored = t.dtype() == DType::BF16 ? DType::F32 : t.dtype();  // numpy has no bfloat16
                HostTensor host = HostTensor::fromFloats(downloadFloats(*backend, t), t.shape(),
                                                         isFloat(stored) ? stored : DType::F32);
                outputs.emplace_back(outputEntryName(graph.nodes[graph.heads[h].node], graph.heads[h].index), std::move(host));
            }
        }
        std::cout << "outputs:\n";
        for (const auto& [name, t] : outputs) printOutput(name, t);
        if (args.outputs) {
            writeNpzFile(*args.outputs, outputs);
            std::cout << "wrote " << args.outputs->string() << '\n';
        }
        return kSuccess;
    } catch (...) {
        return reportCurrentException(args.model);
    }
}

}  // namespace ampstudio::cli
