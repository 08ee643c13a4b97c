#pragma once
// Typed reads of a node's string attributes, with MXNet's spellings: ints, floats, booleans
// (True/true/1), tuples "(3, 3)" or "[3, 3]", "None", and enums from a fixed set. A missing attribute
// gives the default; a malformed one throws OpError naming the node, the key and the value.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "ops/op_error.h"

namespace ampstudio {

class OpAttrs {
public:
    explicit OpAttrs(const Node& node) : m_node(node) {}

    const Node& node() const { return m_node; }
    bool has(std::string_view key) const;  // present and not "None"

    int64_t getInt(std::string_view key, int64_t fallback) const;
    int64_t requireInt(std::string_view key) const;
    double getFloat(std::string_view key, double fallback) const;
    bool getBool(std::string_view key, bool fallback) const;
    std::string getString(std::string_view key, std::string_view fallback) const;
    // One of `allowed`; anything else throws listing them.
    std::string getEnum(std::string_view key, std::string_view fallback,
                        std::initializer_list<std::string_view> allowed) const;
    // "(1, 2)" -> {1, 2}; "()" or missing -> fallback; "None" inside a tuple is not accepted.
    std::vector<int64_t> getTuple(std::string_view key, std::vector<int64_t> fallback = {}) const;
    // Tuples whose entries may be "None" (slice begin/end, Reshape never): nullopt for None.
    std::vector<std::optional<int64_t>> getOptionalTuple(std::string_view key) const;

    [[noreturn]] void fail(const std::string& reason) const { throw OpError(m_node, reason); }

private:
    const std::string* value(std::string_view key) const;
    [[noreturn]] void bad(std::string_view key, const std::string& value, std::string_view expected) const;

    const Node& m_node;
};

}  // namespace ampstudio
