#include "cli_inputs.h"

#include "train/calibration_inputs.h"

namespace ampstudio::cli {

std::map<std::string, HostArray> modelInputs(const Graph& graph, const std::vector<std::string>& specs,
                                             const std::optional<std::string>& data, int64_t samples, uint64_t seed) {
    if (specs.empty() && !data) {
        throw UsageError("give the inputs: --data fashion-mnist|FILE, or --input NAME=SHAPE (random values)");
    }
    if (samples < 1) throw UsageError("--samples must be at least 1");
    try {
        return calibrationInputs(graph, {.randomInputs = specs, .dataset = data, .samples = samples, .seed = seed});
    } catch (const CalibrationError& e) {
        throw UsageError(e.what());
    }
}

}  // namespace ampstudio::cli
