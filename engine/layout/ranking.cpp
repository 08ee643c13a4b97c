#include "layout/ranking.h"

#include <algorithm>
#include <limits>

namespace ampstudio::layout_detail {

std::vector<uint32_t> topologicalOrder(const Adjacency& successors, const Adjacency& predecessors) {
    const uint32_t n = static_cast<uint32_t>(successors.offsets.size() - 1);
    std::vector<uint32_t> waitingFor(n);
    std::vector<uint8_t> queued(n, 0);
    std::vector<uint32_t> order;  // doubles as the queue: order[head..] are queued, not yet visited
    order.reserve(n);
    for (uint32_t v = 0; v < n; ++v) {
        waitingFor[v] = predecessors.degree(v);
        if (waitingFor[v] == 0) {
            queued[v] = 1;
            order.push_back(v);
        }
    }
    uint32_t nextForced = 0;
    for (std::size_t head = 0; head < n; ++head) {
        if (head == order.size()) {  // a cycle: break it at the smallest remaining node
            while (queued[nextForced]) {
                ++nextForced;
            }
            queued[nextForced] = 1;
            order.push_back(nextForced);
        }
        for (const Adjacency::Entry& next : successors.of(order[head])) {
            if (!queued[next.node] && --waitingFor[next.node] == 0) {
                queued[next.node] = 1;
                order.push_back(next.node);
            }
        }
    }
    return order;
}

std::vector<uint32_t> assignLayers(const LayoutProblem& problem) {
    const auto n = static_cast<uint32_t>(problem.sizes.size());
    const Adjacency successors = buildAdjacency(n, problem.edges, Direction::Successors);
    const Adjacency predecessors = buildAdjacency(n, problem.edges, Direction::Predecessors);
    const std::vector<uint32_t> order = topologicalOrder(successors, predecessors);
    auto pinnedLayer = [&](uint32_t v) -> int64_t {
        return problem.pins.empty() ? -1 : problem.pins[v].layer;
    };

    std::vector<uint32_t> layer(n, 0);
    for (const uint32_t v : order) {
        uint32_t lowest = static_cast<uint32_t>(std::clamp<int64_t>(pinnedLayer(v), 0, int64_t{1} << 30));
        for (const Adjacency::Entry& up : predecessors.of(v)) {
            lowest = std::max(lowest, layer[up.node] + 1);
        }
        layer[v] = lowest;
    }
    // A source, or a node whose one input is a floating node that feeds nothing else (a cast of a
    // parameter): the whole chain belongs next to its consumer.
    std::vector<uint8_t> floating(n, 0);
    for (const uint32_t v : order) {
        const auto up = predecessors.of(v);
        floating[v] =
            up.empty() || (up.size() == 1 && floating[up[0].node] && successors.degree(up[0].node) == 1);
    }
    // Successors are final before their predecessors are looked at, so one backward pass suffices.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const uint32_t v = *it;
        const uint32_t down = successors.degree(v);
        const uint32_t up = predecessors.degree(v);
        if (pinnedLayer(v) >= 0 || down == 0 || (!floating[v] && up >= down)) {
            continue;
        }
        uint32_t highestSuccessor = std::numeric_limits<uint32_t>::max();
        for (const Adjacency::Entry& next : successors.of(v)) {
            highestSuccessor = std::min(highestSuccessor, layer[next.node]);
        }
        layer[v] = std::max(layer[v], highestSuccessor - 1);
    }
    if (n > 0) {
        const uint32_t top = *std::min_element(layer.begin(), layer.end());
        for (uint32_t& l : layer) {
            l -= top;
        }
    }
    return layer;
}

}  // namespace ampstudio::layout_detail
