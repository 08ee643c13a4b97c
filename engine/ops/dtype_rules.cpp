#include "ops/dtype_rules.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {
namespace embedded {
std::string_view mxnetOpDtypesJson();
}

namespace {

using Kind = DtypeSlotRule::Kind;

std::string normalisedBool(std::string_view v) {
    if (v == "True" || v == "true" || v == "1") {
        return "true";
    }
    if (v == "False" || v == "false" || v == "0") {
        return "false";
    }
    return std::string(v);
}

DtypeSlotRule inputRule(const std::string& text) {
    if (text == "ref" || text == "same") {
        return {};
    }
    if (const auto t = dtypeFromName(text)) {
        return {Kind::Fixed, *t};
    }
    // "free", and what accepts more than one combination ("coerced", "combos:..."): never a
    // contradiction, so never constrained here.
    return {Kind::Free};
}

// `firstInput`: the probe's outputs for float16 in input 0 alone, when it succeeded: an output
// that stayed float32 there is fixed (an attribute's default, e.g. topk's dtype).
DtypeSlotRule outputRule(const std::string& text, std::optional<DType> firstInput) {
    DtypeSlotRule rule;
    std::string main = text;
    std::string attr;
    if (const auto bar = text.find('|'); bar != std::string::npos) {
        main = text.substr(0, bar);
        attr = text.substr(bar + 1);
    } else if (text.rfind("attr:", 0) == 0) {
        main.clear();
        attr = text;
    }
    if (main == "same") {
        rule.kind = Kind::Same;
    } else if (main.rfind("input:", 0) == 0) {
        rule.kind = Kind::Input;
        rule.input = static_cast<uint32_t>(std::stoul(main.substr(6)));
    } else if (main == "widest") {
        rule.kind = Kind::Widest;
    } else if (const auto t = dtypeFromName(main)) {
        rule.kind = Kind::Fixed;
        rule.dtype = *t;
    } else if (main.empty() && firstInput && *firstInput != DType::Unknown && *firstInput != DType::F16) {
        rule.kind = Kind::Fixed;  // "attr:dtype" alone: its default when the attribute is absent
        rule.dtype = *firstInput;
    } else if (main.empty() && firstInput && *firstInput == DType::F16) {
        rule.kind = Kind::Same;
    } else {
        rule.kind = Kind::Free;  // "unknown", "varies", "narrowest" outside amp_multicast
    }
    if (attr.rfind("attr:", 0) == 0) {
        rule.fallback = rule.kind;
        rule.kind = Kind::Attr;
        rule.attr = attr.substr(5);
    }
    return rule;
}

DtypeRule parseRule(const nlohmann::json& j, bool hasFInferType) {
    DtypeRule rule;
    rule.hasFInferType = hasFInferType;
    std::vector<std::optional<DType>> firstOut;
    auto slots = [](const nlohmann::json& a) {
        std::vector<DType> v;
        for (const auto& x : a) {
            v.push_back(x.is_string() ? dtypeFromName(x.get<std::string>()).value_or(DType::Unknown) : DType::Unknown);
        }
        return v;
    };
    if (const auto f = j.find("from_first_input"); f != j.end()) {
        for (const char* name : {"float16", "bfloat16", "float32"}) {
            if (!f->contains(name)) {
                continue;
            }
            const auto& r = f->at(name);
            FirstInputProbe probe{r.at("ok").get<bool>(), slots(r.at("in")), slots(r.at("out"))};
            rule.firstInput[firstInputIndex(*dtypeFromName(name))] = std::move(probe);
        }
        if (const auto& probe = rule.firstInput[0]; probe && probe->ok) {
            for (DType t : probe->out) {
                firstOut.push_back(t);
            }
        }
    }
    auto threw = [&](const char* key) {
        const auto p = j.find(key);
        return p != j.end() && p->is_object() && p->contains("error");
    };
    rule.throwsWhileNothingKnown = threw("all_unknown");
    rule.throwsWhileInput0Unknown =
        rule.throwsWhileNothingKnown && (j.value("num_inputs_probed", 0) == 1 || threw("first_unknown"));
    const auto m = j.find("mixed");
    if (m == j.end()) {
        return rule;
    }
    for (const auto& a : m->value("in0_accepts", nlohmann::json::array())) {
        if (const auto t = dtypeFromName(a.get<std::string>())) {
            rule.firstInputAccepts.push_back(*t);
        }
    }
    for (const auto& c : m->value("inputs", nlohmann::json::array())) {
        rule.inputs.push_back(inputRule(c.get<std::string>()));
    }
    const auto outputs = m->value("outputs", nlohmann::json::array());
    const std::size_t count = std::max(outputs.size(), firstOut.size());
    for (std::size_t k = 0; k < count; ++k) {
        const std::optional<DType> first = k < firstOut.size() ? firstOut[k] : std::nullopt;
        if (k < outputs.size()) {
            rule.outputs.push_back(outputRule(outputs[k].get<std::string>(), first));
        } else {
            // A hidden output. MXNet types Pooling's MKLDNN workspace int32; our kernels write a
            // copy of the output there, so it keeps the data's dtype (nothing else reads it).
            rule.outputs.push_back({});
        }
    }
    return rule;
}

struct Variant {
    std::vector<std::pair<std::string, std::string>> when;  // attribute = normalised value
    DtypeRule rule;
};

struct OpRules {
    DtypeRule rule;
    std::vector<Variant> variants;
};

struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
// Looked up by string_view on every inference: no key is built per call.
using RuleMap = std::unordered_map<std::string, OpRules, StringHash, std::equal_to<>>;

const RuleMap& allRules() {
    static const auto* rules = [] {
        auto* map = new RuleMap;  // lives for the program
        const auto doc = nlohmann::json::parse(embedded::mxnetOpDtypesJson());
        for (const auto& [name, j] : doc.at("ops").items()) {
            if (j.contains("probe_error") || j.contains("skipped")) {
                continue;
            }
            const bool has = j.value("finfer_type", true);
            OpRules op{parseRule(j, has), {}};
            for (const auto& v : j.value("variants", nlohmann::json::array())) {
                Variant variant{{}, parseRule(v, has)};
                for (const auto& [key, value] : v.at("attrs_probed").items()) {
                    // Only the attributes that select the variant (those the main probe lacks or
                    // sets otherwise) decide; the rest were filled to make the node valid.
                    const auto base = j.at("attrs_probed").find(key);
                    if (base == j.at("attrs_probed").end() || *base != value) {
                        variant.when.emplace_back(key, normalisedBool(value.get<std::string>()));
                    }
                }
                op.variants.push_back(std::move(variant));
            }
            map->emplace(name, std::move(op));
        }
        return map;
    }();
    return *rules;
}

const DtypeSlotRule& slotRule(const std::vector<DtypeSlotRule>& rules, std::size_t i) {
    static const DtypeSlotRule kSame{};
    if (rules.empty()) {
        return kSame;
    }
    return i < rules.size() ? rules[i] : rules.back();
}

}  // namespace

