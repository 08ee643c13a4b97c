#pragma once
// libonnx's strict shape inference (InferShapes with check_type and error mode 1) as a verdict on a
// model, without changing it.
//
// Why not InferShapes alone: it infers every node from scratch (an InferenceContextImpl, the
// schema's inference function, its type-constraint check, a value_info written per output), about
// 5 us a node: 0.6-0.75 s for a 100k-node graph, most of issue 19's one-second budget. Exported
// models repeat themselves (a transformer's layers, a chain's blocks), so the same node with the same
// input types is inferred again and again. The fast path gives each node the result of the first
// node with the same schema, attributes, input count, output count, input types and the contents of
// the inputs whose values the inference function read (it records which it asked for), and still
// merges each output into its declared type, makes new symbols for unknown dims and collects the
// errors per node, in node order, as InferShapes does. Graphs it does not model (If / Loop / Scan
// bodies, model-local or body-only functions, sparse tensors, experimental or unknown ops, a
// domain without an opset import) go to InferShapes itself. test_onnx_strict_inference checks the
// two agree on every libonnx-testdata model, its conversions and broken variants of them.
#include <string>

namespace onnx {
class ModelProto;
}

namespace ampstudio {

// The failure's message ("strict shape inference: ..."), empty when the model passes. Only reads
// `model`. Call it on a model libonnx's checker accepted (inference functions assume one).
std::string strictInferenceFailure(const onnx::ModelProto& model);

// The same verdict from InferShapes on a copy of `model` (large initializers' bytes left out: an
// inference function reads only small ones): the reference the fast path is tested against, and
// what strictInferenceFailure falls back to.
std::string strictInferenceFailureByInferShapes(const onnx::ModelProto& model);

// Puts the rank checks later ONNX has in front of libonnx 1.12's convolution and recurrent
// schemas' inference functions (which read past a dims array otherwise), once per process. Both
// functions above call it; so does everything else that calls those inference functions.
void guardLibonnxInference();

// Whether strictInferenceFailure takes its fast path on `model` (else it runs InferShapes).
bool strictInferenceHasFastPath(const onnx::ModelProto& model);

}  // namespace ampstudio
