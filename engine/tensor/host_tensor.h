#pragma once
// A tensor in host memory with ONNX's shape rules: 0-d scalars (empty dims) and zero-sized dims
// exist, which the engine's Shape (where empty means "unknown") cannot say. It is what ONNX models'
// constants and values are while the ONNX runner executes them (exec/onnx/), and what the node
// tests' input and output files read as. Copies share the bytes (as Tensor's storage), so Reshape,
// Identity and Squeeze hand a value on without copying it; a kernel writes only tensors it made.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor/dtype.h"

namespace ampstudio {

using Dims = std::vector<int64_t>;

// Product of the dims (1 for a scalar); throws std::overflow_error past int64 and
// std::invalid_argument for a negative dim.
int64_t dimsSize(const Dims& dims);
// "[2, 3]"; "[]" for a scalar.
std::string dimsString(const Dims& dims);

// The largest tensor a HostTensor allocates, in bytes (default 16 GiB): a model that asks for more
// (a ConstantOfShape or Expand of absurd dims) gets std::length_error naming the size instead of
// exhausting the machine's memory. The fuzzers lower it.
std::size_t hostTensorByteLimit();
void setHostTensorByteLimit(std::size_t bytes);

// The bytes of a HostTensor: allocated without being cleared where a kernel writes them all.
struct HostBuffer {
    std::unique_ptr<std::byte[]> bytes;
    std::byte* data() const { return bytes.get(); }
};

class HostTensor {
public:
    HostTensor() = default;
    // Zero-filled storage for dims x dtype.
    HostTensor(DType dtype, Dims dims);
    // Storage whose contents are undefined: for a kernel that writes every element (a large output
    // is then not cleared first only to be overwritten).
    static HostTensor uninitialized(DType dtype, Dims dims);

    DType dtype() const { return m_dtype; }
    const Dims& dims() const { return m_dims; }
    int64_t rank() const { return static_cast<int64_t>(m_dims.size()); }
    int64_t size() const { return m_size; }
    std::size_t bytes() const { return static_cast<std::size_t>(m_size) * dtypeSize(m_dtype); }
    bool defined() const { return m_data != nullptr; }

    template <typename T>
    const T* data() const {
        return reinterpret_cast<const T*>(m_data->data());
    }
    template <typename T>
    T* mutableData() {
        return reinterpret_cast<T*>(m_data->data());
    }
    const std::byte* raw() const { return m_data->data(); }
    std::byte* mutableRaw() { return m_data->data(); }

    // The storage, shared by copies and views: what a cache of derived data (a convolution's
    // weights reordered for oneDNN) holds weakly, so that it never outlives or mistakes the bytes.
    const std::shared_ptr<HostBuffer>& storage() const { return m_data; }

    // The same bytes seen with other dims of the same size.
    HostTensor reshaped(Dims dims) const;

    // Element i as double / int64 (any numeric dtype, f16 and bf16 widened): for the small tensors
    // that carry shapes, axes and scalars. Throws std::out_of_range past the end (an empty "scalar"),
    // and integerAt std::domain_error for a float with no int64 value (NaN, infinity, too large).
    double numberAt(int64_t i) const;
    int64_t integerAt(int64_t i) const;
    std::vector<int64_t> integers() const;
    // Every element as float32 (numeric dtypes); throws std::invalid_argument for others.
    std::vector<float> floats() const;

    static HostTensor fromFloats(const std::vector<float>& values, Dims dims, DType dtype = DType::F32);
    static HostTensor fromIntegers(const std::vector<int64_t>& values, Dims dims, DType dtype = DType::I64);

private:
    DType m_dtype = DType::F32;
    Dims m_dims;
    int64_t m_size = 0;
    std::shared_ptr<HostBuffer> m_data;
};

}  // namespace ampstudio
