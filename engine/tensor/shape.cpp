#include "tensor/shape.h"

#include <stdexcept>

namespace ampstudio {

int64_t shapeSize(const Shape& shape) {
    if (shape.empty()) {
        return 0;
    }
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) {
            throw std::overflow_error("negative dimension in " + shapeString(shape));
        }
        if (d != 0 && n > INT64_MAX / d) {
            throw std::overflow_error("shape " + shapeString(shape) + " has more than 2^63 elements");
        }
        n *= d;
    }
    return n;
}

bool shapeKnown(const Shape& shape) {
    if (shape.empty()) {
        return false;
    }
    for (int64_t d : shape) {
        if (d <= 0) {
            return false;
        }
    }
    return true;
}

std::string shapeString(const Shape& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return s + ")";
}

}  // namespace ampstudio
