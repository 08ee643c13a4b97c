// Device code of the shape ops: a strided copy for permutations and a row copy for the block moves of
// Concat, SliceChannel and slice_axis. Both move raw elements; the row copy widens its unit up to 16
// bytes when every address, pitch and row length allows it, since rows are usually long.
#include <stdexcept>
#include <string>

#include "backend/cuda/cuda_device.cuh"
#include "backend/cuda/ops/cuda_shape_launchers.h"

namespace ampstudio::cuda {
namespace {

template <typename Unit>
__global__ void stridedCopyKernel(const Unit* src, Unit* dst, StridedCopy g, int64_t n) {
    AMS_GRID_STRIDE(i, n) {
        int64_t rest = i;
        int64_t from = 0;
        int64_t to = 0;
        for (int k = g.rank - 1; k >= 0; --k) {
            const int64_t index = rest % g.dims[k];
            rest /= g.dims[k];
            from += index * g.srcStrides[k];
            to += index * g.dstStrides[k];
        }
        dst[to] = src[from];
    }
}

template <typename Unit>
__global__ void copyRowsKernel(const Unit* src, int64_t srcPitch, Unit* dst, int64_t dstPitch,
                               int64_t rowUnits, int64_t n) {
    AMS_GRID_STRIDE(i, n) {
        const int64_t r = i / rowUnits;
        const int64_t c = i - r * rowUnits;
        dst[r * dstPitch + c] = src[r * srcPitch + c];
    }
}

// Calls f with an unsigned type of `bytes` bytes (1, 2, 4, 8 or 16).
template <typename F>
void dispatchUnit(std::size_t bytes, F&& f) {
    switch (bytes) {
        case 1:
            f(uint8_t{});
            return;
        case 2:
            f(uint16_t{});
            return;
        case 4:
            f(uint32_t{});
            return;
        case 8:
            f(uint64_t{});
            return;
        case 16:
            f(uint4{});
            return;
        default:
            break;
    }
    throw std::invalid_argument("shape ops cannot move elements of " + std::to_string(bytes) + " bytes");
}

// Size-1 dimensions dropped, and neighbours that are contiguous in both src and dst merged, so the
// index arithmetic per element is as short as the permutation allows.
StridedCopy simplified(const StridedCopy& g) {
    StridedCopy s;
    for (int k = 0; k < g.rank; ++k) {
        if (g.dims[k] == 1) {
            continue;
        }
        if (s.rank > 0) {
            const int last = s.rank - 1;
            if (s.srcStrides[last] == g.srcStrides[k] * g.dims[k] &&
                s.dstStrides[last] == g.dstStrides[k] * g.dims[k]) {
                s.dims[last] *= g.dims[k];
                s.srcStrides[last] = g.srcStrides[k];
                s.dstStrides[last] = g.dstStrides[k];
                continue;
            }
        }
        s.dims[s.rank] = g.dims[k];
        s.srcStrides[s.rank] = g.srcStrides[k];
        s.dstStrides[s.rank] = g.dstStrides[k];
        ++s.rank;
    }
    return s;
}

bool divides(std::size_t unit, std::uintptr_t value) {
    return value % unit == 0;
}

}  // namespace

void stridedCopy(const void* src, void* dst, std::size_t elementBytes, const StridedCopy& geometry,
                 cudaStream_t stream) {
    int64_t n = 1;
    for (int k = 0; k < geometry.rank; ++k) {
        n *= geometry.dims[k];
    }
    if (n == 0) {
        return;
    }
    const StridedCopy g = simplified(geometry);
    if (g.rank == 0 || (g.rank == 1 && g.srcStrides[0] == 1 && g.dstStrides[0] == 1)) {
        copyRows(src, n, dst, n, 1, n, elementBytes, stream);  // the permutation keeps the order
        return;
    }
    dispatchUnit(elementBytes, [&](auto unit) {
        using Unit = decltype(unit);
        stridedCopyKernel<Unit><<<gridFor(n), kThreads, 0, stream>>>(static_cast<const Unit*>(src),
                                                                     static_cast<Unit*>(dst), g, n);
    });
    checkLaunch("strided copy");
}

void copyRows(const void* src, int64_t srcPitch, void* dst, int64_t dstPitch, int64_t rows, int64_t rowElems,
              std::size_t elementBytes, cudaStream_t stream) {
    if (rows == 0 || rowElems == 0) {
        return;
    }
    std::size_t unit = 16;
    while (unit > elementBytes) {
        const bool fits =
            divides(unit, reinterpret_cast<std::uintptr_t>(src)) &&
            divides(unit, reinterpret_cast<std::uintptr_t>(dst)) &&
            divides(unit, static_cast<std::uintptr_t>(rowElems) * elementBytes) &&
            (rows == 1 || (divides(unit, static_cast<std::uintptr_t>(srcPitch) * elementBytes) &&
                           divides(unit, static_cast<std::uintptr_t>(dstPitch) * elementBytes)));
        if (fits) {
            break;
        }
        unit /= 2;
    }
    const auto perUnit = static_cast<int64_t>(unit / elementBytes);
    const int64_t rowUnits = rowElems / perUnit;
    const int64_t n = rows * rowUnits;
    dispatchUnit(unit, [&](auto u) {
        using Unit = decltype(u);
        copyRowsKernel<Unit><<<gridFor(n), kThreads, 0, stream>>>(static_cast<const Unit*>(src),
                                                                  srcPitch / perUnit, static_cast<Unit*>(dst),
                                                                  dstPitch / perUnit, rowUnits, n);
    });
    checkLaunch("copy rows");
}

}  // namespace ampstudio::cuda
