// ampstudio-cli: everything the GUI does, headless. Parses the command line and dispatches.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli_commands.h"
#include "formats/model_file.h"
#include "platform/process_heap_policy.h"

using namespace ampstudio::cli;

void ampstudio::cli::resolveCheckpoint(std::filesystem::path& symbol, std::optional<std::filesystem::path>& params,
                                       bool noParams) {
    if (params) {
        return;
    }
    const ampstudio::ModelOrigin files = ampstudio::locateModelFiles(symbol);
    symbol = files.model;
    if (files.params && !noParams) {
        params = files.params;
        std::cerr << "ampstudio-cli: note: using the parameters in " << params->string() << " (--no-params to ignore)\n";
    }
}

namespace {

// The model a subcommand reads: a symbol file (or its .params), and the parameters beside it unless
// --params names others or --no-params none.
template <typename Args>
void addModelArguments(CLI::App* command, Args& args, const std::string& symbolHelp, const std::string& paramsHelp,
                       const std::string& noParamsHelp = "Ignore parameter files beside the symbol") {
    command->add_option("symbol", args.symbol, symbolHelp)->required();
    command->add_option("--params", args.params, paramsHelp);
    command->add_flag("--no-params", args.noParams, noParamsHelp);
}

// The conversion's options, the same for every subcommand that converts.
void addConversionOptions(CLI::App* command, ConvertArgs& args) {
    command->add_option("--target-dtype", args.targetDtype, "float16 or bfloat16 (default: the lists', else float16)")
        ->check(CLI::IsMember({"float16", "bfloat16"}));
    command->add_option("--mode", args.mode, "typed (MXNet 1.9.1, default) or classic (MXNet <= 1.6)")
        ->check(CLI::IsMember({"typed", "classic"}));
    command->add_option("--lists", args.listsFile, "Operator lists JSON (schema of MXNet 1.9.1's defaults)");
    command->add_option("--target-dtype-ops", args.targetDtypeOps, "Replace the target-dtype list: A,B");
    command->add_option("--fp32-ops", args.fp32Ops, "Replace the FP32 list: A,B");
    command->add_option("--widest-dtype-ops", args.widestDtypeOps, "Replace the widest-type list: A,B");
    command->add_option("--conditional-fp32-ops", args.conditionalFp32Ops,
                        "Replace the conditional FP32 list: OP:PARAM:V1|V2,...");
    command->add_option("--excluded-sym-names", args.excludedSymNames, "Nodes kept out of the lists: N1,N2");
    command->add_option("--data-names", args.dataNames, "Graph inputs that are data (default: data)");
    command->add_flag("--cast-optional-params", args.castOptionalParams,
                      "Store parameters used only in the target dtype in that dtype");
    command->add_flag("--low-precision-io", args.lowPrecisionIo,
                      "ONNX: let graph inputs and outputs change to the target dtype (default: they stay float32)");
}

}  // namespace

