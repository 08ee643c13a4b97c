#pragma once
// How the process's heap treats the large blocks that graphs and tensors are made of.
//
// A 1M-node graph is about a gigabyte of small and large blocks, and the GUI converts it again on
// every edit of the lists. With glibc's defaults, each block over 32 MiB is its own mmap and the
// heap's top is returned to the kernel as soon as it is free, so every re-conversion faults that
// gigabyte back in, 4 KiB at a time, zeroed: it took 40 % of a 1M-node conversion and made the cost
// grow 15-17x for 10x the nodes (bench_conversion). Keeping freed memory in the heap for reuse
// makes it grow 9-10x. The price: after a large model is closed the process keeps up to 1 GiB of
// free heap for the next one instead of returning it. The policy governs glibc's main arena, where
// the CLI and the benchmarks work; its per-thread arenas (the GUI's worker pool) already keep their
// small blocks, and their blocks over 64 MiB stay separate mappings.
namespace ampstudio {

struct HeapPolicyResult {
    bool applied = false;  // false with an allocator that is not glibc's, or under a sanitizer
};

// Serve large blocks from the heap instead of separate mappings and trim the heap only when over
// 1 GiB of it is free. Call once, early in main(), before threads start. Idempotent.
HeapPolicyResult applyLargeModelHeapPolicy();

}  // namespace ampstudio
