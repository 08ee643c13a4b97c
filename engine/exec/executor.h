#pragma once
// Runs a graph forward and backward on a backend (DESIGN.md §5). Binding (the constructor) does
// everything that can fail: it checks that every op is supported, infers every entry's shape and
// dtype, creates one kernel per node and allocates every value and gradient. forward() and
// backward() then only enqueue kernels, in topological order and its reverse.
//
// A converted graph runs as it stands: amp_cast / amp_multicast are ordinary ops whose backward
// casts the gradient back, so each gradient has the dtype of the entry it belongs to (an f16
// activation has an f16 gradient, which overflows where a GPU's would).
//
// Gradients: parameters get one (an entry read by several nodes sums their contributions); inputs
// (data, labels) and auxiliary states do not. Backward starts at the heads: a loss head (SoftmaxOutput,
// MakeLoss ...) produces its loss gradient times ExecContext::lossScale; any other head is given a
// gradient of lossScale everywhere (MXNet's default head gradient of ones, scaled).

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "exec/graph_inference.h"
#include "graph/graph.h"
#include "ops/variable_roles.h"

namespace ampstudio {

struct BindOptions {
    // Shapes of the inputs (data, labels) by name; parameter shapes are inferred from them.
    std::map<std::string, Shape> shapes;
    // Variables whose dtype is fixed (parameters stored in f16); the others are inferred (else f32).
    std::map<std::string, DType> dtypes;
    // Allocate gradients and plan the backward pass.
    bool forTraining = true;
    // When set, exactly these variables get gradients; otherwise every parameter does.
    std::optional<std::set<std::string>> gradientVariables;
};

class Executor {
public:
    // Throws OpError (unsupported op, bad attribute, shape or dtype problem), naming the node.
    Executor(Graph graph, Backend& backend, const BindOptions& options);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    const Graph& graph() const { return m_graph; }
    Backend& backend() const { return m_backend; }
    const EntryTable& entries() const { return m_entries; }

    // Variables by role, in node order.
    const std::vector<std::string>& inputNames() const { return m_inputNames; }
    const std::vector<std::string>& parameterNames() const { return m_parameterNames; }
    const std::vector<std::string>& auxiliaryNames() const { return m_auxiliaryNames; }
    bool hasVariable(std::string_view name) const;
    // The variable's value tensor (write it with Backend::copyFromHost); throws std::out_of_range.
    const Tensor& value(std::string_view name) const;
    // The variable's gradient; undefined when it has none.
    const Tensor& gradient(std::string_view name) const;

    // The value of any entry after forward() (for per-node comparison).
    const Tensor& entryValue(const NodeEntry& entry) const { return m_values[m_entries.id(entry)]; }
    // The heads' values after forward(), in head order.
    std::vector<Tensor> outputs() const;

    void forward(const ExecContext& ctx);
    // Needs a forward(training) first; throws std::logic_error when bound without forTraining.
    // headGradients, when given, holds one tensor per head: the gradient of each non-loss head
    // instead of lossScale everywhere (MXNet's backward(out_grads)); entries for loss heads are ignored.
    void backward(const ExecContext& ctx, std::span<const Tensor> headGradients = {});

private:
    struct NodeRun {
        NodeId node = 0;
        std::unique_ptr<OpKernel> kernel;
        std::vector<Tensor> in, out, outGrad, inGrad;
        std::vector<GradReq> req;
        bool runsBackward = false;
    };

    Graph m_graph;
    Backend& m_backend;
    EntryTable m_entries;
    std::vector<Tensor> m_values;  // per entry
    std::vector<Tensor> m_grads;   // per entry; undefined where no gradient flows
    std::vector<NodeRun> m_runs;   // op nodes in topological order
    std::map<std::string, NodeId, std::less<>> m_variables;
    std::vector<std::string> m_inputNames, m_parameterNames, m_auxiliaryNames;
    std::vector<std::size_t> m_zeroGradEntries;  // gradients no consumer writes: zeroed before backward
    std::vector<std::size_t> m_headGradEntries;  // non-loss heads: filled with the loss scale
    std::vector<std::size_t> m_headGradHeads;    // which head each of m_headGradEntries is
    bool m_forTraining = false;
};

}  // namespace ampstudio
