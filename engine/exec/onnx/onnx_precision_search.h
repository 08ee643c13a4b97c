#pragma once
// The precision debugger on ONNX models: what exec/precision_search.h does for MXNet graphs, on the
// ONNX runner. One float32 run of the original keeps every value; the conversion as the lists decide
// it (the baseline) runs the same way; then, per main-graph node that the conversion runs in the
// target dtype, its error in the converted model, its own error (the node alone in the target dtype
// on the exact float32 inputs, cast as the converted model casts them) and its float32 range. The
// search (exec/float32_set_search.h) tries sets of such nodes as exclusions; every attempt is a real
// conversion (convertOnnxModel: the checker and strict shape inference pass, or it is not run), and
// computes only what differs from the runs before it (exec/onnx/onnx_value_signatures.h).
#include <map>
#include <string>

#include "exec/precision_search.h"
#include "formats/model_file.h"
#include "tensor/host_tensor.h"

namespace ampstudio {

// `source` an ONNX document (ModelDocument::source from the ONNX format); `inputs` by name in the
// original's declared dtypes (onnxCalibrationInputs). options.seed is not used (the inputs are given).
// Nodes are named as the Graph IR names them (the exclusions' names). Throws ConversionError,
// OnnxRunError / OnnxUnsupported (a model the runner cannot run) and std::invalid_argument (no ONNX
// document, a baseline conversion that fails its check).
PrecisionSearchResult searchOnnxFloat32Set(const ModelDocument& source, const std::map<std::string, HostTensor>& inputs,
                                           const PrecisionSearchOptions& options);

}  // namespace ampstudio
