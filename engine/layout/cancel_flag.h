#pragma once
// Internal to the layout: the caller's cancel hook, latched. Once the hook has said "cancelled" it is
// never asked again, so every later check is free and all phases agree on the answer.

#include <functional>

namespace ampstudio::layout_detail {

class CancelFlag {
public:
    explicit CancelFlag(const std::function<bool()>& hook) : m_hook(hook) {}

    bool operator()() {
        if (!m_cancelled && m_hook) {
            m_cancelled = m_hook();
        }
        return m_cancelled;
    }
    bool cancelled() const { return m_cancelled; }

private:
    const std::function<bool()>& m_hook;
    bool m_cancelled = false;
};

}  // namespace ampstudio::layout_detail
