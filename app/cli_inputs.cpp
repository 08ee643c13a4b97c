#include "cli_inputs.h"

#include "train/calibration_inputs.h"

namespace ampstudio::cli {

std::map<std::string, HostArray> modelInputs(const Graph& graph, const std::vector<std::string>& specs,
                                             const std::vector<std::string>& numpyFiles,
                                             const std::optional<std::string>& data, int64_t samples, uint64_t seed) {
    if (specs.empty() && numpyFiles.empty() && !data) {
        throw UsageError("give the inputs: --inputs X.npz ..., --data fashion-mnist|FILE|synthetic:NAME, "
                         "or --input NAME=SHAPE (random values)");
    }
    if (samples < 1) throw UsageError("--samples must be at least 1");
    try {
        return calibrationInputs(graph, {.randomInputs = specs, .numpyFiles = numpyFiles, .dataset = data, .samples = samples, .seed = seed});
    } catch (const CalibrationError& e) {
        throw UsageError(e.what());
    }
}

}  // namespace ampstudio::cli
