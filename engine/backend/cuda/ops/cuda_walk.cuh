#pragma once
// Device-side building blocks of the element-wise family (C++17, nvcc only): one grid-stride kernel
// that applies a functor to every index, the offsets of a strided Walk, and one deterministic
// reduction over a pair of walks. Every op is a functor handed to these; there is no kernel per op.
#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_elemwise_launchers.h"

namespace ampstudio::cuda {

template <typename F>
__global__ void forEachIndexKernel(int64_t n, F f) {
    AMS_GRID_STRIDE(i, n) {
        f(i);
    }
}

// f(i) for every i in [0, n), on `stream`.
template <typename F>
void forEachIndex(int64_t n, F f, cudaStream_t stream, const char* what) {
    if (n <= 0)
        return;
    forEachIndexKernel<<<gridFor(n), kThreads, 0, stream>>>(n, f);
    checkLaunch(what);
}

// Adds the first N operands' offsets of the walk's k-th element to off.
template <int N>
__device__ __forceinline__ void addWalkOffsets(const Walk& walk, int64_t k, int64_t (&off)[N]) {
    for (int d = walk.rank - 1; d >= 0; --d) {
        const int64_t q = k / walk.dims[d];
        const int64_t index = k - q * walk.dims[d];
        k = q;
#pragma unroll
        for (int j = 0; j < N; ++j) {
            off[j] += index * walk.strides[j][d];
        }
    }
}

// The sum of v over the block, in a fixed tree order (blockDim.x == kThreads), returned to every
// thread. `shared` holds kThreads values; it may be reused as soon as this returns.
template <typename Acc>
__device__ Acc blockSum(Acc v, Acc* shared) {
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            shared[threadIdx.x] += shared[threadIdx.x + stride];
        __syncthreads();
    }
    const Acc total = shared[0];
    __syncthreads();
    return total;
}

// For every r in [0, walkCount(kept)): store(r, sum over k of term(off)), off the offsets of kept's
// r-th element plus reduced's k-th. One thread per r, k in order.
template <typename Acc, int N, typename Term, typename Store>
__global__ void reduceThreadPerOutputKernel(Walk kept, Walk reduced, int64_t outputs, int64_t length,
                                            Term term, Store store) {
    AMS_GRID_STRIDE(r, outputs) {
        int64_t base[N] = {};
        addWalkOffsets(kept, r, base);
        Acc acc = 0;
        for (int64_t k = 0; k < length; ++k) {
            int64_t off[N];
#pragma unroll
            for (int j = 0; j < N; ++j)
                off[j] = base[j];
            addWalkOffsets(reduced, k, off);
            acc += term(off);
        }
        store(r, acc);
    }
}

// The same with one block per r: each thread sums a strided share of k, then the block sums the
// shares in a fixed tree.
template <typename Acc, int N, typename Term, typename Store>
__global__ void reduceBlockPerOutputKernel(Walk kept, Walk reduced, int64_t outputs, int64_t length,
                                           Term term, Store store) {
    __shared__ Acc shared[kThreads];
    for (int64_t r = blockIdx.x; r < outputs; r += gridDim.x) {
        int64_t base[N] = {};
        addWalkOffsets(kept, r, base);
        Acc acc = 0;
        for (int64_t k = threadIdx.x; k < length; k += blockDim.x) {
            int64_t off[N];
#pragma unroll
            for (int j = 0; j < N; ++j)
                off[j] = base[j];
            addWalkOffsets(reduced, k, off);
            acc += term(off);
        }
        acc = blockSum(acc, shared);
        if (threadIdx.x == 0)
            store(r, acc);
    }
}

// Picks the layout from the shapes alone, so the summation order (and the bits) never vary between
// runs: a thread per output when there are enough outputs to fill the device or each sums little,
// else a block per output.
template <typename Acc, int N, typename Term, typename Store>
void reduceWalk(const Walk& kept, const Walk& reduced, Term term, Store store, cudaStream_t stream,
                const char* what) {
    const int64_t outputs = walkCount(kept);
    const int64_t length = walkCount(reduced);
    if (outputs <= 0)
        return;
    if (outputs >= 8192 || length < 64) {
        reduceThreadPerOutputKernel<Acc, N>
            <<<gridFor(outputs), kThreads, 0, stream>>>(kept, reduced, outputs, length, term, store);
    } else {
        const int blocks = static_cast<int>(std::min<int64_t>(outputs, 65535));
        reduceBlockPerOutputKernel<Acc, N>
            <<<blocks, kThreads, 0, stream>>>(kept, reduced, outputs, length, term, store);
    }
    checkLaunch(what);
}

}  // namespace ampstudio::cuda
