#pragma once
// An analysis: one or more sinks on the event model, built from its own scenario section and
// command-line options, contributing summary lines, a JSON object, JUnit test cases and failures
// that make the run exit 1. In-tree analyses are rows of analysis/registry.cpp; out-of-tree ones
// come in plug-ins (emutrace/plugin.h). docs/design.md, "Writing an analysis", has an example.

#include <cstdint>
#include <functional>
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

/// One case of a campaign (emutrace campaign), as its merge sees it.
struct CampaignCase {
    std::string id;        ///< "case-0007"
    std::string label;     ///< the id, its run entry and its settings, for test names
    std::string group;     ///< its run entry
    std::string firmware;  ///< the ELF its result names
    std::string scenario;  ///< its scenario file
    std::string dir;       ///< its directory: result.json and the files its run wrote
    int status = 0;        ///< its run's exit status
};

/// What a campaign offers an analysis's totals once every case of a run entry is in: work of
/// their own over all of them (one WCET bound from every case's statistics).
class CampaignRunEntry {
public:
    virtual ~CampaignRunEntry() = default;
    virtual const std::string& name() const = 0;
    /// A path prefix in the campaign's results directory, unique to this run entry and `what`.
    virtual std::string output_prefix(std::string_view what) const = 0;
    /// Runs this emutrace command with `arguments` (its stdout and stderr to prefix.stdout and
    /// prefix.stderr); returns its exit status.
    virtual int run_emutrace(const std::vector<std::string>& arguments, const std::string& prefix) const = 0;
};

/// An analysis's results over a campaign's cases: each case's JSON result for the analysis folded
/// into totals. add_case() and merge() are associative and commutative, so the order cases finish
/// in, or how they are split among machines, does not change the answer.
class CampaignTotals {
public:
    virtual ~CampaignTotals() = default;
    /// Folds in one case: `result` is the text of the analysis's JSON value in the case's result.
    virtual void add_case(const CampaignCase& c, const std::string& result) = 0;
    /// Adds totals of the same analysis (another run entry's, another machine's).
    virtual void merge(const CampaignTotals& other) = 0;
    virtual std::unique_ptr<CampaignTotals> copy() const = 0;
    /// The totals as the text of one JSON object, whose members join the campaign result's object
    /// for the cases (`overall`, and each run entry's).
    virtual std::string json() const = 0;
    /// Lines for the campaign's summary, each indented by two spaces; `brief` for one run entry of several.
    virtual std::string summary(bool brief) const {
        (void)brief;
        return {};
    }
    /// After every case of one run entry is in: work over all of them, kept in json(); returns
    /// lines said after the campaign's summary.
    virtual std::string finish(const CampaignRunEntry& entry) {
        (void)entry;
        return {};
    }
    /// JUnit test cases of one case (a constraint's verdict in it); none: the case is one test of its own.
    virtual std::vector<TestCase> test_cases(const CampaignCase& c, const std::string& result) const {
        (void)c;
        (void)result;
        return {};
    }
};

/// How an analysis takes part in a campaign; a row without it is left out of the merge.
struct CampaignMerge {
    /// Empty totals, before any case.
    std::function<std::unique_ptr<CampaignTotals>()> totals;
    /// Its sections of the campaign's --report page, drawn from the text of the merged campaign
    /// result alone (so `campaign merge --report` draws them from the results directory).
    std::function<std::string(const std::string& merged)> report_html;
    /// Its outputs (names of AnalysisType::outputs) every case's run writes into its directory as
    /// <name>.json, for finish() to read there (the WCET analysis's statistics: "wcet_stats").
    std::vector<std::string> case_outputs = {};
};

/// Builds the analysis; returns null when the scenario and the command line ask nothing of it.
/// Throws ConfigError (Node::fail) for a bad section, naming file and line.
using AnalysisFactory = std::function<std::unique_ptr<Analysis>(const AnalysisSetup& setup)>;

/// A registry row: what `emutrace analyses` lists and what run and crosscheck wire up.
struct AnalysisType {
    std::string name;                     ///< the key of its JSON result
    std::string summary;                  ///< one line
    std::vector<std::string> sections;    ///< top-level scenario keys it parses
    std::vector<AnalysisOption> outputs;  ///< files: outputs.<name> in the scenario or --<name> FILE
    std::vector<AnalysisOption> flags;    ///< command-line options that are not files
    std::uint32_t wants = 0;              ///< trace::Capability bits its sinks take, for the listing
    AnalysisFactory create = nullptr;
    CampaignMerge campaign = {};  ///< empty: the analysis takes no part in a campaign's merge
};

}  // namespace emutrace
