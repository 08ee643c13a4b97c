#pragma once
// Element types, numbered as MXNet's mshadow type flags, because the .params format and the
// symbol attributes (`dtype="float16"`) both use MXNet's numbering and names.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ampstudio {

enum class DType : int8_t {
    Unknown = -1,
    F32 = 0,
    F64 = 1,
    F16 = 2,
    U8 = 3,
    I32 = 4,
    I8 = 5,
    I64 = 6,
    Bool = 7,
    I16 = 8,
    U16 = 9,
    U32 = 10,
    U64 = 11,
    BF16 = 12,
};

// Largest valid type flag; anything above (or below 0) in a file is an unknown dtype.
inline constexpr int kMaxDTypeFlag = 12;

// Bytes per element; 0 for Unknown.
std::size_t dtypeSize(DType t);

// MXNet's name: "float32", "float16", "bfloat16", "int64", "bool", ... ("unknown" for Unknown).
std::string_view dtypeName(DType t);

// Inverse of dtypeName; nullopt for names MXNet does not use.
std::optional<DType> dtypeFromName(std::string_view name);

// Type flag as stored in a file; nullopt when the flag is out of range.
std::optional<DType> dtypeFromFlag(int32_t flag);

inline bool isLowPrecisionFloat(DType t) { return t == DType::F16 || t == DType::BF16; }
inline bool isFloat(DType t) { return t == DType::F32 || t == DType::F64 || isLowPrecisionFloat(t); }

// How wide a float is, as MXNet's amp_multicast ranks dtypes: float64 > float32 > float16 = bfloat16
// > anything else.
inline int floatRank(DType t) { return t == DType::F64 ? 3 : t == DType::F32 ? 2 : isLowPrecisionFloat(t) ? 1 : 0; }

// The widest of `types` (the first of equally wide ones); Unknown when one of them is.
template <typename Range>
DType widestDtype(const Range& types) {
    DType widest = DType::Unknown;
    for (DType t : types) {
        if (t == DType::Unknown) {
            return DType::Unknown;
        }
        if (widest == DType::Unknown || floatRank(t) > floatRank(widest)) {
            widest = t;
        }
    }
    return widest;
}

}  // namespace ampstudio
