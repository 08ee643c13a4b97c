#pragma once
// The inputs a model is run on by `compare` and `tune`: --input NAME=SHAPE (seeded uniform 0..1),
// --inputs X.npz ... (NumPy arrays by input name), --data fashion-mnist, an IDX images file or a
// training-data spec (the first --samples samples); the
// engine's calibrationInputs (train/calibration_inputs.h) with the command line's words.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/model_run.h"
#include "graph/graph.h"

namespace ampstudio::cli {

// A mistake on the command line (exit 1).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws UsageError (bad specs, no inputs at all) or LoadError (an unreadable images file).
std::map<std::string, HostArray> modelInputs(const Graph& graph, const std::vector<std::string>& specs,
                                             const std::vector<std::string>& numpyFiles,
                                             const std::optional<std::string>& data, int64_t samples, uint64_t seed);

}  // namespace ampstudio::cli
