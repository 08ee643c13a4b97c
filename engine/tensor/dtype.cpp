#include "tensor/dtype.h"

#include <array>

namespace ampstudio {
namespace {

struct DTypeInfo {
    std::string_view name;
    std::size_t size;
};

// Indexed by type flag; names as numpy/MXNet spell them.
constexpr std::array<DTypeInfo, kMaxDTypeFlag + 1> kInfo = {{
    {"float32", 4},
    {"float64", 8},
    {"float16", 2},
    {"uint8", 1},
    {"int32", 4},
    {"int8", 1},
    {"int64", 8},
    {"bool", 1},
    {"int16", 2},
    {"uint16", 2},
    {"uint32", 4},
    {"uint64", 8},
    {"bfloat16", 2},
}};

}  // namespace

std::size_t dtypeSize(DType t) {
    const int flag = static_cast<int>(t);
    return flag < 0 || flag > kMaxDTypeFlag ? 0 : kInfo[static_cast<std::size_t>(flag)].size;
}

std::string_view dtypeName(DType t) {
    const int flag = static_cast<int>(t);
    return flag < 0 || flag > kMaxDTypeFlag ? std::string_view("unknown") : kInfo[static_cast<std::size_t>(flag)].name;
}

std::optional<DType> dtypeFromName(std::string_view name) {
    for (int flag = 0; flag <= kMaxDTypeFlag; ++flag) {
        if (kInfo[static_cast<std::size_t>(flag)].name == name) {
            return static_cast<DType>(flag);
        }
    }
    return std::nullopt;
}

std::optional<DType> dtypeFromFlag(int32_t flag) {
    if (flag < 0 || flag > kMaxDTypeFlag) {
        return std::nullopt;
    }
    return static_cast<DType>(flag);
}

}  // namespace ampstudio
