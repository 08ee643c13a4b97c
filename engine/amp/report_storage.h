#pragma once
// What the views of a ConversionReport point into: copies of names in large blocks that never move,
// and the flat arrays that CastRecord's spans cover. A 1M-node report keeps a few hundred blocks
// instead of a few million strings: building it costs memcpys rather than allocations, and freeing
// it leaves no small chunks for the allocator to merge on the next conversion.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "amp/conversion_report.h"

namespace ampstudio {

class ReportStorage {
public:
    // A copy of `text` that lives as long as this storage. Never moves: earlier copies stay valid.
    std::string_view keep(std::string_view text) {
        if (text.empty()) {
            return {};
        }
        if (text.size() > m_left) {
            const std::size_t size = std::max(text.size(), kBlockSize);
            m_blocks.push_back(std::make_unique_for_overwrite<char[]>(size));
            m_next = m_blocks.back().get();
            m_left = size;
        }
        char* copy = m_next;
        std::memcpy(copy, text.data(), text.size());
        m_next += text.size();
        m_left -= text.size();
        return {copy, text.size()};
    }

    // Sized once, then filled: CastRecord spans point into them, so they must never reallocate.
    std::vector<std::string_view> consumers;
    std::vector<SourceOutput> multicastSources;

private:
    // Small enough to come from the heap rather than mmap, large enough to make allocations rare.
    static constexpr std::size_t kBlockSize = 64 * 1024;

    std::vector<std::unique_ptr<char[]>> m_blocks;
    char* m_next = nullptr;
    std::size_t m_left = 0;
};

}  // namespace ampstudio
