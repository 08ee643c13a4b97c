#include "amp/op_list_index.h"

#include <algorithm>

namespace ampstudio::amp_detail {

OpListIndex::OpListIndex(const AmpLists& lists, const std::set<std::string>& excluded) {
    for (const std::string& op : lists.targetDtypeOps) {
        m_classes[op].target = true;
    }
    for (const std::string& op : lists.fp32Ops) {
        m_classes[op].fp32 = true;
    }
    for (const std::string& op : lists.widestDtypeOps) {
        m_classes[op].widest = true;
    }
    for (const std::string& op : lists.neutralOps) {
        m_classes[op].neutral = true;
    }
    for (const ConditionalFp32Op& c : lists.conditionalFp32Ops) {
        m_classes[c.op].conditional.push_back(&c);
    }
    m_excluded.reserve(excluded.size());
    for (const std::string& name : excluded) {
        m_excluded.insert(name);
    }
}

const OpClass& OpListIndex::classify(std::string_view op) const {
    static const OpClass kNone;
    if (op.empty()) {
        return kNone;
    }
    const auto it = m_classes.find(op);
    return it == m_classes.end() ? kNone : it->second;
}

bool OpListIndex::isExcluded(std::string_view nodeName) const {
    return !m_excluded.empty() && m_excluded.count(nodeName) != 0;
}

const ConditionalFp32Op* OpListIndex::conditionalMatch(const OpClass& cls, const Node& node) {
    for (const ConditionalFp32Op* entry : cls.conditional) {
        // MXNet 1.9.1 CheckConditionalFP32: only an attribute set explicitly counts (a default value
        // is not in attrs.dict), and the comparison is of the exact strings.
        const std::string* value = node.attr(entry->param);
        if (value != nullptr &&
            std::find(entry->values.begin(), entry->values.end(), *value) != entry->values.end()) {
            return entry;
        }
    }
    return nullptr;
}

}  // namespace ampstudio::amp_detail
