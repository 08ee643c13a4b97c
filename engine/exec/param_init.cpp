#include "exec/param_init.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "tensor/seeded_random.h"

namespace ampstudio {

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// FNV-1a: a stable hash of the name (std::hash is not the same everywhere).
uint64_t nameHash(std::string_view name) {
    uint64_t h = 1469598103934665603ull;
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return h;
}

ParameterInit constant(float value, std::string rule) {
    return {ParameterInit::Kind::Constant, value, std::move(rule)};
}

// `__init__` as MXNet writes it: a JSON pair ["one", {}] or ["constant", {"value": 2}], or a bare
// name ("zeros", as Gluon's string initializers). nullopt when it is neither.
std::optional<ParameterInit> fromInitAttribute(const std::string& text) {
    std::string name;
    nlohmann::json args = nlohmann::json::object();
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_array() && !doc.empty() && doc[0].is_string()) {
        name = doc[0].get<std::string>();
        if (doc.size() > 1 && doc[1].is_object()) {
            args = doc[1];
        }
    } else if (doc.is_string()) {
        name = doc.get<std::string>();
    } else if (doc.is_discarded()) {
        name = text;
    } else {
        return std::nullopt;
    }
    if (name == "zero" || name == "zeros") {
        return constant(0.0f, "__init__ " + name);
    }
    if (name == "one" || name == "ones") {
        return constant(1.0f, "__init__ " + name);
    }
    if (name == "constant") {
        const auto value = args.find("value");
        if (value != args.end() && value->is_number()) {
            return constant(value->get<float>(), "__init__ constant");
        }
        if (value != args.end() && value->is_string()) {
            try {
                return constant(std::stof(value->get<std::string>()), "__init__ constant");
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
        return std::nullopt;
    }
    if (name.empty()) {
        return std::nullopt;
    }
    // xavier, normal, uniform, orthogonal, msraprelu ...: a random initializer; Xavier stands in.
    return ParameterInit{ParameterInit::Kind::Xavier, 0.0f, "__init__ " + name};
}

}  // namespace

ParameterInit parameterInitFor(std::string_view name, const std::string* initAttr) {
    if (initAttr != nullptr) {
        if (auto init = fromInitAttribute(*initAttr)) {
            return *init;
        }
    }
    using Kind = ParameterInit::Kind;
    // Initializer.__call__ (InitDesc) first, in its order; then _legacy_init's and Gluon's names.
    static const std::pair<std::string_view, ParameterInit> kSuffixes[] = {
        {"weight", {Kind::Xavier, 0.0f, "suffix weight"}},
        {"bias", {Kind::Constant, 0.0f, "suffix bias"}},
        {"gamma", {Kind::Constant, 1.0f, "suffix gamma"}},
        {"beta", {Kind::Constant, 0.0f, "suffix beta"}},
        {"min", {Kind::Constant, 0.0f, "suffix min"}},
        {"max", {Kind::Constant, 1.0f, "suffix max"}},
        {"weight_quantize", {Kind::Xavier, 0.0f, "suffix weight_quantize"}},
        {"bias_quantize", {Kind::Constant, 0.0f, "suffix bias_quantize"}},
        {"moving_mean", {Kind::Constant, 0.0f, "suffix moving_mean"}},
        {"moving_var", {Kind::Constant, 1.0f, "suffix moving_var"}},
        {"moving_inv_var", {Kind::Constant, 0.0f, "suffix moving_inv_var"}},
        {"moving_avg", {Kind::Constant, 0.0f, "suffix moving_avg"}},
        {"running_mean", {Kind::Constant, 0.0f, "suffix running_mean"}},
        {"running_var", {Kind::Constant, 1.0f, "suffix running_var"}},
        {"parameters", {Kind::Xavier, 0.0f, "suffix parameters"}},
    };
    for (const auto& [suffix, init] : kSuffixes) {
        if (endsWith(name, suffix)) {
            return init;
        }
    }
    return {Kind::Unknown, 0.0f, "no MXNet initializer rule; zeros"};
}

std::vector<float> initialParameterValues(std::string_view name, const Shape& shape, uint64_t seed,
                                          const std::string* initAttr) {
    const auto n = static_cast<std::size_t>(shapeSize(shape));
    const ParameterInit init = parameterInitFor(name, initAttr);
    if (init.kind != ParameterInit::Kind::Xavier) {
        return std::vector<float>(n, init.value);
    }
    double receptive = 1.0;
    for (std::size_t i = 2; i < shape.size(); ++i) {
        receptive *= static_cast<double>(shape[i]);
    }
    const double fanOut = shape.size() >= 2 ? static_cast<double>(shape[0]) * receptive : static_cast<double>(n);
    const double fanIn = shape.size() >= 2 ? static_cast<double>(shape[1]) * receptive : static_cast<double>(n);
    const double bound = std::sqrt(3.0 / std::max(1.0, (fanIn + fanOut) / 2.0));
    SeededRandom random(mixSeed(seed, nameHash(name)));
    std::vector<float> values(n);
    for (float& v : values) {
        v = static_cast<float>(random.uniform(-bound, bound));
    }
    return values;
}

}  // namespace ampstudio
