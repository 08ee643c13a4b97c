#pragma once
// Internal to the layout, phase 4 when nodes are pinned to x coordinates (layoutLike()): each layer,
// top to bottom, is placed as close as its order and spacing allow to where its nodes want to be,
// in the weighted least-squares sense. A pinned node wants its pin; any other node wants to sit
// under its upper neighbours (so edges through dummies drop straight down), else at its ordering
// key; pins weigh far more, so the others make room.
//
// Minimising sum w_i (x_i - t_i)^2 subject to x_{i+1} >= x_i + d_i is isotonic regression after
// the change of variables y_i = x_i - (d_0 + ... + d_{i-1}), which pool-adjacent-violators solves
// exactly in linear time.

#include <span>
#include <vector>

#include "layout/layered_graph.h"

namespace ampstudio::layout_detail {

// Centre x per node (dummies included). pinnedX: per real node, NaN when not pinned; keys: per node.
std::vector<double> placeNearPins(const LayeredGraph& graph, const LayerOrder& order, const Spacing& spacing,
                                  std::span<const double> pinnedX, std::span<const double> keys);

}  // namespace ampstudio::layout_detail
