#pragma once
// Which context the event stream is in: the RTOS thread (its control block's address, from
// ThreadSwitch events) or, while an exception runs, its handler (kHandlerThread | exception).
// Shared by the replay's sinks, which all attribute events to threads the same way.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/replay/event_linker.h"
#include "config/units.h"
#include "emutrace/sink.h"

namespace emutrace::analysis::replay {

class ContextTracker {
public:
    /// Follows thread switches and exception entries and returns.
    void on_event(const trace::Event& e, const trace::EventBatch& batch) {
        switch (e.kind) {
            case trace::EventKind::ThreadSwitch:
                thread_ = e.address;
                names_.try_emplace(e.address, batch.thread_name(e));
                break;
            case trace::EventKind::ExceptionEntry: handlers_.push_back(e.value); break;
            case trace::EventKind::ExceptionReturn:
                if (!handlers_.empty()) handlers_.pop_back();
                break;
            default: break;
        }
    }
    /// The running thread, or the innermost handler.
    std::uint32_t context() const { return handlers_.empty() ? thread_ : kHandlerThread | handlers_.back(); }
    std::uint32_t thread() const { return thread_; }
    bool in_handler() const { return !handlers_.empty(); }
    /// A context as reports name it: "handler 15", "main" (start-up code), the thread's name with
    /// its control block ("worker (0x20001518)", or without it), else "thread 0x20001518".
    std::string name(std::uint32_t id, bool with_address = true) const {
        if (id >= kHandlerThread) return "handler " + std::to_string(id & 0xFF);
        if (id == 0) return "main";
        auto n = names_.find(id);
        if (n == names_.end() || n->second.empty()) return (with_address ? "thread " : "") + config::hex32(id);
        return with_address ? n->second + " (" + config::hex32(id) + ")" : n->second;
    }

private:
    std::uint32_t thread_ = 0;
    std::vector<std::uint32_t> handlers_;
    std::unordered_map<std::uint32_t, std::string> names_;
};

}  // namespace emutrace::analysis::replay
