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

namespace emutrace {

namespace decode {
class ElfImage;  // in-tree analyses include decode/elf_image.h; plug-ins use AnalysisSetup's lookups
}

/// A command-line option of an analysis: `--name VALUE` when value_name is set, else the flag `--name`.
struct AnalysisOption {
    std::string name;        ///< without the dashes; also the outputs.<name> key for an output
    std::string value_name;  ///< e.g. "FILE"; empty for a flag
    std::string help;        ///< one line for --help and `emutrace analyses`
};

/// What the source delivered, for figures relative to the whole run.
struct SourceTotals {
    std::string source;            ///< "emulator", or the capture's snapshot directory
    std::uint64_t instructions = 0;
    std::uint64_t cycles = 0;      ///< the last cycle stamp (instructions for a capture without cycle counts)
    std::uint64_t clock_hz = 0;
    double emulated_seconds = 0;   ///< cycles / clock_hz
    bool complete = true;          ///< false when the run faulted, hung or hit a limit
};

/// One JUnit test case (the run's --junit file holds every analysis's cases).
struct TestCase {
    std::string classname;  ///< e.g. "emutrace.constraints"
    std::string name;
    double seconds = 0;     ///< JUnit's time attribute: the measured duration
    std::string failure;    ///< the failure message; empty when the case passed
    std::string details;    ///< the failure's text
    std::string output;     ///< system-out
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
    /// False when the events come from a capture: trace points are then not honoured.
    virtual bool emulated() const = 0;
    /// The loaded ELF, for in-tree analyses (decode/elf_image.h is not installed).
    virtual const decode::ElfImage& image() const = 0;
};

class Analysis {
public:
    virtual ~Analysis() = default;
    /// The sinks to connect to the source; owned by the analysis, valid until it is destroyed.
    virtual std::vector<trace::TraceSink*> sinks() = 0;
    /// Code addresses at which the emulator must start a Block event (loop headers, say).
    virtual std::vector<std::uint32_t> trace_points() const { return {}; }
    /// After the last batch: finish the figures and write the analysis's own output files.
    virtual void finish(const SourceTotals& totals) { (void)totals; }
    /// Lines for the terminal summary; empty for none.
    virtual std::string summary() const { return {}; }
    /// The analysis's result as the text of one JSON value, put under its name in the --json
    /// result; empty for none.
    virtual std::string json() const { return {}; }
    virtual std::vector<TestCase> test_cases() const { return {}; }
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
