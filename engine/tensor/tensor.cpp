#include "tensor/tensor.h"

#include <stdexcept>

namespace ampstudio {

Tensor Tensor::reshaped(Shape shape) const {
    if (shapeSize(shape) != size()) {
        throw std::invalid_argument("cannot view " + shapeString(m_shape) + " as " + shapeString(shape));
    }
    return Tensor(m_storage, std::move(shape), m_dtype);
}

}  // namespace ampstudio
