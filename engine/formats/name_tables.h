#pragma once
// The tables the ONNX import, pass and checks keep by value or node name. A 100k-node model puts
// 100-400k names in each, and looking them up was most of a conversion's time: with
// std::unordered_map every entry is its own allocation and every probe two cache misses (bucket,
// node) before the name is compared. Abseil's Swiss tables keep the entries in one array with a
// byte of the hash per slot, so a probe is one miss and a compare, and a table frees in one go.
//
// Keys are views: of strings that outlive the table and do not change while it is used (the
// protos' own names, a NameStore's copies). A view of a string that changes later must not be a
// key: copy it into a NameStore first.
#include <cstring>
#include <memory_resource>
#include <string_view>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

namespace ampstudio {

template <typename Value>
using NameMap = absl::flat_hash_map<std::string_view, Value>;
using NameSet = absl::flat_hash_set<std::string_view>;

// Copies of names, in blocks freed at once: the keys a table needs that no proto holds still.
class NameStore {
public:
    std::string_view keep(std::string_view name) {
        if (name.empty()) return {};
        char* p = static_cast<char*>(m_arena.allocate(name.size(), 1));
        std::memcpy(p, name.data(), name.size());
        return {p, name.size()};
    }

private:
    std::pmr::monotonic_buffer_resource m_arena;
};

}  // namespace ampstudio
