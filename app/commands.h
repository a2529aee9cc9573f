#pragma once
// The emutrace subcommands, callable from main() and from tests. Each returns the process exit
// status and throws ConfigError for bad input.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "emutrace/registry.h"
#include "emutrace/session.h"

namespace emutrace::app {

enum class Verbosity { Quiet, Normal, Verbose };

struct RunOptions {
    std::string elf;
    std::string scenario;               ///< empty = built-in mps2-an385 layout
    std::vector<std::string> settings;  ///< --set path=value over the scenario's keys
    MachineOverrides machine;
    /// --json, --junit and every registered analysis's options that were given, by name.
    std::map<std::string, std::string> options;
    std::string dump_ram;            ///< --dump-ram: the RAM at the end as an ELF core
    std::string gdb;                 ///< --gdb [HOST:]PORT: wait for GDB and serve it
    bool emutrace_statuses = false;  ///< --exit-status emutrace
    Verbosity verbosity = Verbosity::Normal;
    RunRequest::Progress progress = RunRequest::Progress::Auto;  ///< --progress; never with -q
};

struct CfgOptions {
    std::string elf;
    std::string function;  ///< empty: all functions
    std::string dot;       ///< Graphviz output
    std::string json;
};

int run_command(const AnalysisRegistry& registry, const RunOptions& options);
struct CrosscheckOptions {
    std::string snapshot;             ///< OpenCSD snapshot directory
    std::string swo;                  ///< or an SWO capture (ITM/DWT packets): PC samples and exceptions
    unsigned timestamp_prescale = 1;  ///< the capture's ITM_TCR.TSPrescale (1, 4, 16, 64)
    double max_share_difference = 0;  ///< with swo: exit 1 when a function's share differs more (points); 0: no gate
    unsigned trace_id = 0;            ///< 0: every PTM source
    std::string elf;                  ///< symbols for coverage and the profile, and the firmware to emulate
    std::string scenario;             ///< emulate the ELF on this scenario and compare with the capture
    std::string cmdline;              ///< the emulated firmware's semihosting command line
    /// --json and the registered analyses' options (--events, --calltrace, --wcet, ...), by name.
    std::map<std::string, std::string> options;
};

/// Decodes a trace capture (OpenCSD snapshot directory) and runs the asked-for analyses on it,
/// as `run` does on an emulated run; with an ELF, coverage and a per-function profile; with a
/// scenario too, the comparison with an emulated run. Returns 1 when the paths differ or an
/// analysis fails.
int crosscheck_command(const AnalysisRegistry& registry, const CrosscheckOptions& options);

struct DecodeOptions {
    std::string source;                          ///< a registered source's name
    std::string input;                           ///< its file or directory
    std::string elf;                             ///< the traced firmware: symbols for the analyses
    std::string scenario;                        ///< the analyses' sections, rtos: thread names
    std::map<std::string, std::string> options;  ///< --json, --junit, --report, the source's and analyses' options
};

/// Reads a recorded trace with a registered source and runs the asked-for analyses on it, as
/// `run` does on an emulated run. Returns the session's status (the source's verdict, or 1 when an
/// analysis failed).
int decode_command(const AnalysisRegistry& registry, const DecodeOptions& options);

struct RingdumpOptions {
    std::string dump;                            ///< the device's memory dump
    std::string base;                            ///< address of a raw dump's first byte
    std::string elf;                             ///< the traced firmware
    std::string scenario;                        ///< analyses' sections (calltrace:, constraints:) and the rtos: thread names
    bool compare = false;                        ///< also run the ELF in emulation and compare the call traces
    std::map<std::string, std::string> options;  ///< --json, --junit, the analyses' options
};
struct PatchOptions {
    std::string elf, output;
    bool disable_all = false, list = false;
    std::vector<std::string> enable, disable;  ///< function-name globs
};
/// Turns the -finstrument-functions hook calls of an ELF into NOPs and back, per function.
int patch_command(const PatchOptions& options);

struct OverheadOptions {
    std::string elf;       ///< the instrumented build (-finstrument-functions, -Wl,--emit-relocs)
    std::string original;  ///< the build without instrumentation: configuration a
    std::string scenario;
    std::vector<std::string> enable;  ///< configuration c's functions (globs); default every one
    std::string budget;               ///< e.g. "5%": de-select until c is within it of b
};
/// The paper's configurations a/b/c run on the scenario, and a budget-driven selection.
int overhead_command(const AnalysisRegistry& registry, const OverheadOptions& options);

/// Decodes the on-target tracer's ring from a memory dump and runs the analyses on it.
int ringdump_command(const AnalysisRegistry& registry, const RingdumpOptions& options);
/// Lists the registered analyses with their scenario sections, outputs and options.
int analyses_command(const AnalysisRegistry& registry);
/// Prints each function's blocks, edges, loops and calls; optionally DOT and JSON.
int cfg_command(const CfgOptions& options);

struct WcetOptions {
    std::string elf;
    std::string scenario;               ///< empty: the built-in board
    std::string function;               ///< overrides the scenario's wcet.function
    std::string cmdline;                ///< semihosting command line of the run
    std::vector<std::string> stats_in;  ///< statistics of earlier runs to merge
    std::string stats_out;              ///< where to save the merged statistics
    bool no_run = false;                ///< only merge and solve
    bool all = false;                   ///< bound every function that ran, as a table
    std::string json, dot;
    std::string report;                         ///< --report: the HTML page
    std::optional<std::uint64_t> call_context;  ///< --call-context K; unset: the scenario's or the default
    std::vector<std::string> flow_facts_in;     ///< --flow-facts FILE, repeatable
    std::string flow_facts_out;                 ///< --flow-facts-out FILE
    std::string path_counts;                    ///< --path-counts runs|any; empty: the scenario's or runs
};
int wcet_command(const WcetOptions& options);

struct SiliconOptions {
    std::string dir;  ///< <category>/<test>.tzst measurements
    std::string json;
    std::string report;                  ///< --report: the HTML page
    std::string board;                   ///< a board preset (scenarios/boards) or a scenario file; empty: by the folder
    std::uint64_t max_instructions = 0;  ///< per configuration; 0 = no limit (the host-time bound ends a runaway)
    std::string timing;                  ///< "trm", "pipeline" or "none" instead of the board's
    double timeout = -1;                 ///< host seconds per configuration; < 0: 300, or scaled with max_instructions
    std::string split = "all";           ///< given, validation or all
    std::size_t show = 0;                ///< print this many mismatching configurations in detail
    double min_rate = 0;                 ///< exit 1 below this exact-match rate (0..1)
    unsigned jobs = 0;                   ///< configurations at a time; 0: one per core
    std::string progress = "auto";       ///< the progress line on stderr: auto (a terminal), always, never
};
int silicon_command(const SiliconOptions& options);

struct CampaignOptions {
    enum class Action { Run, Status, Merge } action = Action::Run;
    std::string file;
    unsigned jobs = 0;  ///< 0: one per core
    bool resume = false;
    bool quiet = false;
    std::string json, junit;                    ///< over the campaign file's outputs
    std::string report;                         ///< --report: the merged HTML page
    std::string engine = "local";               ///< local or slurm
    unsigned shard_index = 0, shard_count = 0;  ///< --shard I/N (a Slurm array task); 0: every case
    unsigned shards = 0;                        ///< --shards: Slurm array tasks (0: one per case, at most 100)
    std::string partition;
    std::vector<std::string> sbatch_args;
    bool retry_failed = false;
};
int campaign_command(const AnalysisRegistry& registry, const CampaignOptions& options);

struct MarkersOptions {
    std::string elf;
    std::string function;
    std::string scheme = "bitvec+";
    unsigned steps = 50;
    std::string cpu;                        ///< empty: the core the ELF was built for, else cortex-m3
    std::uint64_t max_delta_t = 100'000;    ///< the pair search's limit, in cycles
    std::uint64_t max_states = 20'000'000;  ///< and its budget of product states
    std::string json;
    std::string report;            ///< --report: the HTML page
    std::string header;            ///< the plan as a C header for a firmware build
    bool verbose = false;          ///< print each step's intersecting pair
    bool exact_durations = false;  ///< blocks take exactly their best case (the paper's model)
};
/// Plans markers for a sampling monitor of one function (docs/sampler.md).
int markers_command(const MarkersOptions& options);
int info_command(const std::string& elf);
/// Prints a compact trace file, with function names when an ELF is given.
int dump_command(const std::string& trace, const std::string& elf);

}  // namespace emutrace::app
