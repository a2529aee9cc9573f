#pragma once
// End-to-end function times from the call tracer's entry and exit events, measured as the WCET
// aggregator measures them: from a function's entry to the return to its caller, a tail-called
// function's time included in the function it replaced, exception handlers left out. Built from
// the run's branch events, not from the CFG, so that comparing the two (SoundnessCheck) catches
// a CFG or a branch classification that lost a call or a return.

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/wcet/block_statistics.h"

namespace emutrace::analysis::wcet {

class CallTimes final : public CallListener {
public:
    void on_call_event(const CallEvent& e) override;
    void on_finish(std::uint64_t end_cycle) override;

    /// Per function start address: the times of its completed runs.
    const std::map<std::uint32_t, TimeStat>& times() const { return times_; }
    /// Functions with a run during which their thread was switched out (an RTOS blocked it): that
    /// run's time includes the time other threads ran.
    const std::set<std::uint32_t>& switched_out() const { return switched_out_; }

private:
    static constexpr std::uint32_t kNoRun = UINT32_MAX;  ///< a context's base frame: not entered by a call
    struct Open {
        std::uint32_t function;
        std::uint64_t start;
        std::uint64_t excluded_at_start;
        bool replaced = false;  ///< left by a tail call: its run ends with the callee's
        bool switched = false;  ///< its thread was switched out during the run
    };
    std::map<std::uint32_t, std::vector<Open>> open_;  ///< per context
    std::map<std::uint32_t, TimeStat> times_;
    std::uint64_t exception_cycles_ = 0;
    std::uint64_t exception_start_ = 0;
    unsigned exception_depth_ = 0;
    bool resuming_ = false;  ///< the last handler returned; its time ends at the Resume
    std::set<std::uint32_t> switched_out_;
};

}  // namespace emutrace::analysis::wcet
