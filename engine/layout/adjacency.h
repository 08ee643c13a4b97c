#pragma once
// Internal to the layout: a compressed adjacency (CSR). The neighbours of node v are
// entries[offsets[v] .. offsets[v + 1]), each with the index of the edge that links them, so that a
// mark on an edge reads the same from either end.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ampstudio::layout_detail {

struct Adjacency {
    struct Entry {
        uint32_t node = 0;
        uint32_t edge = 0;
    };
    std::vector<uint32_t> offsets;
    std::vector<Entry> entries;

    std::span<const Entry> of(uint32_t v) const {
        return {entries.data() + offsets[v], entries.data() + offsets[v + 1]};
    }
    std::span<Entry> of(uint32_t v) { return {entries.data() + offsets[v], entries.data() + offsets[v + 1]}; }
    uint32_t degree(uint32_t v) const { return offsets[v + 1] - offsets[v]; }
};

enum class Direction { Successors, Predecessors };

// A counting sort by the listing end: each node's neighbours keep the order of `edges`.
Adjacency buildAdjacency(uint32_t nodeCount, std::span<const std::pair<uint32_t, uint32_t>> edges,
                         Direction direction);

}  // namespace ampstudio::layout_detail
