// Classic mode: the algorithm of the original AMP proposal (MXNet <= 1.6). No dtype knowledge:
// the mirror maps only ever hold casts, and the first matching rule wins.
#include "amp/conversion_pass.h"

namespace ampstudio::amp_detail {

void ConversionPass::classicNode(NodeId id) {
    const Node& n = sourceNode(id);
    NodeDecision& d = m_report.nodes[id];
    m_inputs.clear();
    if (n.isVariable()) {
        d.precision = NodePrecision::Variable;
        d.rule = DecisionRule::Variable;
        appendCopy(id);
        return;
    }
    const OpClass& cls = m_in.lists.classify(n.op);
    const bool excluded = m_in.lists.isExcluded(n.name);
    const ConditionalFp32Op* conditional = nullptr;
    if (!excluded && cls.fp32) {
        // Rule 1: every input in float32, variables too.
        d.precision = NodePrecision::Float32;
        d.rule = DecisionRule::Fp32List;
        d.dtype = DType::F32;
        classicCastAll(id, DType::F32, m_fp32Map);
    } else if (!excluded && cls.target) {
        // Rule 2: every input in the target dtype.
        d.precision = NodePrecision::Target;
        d.rule = DecisionRule::TargetList;
        d.dtype = m_in.target;
        classicCastAll(id, m_in.target, m_targetMap);
    } else if (!excluded && cls.widest) {
        // Rule 3: one amp_multicast brings all inputs to the widest dtype at run time.
        if (n.inputs.empty()) {
            throw ConversionError("node '" + n.name + "' (" + n.op +
                                  ") is a widest-type op without inputs; there is nothing to cast");
        }
        d.precision = NodePrecision::Widest;
        d.rule = DecisionRule::WidestList;
        d.detail = "amp_multicast to the widest input dtype at run time";
        const NodeId multicast = addMulticast(id);
        for (uint32_t i = 0; i < n.inputs.size(); ++i) {
            m_inputs.push_back({multicast, i, 0});
        }
        appendCopy(id);
    } else if (!excluded && (conditional = OpListIndex::conditionalMatch(cls, n)) != nullptr) {
        // Rule 4: handled as rule 1.
        d.precision = NodePrecision::Float32;
        d.rule = DecisionRule::ConditionalFp32;
        d.dtype = DType::F32;
        d.detail = conditionalDetail(*conditional, n);
        classicCastAll(id, DType::F32, m_fp32Map);
    } else {
        // Rule 5: copied, inputs unchanged (excluded nodes too).
        d.precision = NodePrecision::Unchanged;
        d.rule = excluded      ? DecisionRule::Excluded
                 : cls.neutral ? DecisionRule::NeutralList
                               : DecisionRule::NoList;
        for (const NodeEntry& e : n.inputs) {
            m_inputs.push_back(plainMirror(e));
        }
        appendCopy(id);
    }
}

void ConversionPass::classicCastAll(NodeId id, DType dtype, EntryMap& map) {
    for (const NodeEntry& e : sourceNode(id).inputs) {
        m_inputs.push_back(mappedOrCast(e, dtype, map));
    }
    appendCopy(id);
}

}  // namespace ampstudio::amp_detail
