#pragma once
// The WCET analysis for the commands: runs it next to a machine, and prints, writes JSON and DOT of
// the result (docs/wcet.md).

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "analysis/wcet/wcet_aggregator.h"
#include "analysis/wcet/wcet_bound.h"
#include "emu/machine.h"
#include "trace/background_sink.h"

namespace emutrace::app {

/// The program structure, trace points and aggregator of one firmware.
class WcetSession {
public:
    explicit WcetSession(const decode::ElfImage& image);
    /// Trace points go into the machine's configuration before the machine is built.
    void configure(emu::MachineConfig& config) const { config.trace_points = points_.addresses(); }
    /// The aggregation runs on a thread of its own, overlapping the emulation.
    void attach(emu::Machine& machine) { machine.add_sink(background_); }
    /// This run's statistics merged with the loaded ones.
    analysis::wcet::StatisticsTable statistics(const std::vector<std::string>& stats_in, bool include_run) const;
    const decode::Program& program() const { return program_; }

private:
    decode::Program program_;
    analysis::wcet::TracePoints points_;
    analysis::wcet::WcetAggregator aggregator_;
    trace::BackgroundSink background_{aggregator_};
    std::string code_id_, firmware_;
};

std::string format_wcet(const analysis::wcet::WcetResult& r, std::uint64_t clock_hz);
/// True (and says so on stderr) when the bound exceeds `max_cycles`, a scenario's limit; 0 is none.
bool wcet_limit_exceeded(const analysis::wcet::WcetResult& r, std::uint64_t max_cycles);
nlohmann::json wcet_json(const analysis::wcet::WcetResult& r, std::uint64_t clock_hz);
/// The analysed functions' CFGs with the worst path's counts; unexecuted blocks dashed.
void write_wcet_dot(const std::string& path, const decode::Program& program, const analysis::wcet::WcetResult& r);

}  // namespace emutrace::app
