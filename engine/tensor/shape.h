#pragma once
// Tensor shapes as MXNet writes them: row-major dims, "(2, 3)" in attributes and messages. An empty
// Shape means "not known yet" during inference (MXNet 1.x's ndim 0); the engine has no 0-d tensors.

#include <cstdint>
#include <string>
#include <vector>

namespace ampstudio {

using Shape = std::vector<int64_t>;

// Product of the dims; 0 for an empty (unknown) shape. Throws std::overflow_error past int64.
int64_t shapeSize(const Shape& shape);
bool shapeKnown(const Shape& shape);  // non-empty and every dim > 0
// "(2, 3, 4)"; "()" for an unknown shape.
std::string shapeString(const Shape& shape);

}  // namespace ampstudio
