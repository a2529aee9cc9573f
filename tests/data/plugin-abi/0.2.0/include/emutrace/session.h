#pragma once
// One run: a scenario and a firmware loaded, the analyses the scenario and options ask for built
// from the registry, a source (the emulator, or a decoded capture) delivering to them, and the
// report. The emutrace command's run and crosscheck are this class plus printing.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emutrace/analysis.h"
#include "emutrace/registry.h"

namespace emutrace {

/// Command-line overrides of the scenario's machine.
struct MachineOverrides {
    std::optional<std::string> cpu;          ///< e.g. "cortex-m4"
    std::optional<std::string> clock;        ///< e.g. "168MHz"
    std::optional<std::string> timing;       ///< "trm" or "none"
    std::optional<std::uint64_t> max_instructions;
    std::optional<double> wall_clock_seconds;
    std::optional<std::string> stop_at;      ///< a symbol
    std::optional<std::string> cmdline;      ///< semihosting command line
    bool echo_output = true;                 ///< copy the firmware's output to the terminal
};

struct RunRequest {
    std::string firmware;    ///< ELF path; empty: the scenario's `firmware:`
    std::string scenario;    ///< YAML path; empty: the built-in MPS2-AN385 board
    /// An OpenCSD snapshot directory: the analyses read this capture instead of an emulated run.
    std::string capture;
    unsigned capture_trace_id = 0;  ///< 0: every PTM source of the capture
    /// Outputs and analysis options from the command line, by name without dashes ("json",
    /// "junit", "perfetto", "calltrace", ...); a flag without value maps to "".
    std::map<std::string, std::string> options;
    MachineOverrides machine;
};

struct RunReport {
    SourceTotals totals;
    int status = 0;                     ///< process exit status (docs/scenario.md): 1 when an analysis failed
    std::string summary;                ///< the terminal summary: the source, then each analysis
    std::string json;                   ///< the JSON result (written to --json / outputs.json too)
    std::vector<std::string> failures;  ///< why the run fails, one line each
    std::string stopped;                ///< why the source stopped ("exited with code 0", a fault, ...)
    std::string error;                  ///< "<elf>: <why>" when the run did not complete
};

class Session {
public:
    /// Loads scenario and firmware and builds the asked-for analyses; throws ConfigError naming
    /// the file and line at fault. `registry` must outlive the session.
    Session(const AnalysisRegistry& registry, RunRequest request);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// A sink of the caller's own, fed by the same source; it must outlive run().
    void add_sink(trace::TraceSink& sink);
    /// Delivers the source to every analysis and reports; writes the requested files. Runs once.
    RunReport run();

    /// Names of the analyses this session runs, in registry order.
    std::vector<std::string> analyses() const;
    const std::string& firmware() const;
    /// The resolved scenario file ("built-in mps2-an385 scenario" for the default).
    const std::string& scenario_file() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace emutrace
