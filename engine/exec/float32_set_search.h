#pragma once
// The search both formats' precision debuggers share (exec/precision_search.cpp for MXNet graphs,
// exec/onnx/onnx_precision_search.cpp for ONNX models): the bookkeeping of attempts and the strategy
// that picks a small float32 set from ranked candidates. What an attempt runs is the format's.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exec/precision_search.h"

namespace ampstudio {

// The attempts of one search: each distinct set is run once (the same set again is answered from
// memory), within options.maxAttempts (an attempt past it counts as not meeting and is not run),
// recorded in result.attempts and reported to options.progress, whose false stops the search.
class Float32SetAttempts {
public:
    // Runs the conversion with these nodes excluded and returns the metric over its outputs
    // (+inf where the conversion is not valid and was not run).
    using Evaluate = std::function<double(const std::vector<std::string>& fp32Nodes)>;

    Float32SetAttempts(const PrecisionSearchOptions& options, PrecisionSearchResult& result, Evaluate evaluate);

    // The first attempt: the conversion as the lists decide it, measured by the caller.
    void baseline(double value);
    const SearchAttempt& attempt(std::vector<std::string> fp32Nodes);
    // Whether the last attempt() was run now (not answered from memory or past the budget).
    bool lastRan() const { return m_lastRan; }
    bool stopped() const { return m_stop; }
    void stop();

private:
    const SearchAttempt& record(std::vector<std::string> key, SearchAttempt a);

    const PrecisionSearchOptions& m_options;
    PrecisionSearchResult& m_result;
    Evaluate m_evaluate;
    std::map<std::vector<std::string>, SearchAttempt> m_tried;  // by sorted set
    bool m_stop = false;
    bool m_lastRan = false;
};

// The strategy: with candidates worst first, a bisection over how many of the worst to keep in
// float32 (the error falls, roughly monotonically, as more of them do), then each chosen node dropped
// again where the tolerance still holds. `adopt` is called after every attempt that meets and becomes
// the set chosen so far (a format reuses its values from then on). Returns the set; `meets` says
// whether it meets the tolerance (false: even every candidate in float32 does not, and the set is
// all of them, the closest there is). The baseline has been recorded already.
std::vector<std::string> chooseFloat32Set(const std::vector<std::string>& candidates, Float32SetAttempts& attempts,
                                          const std::function<void()>& adopt, bool& meets);

// Worst own error first (undefined = worst; a node without an own error by its error in the model),
// then the error in the model, then the order given.
void rankByOwnError(std::vector<NodeErrorProfile>& nodes);

}  // namespace ampstudio
