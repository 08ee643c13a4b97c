#pragma once
// Internal to the conversion pass: MXNet's "mirror entry" maps (source entry -> the converted-graph
// entry that holds it in one dtype) as a flat array over the source graph's outputs, indexed by
// nodeRowPtr, instead of a hash map of entries. Entries with a non-zero version (NNVM's mutation
// counter, rare in practice) still compare by version, in a small side list.

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace ampstudio::amp_detail {

class EntryMap {
public:
    // rowPtr: the source graph's nodeRowPtr(); it must outlive the map.
    explicit EntryMap(const std::vector<uint32_t>& rowPtr)
        : m_rowPtr(&rowPtr), m_flat(rowPtr.empty() ? 0 : rowPtr.back(), kAbsent) {}

    // The mapped entry, or nullptr.
    const NodeEntry* find(const NodeEntry& source) const {
        if (source.version == 0) {
            const NodeEntry& e = m_flat[slot(source)];
            return e.node == kAbsentNode ? nullptr : &e;
        }
        for (const auto& [key, value] : m_versioned) {
            if (key == source) {
                return &value;
            }
        }
        return nullptr;
    }

    void set(const NodeEntry& source, const NodeEntry& converted) {
        if (source.version == 0) {
            m_flat[slot(source)] = converted;
            return;
        }
        for (auto& [key, value] : m_versioned) {
            if (key == source) {
                value = converted;
                return;
            }
        }
        m_versioned.emplace_back(source, converted);
    }

    // Frees the map's memory; the map is empty afterwards.
    void release() {
        std::vector<NodeEntry>().swap(m_flat);
        std::vector<std::pair<NodeEntry, NodeEntry>>().swap(m_versioned);
    }

private:
    static constexpr NodeId kAbsentNode = ~NodeId{0};
    static constexpr NodeEntry kAbsent{kAbsentNode, 0, 0};

    std::size_t slot(const NodeEntry& e) const { return (*m_rowPtr)[e.node] + e.index; }

    const std::vector<uint32_t>* m_rowPtr;
    std::vector<NodeEntry> m_flat;
    std::vector<std::pair<NodeEntry, NodeEntry>> m_versioned;
};

}  // namespace ampstudio::amp_detail
