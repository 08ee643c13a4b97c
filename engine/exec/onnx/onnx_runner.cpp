#include "exec/onnx/onnx_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>

#include "tensor/float_convert.h"

namespace ampstudio {
namespace {

void collectOps(const OnnxGraphProgram& graph, std::set<std::string>& missing) {
    for (const OnnxProgramNode& node : graph.nodes) {
        if (!findOnnxOp(node.op)) missing.insert(node.op);
        for (const auto& [key, a] : node.attributes) {
            if (a.graph) collectOps(*a.graph, missing);
        }
    }
}

// The names a graph reads that it does not define (what a body captures from outside).
void outerReads(const OnnxGraphProgram& graph, std::unordered_set<std::string>& out) {
    std::unordered_set<std::string> defined;
    for (const auto& v : graph.inputs) defined.insert(v.name);
    for (const auto& [name, t] : graph.initializers) defined.insert(name);
    std::unordered_set<std::string> used;
    for (const OnnxProgramNode& node : graph.nodes) {
        for (const std::string& in : node.inputs) {
            if (!in.empty() && !defined.contains(in)) used.insert(in);
        }
        for (const auto& [key, a] : node.attributes) {
            if (a.graph) {
                std::unordered_set<std::string> inner;
                outerReads(*a.graph, inner);
                for (const std::string& name : inner) {
                    if (!defined.contains(name)) used.insert(name);
                }
            }
        }
        for (const std::string& o : node.outputs) defined.insert(o);
    }
    for (const auto& v : graph.outputs) {
        if (!defined.contains(v.name)) used.insert(v.name);
    }
    out.insert(used.begin(), used.end());
}

struct Scope {
    std::unordered_map<std::string, HostTensor> values;
    // Values a Conv left in oneDNN's layout for the Convs that read them (the main graph's, when the
    // run keeps no values): their HostTensor in `values` carries the dims only.
    std::unordered_map<std::string, std::shared_ptr<const OnnxBlockedValue>> blocked;
    const Scope* parent = nullptr;

    const HostTensor* find(const std::string& name) const {
        for (const Scope* s = this; s; s = s->parent) {
            if (const auto it = s->values.find(name); it != s->values.end()) return &it->second;
        }
        return nullptr;
    }
};

HostTensor toFloat32(const HostTensor& t) {
    HostTensor out = HostTensor::uninitialized(DType::F32, t.dims());
    float* dst = out.mutableData<float>();
    const auto n = static_cast<std::size_t>(t.size());
    if (t.dtype() == DType::F16) {
        halfToFloats({t.data<uint16_t>(), n}, {dst, n});
    } else if (t.dtype() == DType::BF16) {
        bfloat16ToFloats({t.data<uint16_t>(), n}, {dst, n});
    } else {
        const double* src = t.data<double>();
        for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
    }
    return out;
}

HostTensor fromFloat32(const HostTensor& t, DType dtype) {
    HostTensor out = HostTensor::uninitialized(dtype, t.dims());
    const auto n = static_cast<std::size_t>(t.size());
    const float* src = t.data<float>();
    if (dtype == DType::F16) {
        floatsToHalf({src, n}, {out.mutableData<uint16_t>(), n});
    } else if (dtype == DType::BF16) {
        floatsToBfloat16({src, n}, {out.mutableData<uint16_t>(), n});
    } else {
        double* dst = out.mutableData<double>();
        for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    }
    return out;
}

bool widened(DType t, const OnnxOpDef& def) {
    return def.computesInFloat32 && (t == DType::F16 || t == DType::BF16 || (t == DType::F64 && def.float64InFloat32));
}

// AMS_ONNX_PROFILE=1: the milliseconds each op type took, summed, on stderr when the process ends
// (a developer's view of where a model's time goes; the benchmarks' figures never have it on).
bool profile() {
    static const bool on = std::getenv("AMS_ONNX_PROFILE") != nullptr;
    return on;
}

void profileAdd(const std::string& op, double ms) {
    struct Table {
        std::mutex mutex;
        std::map<std::string, std::pair<double, int>> byOp;
        ~Table() {
            std::vector<std::pair<std::string, std::pair<double, int>>> rows(byOp.begin(), byOp.end());
            std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
            for (const auto& [name, v] : rows) std::fprintf(stderr, "onnx profile: %-24s %6d calls %10.2f ms\n", name.c_str(), v.second, v.first);
        }
    };
    static Table table;
    const std::lock_guard lock(table.mutex);
    auto& entry = table.byOp[op];
    entry.first += ms;
    ++entry.second;
}

class Run {
public:
    explicit Run(const OnnxProgram& program) : m_program(program) {}

