#pragma once
// Device memory for the CUDA backend: cudaMalloc underneath (never managed memory), with freed blocks
// kept for reuse, as PyTorch's caching allocator does, because cudaMalloc/cudaFree synchronise the
// device and cost tens of microseconds: a training step that allocates its temporaries would stall on
// them. Blocks are rounded up to 512 bytes and reused for requests between half and the full block
// size. When the device is full, the cache is released and the allocation tried once more.
//
// Blocks are handed out as Storage whose destructor returns the block to the cache, so tensors keep
// the allocator alive (shared_ptr) however long they outlive the backend. Thread-safe.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "tensor/tensor.h"

namespace ampstudio {

class CudaAllocator : public std::enable_shared_from_this<CudaAllocator> {
public:
    explicit CudaAllocator(int device);
    ~CudaAllocator();  // frees the cached blocks (blocks still in use are freed by their storage)
    CudaAllocator(const CudaAllocator&) = delete;
    CudaAllocator& operator=(const CudaAllocator&) = delete;

    // Throws CudaError when the device has no room even after the cache is released.
    std::shared_ptr<Storage> allocate(std::size_t bytes);
    void releaseCache();

    std::size_t cachedBytes() const;
    std::size_t cudaMallocCalls() const { return m_mallocs; }  // for tests: reuse means no new call

    static std::size_t roundedSize(std::size_t bytes) { return bytes == 0 ? 512 : (bytes + 511) / 512 * 512; }

private:
    friend class CudaStorage;
    void giveBack(void* block, std::size_t bytes);

    int m_device;
    mutable std::mutex m_mutex;
    std::multimap<std::size_t, void*> m_free;  // size -> block
    std::size_t m_cachedBytes = 0;
    std::size_t m_mallocs = 0;
};

}  // namespace ampstudio
