#pragma once
// Internal to the layout: the caller's hooks, as every phase sees them. The cancel hook is latched:
// once it has said "cancelled" it is never asked again, so every later check is free and all phases
// agree on the answer. The progress hook hears how far the whole layout is, 0 to 1: layoutGraph()
// gives each part of the graph its window (by node count), placeProblem() each phase its window
// within the part, and a phase reports the share of its own work done.

#include <functional>

namespace ampstudio::layout_detail {

class CancelFlag {
public:
    explicit CancelFlag(const std::function<bool()>& hook, const std::function<void(double)>* progress = nullptr)
        : m_hook(hook), m_progress(progress && *progress ? progress : nullptr) {}

    bool operator()() {
        if (!m_cancelled && m_hook) {
            m_cancelled = m_hook();
        }
        return m_cancelled;
    }
    bool cancelled() const { return m_cancelled; }

    void setPart(double from, double to) {
        m_partFrom = from;
        m_partTo = to;
        setPhase(0, 0);
    }
    // [from, to] of the current part, and the phase's start reported.
    void setPhase(double from, double to) {
        m_phaseFrom = from;
        m_phaseTo = to;
        report(0);
    }
    void report(double share) {
        if (m_progress) {
            const double inPart = m_phaseFrom + share * (m_phaseTo - m_phaseFrom);
            (*m_progress)(m_partFrom + inPart * (m_partTo - m_partFrom));
        }
    }

private:
    const std::function<bool()>& m_hook;
    const std::function<void(double)>* m_progress;
    bool m_cancelled = false;
    double m_partFrom = 0, m_partTo = 1, m_phaseFrom = 0, m_phaseTo = 0;
};

}  // namespace ampstudio::layout_detail
