#pragma once
// Parameter values when no .params file is given, as MXNet initialises them (Module.init_params
// with mx.init.Xavier(), Gluon's Parameter defaults), python/mxnet/initializer.py of 1.9.1:
//   1. the variable's `__init__` attribute, when it has one (BatchNorm sets ["zero", {}] on its
//      moving mean and ["one", {}] on its moving variance when a symbol is composed; a user's
//      mx.sym.var(init=...)): zero(s), one(s), constant(value), or a random initializer (Xavier here);
//   2. otherwise the name's suffix, in Initializer.__call__'s order: weight (Xavier: uniform(-a, a),
//      a = sqrt(3 / ((fan_in + fan_out) / 2))), bias 0, gamma 1, beta 0, min 0, max 1,
//      weight_quantize (Xavier), bias_quantize 0; then the auxiliary states' names of the legacy
//      initializer and of Gluon: moving_mean 0, moving_var 1, moving_inv_var 0, moving_avg 0,
//      running_mean 0, running_var 1; RNN's fused `parameters` Xavier;
//   3. anything else 0 (MXNet would refuse to initialise it; ParameterInit says so).
// fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:]) (a vector: fan_in = fan_out = size).
// Seeded and reproducible: the values of one parameter depend only on (seed, name, shape).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/shape.h"

namespace ampstudio {

struct ParameterInit {
    enum class Kind : uint8_t { Xavier, Constant, Unknown };
    Kind kind = Kind::Unknown;
    float value = 0.0f;  // Constant
    std::string rule;    // why: "__init__ one", "suffix running_var", ...
};

// `initAttr`: the variable's `__init__` attribute, or null.
ParameterInit parameterInitFor(std::string_view name, const std::string* initAttr = nullptr);

std::vector<float> initialParameterValues(std::string_view name, const Shape& shape, uint64_t seed,
                                          const std::string* initAttr = nullptr);

}  // namespace ampstudio
