#include "ops/mxnet_op_facts.h"

#include "ops/dtype_rules.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace ampstudio {
namespace embedded {
std::string_view mxnetOpOutputsJson();
}

namespace {

// No MXNet op has anywhere near this many outputs; a larger attribute value is hostile input and is
// clamped so that nothing sized by it can explode.
constexpr uint32_t kMaxOutputs = 65536;

struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// One `when` clause of a variant: every attribute must have one of the listed values.
struct Condition {
    std::string attr;
    std::vector<std::string> values;
};

struct Variant {
    std::vector<Condition> conditions;
    uint32_t numOutputs = 1;
    std::optional<std::vector<std::string>> outputNames;
};

struct OpFacts {
    uint32_t numOutputs = 1;
    std::string numOutputsRule;  // set when the count is given by attributes ("attr num_outputs")
    std::optional<std::vector<std::string>> outputNames;
    std::vector<uint32_t> mutableInputs;
    std::vector<Variant> variants;  // only those whose `when` is a plain conjunction of attr=value
};

// MXNet's boolean parameters accept True/true/1 and False/false/0.
std::string normaliseValue(std::string_view v) {
    if (v == "True" || v == "true" || v == "1") {
        return "true";
    }
    if (v == "False" || v == "false" || v == "0") {
        return "false";
    }
    return std::string(v);
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return s;
}

// Parses "a=x, b=y/z" or "a=x and b=y" into conditions; nullopt for prose (such variants are
// handled by hand below, e.g. Pooling's).
std::optional<std::vector<Condition>> parseWhen(std::string_view when) {
    std::vector<Condition> result;
    std::string text(when);
    for (std::size_t pos; (pos = text.find(" and ")) != std::string::npos;) {
        text.replace(pos, 5, ",");
    }
    std::string_view rest = text;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view clause = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const std::size_t eq = clause.find('=');
        if (eq == std::string_view::npos || clause.find(' ') != std::string_view::npos) {
            return std::nullopt;
        }
        Condition c{std::string(clause.substr(0, eq)), {}};
        std::string_view values = clause.substr(eq + 1);
        while (!values.empty()) {
            const std::size_t slash = values.find('/');
            c.values.push_back(normaliseValue(values.substr(0, slash)));
            values = slash == std::string_view::npos ? std::string_view() : values.substr(slash + 1);
        }
        result.push_back(std::move(c));
    }
    return result;
}

std::optional<std::vector<std::string>> namesFrom(const nlohmann::json& j) {
    if (!j.is_array()) {
        return std::nullopt;
    }
    return j.get<std::vector<std::string>>();
}

std::optional<int64_t> parseInt(std::string_view s) {
    s = trim(s);
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

uint32_t clampOutputs(int64_t n) {
    return static_cast<uint32_t>(std::clamp<int64_t>(n, 1, kMaxOutputs));
}

// Number of entries in an MXNet tuple attribute such as "(3,3)", "[1, 2]" or "()".
std::optional<std::size_t> tupleLength(std::string_view s) {
    s = trim(s);
    if (s.size() < 2 || !((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']'))) {
        return std::nullopt;
    }
    s = trim(s.substr(1, s.size() - 2));
    if (s.empty()) {
        return 0;
    }
    std::size_t n = 1;
    for (char c : s) {
        n += c == ',' ? 1 : 0;
    }
    if (s.back() == ',') {
        --n;  // "(3,)"
    }
    return n;
}

bool attrIs(const Node& node, std::string_view key, std::string_view normalisedValue) {
    const std::string* v = node.attr(key);
    return v != nullptr && normaliseValue(*v) == normalisedValue;
}

bool isBatchNormFamily(std::string_view op) {
    return op == "BatchNorm" || op == "BatchNorm_v1" || op == "_contrib_SyncBatchNorm" ||
           op == "_contrib_BatchNormWithReLU";
}

}  // namespace

