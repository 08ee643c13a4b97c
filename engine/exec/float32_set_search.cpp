#include "exec/float32_set_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampstudio {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

Float32SetAttempts::Float32SetAttempts(const PrecisionSearchOptions& options, PrecisionSearchResult& result, Evaluate evaluate)
    : m_options(options), m_result(result), m_evaluate(std::move(evaluate)) {}

void Float32SetAttempts::stop() {
    m_stop = true;
    m_result.stopped = true;
}

const SearchAttempt& Float32SetAttempts::record(std::vector<std::string> key, SearchAttempt a) {
    m_result.attempts.push_back(a);
    if (m_options.progress && !m_options.progress(a)) stop();
    return m_tried.insert_or_assign(std::move(key), std::move(a)).first->second;
}

void Float32SetAttempts::baseline(double value) {
    SearchAttempt a;
    a.value = value;
    a.meets = value <= m_options.tolerance;
    record({}, std::move(a));
}

const SearchAttempt& Float32SetAttempts::attempt(std::vector<std::string> fp32Nodes) {
    std::vector<std::string> key = fp32Nodes;
    std::sort(key.begin(), key.end());
    m_lastRan = false;
    if (const auto it = m_tried.find(key); it != m_tried.end()) return it->second;
    SearchAttempt a;
    a.fp32Nodes = std::move(fp32Nodes);
    if (m_stop || int(m_result.attempts.size()) >= m_options.maxAttempts) {
        a.value = kInf;  // out of budget: counts as not meeting, and is not recorded
        return m_tried.emplace(std::move(key), std::move(a)).first->second;
    }
    a.value = m_evaluate(a.fp32Nodes);
    a.meets = a.value <= m_options.tolerance;
    m_lastRan = true;
    return record(std::move(key), std::move(a));
}

std::vector<std::string> chooseFloat32Set(const std::vector<std::string>& candidates, Float32SetAttempts& attempts,
                                          const std::function<void()>& adopt, bool& meets) {
    std::vector<std::string> chosen;
    if (meets || candidates.empty() || attempts.stopped()) return chosen;
    const auto tryIt = [&](std::vector<std::string> set) {
        const bool ok = attempts.attempt(std::move(set)).meets;
        if (ok && attempts.lastRan()) adopt();
        return ok;
    };
    if (!tryIt(candidates)) return candidates;  // even all in float32 does not meet it: the closest there is
    std::size_t lo = 1, hi = candidates.size();
    while (lo < hi && !attempts.stopped()) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (tryIt({candidates.begin(), candidates.begin() + std::ptrdiff_t(mid)})) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    chosen.assign(candidates.begin(), candidates.begin() + std::ptrdiff_t(hi));
    for (std::size_t i = chosen.size(); i-- > 0 && !attempts.stopped() && chosen.size() > 1;) {
        std::vector<std::string> without = chosen;
        without.erase(without.begin() + std::ptrdiff_t(i));
        if (tryIt(without)) chosen = std::move(without);
    }
    meets = true;
    return chosen;
}

void rankByOwnError(std::vector<NodeErrorProfile>& nodes) {
    const auto rank = [](const NodeErrorProfile& p) {
        const double own = p.own ? p.own->maxRelError : p.error.maxRelError;
        return std::isnan(own) ? kInf : own;
    };
    const auto inModel = [](const NodeErrorProfile& p) { return std::isnan(p.error.maxRelError) ? kInf : p.error.maxRelError; };
    std::stable_sort(nodes.begin(), nodes.end(), [&](const NodeErrorProfile& a, const NodeErrorProfile& b) {
        const double ra = rank(a), rb = rank(b);
        if (ra != rb) return ra > rb;
        return inModel(a) > inModel(b);
    });
}

}  // namespace ampstudio
