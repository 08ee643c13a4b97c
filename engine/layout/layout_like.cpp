// layoutLike(): the "corresponding places" of the two graph views. Rather than a second algorithm,
// the shared nodes become pins (layer, centre) for the ordinary pipeline, which then orders and
// places everything else around them; see PinnedPlace and pinned_placement.h.
#include <stdexcept>
#include <string>

#include "layout/graph_layout.h"

namespace ampstudio {

GraphLayout layoutLike(const LayoutInput& input, const GraphLayout& reference,
                       std::span<const int64_t> referenceNodeOf, LayoutOptions options) {
    if (referenceNodeOf.size() != input.sizes.size()) {
        throw std::invalid_argument("layoutLike: " + std::to_string(referenceNodeOf.size()) +
                                    " reference indices for " + std::to_string(input.sizes.size()) +
                                    " nodes");
    }
    const auto referenceCount = static_cast<int64_t>(reference.nodePositions.size());
    if (reference.nodeLayers.size() != reference.nodePositions.size()) {
        throw std::invalid_argument("layoutLike: the reference layout has no layer per node");
    }
    options.pinned.assign(input.sizes.size(), PinnedPlace{});
    for (std::size_t v = 0; v < referenceNodeOf.size(); ++v) {
        const int64_t r = referenceNodeOf[v];
        if (r < 0) {
            continue;
        }
        if (r >= referenceCount) {
            throw std::invalid_argument("layoutLike: node " + std::to_string(v) + " maps to reference node " +
                                        std::to_string(r) + " of " + std::to_string(referenceCount));
        }
        const Point& at = reference.nodePositions[static_cast<std::size_t>(r)];
        options.pinned[v] = {reference.nodeLayers[static_cast<std::size_t>(r)], at.x, at.y};
    }
    return layoutGraph(input, options);
}

}  // namespace ampstudio
