#pragma once
// A tiny classifier for the training monitor's test and benchmark: data (2 features) -> FC(16) ->
// relu -> FC(3) -> SoftmaxOutput, for the synthetic "blobs" set. Thousands of steps a second, so
// runs end quickly and the GUI's side of training dominates what is measured.
#include <memory>

#include "formats/symbol_json.h"

namespace ampstudio::test {

inline constexpr const char* kBlobMlpJson = R"({"nodes": [{"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "fc1_weight", "inputs": []}, {"op": "null", "name": "fc1_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "16"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]},
    {"op": "null", "name": "fc2_weight", "inputs": []}, {"op": "null", "name": "fc2_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "3"}, "inputs": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},
    {"op": "null", "name": "softmax_label", "inputs": []},
    {"op": "SoftmaxOutput", "name": "softmax", "inputs": [[7, 0, 0], [8, 0, 0]]}],
    "arg_nodes": [0, 1, 2, 5, 6, 8], "heads": [[9, 0, 0]]})";

inline std::shared_ptr<const Graph> blobMlp() {
    return std::make_shared<const Graph>(parseSymbolJson(kBlobMlpJson, "blob-mlp"));
}

}  // namespace ampstudio::test
