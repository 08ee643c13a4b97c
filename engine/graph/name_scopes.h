#pragma once
// The name scopes a node's name carries, for grouping a large graph as Google's Model Explorer does
// (one box per scope, opened level by level). Exporters write scopes in three ways:
//   ONNX from PyTorch and TensorFlow: "/encoder/layer.3/attention/MatMul" (slash-separated);
//   PyTorch module paths: "bert.encoder.layer.3.attention.self.query" (dot-separated);
//   MXNet Gluon: "resnetv10_stage2_conv0_weight" (underscore-separated prefixes).
// A name with a '/' is split on '/', else one with a '.' on '.', else on '_'. A part that is only
// digits joins the part before it ("layer.3", "stage_2"), since a module list's index names an
// instance, not a scope of its own. The last part is the node's own name, never a scope.
// Casts the AMP pass inserts ("<entry>_amp_cast_float16", "<entry>_amp_multicast", ONNX
// "<tensor>_amp_cast_float16") sit in the scopes of the entry they cast, so a cast is grouped with
// what it casts rather than in a scope called "amp".

#include <string>
#include <string_view>
#include <vector>

namespace ampstudio {

// The scope path of `name`, outermost first, each element the whole prefix up to and including that
// scope, in the name's own spelling and separator: "/encoder/layer.3/MatMul" gives "/encoder",
// "/encoder/layer.3"; "resnetv10_stage2_conv0" gives "resnetv10", "resnetv10_stage2". Empty for a
// name without scopes ("data", "fc1").
std::vector<std::string> nameScopes(std::string_view name);

// A scope path's own, innermost part, as a box is titled: "/encoder/layer.3" -> "layer.3",
// "resnetv10_stage2" -> "stage2", "stage_2" -> "stage_2".
std::string_view scopeOwnPart(std::string_view scope);

}  // namespace ampstudio
