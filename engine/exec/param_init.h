#pragma once
// Parameter values when no .params file is given, by MXNet's naming conventions (the defaults of
// Module.init_params with mx.init.Xavier(), whose InitDesc dispatch goes by name suffix):
//   *_weight, *_parameters             Xavier: uniform(-a, a), a = sqrt(3 / ((fan_in + fan_out) / 2))
//   *_bias, *_beta, *_moving_mean      0
//   *_gamma, *_moving_var              1
//   anything else                      0 (MXNet would refuse; a parameter we cannot name is left at zero)
// fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:]) (a vector: fan_in = fan_out = size).
// Seeded and reproducible: the values of one parameter depend only on (seed, name, shape).

#include <cstdint>
#include <string_view>
#include <vector>

#include "tensor/shape.h"

namespace ampstudio {

std::vector<float> initialParameterValues(std::string_view name, const Shape& shape, uint64_t seed);

}  // namespace ampstudio
