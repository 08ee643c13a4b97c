#include "platform/process_heap_policy.h"

#include <cstdlib>  // defines __GLIBC__ when the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ampstudio {

HeapPolicyResult applyLargeModelHeapPolicy() {
    HeapPolicyResult result;
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    // M_MMAP_THRESHOLD cannot be raised past 32 MiB (glibc refuses larger values), so large
    // blocks leave the mmap path only with M_MMAP_MAX = 0. The heap then grows by brk and, when
    // brk cannot grow, by mappings glibc keeps as part of the heap.
    const bool noMmap = mallopt(M_MMAP_MAX, 0) == 1;
    const bool trim = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
    result.applied = noMmap && trim;
#endif
    return result;
}

}  // namespace ampstudio