struct MxnetOpFacts::Data {
    StringMap<OpFacts> ops;
    StringMap<std::string> aliases;
    std::vector<std::string> names;

    const OpFacts* find(std::string_view op) const {
        if (auto it = ops.find(op); it != ops.end()) {
            return &it->second;
        }
        if (auto a = aliases.find(op); a != aliases.end()) {
            if (auto it = ops.find(a->second); it != ops.end()) {
                return &it->second;
            }
        }
        return nullptr;
    }
};

MxnetOpFacts::MxnetOpFacts() {
    auto* data = new Data;  // lives for the program, like MXNet's own registry
    const auto doc = nlohmann::json::parse(embedded::mxnetOpOutputsJson());
    for (const auto& [name, j] : doc.at("ops").items()) {
        OpFacts f;
        if (j.at("num_outputs").is_number_integer()) {
            f.numOutputs = clampOutputs(j.at("num_outputs").get<int64_t>());
        } else {
            f.numOutputsRule = j.at("num_outputs").get<std::string>();
        }
        f.outputNames = namesFrom(j.at("output_names"));
        if (j.at("mutable_inputs").is_array()) {
            f.mutableInputs = j.at("mutable_inputs").get<std::vector<uint32_t>>();
        }
        if (j.contains("variants")) {
            for (const auto& v : j.at("variants")) {
                auto conditions = parseWhen(v.at("when").get<std::string>());
                if (!conditions || !v.at("num_outputs").is_number_integer()) {
                    continue;
                }
                f.variants.push_back(
                    {std::move(*conditions), clampOutputs(v.at("num_outputs").get<int64_t>()), namesFrom(v.at("output_names"))});
            }
        }
        data->names.push_back(name);
        data->ops.emplace(name, std::move(f));
    }
    for (const auto& [alias, canonical] : doc.at("aliases").items()) {
        data->aliases.emplace(alias, canonical.get<std::string>());
    }
    std::sort(data->names.begin(), data->names.end());
    m_data = data;
}

const MxnetOpFacts& MxnetOpFacts::instance() {
    static const MxnetOpFacts registry;
    return registry;
}

bool MxnetOpFacts::isKnown(std::string_view op) const { return m_data->find(op) != nullptr; }

std::string_view MxnetOpFacts::canonicalName(std::string_view op) const {
    if (auto a = m_data->aliases.find(op); a != m_data->aliases.end()) {
        return a->second;
    }
    return op;
}

const std::vector<std::string>& MxnetOpFacts::opNames() const { return m_data->names; }

namespace {

const Variant* matchingVariant(const OpFacts& facts, const Node& node) {
    for (const Variant& v : facts.variants) {
        const bool all = std::all_of(v.conditions.begin(), v.conditions.end(), [&](const Condition& c) {
            const std::string* value = node.attr(c.attr);
            return value != nullptr &&
                   std::find(c.values.begin(), c.values.end(), normaliseValue(*value)) != c.values.end();
        });
        if (all) {
            return &v;
        }
    }
    return nullptr;
}

// Pooling in an MKLDNN build (src/operator/nn/pooling.cc GetNumOutputs): a max pool with a 1-3-D
// kernel in NCW/NCHW/NCDHW layout has a second, hidden workspace output; everything else has one.
bool poolingHasWorkspace(const Node& node) {
    const std::string* poolType = node.attr("pool_type");
    if (poolType != nullptr && *poolType != "max") {
        return false;
    }
    const std::string* kernel = node.attr("kernel");
    const auto dims = kernel != nullptr ? tupleLength(*kernel) : std::optional<std::size_t>(0);
    if (!dims || *dims < 1 || *dims > 3) {
        return false;
    }
    const std::string* layout = node.attr("layout");
    return layout == nullptr || *layout == "None" || *layout == "NCW" || *layout == "NCHW" || *layout == "NCDHW";
}

// Counts given by attributes ("attr num_outputs", "attr num_weights", ...).
std::optional<uint32_t> countFromRule(const OpFacts& facts, const Node& node) {
    const std::string_view rule = facts.numOutputsRule;
    if (rule.rfind("attr ", 0) == 0 && rule.find(' ', 5) == std::string_view::npos) {
        const std::string* v = node.attr(rule.substr(5));
        if (v != nullptr) {
            if (auto n = parseInt(*v)) {
                return clampOutputs(*n);
            }
        }
        return std::nullopt;
    }
    if (rule.rfind("attr sections if > 0", 0) == 0) {  // _split_v2, _npi_hsplit, _npi_dsplit
        const std::string* sections = node.attr("sections");
        if (sections != nullptr) {
            if (auto n = parseInt(*sections); n && *n > 0) {
                return clampOutputs(*n);
            }
        }
        const std::string* indices = node.attr("indices");
        if (indices != nullptr) {
            if (auto n = tupleLength(*indices)) {
                return clampOutputs(static_cast<int64_t>(*n));
            }
        }
    }
    return std::nullopt;
}

}  // namespace

