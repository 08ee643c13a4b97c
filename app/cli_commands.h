#pragma once
// The subcommands of ampstudio-cli. Each returns the process exit status and writes errors as one
// line on stderr; they use only the engine.

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "amp/conversion.h"

namespace ampstudio::cli {

enum ExitStatus : int { kSuccess = 0, kUsageError = 1, kBadInput = 2 };

struct ConvertArgs {
    std::filesystem::path symbol;  // or a .params file, whose symbol is found beside it
    std::optional<std::filesystem::path> params;
    bool noParams = false;  // do not look for PREFIX-NNNN.params beside the symbol
    std::string outputPrefix;
    std::optional<std::string> targetDtype;  // from the lists file (or float16) when not given
    std::string mode = "typed";
    std::optional<std::filesystem::path> listsFile;
    // A list given on the command line replaces that list; an empty string is an empty list.
    std::optional<std::string> targetDtypeOps, fp32Ops, widestDtypeOps, conditionalFp32Ops;
    std::optional<std::string> excludedSymNames, dataNames;
    bool castOptionalParams = false;
    bool lowPrecisionIo = false;  // ONNX models only
    std::optional<std::filesystem::path> report;
};

struct InspectArgs {
    std::filesystem::path symbol;
    std::optional<std::filesystem::path> params;
    bool noParams = false;
    bool json = false;
    std::optional<std::string> node;  // one node, under the conversion `conversion` describes
    ConvertArgs conversion;           // its options only (lists, mode, exclusions ...)
};

struct CompareArgs {
    std::filesystem::path symbol;
    std::filesystem::path converted;
    std::optional<std::filesystem::path> params;
    bool noParams = false;
    std::vector<std::string> inputs;  // NAME=SHAPE, e.g. data=64,784 or "data=(64, 784)"
    std::vector<std::string> numpyFiles;  // --inputs X.npz|X.npy ...
    std::optional<std::string> data;  // fashion-mnist, an IDX images file, synthetic:NAME, csv:FILE, idx:DIR
    int64_t samples = 64;
    uint64_t seed = 0;
    std::optional<std::filesystem::path> report;
    std::string backend = "auto";
};

struct RunArgs {
    std::filesystem::path model;  // an MXNet symbol (or its .params) or an ONNX model
    std::optional<std::filesystem::path> params;
    bool noParams = false;
    std::vector<std::string> inputs;      // NAME=SHAPE: seeded uniform(0, 1)
    std::vector<std::string> numpyFiles;  // --inputs X.npz|X.npy ...
    std::optional<std::string> data;
    int64_t samples = 8;
    uint64_t seed = 0;
    std::optional<std::filesystem::path> outputs;  // --outputs Y.npz
    std::string backend = "auto";
};

struct TrainArgs {
    std::filesystem::path symbol;
    std::optional<std::filesystem::path> params;
    bool noParams = false;
    std::string data;
    std::string labelColumn = "label";
    std::string precision = "fp32";
    std::optional<std::filesystem::path> listsFile;
    std::optional<std::string> scaler;
    std::optional<double> initScale;
    std::optional<int64_t> growthInterval;
    std::string optimizer = "sgd";
    double lr = 0.05;
    double momentum = 0.9;
    double weightDecay = 0.0;
    std::string schedule = "constant";
    int64_t batchSize = 64;
    int64_t epochs = 1;
    int64_t steps = 0;
    double clip = 0.0;
    uint64_t seed = 0;
    std::optional<std::filesystem::path> metrics;
    std::optional<std::filesystem::path> epochMetrics;
    std::optional<std::string> save;
    std::optional<std::string> excludedSymNames;
    std::string backend = "auto";
};

struct TuneArgs {
    // The model, the lists and the conversion options as `convert` takes them (its outputPrefix is
    // where the tuned model goes).
    ConvertArgs conversion;
    std::vector<std::string> inputs;  // NAME=SHAPE, as compare's
    std::vector<std::string> numpyFiles;
    std::optional<std::string> data;
    int64_t samples = 8;
    uint64_t seed = 0;
    std::string metric = "max-rel";
    double tolerance = 1e-2;
    double atol = 0.0;  // --metric allclose
    int maxAttempts = 64;
    std::string backend = "auto";
};

// As the GUI's drag-and-drop: a .params file given as the model stands for its checkpoint, and
// without --params (or --no-params) the newest PREFIX-NNNN.params beside the symbol is used, with
// a note on stderr saying so.
// "a, b,c" -> {"a", "b", "c"}: the CLI's comma-separated lists, blanks trimmed, empty items dropped.
std::vector<std::string> splitList(const std::string& text, char separator);


void resolveCheckpoint(std::filesystem::path& symbol, std::optional<std::filesystem::path>& params, bool noParams);

int runConvert(const ConvertArgs& args);
// The conversion `convert` runs for these arguments (lists file and list options, mode, exclusions,
// data names, cast_optional_params). Throws AmpListsError and LoadError (the lists file).
// `opSet` picks the default lists (MXNet's or the ONNX ones) when no --lists file is given.
ConversionOptions conversionOptions(const ConvertArgs& args, OpSet opSet = OpSet::Mxnet);
int runInspect(const InspectArgs& args);
int runCompare(const CompareArgs& args);
int runRun(const RunArgs& args);
int runTune(const TuneArgs& args);
int runTrain(const TrainArgs& args);

}  // namespace ampstudio::cli
