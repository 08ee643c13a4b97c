#pragma once
// The AMP conversion pass on ONNX models (engine/amp/onnx_pass.cpp). The same lists and exclusions
// as for MXNet graphs, by ONNX op type ("Conv"; "com.microsoft.Gelu" outside the default domain),
// but ONNX's rules of what may be cast: the types an input can take come from the op's schema in
// libonnx (its type constraints), never from a table of ours, and only an input bound to a type
// variable that admits both float32 and the target dtype is ever cast. Casts are `Cast` nodes named
// `<tensor>_amp_cast_<dtype>`, one per tensor and dtype. The result is a whole ModelProto (what is
// not touched is kept), topologically sorted, checked by onnx::checker and strict shape inference.
// This header names no protobuf type: the CLI, the GUI and the tests call it with the document's
// opaque FormatSource.

#include <string>
#include <vector>

#include "amp/conversion.h"
#include "formats/model_file.h"

namespace ampstudio {

// True when `source` is an ONNX model (the document's source came from the ONNX format).
bool isOnnxSource(const FormatSource* source);

// Converts the ONNX model `source` (a ModelDocument's source) with `options`: lists by ONNX op type,
// excludedSymNames by the Graph IR's node names (as inspect and the views show them). The result's
// graph is the converted model's Graph IR and its `source` the converted model, which
// saveConvertedModel writes. Classic mode is MXNet's and throws ConversionError; so do overlapping
// lists. A result whose check fails (report.dtypeCheck.passed false, with the checker's message)
// must not be saved.
ConversionResult convertOnnxModel(const FormatSource& source, const ConversionOptions& options);

// Every op type libonnx has a schema for: the default domain's as "Conv", others as "domain.Op".
// Sorted; what the list editor completes.
const std::vector<std::string>& onnxOpTypes();

// Whether libonnx has a schema for `op` (as onnxOpTypes() spells it), or it is a default-domain op
// added after libonnx 1.12 (GroupNormalization, Gelu ...).
bool isKnownOnnxOpType(const std::string& op);

// The list entries no libonnx schema has (a misspelling, an MXNet op name in an ONNX list, an op of
// a domain libonnx does not know: those entries still match nodes by name).
std::vector<UnmatchableListEntry> unmatchableOnnxEntries(const AmpLists& lists);

}  // namespace ampstudio