uint32_t MxnetOpFacts::numOutputs(const Node& node) const {
    if (node.isVariable()) {
        return 1;
    }
    const OpFacts* facts = m_data->find(node.op);
    if (facts == nullptr) {
        return 1;
    }
    if (canonicalName(node.op) == "Pooling") {
        return poolingHasWorkspace(node) ? 2 : 1;
    }
    if (const Variant* v = matchingVariant(*facts, node)) {
        return v->numOutputs;
    }
    if (!facts->numOutputsRule.empty()) {
        return countFromRule(*facts, node).value_or(1);
    }
    return facts->numOutputs;
}

std::optional<std::string> MxnetOpFacts::outputName(const Node& node, uint32_t index) const {
    if (node.isVariable()) {
        return std::nullopt;
    }
    const OpFacts* facts = m_data->find(node.op);
    if (facts == nullptr) {
        return std::nullopt;
    }
    const std::string_view op = canonicalName(node.op);
    if (op == "SliceChannel") {  // legacy OperatorProperty: "output0" .. "output{n-1}"
        return "output" + std::to_string(index);
    }
    if (op == "Pooling") {
        static const std::vector<std::string> kNames = {"output", "workspace"};
        return index < (poolingHasWorkspace(node) ? 2u : 1u) ? std::optional(kNames[index]) : std::nullopt;
    }
    const std::optional<std::vector<std::string>>* names = &facts->outputNames;
    if (const Variant* v = matchingVariant(*facts, node)) {
        names = &v->outputNames;
    }
    if (!names->has_value() || index >= (*names)->size()) {
        return std::nullopt;
    }
    return (**names)[index];
}

std::vector<uint32_t> MxnetOpFacts::mutableInputs(const Node& node) const {
    if (node.isVariable()) {
        return {};
    }
    const OpFacts* facts = m_data->find(node.op);
    return facts == nullptr ? std::vector<uint32_t>{} : facts->mutableInputs;
}

