#pragma once
// libonnx's checker (onnx::checker::check_model, full), fast on large graphs.
//
// check_model's graph loop keeps every value name of the graph in a std::unordered_set<std::string>
// (a copy and an allocation per name, two cache misses per probe): on a 100k-node graph that loop
// was most of its 200 ms. For a model whose main graph holds no subgraphs (If / Loop / Scan
// bodies) and no sparse initializers, checkerFailure runs check_model's own steps here, in its
// order: the model-level checks, then check_graph's loop with the names in a Swiss table of views,
// calling libonnx's check_value_info, check_tensor, check_node and check_model_local_functions
// for everything else. Only a pass is taken from it: wherever it finds a failure, check_model
// itself runs and gives the verdict and the message, so what the caller sees is libonnx's. The
// test holds it to check_model's verdict on every libonnx-testdata model, its conversions and
// broken variants of each.
#include <string>

#include <onnx/onnx_pb.h>

namespace ampstudio {

// The checker's failure as "onnx::checker: <what()>", empty when the model passes.
std::string checkerFailure(const onnx::ModelProto& model);

// check_model itself, in the same form (the reference for the tests).
std::string checkerFailureByLibonnx(const onnx::ModelProto& model);

// Whether checkerFailure runs the loop here for this model (else check_model throughout).
bool checkerHasFastPath(const onnx::ModelProto& model);

}  // namespace ampstudio