int firstInputIndex(DType t) {
    return t == DType::F16 ? 0 : t == DType::BF16 ? 1 : t == DType::F32 ? 2 : -1;
}

const DtypeRule* findDtypeRule(const Node& node, std::string_view canonicalOp) {
    const auto& rules = allRules();
    const auto it = rules.find(canonicalOp);
    if (it == rules.end()) {
        return nullptr;
    }
    for (const Variant& v : it->second.variants) {
        const bool matches = std::all_of(v.when.begin(), v.when.end(), [&](const auto& kv) {
            const std::string* value = node.attr(kv.first);
            return value != nullptr && normalisedBool(*value) == kv.second;
        });
        if (matches) {
            return &v.rule;
        }
    }
    return &it->second.rule;
}

TypeInference applyDtypeRule(const DtypeRule& rule, const Node& node, std::vector<DType>& in,
                             std::vector<DType>& out, bool untypedInputThrows) {
    using enum TypeInference;
    auto allKnown = [&] {
        return std::none_of(in.begin(), in.end(), [](DType t) { return t == DType::Unknown; }) &&
               std::none_of(out.begin(), out.end(), [](DType t) { return t == DType::Unknown; });
    };
    if (!rule.hasFInferType) {
        // common::SameType: the first known output's dtype, else the first known input's, everywhere.
        DType def = DType::Unknown;
        for (const auto* v : {&out, &in}) {
            for (DType t : *v) {
                if (def == DType::Unknown && t != DType::Unknown) {
                    def = t;
                }
            }
        }
        if (def == DType::Unknown) {
            return Incomplete;
        }
        std::fill(in.begin(), in.end(), def);
        std::fill(out.begin(), out.end(), def);
        return Complete;
    }

    if (untypedInputThrows && !in.empty() && in[0] == DType::Unknown) {
        const bool nothingKnown =
            std::all_of(in.begin(), in.end(), [](DType t) { return t == DType::Unknown; }) &&
            std::all_of(out.begin(), out.end(), [](DType t) { return t == DType::Unknown; });
        if (rule.throwsWhileInput0Unknown || (nothingKnown && rule.throwsWhileNothingKnown)) {
            return Conflict;  // MXNet's FInferType throws here, and its InferType fails
        }
    }

    // An output's rule as it applies to this node (Attr resolved to its attribute or its fallback).
    auto effective = [&](std::size_t k, DType& fixed) -> Kind {
        const DtypeSlotRule& r = slotRule(rule.outputs, k);
        fixed = r.dtype;
        if (r.kind != Kind::Attr) {
            return r.kind;
        }
        if (const std::string* v = node.attr(r.attr)) {
            if (const auto t = dtypeFromName(*v); t && *t != DType::Unknown) {
                fixed = *t;
                return Kind::Fixed;
            }
            if (*v != "None") {
                return Kind::Free;  // a name MXNet knows and we do not: claim nothing
            }
        }
        return r.fallback;
    };

    // The shared dtype T of Same slots; fixed slots are checked; everything is assigned once known.
    DType t = DType::Unknown;
    auto join = [&](DType x) {
        if (x == DType::Unknown) {
            return true;
        }
        if (t == DType::Unknown) {
            t = x;
        }
        return t == x;
    };
    auto assign = [](DType& slot, DType x) {
        if (x == DType::Unknown) {
            return true;
        }
        if (slot == DType::Unknown) {
            slot = x;
        }
        return slot == x;
    };
    if (!in.empty() && isFloat(in[0]) && in[0] != DType::F64 && !rule.firstInputAccepts.empty() &&
        std::find(rule.firstInputAccepts.begin(), rule.firstInputAccepts.end(), in[0]) == rule.firstInputAccepts.end()) {
        return Conflict;  // "Unsupported data type": the op has no kernel for it
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        const DtypeSlotRule& r = slotRule(rule.inputs, i);
        if (i == 0 || r.kind == Kind::Same) {
            if (!join(in[i])) {
                return Conflict;
            }
        } else if (r.kind == Kind::Fixed && !assign(in[i], r.dtype)) {
            return Conflict;
        }
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        DType fixed;
        if (effective(k, fixed) == Kind::Same && !join(out[k])) {
            return Conflict;
        }
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (i == 0 || slotRule(rule.inputs, i).kind == Kind::Same) {
            in[i] = t;
        }
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        DType fixed;
        bool ok = true;
        switch (effective(k, fixed)) {
            case Kind::Same:
                out[k] = t;
                break;
            case Kind::Fixed:
                ok = assign(out[k], fixed);
                break;
            case Kind::Input: {
                const uint32_t source = slotRule(rule.outputs, k).input;
                if (source < in.size()) {
                    ok = assign(out[k], in[source]) && assign(in[source], out[k]);
                }
                break;
            }
            case Kind::Widest:
                ok = assign(out[k], widestDtype(in));
                break;
            case Kind::Free:
            case Kind::Attr:
                break;
        }
        if (!ok) {
            return Conflict;
        }
    }
    return allKnown() ? Complete : Incomplete;
}

}  // namespace ampstudio