std::optional<std::vector<std::string>> MxnetOpFacts::inputNames(const Node& node) const {
    if (node.isVariable()) {
        return std::nullopt;
    }
    const std::string_view op = canonicalName(node.op);
    using Names = std::vector<std::string>;
    auto withBias = [&](bool noBiasDefault) {
        const std::string* noBias = node.attr("no_bias");
        const bool skip = noBias != nullptr ? normaliseValue(*noBias) == "true" : noBiasDefault;
        return skip ? Names{"data", "weight"} : Names{"data", "weight", "bias"};
    };
    auto numbered = [&](std::string_view countAttr, std::string_view prefix) -> std::optional<Names> {
        const std::string* count = node.attr(countAttr);
        const auto n = count != nullptr ? parseInt(*count) : std::nullopt;
        if (!n || *n < 0 || *n > static_cast<int64_t>(kMaxOutputs)) {
            return std::nullopt;
        }
        Names names;
        for (int64_t i = 0; i < *n; ++i) {
            names.push_back(std::string(prefix) + std::to_string(i));
        }
        return names;
    };
    // FListInputNames of MXNet 1.9.1 for the ops whose inputs carry meaning beyond "data".
    if (op == "FullyConnected" || op == "Convolution" || op == "Convolution_v1") {
        return withBias(false);
    }
    if (op == "Deconvolution") {
        return withBias(true);
    }
    if (isBatchNormFamily(op)) {
        return Names{"data", "gamma", "beta", "moving_mean", "moving_var"};
    }
    if (op == "LayerNorm" || op == "GroupNorm" || op == "InstanceNorm") {
        return Names{"data", "gamma", "beta"};
    }
    if (op == "SoftmaxOutput" || op == "LinearRegressionOutput" || op == "LogisticRegressionOutput" ||
        op == "MAERegressionOutput" || op == "SVMOutput") {
        return Names{"data", "label"};
    }
    if (op == "Embedding" || op == "_contrib_SparseEmbedding") {
        return Names{"data", "weight"};
    }
    if (op == "LeakyReLU") {
        return attrIs(node, "act_type", "prelu") ? Names{"data", "gamma"} : Names{"data"};
    }
    if (op == "RNN") {
        Names names{"data", "parameters", "state"};
        if (attrIs(node, "mode", "lstm")) {
            names.emplace_back("state_cell");
        }
        if (attrIs(node, "use_sequence_length", "true")) {
            names.emplace_back("sequence_length");
        }
        return names;
    }
    if (op == "Concat" || op == "add_n") {
        return numbered("num_args", "arg");
    }
    if (op == "elemwise_add" || op == "elemwise_sub" || op == "elemwise_mul" || op == "elemwise_div" ||
        op.rfind("broadcast_", 0) == 0 || op == "dot" || op == "batch_dot") {
        if (op == "broadcast_to" || op == "broadcast_axis" || op == "broadcast_like") {
            return op == "broadcast_like" ? Names{"lhs", "rhs"} : Names{"data"};
        }
        return Names{"lhs", "rhs"};
    }
    if (op == "Activation" || op == "Pooling" || op == "Flatten" || op == "Dropout" || op == "Reshape" ||
        op == "SliceChannel" || op == "Cast" || op == "amp_cast" || op == "transpose" || op == "MakeLoss" ||
        op == "softmax" || op == "log_softmax" || op == "relu" || op == "sigmoid" || op == "tanh" ||
        op == "exp" || op == "log" || op == "sqrt" || op == "square" || op == "sin" || op == "cos" ||
        op == "abs" || op == "sum" || op == "mean") {
        return Names{"data"};
    }
    return std::nullopt;
}

