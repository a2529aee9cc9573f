#pragma once
// The calls of a run for the report's timeline: each thread's (and the handlers') calls from
// entry to exit at their depth, and when each thread ran. Bounded however long the run: only
// the outer kMaxDepth levels are kept, and when more than kMaxSpans calls are held the shortest
// half goes and the minimum duration kept doubles; likewise the gaps in the threads' running
// bands close once they are too many to draw; at most kMaxLanes threads, the busiest, are drawn.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "report/timeline.h"

namespace emutrace::analysis {

class CallTimeline final : public CallListener {
public:
    static constexpr std::size_t kMaxSpans = 4'000;
    static constexpr std::uint32_t kMaxDepth = 4;
    static constexpr std::size_t kMaxLanes = 24;

    explicit CallTimeline(const CallTracer& tracer) : tracer_(tracer) {}
    void on_call_event(const CallEvent& e) override;
    void on_finish(std::uint64_t end_cycle) override;
    /// Lanes in thread order, the handlers' lane ("exceptions") last.
    std::vector<report::Lane> lanes() const;
    std::uint64_t end_cycle() const { return end_cycle_; }
    /// Calls shorter than this were left out (0: none).
    std::uint64_t min_cycles() const { return min_cycles_; }

private:
    struct Kept {
        std::uint32_t lane, function, depth;
        std::uint64_t begin, end;
    };
    struct Open {
        std::uint32_t function;
        std::uint64_t begin;
    };
    void keep(const Kept& k);
    void ran(std::uint32_t thread, std::uint64_t begin, std::uint64_t end);
    std::uint32_t lane_of(std::uint32_t context, std::uint32_t thread) const;

    const CallTracer& tracer_;
    std::vector<Kept> spans_;
    std::unordered_map<std::uint32_t, std::vector<Open>> open_;                  ///< by context
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> running_;  ///< by thread
    std::size_t running_slices_ = 0;                                             ///< of all threads
    std::uint64_t min_gap_ = 0;                                                  ///< shorter gaps between a thread's slices are closed
    std::vector<std::uint64_t> scratch_;                                         ///< reused by the thinning
    std::uint32_t current_thread_ = 0;
    std::uint64_t running_since_ = 0;
    bool switched_ = false;  ///< a thread switch was seen: running_ means something
    std::uint64_t min_cycles_ = 0;
    std::uint64_t end_cycle_ = 0;
};

}  // namespace emutrace::analysis