    // Runs `graph`'s nodes in `scope` (its inputs and initializers already there).
    // `reuse` with `signatures` (the main graph's only): a node whose outputs are all there is not run.
    // `plan` (the main graph's, for a run that keeps no values): fusions and layouts per node.
    void nodes(const OnnxGraphProgram& graph, Scope& scope, const std::vector<std::vector<std::string>>* lastUses,
               bool keep, const OnnxReusableValues* reuse = nullptr, const OnnxSignatures* signatures = nullptr,
               OnnxRunResult* counts = nullptr, const std::vector<OnnxNodePlan>* plan = nullptr) const {
        std::vector<char> ranInside;  // residual Adds (and their Relus) a Conv ran this time
        if (plan) ranInside.assign(graph.nodes.size(), 0);
        for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
            const OnnxNodePlan* p = plan ? &(*plan)[k] : nullptr;
            if (p && (p->skip || ranInside[k])) {
                // a Relu or an Add that runs inside the Conv before it
            } else if (reuse && reused(graph.nodes[k], scope, *reuse, *signatures)) {
                if (counts) ++counts->nodesReused;
            } else {
                if (node(graph.nodes[k], scope, p)) {
                    ranInside[p->residualAdd] = 1;
                    if (p->residualRelu != OnnxNodePlan::kNone) ranInside[p->residualRelu] = 1;
                }
                if (counts) ++counts->nodesRun;
            }
            if (lastUses && !keep) {
                for (const std::string& name : (*lastUses)[k]) {
                    scope.values.erase(name);
                    scope.blocked.erase(name);
                }
            }
        }
    }

    std::vector<HostTensor> graph(const OnnxGraphProgram& body, std::vector<HostTensor> arguments, const Scope& outer) const {
        Scope scope;
        scope.parent = &outer;
        for (const auto& [name, t] : body.initializers) scope.values.emplace(name, t);
        if (arguments.size() > body.inputs.size()) {
            throw OnnxRunError("subgraph '" + body.name + "' takes " + std::to_string(body.inputs.size()) +
                               " inputs, given " + std::to_string(arguments.size()));
        }
        for (std::size_t i = 0; i < arguments.size(); ++i) scope.values[body.inputs[i].name] = std::move(arguments[i]);
        nodes(body, scope, nullptr, true);
        std::vector<HostTensor> out;
        for (const auto& v : body.outputs) {
            const HostTensor* t = scope.find(v.name);
            if (!t) throw OnnxRunError("subgraph '" + body.name + "': output '" + v.name + "' was not computed");
            out.push_back(*t);
        }
        return out;
    }

    static bool reused(const OnnxProgramNode& n, Scope& scope, const OnnxReusableValues& reuse, const OnnxSignatures& signatures) {
        std::vector<const HostTensor*> found;
        for (const std::string& out : n.outputs) {
            if (out.empty()) continue;
            const auto sig = signatures.find(out);
            const HostTensor* value = sig == signatures.end() ? nullptr : reuse.find(sig->second);
            if (!value) return false;
            found.push_back(value);
        }
        if (found.empty()) return false;
        std::size_t i = 0;
        for (const std::string& out : n.outputs) {
            if (!out.empty()) scope.values[out] = *found[i++];
        }
        return true;
    }