TypeInference MxnetOpFacts::typeInference(const Node& node, std::vector<DType>& in, std::vector<DType>& out,
                                        bool untypedInputThrows) const {
    using enum TypeInference;
    if (node.isVariable()) {
        return Incomplete;
    }
    const std::string_view op = canonicalName(node.op);
    // Assigns t to slot, or checks it against what is already known there.
    auto assign = [](DType& slot, DType t) {
        if (slot == DType::Unknown) {
            slot = t;
            return true;
        }
        return slot == t;
    };
    auto known = [](const std::vector<DType>& v) {
        return std::none_of(v.begin(), v.end(), [](DType t) { return t == DType::Unknown; });
    };
    auto dtypeAttr = [&](std::string_view key, DType fallback) -> std::optional<DType> {
        const std::string* v = node.attr(key);
        return v == nullptr ? std::optional(fallback) : dtypeFromName(*v);
    };

    // Cast: the output is the `dtype` attribute whatever the input is. amp_cast (AMPCastType):
    // the same once its input is a known float; a non-float input passes through; an unknown input
    // decides nothing, so a cast of a parameter nothing else types stays open until binding
    // makes the parameter float32.
    if (op == "Cast" || op == "amp_cast") {
        auto t = dtypeAttr("dtype", DType::Unknown);
        if (!t || *t == DType::Unknown) {
            return Incomplete;  // MXNet refuses such a node when it parses its attributes
        }
        if (op == "amp_cast" && (in.empty() || in[0] == DType::Unknown)) {
            return Incomplete;
        }
        if (op == "amp_cast" && !isFloat(in[0])) {
            t = in[0];
        }
        if (!std::all_of(out.begin(), out.end(), [&](DType& o) { return assign(o, *t); })) {
            return Conflict;
        }
        return known(in) ? Complete : Incomplete;
    }
    // amp_multicast: MXNet 1.9.1's AMPMultiCastType, literally, because binding depends on its
    // quirks. The common type is chosen from what is known *now*: input 0's dtype (unknown stays
    // unknown), float32 as soon as any input or output is float32 (cast_narrow: float32 unless some
    // slot is float16, else bfloat16). Every float input's output gets that type at once, so an
    // input typed only in a later sweep (a free parameter) can contradict an output already fixed
    // narrow: MXNet then refuses the graph, and so must the dtype check. Non-float and unknown
    // inputs pass through; nothing is inferred backwards.
    if (op == "amp_multicast") {
        if (in.size() != out.size()) {
            return Conflict;  // MXNet's CHECK_EQ on num_outputs
        }
        const bool narrow = attrIs(node, "cast_narrow", "true");
        DType chosen = narrow ? DType::F32 : (in.empty() ? DType::Unknown : in[0]);
        for (std::size_t i = 0; i < in.size(); ++i) {
            auto either = [&](DType t) { return in[i] == t || out[i] == t; };
            if (!narrow && either(DType::F32)) {
                chosen = DType::F32;
            } else if (narrow && either(DType::F16)) {
                chosen = DType::F16;
            } else if (narrow && either(DType::BF16)) {
                chosen = DType::BF16;
            }
        }
        for (std::size_t i = 0; i < in.size(); ++i) {
            const DType t = isFloat(in[i]) && in[i] != DType::F64 ? chosen : in[i];
            if (t != DType::Unknown && !assign(out[i], t)) {
                return Conflict;
            }
        }
        return known(in) ? Complete : Incomplete;
    }
    // BatchNorm family: data and output in the data type; gamma, beta, moving statistics and the
    // mean/var outputs in float32 (float64 for float64 data), as cuDNN and MKLDNN require.
    if (isBatchNormFamily(op)) {
        DType data = !in.empty() && in[0] != DType::Unknown ? in[0] : (!out.empty() ? out[0] : DType::Unknown);
        if (data == DType::Unknown) {
            return Incomplete;
        }
        const DType param = data == DType::F64 ? DType::F64 : DType::F32;
        bool ok = in.empty() || assign(in[0], data);
        for (std::size_t i = 1; i < in.size(); ++i) {
            ok = ok && assign(in[i], param);
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            ok = ok && assign(out[i], i == 0 ? data : param);
        }
        return ok ? Complete : Conflict;
    }
    // Embedding (MXNet 1.9.1's EmbeddingOpType): indices of any type; weight and output share one
    // type, the `dtype` attribute (float32 default) only while neither is known. MXNet throws while
    // the indices' type is unknown, which fails its InferType.
    if (op == "Embedding" || op == "_contrib_SparseEmbedding") {
        if (in.size() != 2 || out.empty()) {
            return Conflict;
        }
        if (in[0] == DType::Unknown) {
            return untypedInputThrows ? Conflict : Incomplete;
        }
        std::optional<DType> t = dtypeAttr("dtype", DType::F32);
        if (!t) {
            return Incomplete;
        }
        if (in[1] != DType::Unknown && out[0] != DType::Unknown) {
            if (in[1] != out[0]) {
                return Conflict;
            }
            t = in[1];
        } else if (in[1] != DType::Unknown || out[0] != DType::Unknown) {
            t = in[1] != DType::Unknown ? in[1] : out[0];
        }
        in[1] = *t;
        out[0] = *t;
        return Complete;
    }
    // where (WhereOpType): x, y and the output share one type; the condition is free. Where x and y
    // disagree, MXNet returns false without assigning anything: not an error, the output just stays
    // untyped (and a consumer that needs it typed fails instead).
    if (op == "where") {
        if (in.size() != 3 || out.size() != 1) {
            return Conflict;
        }
        DType t = DType::Unknown;
        for (DType x : {in[1], in[2], out[0]}) {
            if (x != DType::Unknown) {
                if (t != DType::Unknown && t != x) {
                    return Incomplete;
                }
                t = x;
            }
        }
        if (t == DType::Unknown) {
            return Incomplete;
        }
        in[1] = in[2] = out[0] = t;
        return known(in) ? Complete : Incomplete;
    }
    // Everything else by MXNet 1.9.1's probed rules.
    if (const DtypeRule* rule = findDtypeRule(node, op)) {
        return applyDtypeRule(*rule, node, in, out, untypedInputThrows);
    }
    // An op MXNet 1.9.1 does not have: ElemwiseType, inputs and outputs share one type.
    DType t = DType::Unknown;
    for (const auto* v : {&in, &out}) {
        for (DType x : *v) {
            if (x == DType::Unknown) {
                continue;
            }
            if (t != DType::Unknown && x != t) {
                return Conflict;
            }
            t = x;
        }
    }
    if (t == DType::Unknown) {
        return Incomplete;
    }
    std::fill(in.begin(), in.end(), t);
    std::fill(out.begin(), out.end(), t);
    return Complete;
}

