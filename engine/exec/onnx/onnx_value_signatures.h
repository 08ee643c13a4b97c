#pragma once
// Running an ONNX program that mostly equals programs already run, computing only what differs (the
// precision debugger's attempts, exec/onnx/onnx_precision_search.h): the ONNX counterpart of
// exec/reused_values.h. A value's signature hashes its whole upstream: the producing node's op,
// name and attributes (a nested graph whole, with the signatures of the outer values it reads), the
// signatures of its inputs and its output index; a graph input by name and dtype, an initializer by
// name, dtype and dims. Two values with the same signature hold the same numbers on the same inputs,
// so a run may take one from the other.
//
// Signatures compare programs made from one model (its conversions): an initializer or a large
// tensor attribute is known by its name, dtype and dims rather than by every byte, because a
// conversion writes a changed tensor under a new name or in a new dtype.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "formats/onnx_program.h"
#include "tensor/host_tensor.h"

namespace ampstudio {

using OnnxSignatures = std::unordered_map<std::string, uint64_t>;

// The signature of every value of `program`'s main graph (inputs, initializers, node outputs), by name.
OnnxSignatures onnxValueSignatures(const OnnxProgram& program);

// Values of runs done, by signature (the tensors share their bytes with the runs' values).
class OnnxReusableValues {
public:
    // Every value in `values` that `signatures` names becomes reusable (the first of a signature stays).
    void add(const OnnxSignatures& signatures, const std::unordered_map<std::string, HostTensor>& values);
    const HostTensor* find(uint64_t signature) const;
    std::size_t size() const { return m_values.size(); }
    void clear() { m_values.clear(); }

private:
    std::unordered_map<uint64_t, HostTensor> m_values;
};

}  // namespace ampstudio
