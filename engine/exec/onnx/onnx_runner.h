#pragma once
// Runs an ONNX model (formats/onnx_program.h) forward on the CPU, node after node in topological
// order, each output's shape from the actual inputs: a model with symbolic batch or sequence axes
// runs with whatever sizes it is given, and shape subgraphs (Shape -> Gather -> Concat -> Reshape)
// are computed as they are in any runtime. If and Loop run their bodies with the scopes around them
// visible. Inference only: ONNX models are converted and compared here, not trained.
//
// Why not the Executor (executor.h): it binds a graph once, with every shape inferred from the
// attributes before anything runs, for training's forward and backward. ONNX shapes come from
// values (Reshape's shape input, Slice's starts, Range's bounds), so they are known only while the
// model runs; the kernels here (onnx_ops.h) reach the same oneDNN primitives and the same rounding
// rule as the CPU backend's.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/onnx/onnx_ops.h"
#include "exec/onnx/onnx_value_signatures.h"
#include "formats/onnx_program.h"

namespace ampstudio {

struct OnnxRunResult {
    std::vector<std::pair<std::string, HostTensor>> outputs;  // the graph's outputs, in order
    // Every value of the main graph computed or read, by name, when the run was asked to keep them.
    std::unordered_map<std::string, HostTensor> values;
    std::size_t nodesRun = 0;     // main-graph nodes computed
    std::size_t nodesReused = 0;  // main-graph nodes whose outputs were taken from earlier runs
};

// What a run that keeps no values does differently at one main-graph node (planLayouts).
struct OnnxNodePlan {
    bool skip = false;                  // a Relu the Conv before it runs as its post-op
    bool fusedRelu = false;             // a Conv that runs the Relu reading its output
    std::string output0;                // where output 0 goes instead (the fused Relu's output)
    bool outputMayStayBlocked = false;  // every reader of output 0 takes a blocked layout
    // A Conv whose output only an Add reads, the Add's other operand (the residual) defined before
    // the Conv: the Add (and a Relu that alone reads its output) run inside the Conv, as oneDNN's sum
    // and eltwise post-ops, when the operands are float32 of the same dims (else they run after it).
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::string residual;                       // the Add's other operand
    std::size_t residualAdd = kNone;            // the Add's node
    std::size_t residualRelu = kNone;           // the Relu after it, or kNone
    std::string residualOutput;                 // the Add's output, or its Relu's
    bool residualMayBeOverwritten = false;      // nothing after the Conv reads the residual but the Add
    bool residualOutputMayStayBlocked = false;  // every reader of residualOutput takes a blocked layout
};
std::vector<OnnxNodePlan> planLayouts(const OnnxGraphProgram& graph);

// The ops of `program` (nested graphs included) the runner has no kernel for, each once, sorted.
std::vector<std::string> unsupportedOnnxOps(const OnnxProgram& program);

class OnnxRunner {
public:
    // Throws OnnxUnsupported naming every op it cannot run, before anything runs.
    explicit OnnxRunner(std::shared_ptr<const OnnxProgram> program);

    const OnnxProgram& program() const { return *m_program; }

    // `inputs` by name: every required input (OnnxProgram::requiredInputs), with the declared dtype
    // and the declared fixed dims; an initializer may be overridden. Throws OnnxRunError naming the
    // input or the node that fails.
    // With `reuse`, a main-graph node whose every output has a signature (onnxValueSignatures) in it
    // takes those values instead of running: the same outputs, computing only what differs.
    OnnxRunResult run(const std::map<std::string, HostTensor>& inputs, bool keepValues = false,
                      const OnnxReusableValues* reuse = nullptr) const;

    // The signatures of this program's values (computed once, on first use).
    const OnnxSignatures& signatures() const;

private:
    std::shared_ptr<const OnnxProgram> m_program;
    // Per main-graph node, the values read for the last time there (freed after it unless kept).
    std::vector<std::vector<std::string>> m_lastUses;
    std::vector<OnnxNodePlan> m_plan;
    mutable std::once_flag m_initializersCheckedOnce;
    mutable bool m_initializersFinite = true;  // no inf / NaN in any main-graph initializer
    mutable std::once_flag m_signaturesOnce;
    mutable OnnxSignatures m_signatures;
};

}  // namespace ampstudio
