#include "backend/cuda/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_check.h"

namespace ampstudio {

class CudaStorage final : public Storage {
public:
    CudaStorage(void* data, std::size_t requested, std::size_t block, int device, std::shared_ptr<CudaAllocator> owner)
        : Storage(data, requested, Device{DeviceKind::Cuda, device}), m_block(block), m_owner(std::move(owner)) {}
    ~CudaStorage() override { m_owner->giveBack(data(), m_block); }

private:
    std::size_t m_block;
    std::shared_ptr<CudaAllocator> m_owner;
};

CudaAllocator::CudaAllocator(int device) : m_device(device) {}

CudaAllocator::~CudaAllocator() { releaseCache(); }

std::shared_ptr<Storage> CudaAllocator::allocate(std::size_t bytes) {
    const std::size_t size = roundedSize(bytes);
    {
        std::lock_guard lock(m_mutex);
        auto it = m_free.lower_bound(size);
        if (it != m_free.end() && it->first <= 2 * size) {
            const std::size_t block = it->first;
            void* data = it->second;
            m_free.erase(it);
            m_cachedBytes -= block;
            return std::make_shared<CudaStorage>(data, bytes, block, m_device, shared_from_this());
        }
    }
    cudaCheck(cudaSetDevice(m_device), "select the device");
    void* data = nullptr;
    cudaError_t status = cudaMalloc(&data, size);
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();  // clear the sticky-less error before retrying
        releaseCache();
        status = cudaMalloc(&data, size);
    }
    cudaCheck(status, ("allocate " + std::to_string(size) + " bytes").c_str());
    {
        std::lock_guard lock(m_mutex);
        ++m_mallocs;
    }
    return std::make_shared<CudaStorage>(data, bytes, size, m_device, shared_from_this());
}

void CudaAllocator::giveBack(void* block, std::size_t bytes) {
    std::lock_guard lock(m_mutex);
    m_free.emplace(bytes, block);
    m_cachedBytes += bytes;
}

void CudaAllocator::releaseCache() {
    std::lock_guard lock(m_mutex);
    // A block may still be read by queued kernels of the stream that freed it: wait for the device
    // before giving memory back to the driver.
    if (!m_free.empty()) (void)cudaDeviceSynchronize();
    for (const auto& [size, block] : m_free) {
        (void)cudaFree(block);
    }
    m_free.clear();
    m_cachedBytes = 0;
}

std::size_t CudaAllocator::cachedBytes() const {
    std::lock_guard lock(m_mutex);
    return m_cachedBytes;
}

}  // namespace ampstudio
