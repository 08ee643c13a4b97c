#include "amp/dfs_order.h"

#include <utility>

namespace ampstudio::amp_detail {

std::vector<NodeId> nnvmPostOrder(const std::vector<uint32_t>& edgeBegin, const std::vector<NodeId>& edges,
                                  const std::vector<NodeId>& heads) {
    const std::size_t count = edgeBegin.size() - 1;
    std::vector<char> seen(count, 0);
    std::vector<NodeId> order;
    order.reserve(count);
    // Each frame: a node and the position of its next edge to follow.
    std::vector<std::pair<NodeId, uint32_t>> stack;
    for (NodeId head : heads) {
        if (seen[head]) {
            continue;
        }
        seen[head] = 1;
        stack.emplace_back(head, edgeBegin[head]);
        while (!stack.empty()) {
            auto& [id, next] = stack.back();
            if (next == edgeBegin[id + 1]) {
                order.push_back(id);
                stack.pop_back();
                continue;
            }
            const NodeId input = edges[next++];
            if (!seen[input]) {
                seen[input] = 1;
                stack.emplace_back(input, edgeBegin[input]);
            }
        }
    }
    return order;
}

}  // namespace ampstudio::amp_detail
