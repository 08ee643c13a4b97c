#include "amp/amp_lists.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "formats/load_error.h"
#include "ops/mxnet_op_facts.h"

namespace ampstudio {

namespace embedded {
std::string_view defaultListsFloat16Json();
std::string_view defaultListsBfloat16Json();
std::string_view defaultOnnxListsFloat16Json();
std::string_view defaultOnnxListsBfloat16Json();
}  // namespace embedded

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kTargetDtype = "target_dtype";
constexpr std::string_view kTargetDtypeOps = "target_dtype_ops";
constexpr std::string_view kFp32Ops = "fp32_ops";
constexpr std::string_view kNeutralOps = "neutral_ops";
constexpr std::string_view kWidestDtypeOps = "widest_dtype_ops";
constexpr std::string_view kConditionalFp32Ops = "conditional_fp32_ops";
constexpr std::string_view kLossOutputOps = "loss_output_ops";

// Schema order, used for keys a file did not have (e.g. lists built in code).
constexpr std::array<std::string_view, 7> kSchemaKeys = {kTargetDtype,  kTargetDtypeOps, kFp32Ops,
                                                         kNeutralOps,   kWidestDtypeOps, kConditionalFp32Ops,
                                                         kLossOutputOps};

// nlohmann reports a byte offset; a person editing the file wants a line and a column.
std::string lineAndColumn(std::string_view text, std::size_t byteOffset) {
    byteOffset = std::min(byteOffset, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < byteOffset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

class ListReader {
public:
    explicit ListReader(const std::string& source) : m_source(source) {}

    [[noreturn]] void fail(const std::string& where, const std::string& reason) const {
        throw LoadError(m_source, where, reason);
    }

    std::vector<std::string> stringList(const Json& value, std::string_view key) const {
        const std::string where = "key '" + std::string(key) + "'";
        if (!value.is_array()) {
            fail(where, "expected an array of operator names");
        }
        std::vector<std::string> names;
        names.reserve(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) {
            names.push_back(nonEmptyString(value[i], std::string(key) + "[" + std::to_string(i) + "]"));
        }
        return names;
    }

    std::vector<ConditionalFp32Op> conditionalList(const Json& value) const {
        if (!value.is_array()) {
            fail("key '" + std::string(kConditionalFp32Ops) + "'",
                 "expected an array of {\"op\", \"param\", \"values\"} objects");
        }
        std::vector<ConditionalFp32Op> entries;
        for (std::size_t i = 0; i < value.size(); ++i) {
            const std::string where = std::string(kConditionalFp32Ops) + "[" + std::to_string(i) + "]";
            const Json& item = value[i];
            if (!item.is_object()) {
                fail(where, "expected an object with keys \"op\", \"param\" and \"values\"");
            }
            for (const auto& [key, unused] : item.items()) {
                if (key != "op" && key != "param" && key != "values") {
                    fail(where, "unexpected key '" + key + "' (expected \"op\", \"param\", \"values\")");
                }
            }
            for (const char* key : {"op", "param", "values"}) {
                if (!item.contains(key)) {
                    fail(where, std::string("missing key '") + key + "'");
                }
            }
            ConditionalFp32Op entry;
            entry.op = nonEmptyString(item["op"], where + ".op");
            entry.param = nonEmptyString(item["param"], where + ".param");
            const Json& values = item["values"];
            if (!values.is_array()) {
                fail(where + ".values", "expected an array of strings");
            }
            for (std::size_t v = 0; v < values.size(); ++v) {
                if (!values[v].is_string()) {
                    fail(where + ".values[" + std::to_string(v) + "]", "expected a string");
                }
                entry.values.push_back(values[v].get<std::string>());
            }
            entries.push_back(std::move(entry));
        }
        return entries;
    }

private:
    std::string nonEmptyString(const Json& value, const std::string& where) const {
        if (!value.is_string()) {
            fail(where, "expected a string");
        }
        std::string s = value.get<std::string>();
        if (s.empty()) {
            fail(where, "empty name");
        }
        return s;
    }

    const std::string& m_source;
};

Json stringArray(const std::vector<std::string>& names) {
    Json array = Json::array();
    for (const std::string& n : names) {
        array.push_back(n);
    }
    return array;
}

}  // namespace

AmpLists AmpLists::defaults(DType target, OpSet opSet) {
    // Parsed once per dtype: conversion options default to these lists, so they are built often.
    static const AmpLists float16 =
        fromJson(embedded::defaultListsFloat16Json(), "amp-lists-mxnet-1.9.1-float16.json (built in)");
    static const AmpLists bfloat16 =
        fromJson(embedded::defaultListsBfloat16Json(), "amp-lists-mxnet-1.9.1-bfloat16.json (built in)");
    static const AmpLists onnxFloat16 =
        fromJson(embedded::defaultOnnxListsFloat16Json(), "amp-lists-onnx-float16.json (built in)");
    static const AmpLists onnxBfloat16 =
        fromJson(embedded::defaultOnnxListsBfloat16Json(), "amp-lists-onnx-bfloat16.json (built in)");
    const bool onnx = opSet == OpSet::Onnx;
    switch (target) {
        case DType::F16:
            return onnx ? onnxFloat16 : float16;
        case DType::BF16:
            return onnx ? onnxBfloat16 : bfloat16;
        default:
            throw std::invalid_argument("AMP target dtype must be float16 or bfloat16, not " +
                                        std::string(dtypeName(target)));
    }
}

OpSet AmpLists::opSet() const {
    for (const auto& [key, value] : otherKeys) {
        if (key == "op_set") return value == "\"onnx\"" ? OpSet::Onnx : OpSet::Mxnet;
    }
    return OpSet::Mxnet;
}

AmpLists AmpLists::fromJson(std::string_view text, const std::string& source) {
    Json doc;
    try {
        doc = Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        throw LoadError(source, lineAndColumn(text, e.byte == 0 ? 0 : e.byte - 1), "malformed JSON");
    }
    const ListReader reader(source);
    if (!doc.is_object()) {
        reader.fail("", "expected a JSON object with the AMP list keys");
    }
    for (std::string_view required :
         {kTargetDtype, kTargetDtypeOps, kFp32Ops, kNeutralOps, kWidestDtypeOps, kConditionalFp32Ops}) {
        if (!doc.contains(required)) {
            reader.fail("", "missing key '" + std::string(required) + "'");
        }
    }

    AmpLists lists;
    for (const auto& [key, value] : doc.items()) {
        lists.keyOrder.push_back(key);
        if (key == kTargetDtype) {
            const std::optional<DType> t =
                value.is_string() ? dtypeFromName(value.get<std::string>()) : std::nullopt;
            if (!t || !isLowPrecisionFloat(*t)) {
                reader.fail("key 'target_dtype'", "expected \"float16\" or \"bfloat16\"");
            }
            lists.targetDtype = *t;
        } else if (key == kTargetDtypeOps) {
            lists.targetDtypeOps = reader.stringList(value, key);
        } else if (key == kFp32Ops) {
            lists.fp32Ops = reader.stringList(value, key);
        } else if (key == kNeutralOps) {
            lists.neutralOps = reader.stringList(value, key);
        } else if (key == kWidestDtypeOps) {
            lists.widestDtypeOps = reader.stringList(value, key);
        } else if (key == kConditionalFp32Ops) {
            lists.conditionalFp32Ops = reader.conditionalList(value);
        } else if (key == kLossOutputOps) {
            lists.lossOutputOps = reader.stringList(value, key);
        } else {
            lists.otherKeys.emplace_back(key, value.dump());
        }
    }
    return lists;
}

AmpLists AmpLists::fromJsonFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw LoadError(path.string(), "", "cannot open the file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        throw LoadError(path.string(), "", "read error");
    }
    return fromJson(text.str(), path.string());
}

std::string AmpLists::toJson() const {
    std::unordered_map<std::string, Json> values;
    values.emplace(kTargetDtype, std::string(dtypeName(targetDtype)));
    values.emplace(kTargetDtypeOps, stringArray(targetDtypeOps));
    values.emplace(kFp32Ops, stringArray(fp32Ops));
    values.emplace(kNeutralOps, stringArray(neutralOps));
    values.emplace(kWidestDtypeOps, stringArray(widestDtypeOps));
    Json conditional = Json::array();
    for (const ConditionalFp32Op& c : conditionalFp32Ops) {
        conditional.push_back(Json{{"op", c.op}, {"param", c.param}, {"values", stringArray(c.values)}});
    }
    values.emplace(kConditionalFp32Ops, std::move(conditional));
    values.emplace(kLossOutputOps, stringArray(lossOutputOps));
    for (const auto& [key, text] : otherKeys) {
        values.emplace(key, Json::parse(text));
    }

    Json doc = Json::object();
    auto emit = [&](const std::string& key) {
        auto it = values.find(key);
        if (it != values.end()) {
            doc[key] = std::move(it->second);
            values.erase(it);
        }
    };
    for (const std::string& key : keyOrder) {
        emit(key);
    }
    for (std::string_view key : kSchemaKeys) {
        emit(std::string(key));
    }
    for (const auto& [key, text] : otherKeys) {
        emit(key);
    }
    return doc.dump(2);
}

std::vector<std::string> AmpLists::overlapErrors() const {
    // MXNet 1.9.1 amp.convert_symbol asserts that these three lists are pairwise disjoint; a node
    // matching two of them would have no defined precision. Widest and neutral ops may overlap others.
    struct Named {
        std::string_view name;
        std::vector<std::string_view> ops;
    };
    Named lists[3] = {{kTargetDtypeOps, {}}, {kFp32Ops, {}}, {kConditionalFp32Ops, {}}};
    lists[0].ops.assign(targetDtypeOps.begin(), targetDtypeOps.end());
    lists[1].ops.assign(fp32Ops.begin(), fp32Ops.end());
    for (const ConditionalFp32Op& c : conditionalFp32Ops) {
        if (std::find(lists[2].ops.begin(), lists[2].ops.end(), c.op) == lists[2].ops.end()) {
            lists[2].ops.push_back(c.op);
        }
    }
    std::vector<std::string> errors;
    for (int a = 0; a < 3; ++a) {
        for (int b = a + 1; b < 3; ++b) {
            for (std::string_view op : lists[a].ops) {
                if (std::find(lists[b].ops.begin(), lists[b].ops.end(), op) != lists[b].ops.end()) {
                    errors.push_back("\"" + std::string(op) + "\" is in both " + std::string(lists[a].name) +
                                     " and " + std::string(lists[b].name));
                }
            }
        }
    }
    return errors;
}

void AmpLists::validate() const {
    const std::vector<std::string> errors = overlapErrors();
    if (errors.empty()) {
        return;
    }
    std::string message = errors.front();
    for (std::size_t i = 1; i < errors.size(); ++i) {
        message += "\n" + errors[i];
    }
    throw AmpListsError(message);
}

std::vector<UnmatchableListEntry> AmpLists::unmatchableEntries() const {
    const MxnetOpFacts& registry = MxnetOpFacts::instance();
    std::vector<UnmatchableListEntry> result;
    auto check = [&](std::string_view list, const std::string& entry) {
        if (!registry.isKnown(entry)) {
            result.push_back({std::string(list), entry, {}});
            return;
        }
        const std::string_view canonical = registry.canonicalName(entry);
        if (canonical != entry) {
            result.push_back({std::string(list), entry, std::string(canonical)});
        }
    };
    for (const auto& [list, names] :
         {std::pair{kTargetDtypeOps, &targetDtypeOps}, std::pair{kFp32Ops, &fp32Ops},
          std::pair{kNeutralOps, &neutralOps}, std::pair{kWidestDtypeOps, &widestDtypeOps}}) {
        for (const std::string& entry : *names) {
            check(list, entry);
        }
    }
    for (const ConditionalFp32Op& c : conditionalFp32Ops) {
        check(kConditionalFp32Ops, c.op);
    }
    for (const std::string& entry : lossOutputOps) {
        check(kLossOutputOps, entry);
    }
    return result;
}

}  // namespace ampstudio
