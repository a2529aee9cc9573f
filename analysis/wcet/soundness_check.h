#pragma once
// The WCET soundness guard: the per-function times the aggregator measured from the CFG's trace
// points must equal the times the call tracer measured from the run's branch events (CallTimes).
// The two share no classification: a conditional return taken for a return, a tail call missed,
// a branch into shared code not followed, all make them disagree, and a bound built on such
// statistics is not to be trusted.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/call_times.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

struct Disagreement {
    std::uint32_t function = 0;  ///< its start address; 0 for what concerns the whole run
    std::string text;            ///< one line, naming the function and the figures
};

struct SoundnessReport {
    std::vector<Disagreement> disagreements;
    /// Functions whose thread was switched out during a run (CallTimes::switched_out()).
    std::set<std::uint32_t> switched_out;
    bool passed() const { return disagreements.empty() && switched_out.empty(); }
};

/// Compares run counts, maxima and totals per function. `granularity`: cycles a time may differ by
/// (0 for emulation, whose stamps are exact). `unmatched_returns` (call tracer) and
/// `saturations` (loop context tracker) must be 0 too: they concern the whole run.
SoundnessReport check_soundness(const decode::Program& program, const StatisticsTable& run, const CallTimes& calls, std::uint64_t unmatched_returns,
                                std::uint64_t saturations, std::uint64_t granularity = 0);

}  // namespace emutrace::analysis::wcet
