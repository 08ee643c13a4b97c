#include "tensor/host_tensor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "tensor/float_convert.h"

namespace ampstudio {

int64_t dimsSize(const Dims& dims) {
    int64_t n = 1;
    for (const int64_t d : dims) {
        if (d < 0) throw std::invalid_argument("negative dimension in " + dimsString(dims));
        if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) throw std::overflow_error("tensor size overflows int64");
        n *= d;
    }
    return n;
}

std::string dimsString(const Dims& dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        text += (i ? ", " : "") + std::to_string(dims[i]);
    }
    return text + "]";
}

namespace {
std::atomic<std::size_t> g_byteLimit{std::size_t{16} << 30};
}  // namespace

std::size_t hostTensorByteLimit() { return g_byteLimit.load(std::memory_order_relaxed); }
void setHostTensorByteLimit(std::size_t bytes) { g_byteLimit.store(bytes, std::memory_order_relaxed); }

HostTensor HostTensor::uninitialized(DType dtype, Dims dims) {
    HostTensor t;
    t.m_dtype = dtype;
    t.m_dims = std::move(dims);
    t.m_size = dimsSize(t.m_dims);
    if (dtypeSize(dtype) == 0) throw std::invalid_argument("a tensor of unknown dtype");
    if (t.m_size > 0 && static_cast<std::size_t>(t.m_size) > hostTensorByteLimit() / dtypeSize(dtype)) {
        throw std::length_error("a tensor of " + dimsString(t.m_dims) + " " + std::string(dtypeName(dtype)) + " is larger than " +
                                std::to_string(hostTensorByteLimit() >> 20) + " MiB");
    }
    t.m_data = std::make_shared<HostBuffer>(HostBuffer{std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(t.bytes(), 1))});
    return t;
}

HostTensor::HostTensor(DType dtype, Dims dims) : HostTensor(uninitialized(dtype, std::move(dims))) {
    std::memset(m_data->data(), 0, bytes());
}

HostTensor HostTensor::reshaped(Dims dims) const {
    if (dimsSize(dims) != m_size) {
        throw std::invalid_argument("cannot view " + dimsString(m_dims) + " as " + dimsString(dims));
    }
    HostTensor view = *this;
    view.m_dims = std::move(dims);
    return view;
}

double HostTensor::numberAt(int64_t i) const {
    if (i < 0 || i >= m_size) throw std::out_of_range("element " + std::to_string(i) + " of a tensor of " + dimsString(m_dims));
    const std::byte* p = raw() + static_cast<std::size_t>(i) * dtypeSize(m_dtype);
    const auto load = [p]<typename T>(T) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return static_cast<double>(v);
    };
    switch (m_dtype) {
        case DType::F32: return load(float{});
        case DType::F64: return load(double{});
        case DType::F16: return halfBitsToFloat(static_cast<uint16_t>(load(uint16_t{})));
        case DType::BF16: return bfloat16BitsToFloat(static_cast<uint16_t>(load(uint16_t{})));
        case DType::U8: return load(uint8_t{});
        case DType::I8: return load(int8_t{});
        case DType::I16: return load(int16_t{});
        case DType::U16: return load(uint16_t{});
        case DType::I32: return load(int32_t{});
        case DType::U32: return load(uint32_t{});
        case DType::I64: return load(int64_t{});
        case DType::U64: return load(uint64_t{});
        case DType::Bool: return load(uint8_t{}) != 0 ? 1.0 : 0.0;
        default: throw std::invalid_argument("not a numeric tensor");
    }
}

int64_t HostTensor::integerAt(int64_t i) const {
    if (i < 0 || i >= m_size) throw std::out_of_range("element " + std::to_string(i) + " of a tensor of " + dimsString(m_dims));
    const std::byte* p = raw() + static_cast<std::size_t>(i) * dtypeSize(m_dtype);
    if (m_dtype == DType::I64 || m_dtype == DType::U64) {
        int64_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    if (m_dtype == DType::I32) {
        int32_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    // A float where an integer is asked for (a shape, an axis, a count): NaN, infinity or a value
    // past int64 has no integer, and converting it would be undefined.
    const double v = numberAt(i);
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
        throw std::domain_error("element " + std::to_string(i) + " is " + std::to_string(v) + ", which is no int64");
    }
    return static_cast<int64_t>(v);
}

std::vector<int64_t> HostTensor::integers() const {
    std::vector<int64_t> out(static_cast<std::size_t>(m_size));
    for (int64_t i = 0; i < m_size; ++i) out[static_cast<std::size_t>(i)] = integerAt(i);
    return out;
}

std::vector<float> HostTensor::floats() const {
    std::vector<float> out(static_cast<std::size_t>(m_size));
    if (m_dtype == DType::F32) {
        if (bytes()) std::memcpy(out.data(), raw(), bytes());
    } else if (m_dtype == DType::F16) {
        halfToFloats({data<uint16_t>(), out.size()}, out);
    } else if (m_dtype == DType::BF16) {
        bfloat16ToFloats({data<uint16_t>(), out.size()}, out);
    } else {
        for (int64_t i = 0; i < m_size; ++i) out[static_cast<std::size_t>(i)] = static_cast<float>(numberAt(i));
    }
    return out;
}

HostTensor HostTensor::fromFloats(const std::vector<float>& values, Dims dims, DType dtype) {
    HostTensor t(dtype, std::move(dims));
    if (static_cast<int64_t>(values.size()) != t.size()) throw std::invalid_argument("value count differs from the dims");
    switch (dtype) {
        case DType::F32: if (t.bytes()) std::memcpy(t.mutableRaw(), values.data(), t.bytes()); break;
        case DType::F16: floatsToHalf(values, {t.mutableData<uint16_t>(), values.size()}); break;
        case DType::BF16: floatsToBfloat16(values, {t.mutableData<uint16_t>(), values.size()}); break;
        case DType::F64:
            for (std::size_t i = 0; i < values.size(); ++i) t.mutableData<double>()[i] = values[i];
            break;
        default: throw std::invalid_argument("fromFloats: not a float dtype");
    }
    return t;
}

HostTensor HostTensor::fromIntegers(const std::vector<int64_t>& values, Dims dims, DType dtype) {
    HostTensor t(dtype, std::move(dims));
    if (static_cast<int64_t>(values.size()) != t.size()) throw std::invalid_argument("value count differs from the dims");
    for (std::size_t i = 0; i < values.size(); ++i) {
        switch (dtype) {
            case DType::I64: t.mutableData<int64_t>()[i] = values[i]; break;
            case DType::I32: t.mutableData<int32_t>()[i] = static_cast<int32_t>(values[i]); break;
            default: throw std::invalid_argument("fromIntegers: not int32 or int64");
        }
    }
    return t;
}

}  // namespace ampstudio
