// Typed mode: MXNet 1.9.1's ReducePrecision. The mirror maps also record which source entries are
// known to be float32 or target dtype, so casts are skipped where the dtype is already right.
#include <algorithm>

#include "amp/conversion_pass.h"

namespace ampstudio::amp_detail {

namespace {

bool contains(const std::vector<uint32_t>& positions, uint32_t i) {
    return std::find(positions.begin(), positions.end(), i) != positions.end();
}

// NodeDecision::detail of a widest-type op whose input dtypes are all known (at least one input, so
// at least one of the two is seen). Static text: the report keeps a view of it.
std::string_view widestDetail(DType target, bool sawTarget, bool sawFloat32) {
    const bool bf16 = target == DType::BF16;
    if (sawTarget && sawFloat32) {
        return bf16 ? "inputs bfloat16 and float32 → float32" : "inputs float16 and float32 → float32";
    }
    if (sawTarget) {
        return bf16 ? "inputs bfloat16 → bfloat16" : "inputs float16 → float16";
    }
    return "inputs float32 → float32";
}

}  // namespace

void ConversionPass::typedNode(NodeId id) {
    const Node& n = sourceNode(id);
    m_inputs.clear();
    const OpClass& cls = m_in.lists.classify(n.op);
    const bool excluded = m_in.lists.isExcluded(n.name);
    // The order of MXNet 1.9.1 ReducePrecision; excluded names win over every list, variables too.
    if ((!n.isVariable() && cls.fp32) || excluded) {
        typedFloat32(id, excluded);
    } else if (n.isVariable()) {
        typedPassThrough(id, cls);
    } else if (cls.target) {
        typedTarget(id);
    } else if (cls.widest) {
        typedWidest(id);
    } else if (const ConditionalFp32Op* conditional = OpListIndex::conditionalMatch(cls, n)) {
        typedConditional(id, *conditional);
    } else {
        typedPassThrough(id, cls);
    }
}

template <typename KeepAsIs>
void ConversionPass::planFloat32Inputs(NodeId id, KeepAsIs keepAsIs) {
    const Node& n = sourceNode(id);
    for (uint32_t i = 0; i < n.inputs.size(); ++i) {
        const NodeEntry& e = n.inputs[i];
        if (const NodeEntry* m = m_fp32Map.find(e)) {
            m_inputs.push_back(*m);
            notePlainRead(e, *m, id);
        } else if (keepAsIs(i, e)) {
            m_inputs.push_back(plainMirror(e));
            notePlainRead(e, m_inputs.back(), id);
        } else {
            m_inputs.push_back(addCast(e, DType::F32, m_fp32Map));
        }
    }
}

void ConversionPass::typedFloat32(NodeId id, bool excluded) {
    const Node& n = sourceNode(id);
    // MXNet 1.9.1: a variable feeding a float32 node is assumed to be float32 already.
    planFloat32Inputs(id, [&](uint32_t, const NodeEntry& e) { return isVariableEntry(e); });
    if (m_in.repair) {
        m_needed.assign(n.inputs.size(), DType::F32);
        repairInputs(id, m_needed, {});
    }
    recordOutputs(id, appendCopy(id), m_fp32Map);

    NodeDecision& d = m_report.nodes[id];
    d.precision = n.isVariable() ? NodePrecision::Variable : NodePrecision::Float32;
    d.rule = excluded ? DecisionRule::Excluded : DecisionRule::Fp32List;
    d.dtype = DType::F32;
}

bool ConversionPass::isOptionalParam(const NodeEntry& e) const {
    if (!m_in.options.castOptionalParams || !isVariableEntry(e)) {
        return false;
    }
    const std::string& name = sourceNode(e.node).name;
    // As MXNet 1.9.1: an excluded parameter is no exception (the report warns when it ends up stored
    // in the target dtype).
    return m_in.options.dataNames.count(name) == 0 && m_paramsAsData.count(name) == 0;
}

void ConversionPass::typedTarget(NodeId id) {
    const Node& n = sourceNode(id);
    const std::size_t inputCount = n.inputs.size();
    m_inTypes.assign(inputCount, DType::Unknown);
    m_outTypes.assign(n.numOutputs, DType::Unknown);
    if (inputCount > 0) {
        m_inTypes[0] = m_in.target;
    }
    // Which inputs the op wants in the target dtype once its data is (BatchNorm keeps gamma, beta
    // and the moving statistics in float32), and the dtypes of its outputs.
    // An op without FInferType in MXNet 1.9.1 is not typed: all its inputs are cast and its output
    // dtypes stay unknown, silently, as MXNet does.
    const bool inferred = m_registry.inferType(n, m_inTypes, m_outTypes);
    if (!inferred && m_registry.hasTypeInference(n)) {
        m_report.warnings.push_back(
            "dtype inference failed for '" + n.name + "' (" + n.op + ") with " +
            std::string(dtypeName(m_in.target)) + " data; all its inputs are cast to " +
            std::string(dtypeName(m_in.target)) + " and its output dtypes are unknown");
    }
    if (!inferred) {
        m_inTypes.assign(inputCount, DType::Unknown);
    }
    const std::vector<uint32_t> mutableInputs = m_registry.mutableInputs(n);
    for (uint32_t i = 0; i < inputCount; ++i) {
        const NodeEntry& e = n.inputs[i];
        if (const NodeEntry* m = m_targetMap.find(e)) {
            m_inputs.push_back(*m);
            continue;
        }
        // MXNet 1.9.1 leaves three kinds of input uncast: parameters stored in the target dtype
        // (cast_optional_params), mutable inputs (the op writes them), and inputs the op wants in
        // another dtype.
        const bool isMutable = contains(mutableInputs, i);
        const bool wantsOtherDtype = m_inTypes[i] != m_in.target && m_inTypes[i] != DType::Unknown;
        const bool optionalParam = isOptionalParam(e);
        if (!(optionalParam || isMutable || wantsOtherDtype)) {
            m_inputs.push_back(addCast(e, m_in.target, m_targetMap));
            continue;
        }
        const NodeEntry plain = plainMirror(e);
        m_inputs.push_back(plain);
        if (optionalParam && !isMutable && !wantsOtherDtype) {
            // Stored in the target dtype: later target readers use it as it is. (Refinement: MXNet
            // 1.9.1 records mutable and float32-wanting parameters too, which then fail its dtype
            // inference; those are read in float32 here and stay float32.)
            m_targetMap.set(e, plain);
            m_paramInTarget[e.node] = 1;
        } else {
            notePlainRead(e, plain, id);
        }
    }
    if (m_in.repair) {
        m_needed.assign(inputCount, m_in.target);
        for (uint32_t i = 0; i < inputCount; ++i) {
            if (m_inTypes[i] != DType::Unknown) {
                m_needed[i] = m_inTypes[i];
            }
        }
        repairInputs(id, m_needed, mutableInputs);
    }
    const NodeId copy = appendCopy(id);
    if (inferred) {
        recordOutputsByType(id, copy, m_outTypes);
    }

    NodeDecision& d = m_report.nodes[id];
    d.precision = NodePrecision::Target;
    d.rule = DecisionRule::TargetList;
    d.dtype = m_in.target;
}

void ConversionPass::typedWidest(NodeId id) {
    const Node& n = sourceNode(id);
    if (n.inputs.empty()) {
        throw ConversionError("node '" + n.name + "' (" + n.op +
                              ") is a widest-type op without inputs; there is nothing to cast");
    }
    if (!m_registry.mutableInputs(n).empty()) {
        throw ConversionError("node '" + n.name + "' (" + n.op +
                              ") is a widest-type op with mutable inputs, which cannot be cast");
    }
    NodeDecision& d = m_report.nodes[id];
    d.precision = NodePrecision::Widest;
    d.rule = DecisionRule::WidestList;

    bool unknown = false;
    bool sawTarget = false;
    bool sawFloat32 = false;
    for (const NodeEntry& e : n.inputs) {
        if (m_fp32Map.find(e) != nullptr) {
            sawFloat32 = true;
        } else if (m_targetMap.find(e) != nullptr) {
            sawTarget = true;
        } else {
            unknown = true;
            break;
        }
    }

    if (unknown) {
        const Node& first = sourceNode(n.inputs.front().node);
        const bool allFromOneMulticast =
            first.op == "amp_multicast" &&
            std::all_of(n.inputs.begin(), n.inputs.end(),
                        [&](const NodeEntry& e) { return e.node == n.inputs.front().node; });
        if (allFromOneMulticast) {
            // Refinement for converting a converted graph: the inputs already went through one
            // amp_multicast, so another would change nothing. (MXNet 1.9.1 adds a second one.)
            d.detail = "inputs already come from one amp_multicast; kept as they are";
            for (const NodeEntry& e : n.inputs) {
                m_inputs.push_back(plainMirror(e));
            }
            appendCopy(id);
            return;
        }
        // An input of unknown dtype (a variable, or the output of an op whose dtype did not
        // propagate): only a run-time multicast can find the widest type.
        d.detail = "input dtypes not all known → amp_multicast";
        const NodeId multicast = addMulticast(id);
        for (uint32_t i = 0; i < n.inputs.size(); ++i) {
            m_inputs.push_back({multicast, i, 0});
        }
        appendCopy(id);
        return;
    }

    const DType out = sawFloat32 ? DType::F32 : m_in.target;
    EntryMap& map = sawFloat32 ? m_fp32Map : m_targetMap;
    for (const NodeEntry& e : n.inputs) {
        if (const NodeEntry* m = map.find(e)) {
            m_inputs.push_back(*m);
            if (sawFloat32) {
                notePlainRead(e, *m, id);
            }
        } else {
            m_inputs.push_back(addCast(e, out, map));
        }
    }
    if (m_in.repair) {
        m_needed.assign(n.inputs.size(), out);
        repairInputs(id, m_needed, {});
    }
    recordOutputs(id, appendCopy(id), map);

    d.dtype = out;
    d.detail = widestDetail(m_in.target, sawTarget, sawFloat32);
}

void ConversionPass::typedConditional(NodeId id, const ConditionalFp32Op& entry) {
    const Node& n = sourceNode(id);
    const std::vector<uint32_t> mutableInputs = m_registry.mutableInputs(n);
    // Only mutable inputs stay as they are: unlike the fp32 list, variables are cast too (MXNet 1.9.1).
    planFloat32Inputs(id, [&](uint32_t i, const NodeEntry&) { return contains(mutableInputs, i); });
    if (m_in.repair) {
        m_needed.assign(n.inputs.size(), DType::F32);
        repairInputs(id, m_needed, mutableInputs);
    }
    recordOutputs(id, appendCopy(id), m_fp32Map);

    NodeDecision& d = m_report.nodes[id];
    d.precision = NodePrecision::Float32;
    d.rule = DecisionRule::ConditionalFp32;
    d.dtype = DType::F32;
    d.detail = conditionalDetail(entry, n);
}

void ConversionPass::typedPassThrough(NodeId id, const OpClass& cls) {
    const Node& n = sourceNode(id);
    for (const NodeEntry& e : n.inputs) {
        m_inputs.push_back(plainMirror(e));
        notePlainRead(e, m_inputs.back(), id);
    }
    if (m_in.repair && !n.inputs.empty()) {
        // MXNet 1.9.1 decides the node's dtype from what it believes of input 0 (the maps: a cast of
        // it made for another reader counts), then wires input 0 as it is. Here the node reads what
        // its decision assumed; where nothing is believed, input 0's real dtype decides the others.
        const DType believed = m_targetMap.find(n.inputs[0]) != nullptr ? m_in.target
                               : m_fp32Map.find(n.inputs[0]) != nullptr ? DType::F32
                                                                        : actualDtype(m_inputs[0]);
        if (believed != DType::Unknown) {
            m_inTypes.assign(n.inputs.size(), DType::Unknown);
            m_outTypes.assign(n.numOutputs, DType::Unknown);
            m_inTypes[0] = believed;
            if (m_registry.typeInference(n, m_inTypes, m_outTypes) != TypeInference::Conflict) {
                repairInputs(id, m_inTypes, m_registry.mutableInputs(n));
            }
        }
    }
    const NodeId copy = appendCopy(id);

    NodeDecision& d = m_report.nodes[id];
    if (n.isVariable()) {
        d.precision = NodePrecision::Variable;
        d.rule = DecisionRule::Variable;
        return;
    }
    d.precision = NodePrecision::Unchanged;
    d.rule = cls.neutral ? DecisionRule::NeutralList : DecisionRule::NoList;
    if (n.inputs.empty()) {
        return;
    }
    // MXNet 1.9.1 propagates a known dtype of input 0 through the op's dtype inference. Refinement:
    // an amp_cast's output dtype is its attribute whatever its input, so it is inferred even when
    // input 0 is unknown; that makes converting a converted graph add nothing.
    const DType known = m_targetMap.find(n.inputs[0]) != nullptr ? m_in.target
                        : m_fp32Map.find(n.inputs[0]) != nullptr ? DType::F32
                                                                 : DType::Unknown;
    if (known == DType::Unknown && n.op == "amp_cast") {
        const std::string* dtype = n.attr("dtype");
        const auto t = dtype != nullptr ? dtypeFromName(*dtype) : std::nullopt;
        if (t && (*t == m_in.target || *t == DType::F32)) {
            recordOutputsByType(id, copy, {*t});
            d.dtype = *t;
        }
        return;
    }
    if (known == DType::Unknown) {
        return;
    }
    m_inTypes.assign(n.inputs.size(), DType::Unknown);
    m_outTypes.assign(n.numOutputs, DType::Unknown);
    m_inTypes[0] = known;
    if (m_registry.inferType(n, m_inTypes, m_outTypes)) {
        recordOutputsByType(id, copy, m_outTypes);
        if (!m_outTypes.empty() && (m_outTypes[0] == m_in.target || m_outTypes[0] == DType::F32)) {
            d.dtype = m_outTypes[0];
        }
    }
}

DType ConversionPass::actualDtype(const NodeEntry& planned) const {
    const PlannedNode& p = m_plan[planned.node];
    if (p.kind == PlannedKind::Copy) {
        return m_actualSource[m_in.rowPtr[p.source] + planned.index];
    }
    return p.dtype;
}

void ConversionPass::repairInputs(NodeId id, const std::vector<DType>& needed,
                                  const std::vector<uint32_t>& mutableInputs) {
    const Node& n = sourceNode(id);
    for (uint32_t i = 0; i < m_inputs.size(); ++i) {
        const DType need = needed[i];
        if ((need != DType::F32 && need != m_in.target) || contains(mutableInputs, i)) {
            continue;  // only float casts are inserted, and a mutable input cannot be cast
        }
        const DType has = actualDtype(m_inputs[i]);
        if (has == DType::Unknown || has == need) {
            continue;  // the dtype check infers it from this reader, as MXNet's does
        }
        const NodeEntry& e = n.inputs[i];
        const NodeEntry fixed = mappedOrCast(e, need, need == DType::F32 ? m_fp32Map : m_targetMap);
        if (actualDtype(fixed) != need) {
            continue;  // a map entry that is itself wrong; the dtype check names the node
        }
        MxnetDifference& d = m_report.mxnetDifferences.emplace_back();
        d.node = n.name;
        d.input = i;
        appendCastName(e, "", d.source);
        d.sourceDtype = has;
        d.neededDtype = need;
        appendCastName(e, "_amp_cast_" + std::string(dtypeName(need)), d.cast);
        m_inputs[i] = fixed;
    }
}

void ConversionPass::noteActualOutputs(NodeId id) {
    const Node& n = sourceNode(id);
    DType* outputs = m_actualSource.data() + m_in.rowPtr[id];
    if (n.isVariable()) {
        // As the graph is bound: parameters stored in the target dtype so, everything else (data
        // and the .params) float32.
        const bool stored = m_in.storedInTarget != nullptr && m_in.storedInTarget->count(n.name) != 0 &&
                            m_paramsAsData.count(n.name) == 0;
        outputs[0] = stored ? m_in.target : DType::F32;
        return;
    }
    std::vector<DType> in;
    in.reserve(m_inputs.size());
    for (const NodeEntry& e : m_inputs) {
        in.push_back(actualDtype(e));
    }
    std::vector<DType> out(n.numOutputs, DType::Unknown);
    if (m_registry.typeInference(n, in, out, false) != TypeInference::Conflict) {
        std::copy(out.begin(), out.end(), outputs);
    }
}

}  // namespace ampstudio::amp_detail
