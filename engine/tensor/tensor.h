#pragma once
// A tensor: a shape, a dtype and a reference to storage that lives on one device. Storage is made by
// a Backend (backend/backend.h) and is only dereferenced by that backend's kernels: host code reads
// or writes a tensor through Backend::copyToHost / copyFromHost, never through data(), because on the
// CUDA backend data() is a device pointer. Copies of a Tensor share storage (like NDArray handles).

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace ampstudio {

enum class DeviceKind : uint8_t { Cpu, Cuda };

struct Device {
    DeviceKind kind = DeviceKind::Cpu;
    int index = 0;
    friend bool operator==(const Device&, const Device&) = default;
};

// A block of device memory. The backend that allocated it frees it in the destructor of its subclass.
class Storage {
public:
    Storage(void* data, std::size_t bytes, Device device) : m_data(data), m_bytes(bytes), m_device(device) {}
    virtual ~Storage() = default;
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() const { return m_data; }
    std::size_t bytes() const { return m_bytes; }
    Device device() const { return m_device; }

private:
    void* m_data;
    std::size_t m_bytes;
    Device m_device;
};

class Tensor {
public:
    Tensor() = default;
    Tensor(std::shared_ptr<Storage> storage, Shape shape, DType dtype)
        : m_storage(std::move(storage)), m_shape(std::move(shape)), m_dtype(dtype) {}

    bool defined() const { return m_storage != nullptr; }
    explicit operator bool() const { return defined(); }

    const Shape& shape() const { return m_shape; }
    DType dtype() const { return m_dtype; }
    int64_t size() const { return shapeSize(m_shape); }
    std::size_t bytes() const { return static_cast<std::size_t>(size()) * dtypeSize(m_dtype); }
    Device device() const { return m_storage ? m_storage->device() : Device{}; }

    // The device address; only the owning backend's kernels may dereference it.
    void* data() const { return m_storage ? m_storage->data() : nullptr; }
    template <typename T>
    T* data() const {
        return static_cast<T*>(data());
    }
    const std::shared_ptr<Storage>& storage() const { return m_storage; }

    // The same storage seen with another shape of the same size (Reshape, Flatten): no copy.
    Tensor reshaped(Shape shape) const;

private:
    std::shared_ptr<Storage> m_storage;
    Shape m_shape;
    DType m_dtype = DType::F32;
};

}  // namespace ampstudio
