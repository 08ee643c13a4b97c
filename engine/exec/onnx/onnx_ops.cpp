#include "exec/onnx/onnx_ops.h"

#include <algorithm>
#include <unordered_map>

namespace ampstudio {

const HostTensor& OnnxKernelContext::input(std::size_t i) const {
    if (!hasInput(i)) fail("input " + std::to_string(i) + " is missing");
    return *inputs[i];
}

void OnnxKernelContext::setOutput(std::size_t i, HostTensor value) {
    if (i >= outputs.size()) return;  // an optional output the node does not name
    outputs[i] = std::move(value);
}

const OnnxAttribute& OnnxKernelContext::attr(std::string_view key) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a) fail("attribute '" + std::string(key) + "' is missing");
    return *a;
}

int64_t OnnxKernelContext::intAttr(std::string_view key, int64_t fallback) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a) return fallback;
    if (a->kind != OnnxAttribute::Kind::Int) fail("attribute '" + std::string(key) + "' is not an int");
    return a->i;
}

float OnnxKernelContext::floatAttr(std::string_view key, float fallback) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a) return fallback;
    if (a->kind == OnnxAttribute::Kind::Int) return static_cast<float>(a->i);
    if (a->kind != OnnxAttribute::Kind::Float) fail("attribute '" + std::string(key) + "' is not a float");
    return a->f;
}

std::string OnnxKernelContext::stringAttr(std::string_view key, std::string fallback) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a) return fallback;
    if (a->kind != OnnxAttribute::Kind::String) fail("attribute '" + std::string(key) + "' is not a string");
    return a->s;
}

std::vector<int64_t> OnnxKernelContext::intsAttr(std::string_view key, std::vector<int64_t> fallback) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a) return fallback;
    if (a->kind == OnnxAttribute::Kind::Ints) return a->ints;
    if (a->kind == OnnxAttribute::Kind::Int) return {a->i};
    if (a->kind == OnnxAttribute::Kind::Other) return {};  // an empty list is stored without a type
    fail("attribute '" + std::string(key) + "' is not a list of ints");
}

std::vector<float> OnnxKernelContext::floatsAttr(std::string_view key) const {
    const OnnxAttribute* a = node.attribute(key);
    if (!a || a->kind == OnnxAttribute::Kind::Other) return {};
    if (a->kind != OnnxAttribute::Kind::Floats) fail("attribute '" + std::string(key) + "' is not a list of floats");
    return a->floats;
}

void OnnxKernelContext::fail(const std::string& reason) const {
    throw OnnxRunError("node '" + node.name + "' (" + node.op + "): " + reason);
}

void OnnxKernelContext::unsupported(const std::string& what) const {
    throw OnnxUnsupported("node '" + node.name + "' (" + node.op + "): " + what + " is not supported");
}

int64_t OnnxKernelContext::axis(int64_t value, int64_t rank, std::string_view what) const {
    if (value < -rank || value >= rank) {  // (no axis of a scalar)
        fail(std::string(what) + " " + std::to_string(value) + " is outside a rank-" + std::to_string(rank) + " tensor");
    }
    return value < 0 ? value + rank : value;
}

Dims broadcastDims(const OnnxKernelContext& ctx, const Dims& a, const Dims& b) {
    const std::size_t rank = std::max(a.size(), b.size());
    Dims out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (x != y && x != 1 && y != 1) {
            ctx.fail("shapes " + dimsString(a) + " and " + dimsString(b) + " do not broadcast");
        }
        out[i] = x == 1 ? y : x;
    }
    return out;
}

std::vector<int64_t> stridesOf(const Dims& dims) {
    std::vector<int64_t> strides(dims.size());
    int64_t s = 1;
    for (std::size_t i = dims.size(); i-- > 0;) {
        strides[i] = s;
        s *= dims[i];
    }
    return strides;
}

std::vector<int64_t> broadcastStrides(const Dims& dims, const Dims& out) {
    std::vector<int64_t> strides(out.size(), 0);
    const std::vector<int64_t> own = stridesOf(dims);
    const std::size_t offset = out.size() - dims.size();
    for (std::size_t i = 0; i < dims.size(); ++i) {
        strides[offset + i] = dims[i] == 1 ? 0 : own[i];
    }
    return strides;
}

namespace {

std::unordered_map<std::string, OnnxOpDef> makeTable() {
    OnnxOpTable table;
    addOnnxElementwiseOps(table);
    addOnnxShapeOps(table);
    addOnnxReduceOps(table);
    addOnnxNnOps(table);
    addOnnxControlFlowOps(table);
    addOnnxRecurrentOps(table);
    addOnnxResizeOps(table);
    addOnnxIndexOps(table);
    std::unordered_map<std::string, OnnxOpDef> byName;
    for (auto& [name, def] : table) byName.emplace(name, def);
    return byName;
}

const std::unordered_map<std::string, OnnxOpDef>& table() {
    static const std::unordered_map<std::string, OnnxOpDef> t = makeTable();
    return t;
}

}  // namespace

const OnnxOpDef* findOnnxOp(std::string_view op) {
    const auto it = table().find(std::string(op));
    return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> onnxSupportedOps() {
    std::vector<std::string> names;
    for (const auto& [name, def] : table()) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace ampstudio
