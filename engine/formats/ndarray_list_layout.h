#pragma once
// The byte layout of MXNet's NDArray list files (.params), shared by ndarray_list_reader.cpp and
// ndarray_list_writer.cpp; not part of the public interface (formats/ndarray_list.h is).
//
// Layout as MXNet 1.x's NDArray::Save / NDArray::Load write and read it (src/ndarray/ndarray.cc), with
// these choices where MXNet is silent or would misbehave:
// - The reserved u64 after the list magic is ignored, as MXNet ignores it, and written as 0.
// - Bytes after the names are an error: MXNet stops reading there, but no writer puts anything there,
//   so they mean a damaged file or records we misread, and a silent partial load would hide that.
// - A dim of 0 in a V2/V1/pre-V1 shape: MXNet's loader turns the shape into "unknown" and returns a
//   none array right after the shape, but its writer wrote context, type and (empty) data for it. We
//   follow the writer: read them and keep the stored dims, so the record stays an empty array.
// - ndim -1 is "none" only in V3; V2 and V1 never write it and MXNet cannot load it there.
// - Sparse records (row_sparse, csr) are densified into a dense record; they then save as dense V2.
// - Errors inside a record name the array by index only: the names follow all the arrays.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "tensor/dtype.h"

namespace ampstudio::ndarray_layout {

// kMXAPINDArrayListMagic and NDARRAY_V1/V2/V3_MAGIC in MXNet.
inline constexpr uint64_t kListMagic = 0x112;
inline constexpr uint32_t kMagicV1 = 0xF993FAC8;
inline constexpr uint32_t kMagicV2 = 0xF993FAC9;
inline constexpr uint32_t kMagicV3 = 0xF993FACA;

// MXNet's NDArrayStorageType numbering.
inline constexpr int32_t kDefaultStorage = 0;
inline constexpr int32_t kRowSparseStorage = 1;
inline constexpr int32_t kCSRStorage = 2;

// No real tensor comes near this; it bounds the dims a hostile ndim makes us read.
inline constexpr std::size_t kMaxNDim = 32;

inline std::string formatShape(std::span<const int64_t> dims) {
    std::string s = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(dims[i]);
    }
    return s + (dims.size() == 1 ? ",)" : ")");
}

// Element count of a shape; nullopt for a negative dim or an int64 overflow. A zero dim makes the
// count 0 whatever the other dims are, so the answer does not depend on their order.
inline std::optional<int64_t> shapeProduct(std::span<const int64_t> dims) {
    if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
        return std::nullopt;
    }
    if (std::find(dims.begin(), dims.end(), 0) != dims.end()) {
        return 0;
    }
    int64_t n = 1;
    for (const int64_t d : dims) {
        if (__builtin_mul_overflow(n, d, &n)) {
            return std::nullopt;
        }
    }
    return n;
}

inline std::optional<int64_t> byteSize(int64_t count, DType t) {
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(dtypeSize(t)), &bytes)) {
        return std::nullopt;
    }
    return bytes;
}

}  // namespace ampstudio::ndarray_layout
