#pragma once
// An analysis: one or more sinks on the event model, built from its own scenario section and
// command-line options, contributing summary lines, a JSON object, JUnit test cases and failures
// that make the run exit 1. In-tree analyses are rows of analysis/registry.cpp; out-of-tree ones
// come in plug-ins (emutrace/plugin.h). docs/design.md, "Writing an analysis", has an example.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emutrace/config.h"
#include "emutrace/sink.h"
#include "emutrace/steering.h"

namespace emutrace {

/// A command-line option of an analysis: `--name VALUE` when value_name is set, else the flag `--name`.
struct AnalysisOption {
    std::string name;        ///< without the dashes; also the outputs.<name> key for an output
    std::string value_name;  ///< e.g. "FILE"; empty for a flag
    std::string help;        ///< one line for --help and `emutrace analyses`

    /// How it is spelt on the command line: `--` and the name with dashes for underscores
    /// (outputs.events_limit is --events-limit).
    std::string flag() const {
        std::string f = "--" + name;
        for (char& c : f)
            if (c == '_') c = '-';
        return f;
    }
};

/// What the source delivered, for figures relative to the whole run.
struct SourceTotals {
    std::string source;  ///< "emulator", or the capture's snapshot directory
    std::uint64_t instructions = 0;
    std::uint64_t cycles = 0;  ///< the last cycle stamp (instructions for a capture without cycle counts)
    std::uint64_t clock_hz = 0;
    double emulated_seconds = 0;     ///< cycles / clock_hz
    bool complete = true;            ///< false when the run faulted, hung or hit a limit
    std::uint64_t sleep_cycles = 0;  ///< of `cycles`, those the core slept in WFI/WFE
};

/// One JUnit test case (the run's --junit file holds every analysis's cases).
struct TestCase {
    std::string classname;  ///< e.g. "emutrace.constraints"
    std::string name;
    double seconds = 0;   ///< JUnit's time attribute: the measured duration
    std::string failure;  ///< the failure message; empty when the case passed
    std::string details;  ///< the failure's text
    std::string output;   ///< system-out
};

/// What an analysis is built from: its scenario sections, outputs and flags, and the firmware.
class AnalysisSetup {
public:
    virtual ~AnalysisSetup() = default;
    /// A top-level scenario section the analysis registered; an undefined Node when absent.
    virtual config::Node section(std::string_view key) const = 0;
    /// An output file it registered: --<key> FILE, else the scenario's outputs.<key>; empty when not asked for.
    virtual std::string output(std::string_view key) const = 0;
    /// A flag it registered: empty when not given, "" for a given flag that takes no value.
    virtual std::optional<std::string> flag(std::string_view name) const = 0;
    /// The scenario file ("built-in ..." for the default board), for messages.
    virtual const std::string& scenario_file() const = 0;
    /// Path of the firmware ELF.
    virtual const std::string& firmware() const = 0;
    /// The address of a symbol of the firmware, if it has one.
    virtual std::optional<std::uint32_t> address_of(std::string_view symbol) const = 0;
    /// The function containing `address`, as "name" or "name+0x12"; a hex address when none does.
    virtual std::string describe(std::uint32_t address) const = 0;
    virtual std::uint64_t clock_hz() const = 0;
    /// The cycle model that stamps the events: "trm", "pipeline" or "none" (scenario `timing:`).
    virtual std::string_view cycle_model() const = 0;
    /// False when the events come from a capture: trace points are then not honoured.
    virtual bool emulated() const = 0;
    /// The core the run emulates, as a scenario's `cpu:` names it ("cortex-m4f"): the scenario's,
    /// --cpu, or the one the ELF was built for.
    virtual std::string_view core() const = 0;
};

class Analysis {
public:
    virtual ~Analysis() = default;
    /// The sinks to connect to the source; owned by the analysis, valid until it is destroyed.
    virtual std::vector<trace::TraceSink*> sinks() = 0;
    /// Code addresses at which the emulator must start a Block event (loop headers, say).
    virtual std::vector<std::uint32_t> trace_points() const { return {}; }
    /// Code addresses at which the emulator reports a Watch event with r0 and r1 (a function's
    /// entry for its arguments, its return instructions for its result).
    virtual std::vector<std::uint32_t> watch_points() const { return {}; }
    /// The analysis steers the emulated run as it happens (a replay: emutrace/steering.h); at
    /// most one per run. Owned by the analysis.
    virtual trace::Steering* steering() { return nullptr; }
    /// The result so far, as the text of one JSON value like json()'s, for the checkpoints of a
    /// long run (--checkpoint-every): a killed run keeps what its last checkpoint wrote. Called
    /// between batches on the thread that delivers them, before finish(); an analysis whose sinks
    /// run on a thread of their own waits for them first (trace::BackgroundSink::settle). The
    /// default has nothing to say.
    virtual std::string checkpoint() { return {}; }
    /// After the last batch: finish the figures and write the analysis's own output files.
    virtual void finish(const SourceTotals& totals) { (void)totals; }
    /// Lines for the terminal summary; empty for none.
    virtual std::string summary() const { return {}; }
    /// The analysis's result as the text of one JSON value, put under its name in the --json
    /// result; empty for none.
    virtual std::string json() const { return {}; }
    virtual std::vector<TestCase> test_cases() const { return {}; }
    /// The analysis's part of the --report page: HTML <section> elements, self-contained (inline
    /// SVG and styles; nothing fetched when the page is viewed). Empty for none. A section's
    /// heading is an <h2>; the page lists every section's heading in its table of contents.
    virtual std::string report_html() const { return {}; }
    /// Why the run fails, one line each (printed after "emutrace: "); empty when it passes.
    virtual std::vector<std::string> failures() const { return {}; }
};

/// Builds the analysis; returns null when the scenario and the command line ask nothing of it.
/// Throws ConfigError (Node::fail) for a bad section, naming file and line.
using AnalysisFactory = std::unique_ptr<Analysis> (*)(const AnalysisSetup& setup);

/// A registry row: what `emutrace analyses` lists and what run and crosscheck wire up.
struct AnalysisType {
    std::string name;                     ///< the key of its JSON result
    std::string summary;                  ///< one line
    std::vector<std::string> sections;    ///< top-level scenario keys it parses
    std::vector<AnalysisOption> outputs;  ///< files: outputs.<name> in the scenario or --<name> FILE
    std::vector<AnalysisOption> flags;    ///< command-line options that are not files
    std::uint32_t wants = 0;              ///< trace::Capability bits its sinks take, for the listing
    AnalysisFactory create = nullptr;
};

}  // namespace emutrace
