#include "ops/op_attrs.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdlib>

namespace ampstudio {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

std::optional<int64_t> parseInt64(std::string_view s) {
    s = trimmed(s);
    if (!s.empty() && s.back() == 'L') {  // Python 2 longs in old files: "(3L, 3L)"
        s.remove_suffix(1);
    }
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
        return std::nullopt;
    }
    return v;
}

// The entries of "(a, b, c)" / "[a, b]" / "a" (a bare number is a 1-tuple, as MXNet accepts).
std::optional<std::vector<std::string_view>> tupleItems(std::string_view s) {
    s = trimmed(s);
    if (s.size() >= 2 && ((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']'))) {
        s = trimmed(s.substr(1, s.size() - 2));
    } else if (s.empty()) {
        return std::nullopt;
    }
    std::vector<std::string_view> items;
    while (!s.empty()) {
        const std::size_t comma = s.find(',');
        const std::string_view item = trimmed(s.substr(0, comma));
        if (item.empty()) {
            if (comma == std::string_view::npos) {
                break;
            }
            return std::nullopt;
        }
        items.push_back(item);
        if (comma == std::string_view::npos) {
            break;
        }
        s = trimmed(s.substr(comma + 1));
    }
    return items;
}

}  // namespace

const std::string* OpAttrs::value(std::string_view key) const {
    const std::string* v = m_node.attr(key);
    if (v == nullptr || trimmed(*v) == "None") {
        return nullptr;
    }
    return v;
}

bool OpAttrs::has(std::string_view key) const { return value(key) != nullptr; }

void OpAttrs::bad(std::string_view key, const std::string& value, std::string_view expected) const {
    fail("attribute " + std::string(key) + "='" + value + "' is not " + std::string(expected));
}

int64_t OpAttrs::getInt(std::string_view key, int64_t fallback) const {
    const std::string* v = value(key);
    if (v == nullptr) {
        return fallback;
    }
    if (auto n = parseInt64(*v)) {
        return *n;
    }
    bad(key, *v, "an integer");
}

int64_t OpAttrs::requireInt(std::string_view key) const {
    if (!has(key)) {
        fail("attribute " + std::string(key) + " is required");
    }
    return getInt(key, 0);
}

double OpAttrs::getFloat(std::string_view key, double fallback) const {
    const std::string* v = value(key);
    if (v == nullptr) {
        return fallback;
    }
    const std::string s(trimmed(*v));
    if (s == "inf" || s == "Inf") {
        return HUGE_VAL;
    }
    if (s == "-inf" || s == "-Inf") {
        return -HUGE_VAL;
    }
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) {
        bad(key, *v, "a number");
    }
    return d;
}

bool OpAttrs::getBool(std::string_view key, bool fallback) const {
    const std::string* v = value(key);
    if (v == nullptr) {
        return fallback;
    }
    const std::string_view s = trimmed(*v);
    if (s == "True" || s == "true" || s == "1") {
        return true;
    }
    if (s == "False" || s == "false" || s == "0") {
        return false;
    }
    bad(key, *v, "a boolean");
}

std::string OpAttrs::getString(std::string_view key, std::string_view fallback) const {
    const std::string* v = value(key);
    return v == nullptr ? std::string(fallback) : std::string(trimmed(*v));
}

std::string OpAttrs::getEnum(std::string_view key, std::string_view fallback,
                             std::initializer_list<std::string_view> allowed) const {
    std::string s = getString(key, fallback);
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) {
        return s;
    }
    std::string list;
    for (std::string_view a : allowed) {
        list += (list.empty() ? "" : ", ") + std::string(a);
    }
    fail("attribute " + std::string(key) + "='" + s + "' is not one of " + list);
}

std::vector<int64_t> OpAttrs::getTuple(std::string_view key, std::vector<int64_t> fallback) const {
    const std::string* v = value(key);
    if (v == nullptr) {
        return fallback;
    }
    const auto items = tupleItems(*v);
    if (!items) {
        bad(key, *v, "a tuple of integers");
    }
    if (items->empty()) {
        return fallback;
    }
    std::vector<int64_t> out;
    for (std::string_view item : *items) {
        const auto n = parseInt64(item);
        if (!n) {
            bad(key, *v, "a tuple of integers");
        }
        out.push_back(*n);
    }
    return out;
}

std::vector<std::optional<int64_t>> OpAttrs::getOptionalTuple(std::string_view key) const {
    const std::string* v = m_node.attr(key);
    if (v == nullptr) {
        return {};
    }
    const auto items = tupleItems(*v);
    if (!items) {
        bad(key, *v, "a tuple of integers or None");
    }
    std::vector<std::optional<int64_t>> out;
    for (std::string_view item : *items) {
        if (item == "None") {
            out.push_back(std::nullopt);
            continue;
        }
        const auto n = parseInt64(item);
        if (!n) {
            bad(key, *v, "a tuple of integers or None");
        }
        out.push_back(*n);
    }
    return out;
}

}  // namespace ampstudio
