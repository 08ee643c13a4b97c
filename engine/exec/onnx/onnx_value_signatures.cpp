#include "exec/onnx/onnx_value_signatures.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "exec/signature_hash.h"

namespace ampstudio {
namespace {

using signature::add;

// A tensor attribute up to this size is hashed byte for byte; a larger one by its ends (see the header).
constexpr std::size_t kWholeTensorBytes = 4096;

void addTensor(uint64_t& h, const HostTensor& t) {
    add(h, uint64_t(t.defined() ? static_cast<int>(t.dtype()) + 1 : 0));
    add(h, uint64_t(t.dims().size()));
    for (int64_t d : t.dims()) add(h, uint64_t(d));
    if (!t.defined()) return;
    const std::span<const std::byte> bytes(t.raw(), t.bytes());
    if (bytes.size() <= kWholeTensorBytes) {
        add(h, bytes);
    } else {
        add(h, bytes.first(kWholeTensorBytes / 2));
        add(h, bytes.last(kWholeTensorBytes / 2));
    }
}

void addGraph(uint64_t& h, const OnnxGraphProgram& g);

void addAttribute(uint64_t& h, const OnnxAttribute& a) {
    add(h, uint64_t(a.kind));
    add(h, uint64_t(a.i));
    uint32_t bits = 0;
    std::memcpy(&bits, &a.f, sizeof bits);
    add(h, uint64_t(bits));
    add(h, a.s);
    add(h, uint64_t(a.ints.size()));
    for (int64_t v : a.ints) add(h, uint64_t(v));
    add(h, std::as_bytes(std::span(a.floats)));
    add(h, uint64_t(a.strings.size()));
    for (const std::string& s : a.strings) add(h, s);
    addTensor(h, a.tensor);
    if (a.graph) addGraph(h, *a.graph);
}

void addValueInfo(uint64_t& h, const OnnxValueInfo& v) {
    add(h, v.name);
    add(h, uint64_t(v.dtype ? static_cast<int>(*v.dtype) + 1 : 0));
}

// A nested graph whole: what it computes depends on nothing else but the outer values it reads,
// whose signatures its node adds.
void addGraph(uint64_t& h, const OnnxGraphProgram& g) {
    add(h, g.name);
    for (const OnnxValueInfo& v : g.inputs) addValueInfo(h, v);
    for (const OnnxValueInfo& v : g.outputs) addValueInfo(h, v);
    for (const auto& [name, t] : g.initializers) {
        add(h, name);
        addTensor(h, t);
    }
    for (const OnnxProgramNode& n : g.nodes) {
        add(h, n.op);
        add(h, n.name);
        for (const std::string& in : n.inputs) add(h, in);
        add(h, uint64_t(n.outputs.size()));
        for (const std::string& out : n.outputs) add(h, out);
        for (const auto& [key, a] : n.attributes) {
            add(h, key);
            addAttribute(h, a);
        }
    }
}

// The names a nested graph reads from outside it, sorted (so the hash does not depend on a set's order).
void outerNames(const OnnxGraphProgram& g, std::vector<std::string>& out) {
    std::vector<std::string> defined;
    for (const auto& v : g.inputs) defined.push_back(v.name);
    for (const auto& [name, t] : g.initializers) defined.push_back(name);
    for (const OnnxProgramNode& n : g.nodes) {
        for (const std::string& in : n.inputs) {
            if (!in.empty() && std::find(defined.begin(), defined.end(), in) == defined.end()) out.push_back(in);
        }
        for (const auto& [key, a] : n.attributes) {
            if (!a.graph) continue;
            std::vector<std::string> inner;
            outerNames(*a.graph, inner);
            for (const std::string& name : inner) {
                if (std::find(defined.begin(), defined.end(), name) == defined.end()) out.push_back(name);
            }
        }
        defined.insert(defined.end(), n.outputs.begin(), n.outputs.end());
    }
}

}  // namespace

OnnxSignatures onnxValueSignatures(const OnnxProgram& program) {
    const OnnxGraphProgram& g = program.graph;
    OnnxSignatures sig;
    for (const OnnxValueInfo& v : g.inputs) {
        uint64_t h = 0;
        add(h, std::string_view("input"));
        addValueInfo(h, v);
        sig[v.name] = h;
    }
    for (const auto& [name, t] : g.initializers) {  // an initializer overrides an input's default
        uint64_t h = 0;
        add(h, std::string_view("initializer"));
        add(h, name);
        add(h, uint64_t(static_cast<int>(t.dtype()) + 1));
        for (int64_t d : t.dims()) add(h, uint64_t(d));
        sig[name] = h;
    }
    const auto signatureOf = [&](const std::string& name) -> uint64_t {
        if (name.empty()) return 1;  // an omitted optional input
        const auto it = sig.find(name);
        if (it != sig.end()) return it->second;
        uint64_t h = 0;  // undefined (the run fails there): by name, distinct from every value
        add(h, std::string_view("undefined"));
        add(h, name);
        return h;
    };
    for (const OnnxProgramNode& n : g.nodes) {
        uint64_t h = 0;
        add(h, n.op);
        add(h, n.name);
        add(h, uint64_t(n.inputs.size()));
        for (const std::string& in : n.inputs) add(h, signatureOf(in));
        for (const auto& [key, a] : n.attributes) {
            add(h, key);
            addAttribute(h, a);
            if (a.graph) {
                std::vector<std::string> outer;
                outerNames(*a.graph, outer);
                std::sort(outer.begin(), outer.end());
                outer.erase(std::unique(outer.begin(), outer.end()), outer.end());
                for (const std::string& name : outer) {
                    add(h, name);
                    add(h, signatureOf(name));
                }
            }
        }
        for (std::size_t i = 0; i < n.outputs.size(); ++i) {
            if (n.outputs[i].empty()) continue;
            uint64_t e = h;
            add(e, uint64_t(i));
            sig[n.outputs[i]] = e;
        }
    }
    return sig;
}

void OnnxReusableValues::add(const OnnxSignatures& signatures, const std::unordered_map<std::string, HostTensor>& values) {
    for (const auto& [name, value] : values) {
        const auto it = signatures.find(name);
        if (it != signatures.end() && value.defined()) m_values.try_emplace(it->second, value);
    }
}

const HostTensor* OnnxReusableValues::find(uint64_t signature) const {
    const auto it = m_values.find(signature);
    return it == m_values.end() ? nullptr : &it->second;
}

}  // namespace ampstudio
