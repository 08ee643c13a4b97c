#include "exec/executor.h"

#include <stdexcept>

#include "ops/op_spec.h"

namespace ampstudio {

Executor::Executor(Graph graph, Backend& backend, const BindOptions& options)
    : m_graph(std::move(graph)), m_backend(backend), m_forTraining(options.forTraining) {
    m_graph.validate();
    checkSupported(m_graph, &m_backend);
    m_entries = inferEntries(m_graph, options.shapes, options.dtypes);

    const std::vector<VariableRole> roles = classifyVariables(m_graph);
    const std::size_t entryCount = m_entries.shapes.size();
    std::vector<bool> needsGrad(entryCount, false);
    for (NodeId n = 0; n < m_graph.size(); ++n) {
        const Node& node = m_graph.nodes[n];
        if (!node.isVariable()) {
            continue;
        }
        m_variables.emplace(node.name, n);
        switch (roles[n]) {
            case VariableRole::Input: m_inputNames.push_back(node.name); break;
            case VariableRole::Parameter: m_parameterNames.push_back(node.name); break;
            case VariableRole::AuxiliaryState: m_auxiliaryNames.push_back(node.name); break;
        }
        if (options.forTraining) {
            needsGrad[m_entries.rowPtr[n]] = options.gradientVariables ? options.gradientVariables->contains(node.name)
                                                                       : roles[n] == VariableRole::Parameter;
        }
    }

    m_values.resize(entryCount);
    m_grads.resize(entryCount);
    for (std::size_t e = 0; e < entryCount; ++e) {
        m_values[e] = m_backend.allocate(m_entries.shapes[e], m_entries.dtypes[e]);
    }

    // Forward plan, and which op outputs carry a gradient: those of nodes with an input that does.
    for (NodeId n = 0; n < m_graph.size(); ++n) {
        const Node& node = m_graph.nodes[n];
        if (node.isVariable()) {
            continue;
        }
        NodeRun run;
        run.node = n;
        std::vector<Shape> inShapes, outShapes;
        std::vector<DType> inTypes, outTypes;
        for (const NodeEntry& e : node.inputs) {
            run.in.push_back(m_values[m_entries.id(e)]);
            inShapes.push_back(m_entries.shape(e));
            inTypes.push_back(m_entries.dtype(e));
            run.runsBackward = run.runsBackward || needsGrad[m_entries.id(e)];
        }
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            const std::size_t e = m_entries.rowPtr[n] + i;
            run.out.push_back(m_values[e]);
            outShapes.push_back(m_entries.shapes[e]);
            outTypes.push_back(m_entries.dtypes[e]);
            needsGrad[e] = run.runsBackward;
        }
        run.kernel = m_backend.createKernel(KernelSetup{node, inShapes, outShapes, inTypes, outTypes});
        m_runs.push_back(std::move(run));
    }
    if (!options.forTraining) {
        return;
    }

    for (std::size_t e = 0; e < entryCount; ++e) {
        if (needsGrad[e]) {
            m_grads[e] = m_backend.allocate(m_entries.shapes[e], m_entries.dtypes[e]);
        }
    }
    // Backward plan: in reverse order the first contribution to an entry's gradient writes it and
    // later ones add. A head's gradient is set before the pass (a non-loss head) or not used at all
    // (a loss head ignores it; it still gets zeros so that every outGrad is defined).
    std::vector<bool> written(entryCount, false);
    for (std::size_t h = 0; h < m_graph.heads.size(); ++h) {
        const NodeEntry& head = m_graph.heads[h];
        const std::size_t e = m_entries.id(head);
        const OpSpec* spec = m_graph.node(head).isVariable() ? nullptr : opSpecs().find(m_graph.node(head).op);
        if (needsGrad[e] && !written[e] && (spec == nullptr || spec->kind != OpKind::Loss)) {
            m_headGradEntries.push_back(e);
            m_headGradHeads.push_back(h);
            written[e] = true;
        }
    }
    for (auto it = m_runs.rbegin(); it != m_runs.rend(); ++it) {
        NodeRun& run = *it;
        const Node& node = m_graph.nodes[run.node];
        if (!run.runsBackward) {
            continue;
        }
        for (uint32_t i = 0; i < node.numOutputs; ++i) {
            const std::size_t e = m_entries.rowPtr[run.node] + i;
            run.outGrad.push_back(m_grads[e]);
            if (!written[e]) {
                m_zeroGradEntries.push_back(e);  // nobody downstream differentiates this output
                written[e] = true;
            }
        }
        for (const NodeEntry& in : node.inputs) {
            const std::size_t e = m_entries.id(in);
            if (!needsGrad[e]) {
                run.inGrad.emplace_back();
                run.req.push_back(GradReq::Null);
                continue;
            }
            run.inGrad.push_back(m_grads[e]);
            run.req.push_back(written[e] ? GradReq::Add : GradReq::Write);
            written[e] = true;
        }
    }
    // A parameter nothing differentiable reads (rare) still has a defined, zero gradient.
    for (const auto& [name, n] : m_variables) {
        const std::size_t e = m_entries.rowPtr[n];
        if (needsGrad[e] && !written[e]) {
            m_zeroGradEntries.push_back(e);
        }
    }
}

Executor::~Executor() = default;

bool Executor::hasVariable(std::string_view name) const { return m_variables.find(name) != m_variables.end(); }

const Tensor& Executor::value(std::string_view name) const {
    const auto it = m_variables.find(name);
    if (it == m_variables.end()) {
        throw std::out_of_range("the graph has no variable named '" + std::string(name) + "'");
    }
    return m_values[m_entries.rowPtr[it->second]];
}

const Tensor& Executor::gradient(std::string_view name) const {
    const auto it = m_variables.find(name);
    if (it == m_variables.end()) {
        throw std::out_of_range("the graph has no variable named '" + std::string(name) + "'");
    }
    return m_grads[m_entries.rowPtr[it->second]];
}

std::vector<Tensor> Executor::outputs() const {
    std::vector<Tensor> out;
    for (const NodeEntry& head : m_graph.heads) {
        out.push_back(m_values[m_entries.id(head)]);
    }
    return out;
}

void Executor::forward(const ExecContext& ctx) {
    for (NodeRun& run : m_runs) {
        run.kernel->forward(ctx, run.in, run.out);
    }
}

void Executor::backward(const ExecContext& ctx, std::span<const Tensor> headGradients) {
    if (!m_forTraining) {
        throw std::logic_error("Executor::backward: bound without forTraining");
    }
    for (std::size_t e : m_zeroGradEntries) {
        m_backend.fill(m_grads[e], 0.0f);
    }
    if (!headGradients.empty() && headGradients.size() != m_graph.heads.size()) {
        throw std::invalid_argument("Executor::backward: " + std::to_string(headGradients.size()) +
                                    " head gradients for " + std::to_string(m_graph.heads.size()) + " heads");
    }
    for (std::size_t k = 0; k < m_headGradEntries.size(); ++k) {
        const std::size_t e = m_headGradEntries[k];
        if (headGradients.empty()) {
            if (ctx.lossScaleTensor.defined()) {
                m_backend.fill(m_grads[e], ctx.lossScaleTensor);
            } else {
                m_backend.fill(m_grads[e], ctx.lossScale);
            }
        } else {
            m_backend.convert(headGradients[m_headGradHeads[k]], m_grads[e]);
        }
    }
    for (auto it = m_runs.rbegin(); it != m_runs.rend(); ++it) {
        if (it->runsBackward) {
            it->kernel->backward(ctx, it->in, it->out, it->outGrad, it->inGrad, it->req);
        }
    }
}

}  // namespace ampstudio
