#pragma once
// A node's attributes: string keys to string values, kept sorted by key so that saving writes
// sorted keys (as MXNet's std::map does). A sorted vector rather than a std::map: nodes carry a
// handful of attributes (a Convolution about ten), so one allocation per node instead of one per
// attribute, and contiguous storage, makes loading and converting large graphs much cheaper
// (std::map nodes dominated the profile of a 100k-node conversion). Lookups are binary searches,
// insertions in the middle move a few pairs; both are cheaper than a tree at these sizes. The API is
// the subset of std::map's that the code base uses, with std::map's semantics.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ampstudio {

class Attributes {
public:
    using key_type = std::string;
    using mapped_type = std::string;
    using value_type = std::pair<std::string, std::string>;
    using size_type = std::size_t;
    using iterator = std::vector<value_type>::iterator;
    using const_iterator = std::vector<value_type>::const_iterator;

    Attributes() = default;
    // As std::map: of duplicate keys the first wins.
    Attributes(std::initializer_list<value_type> items) {
        m_items.reserve(items.size());
        for (const value_type& item : items) {
            emplace(item.first, item.second);
        }
    }

    iterator begin() { return m_items.begin(); }
    iterator end() { return m_items.end(); }
    const_iterator begin() const { return m_items.begin(); }
    const_iterator end() const { return m_items.end(); }
    const_iterator cbegin() const { return m_items.cbegin(); }
    const_iterator cend() const { return m_items.cend(); }

    size_type size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    void clear() { m_items.clear(); }
    void reserve(size_type n) { m_items.reserve(n); }

    iterator find(std::string_view key) { return findIn(m_items, key); }
    const_iterator find(std::string_view key) const { return findIn(m_items, key); }
    size_type count(std::string_view key) const { return find(key) == end() ? 0 : 1; }
    bool contains(std::string_view key) const { return find(key) != end(); }

    const std::string& at(std::string_view key) const {
        const auto it = find(key);
        if (it == end()) {
            throw std::out_of_range("Attributes::at: no such key");
        }
        return it->second;
    }
    std::string& at(std::string_view key) {
        const auto it = find(key);
        if (it == end()) {
            throw std::out_of_range("Attributes::at: no such key");
        }
        return it->second;
    }

    std::string& operator[](std::string_view key) { return try_emplace(key).first->second; }

    // Inserts (key, value) unless the key is present; the key and value are constructed only then.
    template <typename K, typename... Args>
    std::pair<iterator, bool> try_emplace(K&& key, Args&&... args) {
        const std::string_view view(key);
        const auto it = lowerBound(m_items, view);
        if (it != m_items.end() && it->first == view) {
            return {it, false};
        }
        return {m_items.emplace(it, std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                                std::forward_as_tuple(std::forward<Args>(args)...)),
                true};
    }
    template <typename K, typename V>
    std::pair<iterator, bool> emplace(K&& key, V&& value) {
        return try_emplace(std::forward<K>(key), std::forward<V>(value));
    }
    template <typename K, typename V>
    std::pair<iterator, bool> insert_or_assign(K&& key, V&& value) {
        const auto [it, inserted] = try_emplace(std::forward<K>(key), std::forward<V>(value));
        if (!inserted) {
            it->second = std::forward<V>(value);  // not moved from: try_emplace did not use it
        }
        return {it, inserted};
    }

    size_type erase(std::string_view key) {
        const auto it = find(key);
        if (it == m_items.end()) {
            return 0;
        }
        m_items.erase(it);
        return 1;
    }
    iterator erase(const_iterator pos) { return m_items.erase(pos); }

    // As std::map::merge: moves in the entries of `other` whose keys are absent here; the others
    // stay in `other`.
    void merge(Attributes& other) {
        std::vector<value_type> kept;
        for (value_type& item : other.m_items) {
            if (contains(item.first)) {
                kept.push_back(std::move(item));
            } else {
                try_emplace(std::move(item.first), std::move(item.second));
            }
        }
        other.m_items = std::move(kept);
    }

    friend bool operator==(const Attributes&, const Attributes&) = default;

private:
    // Items is std::vector<value_type>, const or not.
    template <typename Items>
    static decltype(std::declval<Items&>().begin()) lowerBound(Items& items, std::string_view key) {
        // Loaders insert keys in sorted order (the JSON is written sorted): check the end first.
        if (items.empty() || std::string_view(items.back().first) < key) {
            return items.end();
        }
        return std::lower_bound(
            items.begin(), items.end(), key,
            [](const value_type& item, std::string_view k) { return std::string_view(item.first) < k; });
    }
    template <typename Items>
    static decltype(std::declval<Items&>().begin()) findIn(Items& items, std::string_view key) {
        const auto it = lowerBound(items, key);
        return it != items.end() && it->first == key ? it : items.end();
    }

    std::vector<value_type> m_items;
};

}  // namespace ampstudio
