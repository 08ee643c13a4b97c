#include "exec/reused_values.h"

#include <string_view>

#include "exec/signature_hash.h"

namespace ampstudio {
namespace {

using signature::add;

const char* kReusedPrefix = "__reused_";

}  // namespace

std::vector<uint64_t> entrySignatures(const Graph& graph) {
    const std::vector<uint32_t> rowPtr = graph.nodeRowPtr();
    std::vector<uint64_t> sig(rowPtr.back());  // rowPtr has one more element: the entry count
    for (NodeId n = 0; n < graph.size(); ++n) {
        const Node& node = graph.nodes[n];
        uint64_t h = 0;
        add(h, node.isVariable() ? std::string_view("variable") : std::string_view(node.op));
        add(h, node.name);
        for (const auto& [key, value] : node.attrs) {
            add(h, key);
            add(h, value);
        }
        add(h, node.inputs.size());
        for (const NodeEntry& in : node.inputs) add(h, sig[rowPtr[in.node] + in.index]);
        for (const std::string& s : node.subgraphs) add(h, s);
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            uint64_t e = h;
            add(e, i);
            sig[rowPtr[n] + i] = e;
        }
    }
    return sig;
}

void ReusableValues::add(const Executor& run) {
    const Graph& graph = run.graph();
    const std::vector<uint64_t> sig = entrySignatures(graph);
    const std::vector<uint32_t> rowPtr = graph.nodeRowPtr();
    for (NodeId n = 0; n < graph.size(); ++n) {
        // A reused variable stands for an entry of an earlier run, whose signature it does not carry.
        if (graph.nodes[n].isVariable() && graph.nodes[n].name.starts_with(kReusedPrefix)) continue;
        for (uint32_t i = 0; i < graph.nodes[n].numOutputs; ++i) {
            m_values.try_emplace(sig[rowPtr[n] + i], &run.entryValue({n, i, 0}));
        }
    }
}

void ReusableValues::add(const ReusingRun& run) {
    if (!run.executor) return;
    const Graph& graph = run.executor->graph();
    const std::vector<uint32_t> rowPtr = graph.nodeRowPtr();
    for (NodeId n = 0; n < graph.size(); ++n) {
        for (uint32_t i = 0; i < graph.nodes[n].numOutputs; ++i) {
            const uint64_t s = run.signatures[rowPtr[n] + i];
            if (s != 0) m_values.try_emplace(s, &run.executor->entryValue({n, i, 0}));
        }
    }
}

const Tensor* ReusableValues::find(uint64_t signature) const {
    const auto it = m_values.find(signature);
    return it == m_values.end() ? nullptr : it->second;
}

ReusingRun runReusing(const Graph& graph, const ReusableValues& reusable, const NDArrayList* params,
                      const std::map<std::string, HostArray>& inputs, Backend& backend, const ExecContext& ctx) {
    const std::vector<uint64_t> sig = entrySignatures(graph);
    const std::vector<uint32_t> rowPtr = graph.nodeRowPtr();
    auto reused = [&](const NodeEntry& e) { return reusable.find(sig[rowPtr[e.node] + e.index]); };

    // The nodes to run: reachable from the heads without passing a reused entry.
    std::vector<bool> needed(graph.size(), false);
    for (const NodeEntry& h : graph.heads) {
        if (!reused(h)) needed[h.node] = true;
    }
    for (NodeId n = NodeId(graph.size()); n-- > 0;) {
        if (!needed[n]) continue;
        for (const NodeEntry& in : graph.nodes[n].inputs) {
            if (!reused(in)) needed[in.node] = true;
        }
        for (NodeId c : graph.nodes[n].controlDeps) needed[c] = true;
    }

    // The cut graph: the needed nodes in order, each reused entry they read as one variable.
    Graph cut;
    cut.attrs = graph.attrs;
    std::vector<NodeId> newId(graph.size(), 0);
    std::map<uint32_t, NodeId> reusedVariable;  // by flat entry id of `graph`
    BindOptions bind;
    bind.forTraining = false;
    std::vector<std::pair<std::string, const Tensor*>> copies;
    ReusingRun run;
    auto reusedInput = [&](const NodeEntry& e, const Tensor* value) {
        const uint32_t flat = rowPtr[e.node] + e.index;
        auto [it, inserted] = reusedVariable.try_emplace(flat, 0);
        if (inserted) {
            Node v;
            v.name = kReusedPrefix + std::to_string(flat);
            bind.shapes[v.name] = value->shape();
            bind.dtypes[v.name] = value->dtype();
            copies.emplace_back(v.name, value);
            cut.nodes.push_back(std::move(v));
            run.signatures.push_back(0);  // its value's signature is the reused entry's, kept where it lives
            it->second = NodeId(cut.nodes.size() - 1);
        }
        return NodeEntry{it->second, 0, 0};
    };
    for (NodeId n = 0; n < graph.size(); ++n) {
        if (!needed[n]) continue;
        Node node = graph.nodes[n];
        for (NodeEntry& in : node.inputs) {
            if (const Tensor* value = reused(in)) {
                in = reusedInput(in, value);
            } else {
                in.node = newId[in.node];
            }
        }
        for (NodeId& c : node.controlDeps) c = newId[c];
        run.nodesRun += node.isVariable() ? 0 : 1;
        for (uint32_t i = 0; i < node.numOutputs; ++i) run.signatures.push_back(sig[rowPtr[n] + i]);
        cut.nodes.push_back(std::move(node));
        newId[n] = NodeId(cut.nodes.size() - 1);
    }

    run.nodesReused = copies.size();
    for (const Node& node : cut.nodes) {  // the inputs the cut graph still reads
        const auto it = node.isVariable() ? inputs.find(node.name) : inputs.end();
        if (it != inputs.end()) bind.shapes[node.name] = it->second.shape;
    }

    if (!cut.nodes.empty()) {
        for (const NodeEntry& h : graph.heads) {
            if (!reused(h)) cut.heads.push_back({newId[h.node], h.index, 0});
        }
        run.executor = std::make_unique<Executor>(cut, backend, bind);
        loadValues(*run.executor, params, inputs, backend, ctx.seed,
                   [](const std::string& name) { return name.starts_with(kReusedPrefix); });
        for (const auto& [name, value] : copies) backend.convert(*value, run.executor->value(name));
        run.executor->forward(ctx);
    }
    std::size_t computed = 0;
    for (const NodeEntry& h : graph.heads) {
        const Tensor* value = reused(h);
        run.outputs.push_back(downloadFloats(backend, value ? *value : run.executor->entryValue(run.executor->graph().heads[computed++])));
    }
    return run;
}

}  // namespace ampstudio
