#pragma once
// The WCET soundness guard: the per-function times the aggregator measured from the CFG's trace
// points must equal the times the call tracer measured from the run's branch events (CallTimes).
// The two share no classification: a conditional return taken for a return, a tail call missed,
// a branch into shared code not followed, all make them disagree, and a bound built on such
// statistics is not to be trusted.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/call_times.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

struct SoundnessReport {
    bool checked = false;                 ///< false: the run could not be checked (why_not says why)
    std::string why_not;
    std::vector<std::string> disagreements;  ///< one line each, naming the function and the figures
    bool passed() const { return checked && disagreements.empty(); }
};

/// Compares run counts, maxima and totals per function. `granularity`: cycles a time may differ by
/// (0 for emulation, whose stamps are exact). `unmatched_returns` (call tracer) and
/// `saturations` (loop context tracker) must be 0 too.
SoundnessReport check_soundness(const decode::Program& program, const StatisticsTable& run, const CallTimes& calls,
                                std::uint64_t unmatched_returns, std::uint64_t saturations, std::uint64_t granularity = 0);

}  // namespace emutrace::analysis::wcet
