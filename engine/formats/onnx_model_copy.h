#pragma once
// Copies of ONNX messages that leave the large tensor bytes behind. A conversion builds its result
// from a copy of the original, a save with external data writes a message whose tensors live in a
// side file, and validation infers types on a model whose weights it never reads: in each, copying
// a hundred megabytes of weights only to replace or drop them would double the time and the peak
// memory. Everything else is copied as protobuf would (every field, unknown fields included), by
// reflection, so that a field a newer libonnx adds is never lost. A large graph's nodes are copied
// on a second thread beside its initializers.

#include <cstddef>

#include <onnx/onnx_pb.h>

namespace ampstudio {

// `model` whole, except that each main-graph initializer with more than `threshold` bytes of
// raw_data has none in the copy (its name, dims, dtype, external_data and the rest stay; the
// initializers keep their places).
onnx::ModelProto copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold);
// The same into `copy`, which may live on an arena (cleared first).
void copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold, onnx::ModelProto& copy);

// `from` into `to` (cleared first), every set field but raw_data.
void copyTensorWithoutData(const onnx::TensorProto& from, onnx::TensorProto& to);

}  // namespace ampstudio
