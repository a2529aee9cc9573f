#pragma once
// The WCET analysis for the commands: runs it next to a machine, and prints, writes JSON and DOT of
// the result (docs/wcet.md).

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/wcet/call_times.h"
#include "analysis/wcet/soundness_check.h"
#include "analysis/wcet/wcet_aggregator.h"
#include "decode/source_lines.h"
#include "analysis/wcet/wcet_bound.h"
#include "emu/machine.h"
#include "trace/background_sink.h"

namespace emutrace::app {

/// The program structure, trace points and aggregator of one firmware, and the call tracer whose
/// function times check the aggregator's (analysis/wcet/soundness_check.h).
class WcetSession {
public:
    explicit WcetSession(const decode::ElfImage& image);
    /// Trace points go into the machine's configuration before the machine is built.
    void configure(emu::MachineConfig& config) const { config.trace_points = points_.addresses(); }
    /// The aggregation and the call tracer run on threads of their own, overlapping the emulation.
    void attach(emu::Machine& machine);
    /// This run's statistics merged with the loaded ones.
    analysis::wcet::StatisticsTable statistics(const std::vector<std::string>& stats_in, bool include_run) const;
    /// The bound of `query` from `stats`, with the soundness cross-check's verdict: this run's, and
    /// how many of the merged runs were checked. Throws ConfigError as compute_wcet does, and for
    /// a function that never ran, naming where GCC inlined it.
    analysis::wcet::WcetResult bound(const analysis::wcet::StatisticsTable& stats, analysis::wcet::WcetQuery query) const;
    const decode::Program& program() const { return program_; }

private:
    /// This run's cross-check (valid after the run; worked out once).
    const analysis::wcet::SoundnessReport& soundness() const;
    mutable std::optional<analysis::wcet::SoundnessReport> soundness_;

    const decode::ElfImage& image_;
    decode::SourceLines lines_;  ///< the image's DWARF, for the lines of loops and inlined copies
    decode::Program program_;
    analysis::wcet::TracePoints points_;
    analysis::wcet::WcetAggregator aggregator_;
    trace::BackgroundSink background_{aggregator_};
    analysis::CallTracer tracer_;
    analysis::wcet::CallTimes call_times_;
    trace::BackgroundSink tracer_background_{tracer_};
    bool ran_ = false;
    std::string code_id_, firmware_;
};

std::string format_wcet(const analysis::wcet::WcetResult& r, std::uint64_t clock_hz);

/// `wcet --all`: the bound of every function that completed a run, or why it has none.
struct WcetTable {
    struct Row {
        std::string function;
        std::uint64_t runs = 0, observed_max = 0, bound = 0;
        bool bounded = false;
        std::vector<std::string> errors;  ///< reasons not to trust the bound
        std::string why_none;             ///< no bound: why (recursion, an unbounded loop, ...)
    };
    std::vector<Row> rows;                ///< by function address
    std::string cross_check;
    std::vector<std::string> notes;       ///< warnings that hold for every row (merged runs not cross-checked)
    bool trusted() const { return untrusted() == 0; }
    std::size_t untrusted() const;
};
WcetTable bound_every_function(const WcetSession& session, const analysis::wcet::StatisticsTable& stats,
                               const std::vector<analysis::wcet::FlowFact>& flow_facts);
std::string format_wcet_table(const WcetTable& table, std::uint64_t clock_hz);
nlohmann::json wcet_table_json(const WcetTable& table);
/// True (and says so on stderr) when the bound exceeds `max_cycles`, a scenario's limit; 0 is none.
bool wcet_limit_exceeded(const analysis::wcet::WcetResult& r, std::uint64_t max_cycles);
/// True (and says so on stderr) when the bound is not to be trusted (WcetResult::errors).
bool wcet_untrusted(const analysis::wcet::WcetResult& r);
nlohmann::json wcet_json(const analysis::wcet::WcetResult& r, std::uint64_t clock_hz);
/// The analysed functions' CFGs with the worst path's counts; unexecuted blocks dashed.
void write_wcet_dot(const std::string& path, const decode::Program& program, const analysis::wcet::WcetResult& r);

}  // namespace emutrace::app
