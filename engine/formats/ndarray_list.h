#pragma once
// MXNet's NDArray-list binary (`.params`): little-endian, no padding. List magic 0x112, a reserved
// u64, the arrays, then the names (`arg:` / `aux:` prefixes). Each array record is one of:
//   V3 0xF993FACA (numpy shape semantics: ndim -1 = none, 0 = scalar), V2 0xF993FAC9,
//   V1 0xF993FAC8 (no storage type), or the pre-V1 form whose first u32 is ndim with u32 dims.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace ampstudio {

enum class NDArrayRecordFormat : uint8_t { PreV1, V1, V2, V3 };

struct NDArrayRecord {
    std::string name;             // as stored, prefix included ("arg:fc1_weight"); empty if unnamed
    DType dtype = DType::F32;
    std::vector<int64_t> shape;   // empty with isNone for an uninitialised array; empty for a V3 scalar
    bool isNone = false;          // MXNet's "none" NDArray: no context, type or data
    std::vector<std::byte> data;  // the payload as stored: element count x dtypeSize bytes
    NDArrayRecordFormat format = NDArrayRecordFormat::V2;  // how it was read; V1/pre-V1 are written as V2
    int32_t devType = 1;          // the saved context (1 = cpu); kept for round trips
    int32_t devId = 0;

    // Product of shape (1 for a V3 scalar, 0 for none); -1 when a dim is negative or the product
    // overflows int64, which a parsed record never has.
    int64_t elementCount() const;
    // The name without its "arg:" / "aux:" prefix.
    std::string_view bareName() const;
    bool isAux() const { return name.rfind("aux:", 0) == 0; }

    bool operator==(const NDArrayRecord&) const = default;
};

struct NDArrayList {
    std::vector<NDArrayRecord> arrays;
    // false when the file stores no names (count 0), as legacy_ndarray.v0; an empty list reads as named
    bool named = true;

    // Index of the array whose bareName() is `name`, or -1.
    int find(std::string_view bareName) const;
    // Total payload bytes.
    std::size_t payloadBytes() const;

    bool operator==(const NDArrayList&) const = default;
};

// Throw LoadError naming `source` and the byte offset on any malformed input.
NDArrayList parseNDArrayList(std::span<const std::byte> bytes, const std::string& source);
NDArrayList readNDArrayListFile(const std::filesystem::path& path);

// Writes V2 records (V3 for records read as V3 and for scalars, which V2 cannot express). Throws
// std::invalid_argument for a list it cannot write faithfully: a payload whose size does not match
// shape x dtype, a negative dim, ndim > 32, a none record with a shape or data, names on an unnamed list.
std::vector<std::byte> serializeNDArrayList(const NDArrayList& list);
// Atomic (formats/atomic_file.h); throws SaveError (also for what serializeNDArrayList rejects).
void writeNDArrayListFile(const std::filesystem::path& path, const NDArrayList& list);

}  // namespace ampstudio
