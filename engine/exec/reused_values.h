#pragma once
// Running a graph that mostly equals graphs already run, computing only what differs: the precision
// debugger's attempts differ from the float32 reference and the baseline conversion only downstream
// of the nodes they keep in float32, so everything upstream is taken from those runs instead of
// being computed again.
//
// An entry's signature hashes its whole upstream: the node's op, name and attributes and the
// signatures of its inputs (variables by name). Two entries with the same signature compute the
// same values on the same inputs and parameters, so a run may take one from the other. A new graph
// is cut at its reused entries: they become variables holding the earlier values (copied on the
// backend), and only the nodes between them and the heads are bound and run.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/backend.h"
#include "exec/executor.h"
#include "exec/model_run.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"

namespace ampstudio {

// Every entry's signature, by flat entry id (Graph::nodeRowPtr()).
std::vector<uint64_t> entrySignatures(const Graph& graph);

struct ReusingRun;

// The values of runs done (their executors must outlive it), by signature.
class ReusableValues {
public:
    // Every entry of `run` (after its forward()) becomes reusable.
    void add(const Executor& run);
    // Every entry a reusing run computed, under its signature in the graph it ran.
    void add(const ReusingRun& run);
    // The value with this signature, or null.
    const Tensor* find(uint64_t signature) const;
    std::size_t size() const { return m_values.size(); }

private:
    std::unordered_map<uint64_t, const Tensor*> m_values;
};

struct ReusingRun {
    std::unique_ptr<Executor> executor;  // the cut graph's; null when every head was reused
    std::vector<std::vector<float>> outputs;  // the heads' values, in head order
    std::size_t nodesRun = 0;     // op nodes bound and run
    std::size_t nodesReused = 0;  // entries taken from earlier runs where the cut graph reads them
    // Per flat entry of the cut graph, its signature in the graph it stands for (0: a reused value).
    std::vector<uint64_t> signatures;
};

// Runs `graph` forward as runForward would (inputs by name, parameters from `params` or the seed),
// computing only what `reusable` does not hold. Throws as binding and running do.
ReusingRun runReusing(const Graph& graph, const ReusableValues& reusable, const NDArrayList* params,
                      const std::map<std::string, HostArray>& inputs, Backend& backend, const ExecContext& ctx);

}  // namespace ampstudio
