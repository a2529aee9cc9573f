#pragma once
// Per-function profile from the call tracer: calls and inclusive/exclusive cycles (min, mean,
// max), per thread and overall. Exclusive time leaves out callees, exception handlers that
// preempted the function, and time its thread was switched out.

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/calltrace/call_tracer.h"

namespace emutrace::analysis {

struct FunctionStats {
    std::uint64_t calls = 0;
    std::uint64_t inclusive = 0, inclusive_min = UINT64_MAX, inclusive_max = 0;
    std::uint64_t exclusive = 0, exclusive_min = UINT64_MAX, exclusive_max = 0;
    void add(std::uint64_t incl, std::uint64_t excl);
};

class Profile final : public CallListener {
public:
    void on_call_event(const CallEvent& e) override;

    /// By function address.
    const std::map<std::uint32_t, FunctionStats>& overall() const { return overall_; }
    /// By (function address, thread index).
    const std::map<std::pair<std::uint32_t, std::uint32_t>, FunctionStats>& by_thread() const { return by_thread_; }

private:
    struct Open {
        std::uint32_t function;
        std::uint64_t entry;
        std::uint64_t excluded = 0;  ///< callees, preemption, switched-out time
    };
    std::unordered_map<std::uint32_t, std::vector<Open>> stacks_;     ///< by context
    std::vector<std::pair<std::uint32_t, std::uint64_t>> preempted_;  ///< (interrupted context, entry cycle)
    std::unordered_map<std::uint32_t, std::uint64_t> switched_out_;   ///< thread -> cycle it stopped running
    std::uint32_t current_thread_ = 0;
    std::map<std::uint32_t, FunctionStats> overall_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, FunctionStats> by_thread_;
};

}  // namespace emutrace::analysis
