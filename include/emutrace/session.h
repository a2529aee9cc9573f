#pragma once
// One run: a scenario and a firmware loaded, the analyses the scenario and options ask for built
// from the registry, a source (the emulator, or a registered recorded source) delivering to them,
// and the report. The emutrace command's run and crosscheck are this class plus printing.

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
    std::optional<std::string> cpu;     ///< e.g. "cortex-m4"
    std::optional<std::string> clock;   ///< e.g. "168MHz"
    std::optional<std::string> timing;  ///< "trm", "pipeline" or "none"
    std::optional<std::uint64_t> max_instructions;
    std::optional<double> wall_clock_seconds;
    std::optional<std::string> stop_at;  ///< a symbol
    std::optional<std::string> cmdline;  ///< semihosting command line
    std::optional<std::uint64_t> seed;   ///< stimulus jitter seed
    bool echo_output = true;             ///< copy the firmware's output to the terminal
};

struct RunRequest {
    std::string firmware;  ///< ELF path; empty: the scenario's `firmware:`
    std::string scenario;  ///< YAML path; empty: the built-in MPS2-AN385 board
    /// Scenario keys set over the file's ("path=value", config::Node::with_settings): --set.
    std::vector<std::string> settings;
    /// A recorded source the analyses read instead of an emulated run: a registered source's name
    /// (`emutrace analyses` lists them: "ptm", "ring", ...) and its input file or directory; its
    /// options go in `options` like the analyses'. Empty: the emulator.
    std::string source;
    std::string source_input;
    /// Outputs and analysis options from the command line, by name without dashes ("json",
    /// "junit", "perfetto", "calltrace", ...); a flag without value maps to "".
    std::map<std::string, std::string> options;
    MachineOverrides machine;
    /// Whether the scenario's `outputs:` are written; off for a run that only stands beside
    /// another (crosscheck's emulated run), so that the two do not write the same files.
    bool scenario_outputs = true;
    /// Code addresses at which the emulator reports a Watch event (r0, r1) to the caller's own
    /// sinks (add_sink), as an analysis's watch_points() do for it.
    std::vector<std::uint32_t> watch_points;
    /// Whether emutrace's statuses own the exit status (--exit-status emutrace): a firmware that
    /// exits non-zero then gives kFirmwareFailed, never one of emutrace's own (a firmware's 4 would
    /// otherwise read as "wall-clock limit"). Off: the firmware's code is the status, as a test
    /// runner expects.
    bool emutrace_statuses = false;
    /// The progress line on stderr while the run goes (emulated time, instructions, MIPS, events),
    /// after its first second, erased before the summary. Auto: when stderr is a terminal.
    enum class Progress { Auto, Never, Always };
    Progress progress = Progress::Auto;
};

/// With RunRequest::emutrace_statuses: the firmware exited with a non-zero code (in the JSON as exit_code).
inline constexpr int kFirmwareFailed = 8;

struct RunReport {
    SourceTotals totals;
    int status = 0;                     ///< process exit status (docs/scenario.md): 1 when an analysis failed
    std::string summary;                ///< the terminal summary: the source, then each analysis
    std::string json;                   ///< the JSON result (written to --json / outputs.json too)
    std::vector<std::string> failures;  ///< why the run fails, one line each
    /// What the analyses judged, one name per test case (a constraint, a WCET bound, a sampler's
    /// check); empty when the run was only observed, which the report then says instead of PASSED.
    std::vector<std::string> checks;
    std::string stopped;  ///< why the source stopped ("exited with code 0", a fault, ...)
    std::string error;    ///< "<elf>: <why>" when the run did not complete
    /// The analyses' --report sections (Analysis::report_html), in registry order, for a command
    /// that builds a page of its own around them (crosscheck); empty without --report.
    std::vector<std::string> report_sections;
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
