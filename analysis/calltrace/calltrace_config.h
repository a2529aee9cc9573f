#pragma once
// The calltrace and constraints sections of a scenario (docs/calltrace.md), as the call-trace
// analysis reads them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emutrace/config.h"

namespace emutrace::analysis {

/// An event of the call trace, as a scenario names it; resolved against the ELF when running.
struct TraceEventConfig {
    std::string kind;         ///< "enter", "exit", "marker", "exception"
    std::string function;     ///< enter/exit
    std::uint32_t value = 0;  ///< marker id or exception number
    std::string thread;       ///< only in the thread of this name; empty: in any
    std::string where;        ///< file:line for errors
    std::string text() const {
        return kind + " " + (function.empty() ? std::to_string(value) : function) + (thread.empty() ? "" : " in thread " + thread);
    }
};

struct ConstraintConfig {
    std::string name;
    TraceEventConfig start, end;
    std::optional<TraceEventConfig> deadline;
    double limit_seconds = 0;        ///< the limit as a time, or
    std::uint64_t limit_cycles = 0;  ///< as cycles
    std::string limit_text;          ///< as written, and where ("file:line:col"), for a limit under one cycle
    std::string limit_where;
    bool by_payload = false;
};

struct CalltraceConfig {
    bool enabled = false;                     ///< a calltrace: key, or constraints, turn the tracer on
    std::vector<std::string> phases;          ///< functions whose share of the run the summary shows
    std::size_t top = 10;                     ///< functions in the summary's profile table
    std::vector<std::string> include;         ///< globs: only these functions go to the trace outputs (empty: all)
    std::vector<std::string> exclude;         ///< globs: these never do
    std::uint64_t buffer_bytes = 512 * 1024;  ///< the compact trace's ring buffer
    /// Automatic selection: the most frequently called small functions are left out of the trace
    /// outputs until entry/exit events per emulated second fall under this budget; 0 = off.
    double event_budget = 0;
    std::vector<ConstraintConfig> constraints;
};

/// Reads the `calltrace:` and `constraints:` sections (either may be undefined); throws
/// ConfigError naming file and line. `enabled` is set when either is present.
CalltraceConfig parse_calltrace_config(const config::Node& calltrace, const config::Node& constraints);

}  // namespace emutrace::analysis
