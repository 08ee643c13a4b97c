#pragma once
// Element loops over large tensors, split across the OpenMP threads that oneDNN already runs on
// (Debian's libdnnl is built with GNU OpenMP): the hand-written CPU kernels, the optimizer steps and
// the f16/bf16 conversions then use every core the matmuls use, instead of one core working while the
// others spin at oneDNN's next barrier. The range is cut into fixed chunks, independent of the thread
// count, so a reduction adds the same partial sums in the same order on every machine: a seeded run
// gives bit-identical results with 1 thread or 64. Small ranges stay serial (a parallel region costs
// a few microseconds).
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ampstudio {

inline constexpr int64_t kParallelChunk = int64_t{1} << 15;

// body(begin, end) over [0, n) in chunks of kParallelChunk, on all threads when n spans two chunks.
template <typename Body>
void parallelFor(int64_t n, const Body& body) {
    const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
    if (chunks < 2) {
        if (n > 0) {
            body(int64_t{0}, n);
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
        body(c * kParallelChunk, std::min(n, (c + 1) * kParallelChunk));
    }
}

// The sum over chunks of body(begin, end) -> double, added in chunk order.
template <typename Body>
double parallelSum(int64_t n, const Body& body) {
    const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
    if (chunks < 2) {
        return n > 0 ? body(int64_t{0}, n) : 0.0;
    }
    std::vector<double> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
        partial[static_cast<std::size_t>(c)] = body(c * kParallelChunk, std::min(n, (c + 1) * kParallelChunk));
    }
    double sum = 0.0;
    for (double p : partial) {
        sum += p;
    }
    return sum;
}

}  // namespace ampstudio
