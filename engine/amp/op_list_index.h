#pragma once
// Internal to the conversion pass: the operator lists and excluded names as hash sets built once
// per conversion, so that classifying a node is one lookup of its op name. Names are compared
// unchanged (no alias resolution), as MXNet compares them.

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "amp/amp_lists.h"
#include "graph/graph.h"

namespace ampstudio::amp_detail {

struct OpClass {
    bool target = false;
    bool fp32 = false;
    bool widest = false;
    bool neutral = false;
    std::vector<const ConditionalFp32Op*> conditional;  // entries for this op, in list order
};

class OpListIndex {
public:
    // `lists` and `excluded` must outlive the index (it keeps views of their strings).
    OpListIndex(const AmpLists& lists, const std::set<std::string>& excluded);

    // The lists an op is in; an empty class for variables and ops in no list.
    const OpClass& classify(std::string_view op) const;
    bool isExcluded(std::string_view nodeName) const;
    // The conditional entry that puts this node in float32: its attrs hold the entry's param
    // explicitly, with a string equal to one of the entry's values. nullptr when none matches.
    static const ConditionalFp32Op* conditionalMatch(const OpClass& cls, const Node& node);

private:
    std::unordered_map<std::string_view, OpClass> m_classes;
    std::unordered_set<std::string_view> m_excluded;
};

}  // namespace ampstudio::amp_detail
