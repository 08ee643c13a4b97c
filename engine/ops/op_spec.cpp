#include "ops/op_spec.h"

#include <algorithm>

#include "ops/mxnet_op_facts.h"

namespace ampstudio {

void OpSpecTable::add(OpSpec spec) {
    std::string name = spec.name;
    m_specs.insert_or_assign(std::move(name), std::move(spec));
}

const OpSpec* OpSpecTable::find(std::string_view op) const {
    if (auto it = m_specs.find(std::string(op)); it != m_specs.end()) {
        return &it->second;
    }
    const std::string_view canonical = MxnetOpFacts::instance().canonicalName(op);
    if (auto it = m_specs.find(std::string(canonical)); it != m_specs.end()) {
        return &it->second;
    }
    return nullptr;
}

std::vector<std::string> OpSpecTable::names() const {
    std::vector<std::string> out;
    out.reserve(m_specs.size());
    for (const auto& [name, spec] : m_specs) {
        out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

const OpSpecTable& opSpecs() {
    static const OpSpecTable table = [] {
        OpSpecTable t;
        addDenseOpSpecs(t);
        addNnOpSpecs(t);
        addElemwiseOpSpecs(t);
        addShapeOpSpecs(t);
        addLossOpSpecs(t);
        addCastOpSpecs(t);
        return t;
    }();
    return table;
}

void assignShape(const OpAttrs& attrs, Shape& slot, const Shape& shape, std::string_view what) {
    if (shape.empty()) {
        return;
    }
    if (slot.empty()) {
        slot = shape;
        return;
    }
    if (slot != shape) {
        attrs.fail(std::string(what) + " has shape " + shapeString(slot) + ", expected " + shapeString(shape));
    }
}

}  // namespace ampstudio
