#pragma once
// The WCET analysis of one firmware: the sinks that measure a run, the bound with its soundness
// verdict, and the result as text, JSON and DOT (docs/wcet.md).

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/wcet/call_times.h"
#include "analysis/wcet/soundness_check.h"
#include "analysis/wcet/wcet_aggregator.h"
#include "analysis/wcet/wcet_bound.h"
#include "decode/elf_image.h"
#include "decode/source_lines.h"
#include "trace/background_sink.h"

namespace emutrace::decode {
class Program;
}  // namespace emutrace::decode

namespace emutrace::analysis::wcet {

/// The program structure, trace points and aggregator of one firmware, and the call tracer whose
/// function times check the aggregator's (analysis/wcet/soundness_check.h).
class WcetSession {
public:
    /// `call_depth`: the call-string length k the statistics keep contexts by.
    explicit WcetSession(const decode::ElfImage& image, unsigned call_depth = kDefaultCallDepth);
    /// Keep the block profile of the longest run of `function` (for the bound's gap); before the run.
    void profile(const std::string& function);
    /// Where the emulator must start blocks: the loop headers and call returns the aggregation
    /// keys on. A source that cannot honour them (a capture) gets none.
    std::vector<std::uint32_t> trace_points() const { return points_.addresses(); }
    /// The sinks that measure a run. The aggregation and the call tracer run on threads of their
    /// own, overlapping the source.
    std::vector<trace::TraceSink*> sinks();
    /// The bound of `query` from this run so far, for a long run's checkpoint: waits for the
    /// measuring threads to catch up with the source first, and leaves the end-of-run figures as
    /// they would have been without it.
    WcetResult bound_so_far(WcetQuery query);
    /// This run's statistics merged with the loaded ones.
    StatisticsTable statistics(const std::vector<std::string>& stats_in, bool include_run) const;
    /// The bound of `query` from `stats`, with the soundness cross-check's verdict: this run's, and
    /// how many of the merged runs were checked. Throws ConfigError as compute_wcet does, and for
    /// a function that never ran, naming where GCC inlined it.
    WcetResult bound(const StatisticsTable& stats, WcetQuery query) const;
    const decode::Program& program() const { return program_; }

private:
    /// This run's cross-check (valid after the run; worked out once).
    const SoundnessReport& soundness() const;
    mutable std::optional<SoundnessReport> soundness_;

    const decode::ElfImage& image_;
    decode::SourceLines lines_;  ///< the image's DWARF, for the lines of loops and inlined copies
    decode::Program program_;
    TracePoints points_;
    WcetAggregator aggregator_;
    trace::BackgroundSink background_{aggregator_};
    analysis::CallTracer tracer_;
    CallTimes call_times_;
    trace::BackgroundSink tracer_background_{tracer_};
    bool ran_ = false;
    std::string code_id_, firmware_;
};

std::string format_wcet(const WcetResult& r, std::uint64_t clock_hz);

/// `wcet --all`: the bound of every function that completed a run, or why it has none.
struct WcetTable {
    struct Row {
        std::string function;
        std::uint64_t runs = 0, observed_max = 0, bound = 0;
        bool bounded = false;
        std::vector<std::string> errors;  ///< reasons not to trust the bound
        std::string why_none;             ///< no bound: why (recursion, an unbounded loop, ...)
    };
    std::vector<Row> rows;  ///< by function address
    std::string cross_check;
    std::vector<std::string> notes;  ///< warnings that hold for every row (merged runs not cross-checked)
    bool trusted() const { return untrusted() == 0; }
    std::size_t untrusted() const;
};
WcetTable bound_every_function(const WcetSession& session, const StatisticsTable& stats, const std::vector<FlowFact>& flow_facts,
                               unsigned call_depth = kDefaultCallDepth, bool path_counts = true);
std::string format_wcet_table(const WcetTable& table, std::uint64_t clock_hz);
nlohmann::json wcet_table_json(const WcetTable& table);
/// Why the bound fails the run, one line each: not to be trusted (WcetResult::errors), or above
/// `max_cycles`, a scenario's limit (0 is none).
std::vector<std::string> wcet_failures(const WcetResult& r, std::uint64_t max_cycles);
nlohmann::json wcet_json(const WcetResult& r, std::uint64_t clock_hz);
/// The worst path per block, its call contexts summed (costs: the largest).
std::map<std::uint32_t, PathBlock> path_by_block(const WcetResult& r);
/// The analysed functions' CFGs with the worst path's counts; unexecuted blocks dashed.
void write_wcet_dot(const std::string& path, const decode::Program& program, const WcetResult& r);

}  // namespace emutrace::analysis::wcet
