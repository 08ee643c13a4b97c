#pragma once
// How load errors name a node: `node 17 ('fc1')`. Names come from hostile files, so the text is cut
// to a readable length (at a UTF-8 boundary) and control characters become '?'.

#include <cstddef>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace ampstudio {

inline std::string displayNodeName(std::string_view name) {
    constexpr std::size_t kMax = 60;
    std::size_t cut = name.size();
    if (cut > kMax) {
        cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
            --cut;  // do not split a UTF-8 sequence
        }
    }
    std::string out(name.substr(0, cut));
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            c = '?';
        }
    }
    return cut < name.size() ? out + "..." : out;
}

inline std::string nodePlace(NodeId id, std::string_view name) {
    return "node " + std::to_string(id) + " ('" + displayNodeName(name) + "')";
}

}  // namespace ampstudio