bool MxnetOpFacts::hasTypeInference(const Node& node) const {
    if (node.isVariable()) {
        return false;
    }
    const DtypeRule* rule = findDtypeRule(node, canonicalName(node.op));
    return rule == nullptr || rule->hasFInferType;
}

bool MxnetOpFacts::inferType(const Node& node, std::vector<DType>& in, std::vector<DType>& out) const {
    if (node.isVariable()) {
        return false;
    }
    const DtypeRule* rule = findDtypeRule(node, canonicalName(node.op));
    if (rule != nullptr && !rule->hasFInferType) {
        return false;
    }
    // The pass's call (input 0 alone known) on a node shaped like the probed one: MXNet's own
    // answer decides success, and fills what the rules leave open (numpy ops' type promotion,
    // legacy ops' InferType).
    const FirstInputProbe* probe = nullptr;
    if (rule != nullptr && !in.empty() && firstInputIndex(in[0]) >= 0 &&
        std::all_of(in.begin() + 1, in.end(), [](DType t) { return t == DType::Unknown; })) {
        const auto& p = rule->firstInput[firstInputIndex(in[0])];
        if (p && p->in.size() == in.size() && p->out.size() == out.size()) {
            probe = &*p;
        }
    }
    if (probe != nullptr && !probe->ok) {
        return false;
    }
    if (typeInference(node, in, out) == TypeInference::Conflict) {
        if (probe == nullptr) {
            return false;
        }
        // The graph-level rule is stricter than this one call (multi-tensor optimizer updates
        // whose later inputs are float32 masters): MXNet's answer stands.
        std::fill(in.begin() + 1, in.end(), DType::Unknown);
        std::fill(out.begin(), out.end(), DType::Unknown);
    }
    if (probe != nullptr) {
        for (std::size_t i = 0; i < in.size(); ++i) {
            in[i] = in[i] == DType::Unknown ? probe->in[i] : in[i];
        }
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = out[k] == DType::Unknown ? probe->out[k] : out[k];
        }
        return true;  // MXNet's return value, even where it leaves a slot unknown
    }
    return std::none_of(out.begin(), out.end(), [](DType t) { return t == DType::Unknown; });
}

}  // namespace ampstudio
