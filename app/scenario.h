#pragma once
// A scenario file: everything about a run that is not the firmware (docs/scenario.md).

#include <optional>
#include <string>
#include <vector>

#include "analysis/wcet/wcet_bound.h"
#include "config/node.h"
#include "decode/pft_encoder.h"
#include "emu/machine_config.h"

namespace emutrace::app {

struct Outputs {
    std::string json;      ///< run summary as JSON
    std::string events;    ///< event stream as JSON Lines
    std::string junit;     ///< constraints as JUnit XML
    std::string perfetto;  ///< Chrome/Perfetto trace-event JSON
    std::string trace;     ///< the compact 21-byte-record trace (emutrace dump prints it)
    std::string pft;       ///< CoreSight PTM/PFT byte stream
    std::string snapshot;  ///< OpenCSD/DS-5 snapshot directory holding the PFT trace
};

/// An event of the call trace, as a scenario names it; resolved against the ELF when running.
struct TraceEventConfig {
    std::string kind;      ///< "enter", "exit", "marker", "exception"
    std::string function;  ///< enter/exit
    std::uint32_t value = 0;  ///< marker id or exception number
    std::string where;     ///< file:line for errors
    std::string text() const { return kind + " " + (function.empty() ? std::to_string(value) : function); }
};

struct ConstraintConfig {
    std::string name;
    TraceEventConfig start, end;
    std::optional<TraceEventConfig> deadline;
    double limit_seconds = 0;        ///< the limit as a time, or
    std::uint64_t limit_cycles = 0;  ///< as cycles
    bool by_payload = false;
};

struct CalltraceConfig {
    bool enabled = false;               ///< a calltrace: key, or constraints, turn the tracer on
    std::vector<std::string> phases;    ///< functions whose share of the run the summary shows
    std::size_t top = 10;               ///< functions in the summary's profile table
    std::vector<std::string> include;   ///< globs: only these functions go to the trace outputs (empty: all)
    std::vector<std::string> exclude;   ///< globs: these never do
    std::uint64_t buffer_bytes = 512 * 1024;  ///< the compact trace's ring buffer
    /// Automatic selection: the most frequently called small functions are left out of the trace
    /// outputs until entry/exit events per emulated second fall under this budget; 0 = off.
    double event_budget = 0;
};

/// The loop-context WCET analysis (docs/wcet.md).
struct WcetConfig {
    bool enabled = false;
    std::string function;                           ///< whose bound is computed
    std::vector<analysis::wcet::FlowFact> flow_facts;
    std::uint64_t max_cycles = 0;                   ///< a bound above this fails the run (exit 1); 0: none
};

struct Scenario {
    std::string file;  ///< where it came from ("built-in mps2-an385 scenario" for the default)
    emu::MachineConfig machine;
    Outputs outputs;
    /// The firmware the scenario is for: an ELF path relative to the scenario file, or the name of
    /// an ELF the build produced (build/firmware/<name>.elf). Empty: give it on the command line.
    std::string firmware;
    CalltraceConfig calltrace;
    std::vector<ConstraintConfig> constraints;
    decode::PftOptions pft;  ///< how the PFT output is encoded
    WcetConfig wcet;
};

/// Parses and validates a scenario; throws ConfigError naming file, line and key.
Scenario load_scenario(const config::Node& root);
Scenario load_scenario_file(const std::string& path);
/// The built-in MPS2-AN385 layout (scenarios/boards/mps2-an385.yaml, compiled in).
Scenario default_scenario();

}  // namespace emutrace::app