    // Returns whether the node (a Conv) ran its plan's residual Add.
    bool node(const OnnxProgramNode& n, Scope& scope, const OnnxNodePlan* plan = nullptr) const {
        const OnnxOpDef* def = findOnnxOp(n.op);
        const auto domainEnd = n.op.rfind('.');
        const std::string domain = domainEnd == std::string::npos ? std::string() : n.op.substr(0, domainEnd);
        const auto set = m_program.opsets.find(domain);
        OnnxKernelContext ctx(n, set == m_program.opsets.end() ? m_program.opset : set->second);
        std::vector<HostTensor> widenedInputs;
        widenedInputs.reserve(n.inputs.size());
        DType low = DType::F32;
        for (const std::string& name : n.inputs) {
            if (name.empty()) {
                ctx.inputs.push_back(nullptr);
                continue;
            }
            const HostTensor* t = scope.find(name);
            if (!t) ctx.fail("input '" + name + "' has no value");
            if (!t->defined()) ctx.unsupported("input '" + name + "' of a dtype without values here (a string tensor)");
            if (widened(t->dtype(), *def)) {
                if (low == DType::F32) low = t->dtype();
                widenedInputs.push_back(toFloat32(*t));
                ctx.inputs.push_back(&widenedInputs.back());
            } else {
                ctx.inputs.push_back(t);
            }
        }
        bool blockedIn = false;
        if (!scope.blocked.empty()) {
            for (std::size_t i = 0; i < n.inputs.size(); ++i) {
                const auto it = n.inputs[i].empty() ? scope.blocked.end() : scope.blocked.find(n.inputs[i]);
                if (it == scope.blocked.end()) continue;
                // A Conv takes its data as it lies; any other input in a blocked layout is written
                // plain first, once (Relu and Add below try the layout first).
                if (!((n.op == "Conv" || n.op == "MaxPool") && i == 0) && n.op != "Relu" && n.op != "Add") {
                    materializeBlocked(*it->second, scope.values.at(n.inputs[i]));
                    scope.blocked.erase(it);
                    continue;
                }
                ctx.blockedInputs.resize(n.inputs.size());
                ctx.blockedInputs[i] = it->second;
                blockedIn = true;
            }
        }
        if (plan) {
            ctx.fusedRelu = plan->fusedRelu;
            ctx.outputMayStayBlocked = plan->outputMayStayBlocked;
            if (plan->residualAdd != OnnxNodePlan::kNone && n.op == "Conv") {
                ctx.residual = scope.find(plan->residual);
                if (const auto it = scope.blocked.find(plan->residual); it != scope.blocked.end()) ctx.residualBlocked = it->second;
                ctx.residualMayBeOverwritten = plan->residualMayBeOverwritten;
                ctx.reluAfterResidual = plan->residualRelu != OnnxNodePlan::kNone;
                ctx.residualOutputMayStayBlocked = plan->residualOutputMayStayBlocked;
            }
        }
        ctx.outputs.resize(n.outputs.size());
        ctx.storeAs.assign(n.outputs.size(), low);
        if (blockedIn && n.op != "Conv" && !(n.op == "MaxPool" ? runBlockedMaxPool(ctx) : runBlockedElementwise(ctx))) {
            for (std::size_t i = 0; i < ctx.blockedInputs.size(); ++i) {  // not element for element: plain
                if (!ctx.blockedInputs[i]) continue;
                materializeBlocked(*ctx.blockedInputs[i], scope.values.at(n.inputs[i]));
                scope.blocked.erase(n.inputs[i]);
            }
            ctx.blockedInputs.clear();
            blockedIn = false;
        }
        const bool done = blockedIn && n.op != "Conv";  // runBlockedElementwise / runBlockedMaxPool made the output
        ctx.runGraph = [this, &scope](const OnnxGraphProgram& body, std::vector<HostTensor> arguments) {
            return graph(body, std::move(arguments), scope);
        };
        try {
            if (done) {
                // Relu / Add ran on the blocked values above
            } else if (profile()) {
                const auto start = std::chrono::steady_clock::now();
                def->run(ctx);
                profileAdd(n.op, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            } else {
                def->run(ctx);
            }
        } catch (const OnnxRunError&) {
            throw;
        } catch (const std::bad_alloc&) {
            ctx.fail("out of memory");
        } catch (const std::exception& e) {  // a tensor too large, dims that overflow int64 ...
            ctx.fail(e.what());
        }
        for (std::size_t i = 0; i < n.outputs.size(); ++i) {
            if (n.outputs[i].empty()) continue;
            HostTensor& out = ctx.outputs[i];
            if (!out.defined()) ctx.fail("output " + std::to_string(i) + " was not computed");
            const std::string& name = i == 0 && ctx.residualAdded                 ? plan->residualOutput
                                      : i == 0 && plan && !plan->output0.empty() ? plan->output0
                                                                                 : n.outputs[i];
            if (i == 0 && ctx.blockedOutput) {
                scope.blocked[name] = ctx.blockedOutput;  // (a float32 output: nothing to round)
            } else if (def->computesInFloat32 && out.dtype() == DType::F32 && ctx.storeAs[i] != DType::F32) {
                out = fromFloat32(out, ctx.storeAs[i]);
            }
            scope.values[name] = std::move(out);
        }
        return ctx.residualAdded;
    }

private:
    const OnnxProgram& m_program;
};

// Who reads each value of the main graph: (node, input position) pairs; a nested graph's capture and
// a graph output count as readers that need the value as stored.
struct Readers {
    std::vector<std::pair<std::size_t, std::size_t>> nodes;
    bool elsewhere = false;
};

// Whether a floating-point tensor holds an inf or a NaN (the exponent bits all set): one pass,
// no branch per element.
bool holdsNonFinite(const HostTensor& t) {
    if (!t.defined()) return false;  // (a tensor of a dtype without values here: a string tensor)
    const auto n = static_cast<std::size_t>(t.size());
    const auto any = [n](const auto* bits, auto mask) {
        using Bits = decltype(mask);
        Bits found = 0;  // (an integer, not a bool, so the loop vectorises)
        for (std::size_t i = 0; i < n; ++i) found |= static_cast<Bits>(((bits[i] & mask) == mask) ? 1 : 0);
        return found != 0;
    };
    switch (t.dtype()) {
    case DType::F32: return any(t.data<uint32_t>(), uint32_t{0x7f800000u});
    case DType::F64: return any(t.data<uint64_t>(), uint64_t{0x7ff0000000000000ull});
    case DType::F16: return any(t.data<uint16_t>(), uint16_t{0x7c00u});
    case DType::BF16: return any(t.data<uint16_t>(), uint16_t{0x7f80u});
    default: return false;
    }
}

}  // namespace

// Fusions and layouts for a run that keeps no values. A Conv whose output only a Relu reads runs
// that Relu as its post-op (the Relu exact either way, so the values are the same); a Conv's (or
// that Relu's) output that only Convs read, as their data input, stays in the layout oneDNN chose
// for it, so no reorder to the plain layout and back sits between two convolutions (ResNet's
// bottlenecks: two of each block's three). Everything else is stored plain, as before.
std::vector<OnnxNodePlan> planLayouts(const OnnxGraphProgram& g) {
    std::unordered_map<std::string, Readers> readers;
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        for (std::size_t i = 0; i < g.nodes[k].inputs.size(); ++i) {
            if (!g.nodes[k].inputs[i].empty()) readers[g.nodes[k].inputs[i]].nodes.emplace_back(k, i);
        }
        for (const auto& [key, a] : g.nodes[k].attributes) {
            if (!a.graph) continue;
            std::unordered_set<std::string> captured;
            outerReads(*a.graph, captured);
            for (const std::string& name : captured) readers[name].elsewhere = true;
        }
    }
    for (const auto& v : g.outputs) readers[v.name].elsewhere = true;
    std::vector<OnnxNodePlan> plan(g.nodes.size());
    // Every reader takes a blocked layout: a Conv's or a MaxPool's data input, Relu, either input of Add.
    const auto takesLayout = [&](const Readers& r) {
        return !r.nodes.empty() && std::all_of(r.nodes.begin(), r.nodes.end(), [&](const auto& e) {
            const std::string& op = g.nodes[e.first].op;
            return ((op == "Conv" || op == "MaxPool") && e.second == 0) || op == "Relu" || op == "Add";
        });
    };
    const auto readBy = [&](const std::string& name) -> const Readers* {
        const auto it = readers.find(name);
        return it == readers.end() ? nullptr : &it->second;
    };
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        const OnnxProgramNode& conv = g.nodes[k];
        if (conv.op != "Conv" || conv.outputs.empty() || conv.outputs[0].empty()) continue;
        std::string out = conv.outputs[0];
        const Readers* r = readBy(out);
        if (!r || r->elsewhere) continue;
        if (r->nodes.size() == 1) {
            const auto [reader, position] = r->nodes[0];
            const OnnxProgramNode& relu = g.nodes[reader];
            if (relu.op == "Relu" && position == 0 && relu.outputs.size() == 1 && !relu.outputs[0].empty()) {
                plan[k].fusedRelu = true;
                plan[k].output0 = relu.outputs[0];
                plan[reader].skip = true;
                out = relu.outputs[0];
                r = readBy(out);
                if (!r || r->elsewhere) continue;
            }
        }
        plan[k].outputMayStayBlocked = takesLayout(*r);
    }
    // Residual Adds (ResNet's F(x) + x): into the later of the Convs among the Add's operands whose
    // output only the Add reads, the other operand defined before that Conv; a Relu that alone reads
    // the sum goes with it.
    std::unordered_map<std::string, std::size_t> producer;
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        for (const std::string& out : g.nodes[k].outputs) {
            if (!out.empty()) producer[out] = k;
        }
    }
    for (std::size_t a = 0; a < g.nodes.size(); ++a) {
        const OnnxProgramNode& add = g.nodes[a];
        if (add.op != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1 || add.outputs[0].empty() ||
            add.inputs[0].empty() || add.inputs[1].empty() || add.inputs[0] == add.inputs[1]) {
            continue;
        }
        std::size_t conv = OnnxNodePlan::kNone, operand = 0;
        for (std::size_t p = 0; p < 2; ++p) {
            const auto made = producer.find(add.inputs[p]);
            if (made == producer.end()) continue;
            const std::size_t k = made->second;
            const OnnxProgramNode& c = g.nodes[k];
            const Readers* r = readBy(add.inputs[p]);
            if (c.op != "Conv" || c.outputs[0] != add.inputs[p] || plan[k].fusedRelu || plan[k].residualAdd != OnnxNodePlan::kNone ||
                !r || r->elsewhere || r->nodes.size() != 1) {
                continue;
            }
            const auto other = producer.find(add.inputs[1 - p]);
            if (other != producer.end() && other->second > k) continue;  // not there yet when the Conv runs
            if (conv == OnnxNodePlan::kNone || k > conv) conv = k, operand = p;
        }
        if (conv == OnnxNodePlan::kNone) continue;
        OnnxNodePlan& c = plan[conv];
        c.residual = add.inputs[1 - operand];
        c.residualAdd = a;
        c.residualOutput = add.outputs[0];
        if (const Readers* r = readBy(add.outputs[0]); r && !r->elsewhere && r->nodes.size() == 1) {
            const auto [reader, position] = r->nodes[0];
            const OnnxProgramNode& relu = g.nodes[reader];
            if (relu.op == "Relu" && position == 0 && relu.outputs.size() == 1 && !relu.outputs[0].empty()) {
                c.residualRelu = reader;
                c.residualOutput = relu.outputs[0];
            }
        }
        // The residual's buffer may take the sum when a node made it and nothing reads it after the
        // Conv but the Add (ResNet's block input, read before by the block's first Conv).
        const Readers* rr = readBy(c.residual);
        const std::vector<std::string>& convInputs = g.nodes[conv].inputs;
        c.residualMayBeOverwritten =
            producer.contains(c.residual) && rr && !rr->elsewhere &&
            std::find(convInputs.begin(), convInputs.end(), c.residual) == convInputs.end() &&
            std::all_of(rr->nodes.begin(), rr->nodes.end(), [&](const auto& e) { return e.first < conv || e.first == a; });
        const Readers* out = readBy(c.residualOutput);
        c.residualOutputMayStayBlocked = out && !out->elsewhere && takesLayout(*out);
    }
    // Relu, Add and MaxPool pass a blocked layout on (when their inputs arrive so at run time).
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        const OnnxProgramNode& n = g.nodes[k];
        if ((n.op != "Relu" && n.op != "Add" && n.op != "MaxPool") || plan[k].skip || n.outputs.empty() || n.outputs[0].empty()) continue;
        const Readers* r = readBy(n.outputs[0]);
        plan[k].outputMayStayBlocked = r && !r->elsewhere && takesLayout(*r);
    }
    return plan;
}