int main(int argc, char** argv) {
    // Before any thread starts: freed large blocks stay in the heap for reuse (platform/process_heap_policy.h).
    ampstudio::applyLargeModelHeapPolicy();
    CLI::App app{"AMP Studio command line: convert MXNet and ONNX models to mixed precision", "ampstudio-cli"};
    app.set_version_flag("--version", std::string(AMPSTUDIO_VERSION));
    app.require_subcommand(1);

    ConvertArgs convert;
    CLI::App* convertCmd = app.add_subcommand("convert", "Insert casts as MXNet's AMP pass does (amp_cast/amp_multicast; Cast in ONNX models)");
    addModelArguments(convertCmd, convert, "MXNet symbol file (*-symbol.json), or its *-NNNN.params, or an ONNX model (*.onnx)",
                      "MXNet parameter file (default: the newest PREFIX-NNNN.params beside the symbol)");
    convertCmd->add_option("--output", convert.outputPrefix, "Writes PREFIX-symbol.json (and PREFIX-0000.params), or PREFIX.onnx")
        ->required();
    addConversionOptions(convertCmd, convert);
    convertCmd->add_option("--report", convert.report, "Write the conversion report (JSON)");

    InspectArgs inspect;
    CLI::App* inspectCmd = app.add_subcommand("inspect", "Print a model's nodes, operators, inputs, outputs, parameters");
    addModelArguments(inspectCmd, inspect, "MXNet symbol file (*-symbol.json), or its *-NNNN.params",
                      "MXNet parameter file (default: the newest PREFIX-NNNN.params beside the symbol)");
    inspectCmd->add_flag("--json", inspect.json, "Machine-readable output");
    inspectCmd->add_option("--node", inspect.node,
                           "Show one node as the GUI's inspector does: its precision, rule and reason under the "
                           "conversion the options below describe, its attributes, inputs and outputs with dtypes");
    addConversionOptions(inspectCmd, inspect.conversion);

    CompareArgs compare;
    CLI::App* compareCmd = app.add_subcommand("compare", "Run a model and its conversion on the same inputs; report the error");
    addModelArguments(compareCmd, compare, "The original MXNet symbol file",
                      "Parameters of the original (default: beside the symbol; else initialised from --seed)");
    compareCmd->add_option("converted", compare.converted, "The converted symbol file (convert's PREFIX-symbol.json)")->required();
    compareCmd->add_option("--input", compare.inputs, "An input and its shape, filled with seeded uniform(0,1): NAME=SHAPE (repeatable)");
    compareCmd->add_option("--inputs", compare.numpyFiles, "NumPy files (.npz, .npy): each array fills the input of its name")
        ->check(CLI::ExistingFile);
    compareCmd->add_option("--data", compare.data,
                           "Samples for the data input: fashion-mnist (its test set), an IDX images file, "
                           "synthetic:NAME, csv:FILE or idx:DIR (their validation part)");
    compareCmd->add_option("--samples", compare.samples, "How many images from --data (default 64)");
    compareCmd->add_option("--seed", compare.seed, "Seed of random inputs and initialised parameters (default 0)");
    compareCmd->add_option("--backend", compare.backend, "auto (default: CUDA when a device can run the model), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    compareCmd->add_option("--report", compare.report, "Write every output's and node's figures (JSON)");

    RunArgs run;
    CLI::App* runCmd = app.add_subcommand("run", "Run a model forward on given inputs; print and save its outputs");
    runCmd->add_option("model", run.model, "MXNet symbol file (*-symbol.json, or its *-NNNN.params) or ONNX model (*.onnx)")->required();
    runCmd->add_option("--params", run.params, "MXNet parameter file (default: the newest beside the symbol; else initialised from --seed)");
    runCmd->add_flag("--no-params", run.noParams, "Ignore parameter files beside the symbol: initialise from --seed");
    runCmd->add_option("--input", run.inputs, "An input and its shape, filled with seeded uniform(0,1): NAME=SHAPE (repeatable)");
    runCmd->add_option("--inputs", run.numpyFiles, "NumPy files (.npz, .npy): each array fills the input of its name")
        ->check(CLI::ExistingFile);
    runCmd->add_option("--data", run.data, "Samples for the data input: fashion-mnist, an IDX images file, synthetic:NAME, csv:FILE or idx:DIR");
    runCmd->add_option("--samples", run.samples, "How many samples from --data (default 8)");
    runCmd->add_option("--seed", run.seed, "Seed of random inputs and initialised parameters (default 0)");
    runCmd->add_option("--outputs", run.outputs, "Write every output to this .npz (bfloat16 as float32)");
    runCmd->add_option("--backend", run.backend, "auto (default), cpu, cuda (MXNet models)")->check(CLI::IsMember({"auto", "cpu", "cuda"}));

    TuneArgs tune;
    ConvertArgs& tc = tune.conversion;
    CLI::App* tuneCmd = app.add_subcommand(
        "tune", "Find a small set of nodes to keep in float32 for a tolerance; write that conversion");
    addModelArguments(tuneCmd, tc, "MXNet symbol file (*-symbol.json), or its *-NNNN.params, or an ONNX model (*.onnx)",
                      "Parameters (default: beside the symbol; else initialised from --seed)");
    tuneCmd->add_option("--output", tc.outputPrefix,
                        "Writes PREFIX-symbol.json (and PREFIX-0000.params), or PREFIX.onnx; and PREFIX-amp-lists.json")
        ->required();
    tuneCmd->add_option("--input", tune.inputs, "A calibration input and its shape, seeded uniform(0,1): NAME=SHAPE (repeatable)");
    tuneCmd->add_option("--inputs", tune.numpyFiles, "Calibration NumPy files (.npz, .npy): each array fills the input of its name")
        ->check(CLI::ExistingFile);
    tuneCmd->add_option("--data", tune.data,
                        "Calibration samples for the data input: fashion-mnist, an IDX images file, synthetic:NAME, "
                        "csv:FILE or idx:DIR");
    tuneCmd->add_option("--samples", tune.samples, "How many images from --data (default 8)");
    tuneCmd->add_option("--metric", tune.metric,
                        "max-rel (default), max-abs, cosine (1 - cosine), top1 (share of changed argmax), allclose "
                        "(numpy.allclose element-wise: --tolerance is its rtol, --atol its atol)")
        ->check(CLI::IsMember({"max-rel", "max-abs", "cosine", "top1", "allclose"}));
    tuneCmd->add_option("--atol", tune.atol, "allclose's absolute tolerance (default 0)");
    tuneCmd->add_option("--tolerance", tune.tolerance, "The largest acceptable metric on the outputs (default 0.01)");
    tuneCmd->add_option("--max-attempts", tune.maxAttempts, "Conversions the search may run (default 64)");
    tuneCmd->add_option("--seed", tune.seed, "Seed of random inputs and initialised parameters (default 0)");
    addConversionOptions(tuneCmd, tc);
    tuneCmd->add_option("--backend", tune.backend, "auto (default), cpu, cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    tuneCmd->add_option("--report", tc.report, "Write the search: every node's figures, the attempts, fp32_nodes (JSON)");

    TrainArgs train;
    CLI::App* trainCmd = app.add_subcommand("train", "Train a model in fp32, amp, fp16-master, bf16 or bf16-master");
    addModelArguments(trainCmd, train, "MXNet symbol file (*-symbol.json), or its *-NNNN.params",
                      "Initial parameters (default: beside the symbol; else initialised from --seed)",
                      "Ignore parameter files beside the symbol: initialise from --seed");
    trainCmd->add_option("--data", train.data, "fashion-mnist | synthetic:regression|spirals|blobs | csv:FILE | idx:DIR")->required();
    trainCmd->add_option("--label-column", train.labelColumn, "The label column of a CSV file (default label)");
    trainCmd->add_option("--precision", train.precision, "fp32 (default), amp, fp16-master, bf16, bf16-master")
        ->check(CLI::IsMember({"fp32", "amp", "fp16-master", "bf16", "bf16-master"}));
    trainCmd->add_option("--lists", train.listsFile, "Operator lists for amp / bf16 (default: MXNet's)");
    trainCmd->add_option("--excluded-sym-names", train.excludedSymNames, "Nodes kept in float32 whatever the lists say: N1,N2");
    trainCmd->add_option("--scaler", train.scaler, "Loss scaler: pytorch, apex, fastai, deepspeed, static:N, off (default: pytorch for float16, off otherwise)");
    trainCmd->add_option("--init-scale", train.initScale, "Initial loss scale (overrides the preset's)");
    trainCmd->add_option("--growth-interval", train.growthInterval, "Clean steps before the scale grows (overrides the preset's)");
    trainCmd->add_option("--optimizer", train.optimizer, "sgd (default), adam, adamw")->check(CLI::IsMember({"sgd", "adam", "adamw"}));
    trainCmd->add_option("--lr", train.lr, "Learning rate (default 0.05)");
    trainCmd->add_option("--momentum", train.momentum, "SGD momentum (default 0.9)");
    trainCmd->add_option("--weight-decay", train.weightDecay, "Weight decay (default 0)");
    trainCmd->add_option("--schedule", train.schedule, "constant (default), step:N[:GAMMA], cosine[:MIN], one-cycle");
    trainCmd->add_option("--batch-size", train.batchSize, "Samples per step (default 64)");
    trainCmd->add_option("--epochs", train.epochs, "Epochs (default 1)");
    trainCmd->add_option("--steps", train.steps, "Stop after this many steps");
    trainCmd->add_option("--clip", train.clip, "Clip gradients to this global L2 norm (default: off)");
    trainCmd->add_option("--seed", train.seed, "Seed of initialisation, shuffling and dropout (default 0)");
    trainCmd->add_option("--backend", train.backend, "auto (default: CUDA when a device can run the model), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    trainCmd->add_option("--metrics", train.metrics, "Write every step to this CSV file");
    trainCmd->add_option("--epoch-metrics", train.epochMetrics, "Write every epoch to this CSV file (with --metrics)");
    trainCmd->add_option("--save", train.save, "Write PREFIX-symbol.json and PREFIX-NNNN.params (NNNN = epochs done)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return kSuccess;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return kSuccess;
    } catch (const CLI::CallForVersion&) {
        std::cout << AMPSTUDIO_VERSION << '\n';
        return kSuccess;
    } catch (const CLI::ParseError& e) {
        std::cerr << "ampstudio-cli: " << e.what() << " (see --help)\n";
        return kUsageError;
    }
    if (convertCmd->parsed()) {
        resolveCheckpoint(convert.symbol, convert.params, convert.noParams);
        return runConvert(convert);
    }
    if (compareCmd->parsed()) {
        resolveCheckpoint(compare.symbol, compare.params, compare.noParams);
        return runCompare(compare);
    }
    if (runCmd->parsed()) {
        resolveCheckpoint(run.model, run.params, run.noParams);
        return runRun(run);
    }
    if (tuneCmd->parsed()) {
        resolveCheckpoint(tc.symbol, tc.params, tc.noParams);
        return runTune(tune);
    }
    if (trainCmd->parsed()) {
        resolveCheckpoint(train.symbol, train.params, train.noParams);
        return runTrain(train);
    }
    resolveCheckpoint(inspect.symbol, inspect.params, inspect.noParams);
    return runInspect(inspect);
}
