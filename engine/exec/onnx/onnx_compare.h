#pragma once
// compare (exec/model_compare.h) for ONNX models: both run on the ONNX runner with the same inputs,
// every graph output compared in order, and every node whose name and op are in both models by its
// first output: the same figures and the same rules as for MXNet graphs.
#include <map>
#include <string>

#include "exec/model_compare.h"
#include "formats/onnx_program.h"

namespace ampstudio {

// Throws OnnxRunError (a node that fails, an input missing) and std::invalid_argument (different
// numbers of outputs, an output whose dims differ).
ModelComparison compareOnnxModels(const OnnxProgram& reference, const OnnxProgram& converted,
                                  const std::map<std::string, HostTensor>& inputs);

// `inputs` as `program` declares them: a floating input in another floating dtype is cast to the
// declared one (a converted model with --low-precision-io takes float16 where the original takes
// float32); everything else as given.
std::map<std::string, HostTensor> onnxInputsFor(const OnnxProgram& program, const std::map<std::string, HostTensor>& inputs);

// Inputs for `program`: the arrays of `numpy` by input name (converted to the declared dtype; an
// integer array keeps its exact values), then `shapes` (NAME -> dims) filled with seeded
// uniform(0, 1) values (integers: 0 or 1 ... as the cast gives), then every other required input
// whose dims are all declared fixed, random too. Throws std::invalid_argument naming an input that
// is missing, unknown, or has symbolic dims and no shape.
std::map<std::string, HostTensor> onnxRunInputs(const OnnxProgram& program, const std::map<std::string, HostTensor>& numpy,
                                                const std::map<std::string, Dims>& shapes, uint64_t seed);

}  // namespace ampstudio