std::vector<std::string> unsupportedOnnxOps(const OnnxProgram& program) {
    std::set<std::string> missing;
    collectOps(program.graph, missing);
    return {missing.begin(), missing.end()};
}

OnnxRunner::OnnxRunner(std::shared_ptr<const OnnxProgram> program) : m_program(std::move(program)) {
    const std::vector<std::string> missing = unsupportedOnnxOps(*m_program);
    if (!missing.empty()) {
        std::string list;
        for (const std::string& op : missing) list += (list.empty() ? "" : ", ") + op;
        throw OnnxUnsupported("the model uses operator(s) the engine cannot run: " + list);
    }
    // The last node reading each value; graph outputs are never freed.
    const OnnxGraphProgram& g = m_program->graph;
    std::unordered_map<std::string, std::size_t> last;
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        for (const std::string& in : g.nodes[k].inputs) {
            if (!in.empty()) last[in] = k;
        }
        for (const auto& [key, a] : g.nodes[k].attributes) {
            if (!a.graph) continue;
            std::unordered_set<std::string> captured;
            outerReads(*a.graph, captured);
            for (const std::string& name : captured) last[name] = k;
        }
    }
    for (const auto& v : g.outputs) last.erase(v.name);
    m_lastUses.resize(g.nodes.size());
    for (const auto& [name, k] : last) m_lastUses[k].push_back(name);
    m_plan = planLayouts(g);
}

const OnnxSignatures& OnnxRunner::signatures() const {
    std::call_once(m_signaturesOnce, [this] { m_signatures = onnxValueSignatures(*m_program); });
    return m_signatures;
}

OnnxRunResult OnnxRunner::run(const std::map<std::string, HostTensor>& inputs, bool keepValues,
                              const OnnxReusableValues* reuse) const {
    const OnnxGraphProgram& g = m_program->graph;
    Scope scope;
    for (const auto& [name, t] : g.initializers) scope.values.emplace(name, t);
    for (const OnnxValueInfo* info : m_program->requiredInputs()) {
        if (!inputs.contains(info->name)) throw OnnxRunError("input '" + info->name + "' is not given");
    }
    for (const auto& [name, t] : inputs) {
        const std::string& given = name;  // (clang 14 cannot capture a structured binding)
        const auto info = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const OnnxValueInfo& v) { return v.name == given; });
        if (info == g.inputs.end()) throw OnnxRunError("the model has no input '" + name + "'");
        if (info->dtype && *info->dtype != t.dtype()) {
            throw OnnxRunError("input '" + name + "' is " + std::string(dtypeName(*info->dtype)) + ", given " +
                               std::string(dtypeName(t.dtype())));
        }
        if (info->dims) {
            bool fits = info->dims->size() == t.dims().size();
            for (std::size_t d = 0; fits && d < t.dims().size(); ++d) {
                fits = !(*info->dims)[d] || *(*info->dims)[d] == t.dims()[d];
            }
            if (!fits) {
                std::string declared = "[";
                for (std::size_t d = 0; d < info->dims->size(); ++d) {
                    declared += (d ? ", " : "") + ((*info->dims)[d] ? std::to_string(*(*info->dims)[d])
                                                                    : info->dimNames[d].empty() ? "?" : info->dimNames[d]);
                }
                throw OnnxRunError("input '" + name + "' has dims " + declared + "], given " + dimsString(t.dims()));
            }
        }
        scope.values[name] = t;
    }
    OnnxRunResult result;
    // Fusions and blocked layouts only where no value is kept (compare and the precision debugger
    // read every node's own output as stored).
    // AMS_ONNX_PLAIN=1: no plan at all (every value plain, nothing fused), to measure what it saves.
    static const bool plainOnly = std::getenv("AMS_ONNX_PLAIN") != nullptr;
    // oneDNN's fused Relu gives 0 for NaN where the Relu kernel keeps it: a run whose inputs or
    // weights hold inf or NaN runs without the plan, so it propagates them as compare sees them.
    // (Finite inputs reach a Conv as inf or NaN only past a float32 overflow upstream.)
    bool planned = !keepValues && reuse == nullptr && !plainOnly;
    if (planned) {
        std::call_once(m_initializersCheckedOnce, [&] {
            m_initializersFinite = std::none_of(g.initializers.begin(), g.initializers.end(),
                                                [](const auto& named) { return holdsNonFinite(named.second); });
        });
        planned = m_initializersFinite && std::none_of(inputs.begin(), inputs.end(),
                                                       [](const auto& named) { return holdsNonFinite(named.second); });
    }
    Run(*m_program).nodes(g, scope, &m_lastUses, keepValues, reuse, reuse ? &signatures() : nullptr, &result,
                          planned ? &m_plan : nullptr);
    for (const auto& v : g.outputs) {
        const HostTensor* t = scope.find(v.name);
        if (!t) throw OnnxRunError("graph output '" + v.name + "' was not computed");
        result.outputs.emplace_back(v.name, *t);
    }
    if (keepValues) result.values = std::move(scope.values);
    return result;
}

}  // namespace ampstudio
