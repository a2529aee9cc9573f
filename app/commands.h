#pragma once
// The emutrace subcommands, callable from main() and from tests. Each returns the process exit
// status and throws ConfigError for bad input.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace emutrace::app {

enum class Verbosity { Quiet, Normal, Verbose };

struct RunOptions {
    std::string elf;
    std::string scenario;                          ///< empty = built-in mps2-an385 layout
    std::optional<std::string> cpu;
    std::optional<std::string> clock;
    std::optional<std::string> timing;             ///< "trm" or "none"
    std::optional<std::uint64_t> max_instructions;
    std::optional<double> wall_clock_seconds;
    std::optional<std::string> stop_at;
    std::optional<std::string> cmdline;
    std::optional<std::string> json;
    std::optional<std::string> events;
    std::optional<std::string> junit;
    std::optional<std::string> perfetto;
    std::optional<std::string> trace;              ///< compact trace file
    std::optional<std::string> pft;                ///< CoreSight PFT byte stream
    std::optional<std::string> snapshot;           ///< OpenCSD snapshot directory
    bool calltrace = false;                        ///< trace calls even without a calltrace: key
    std::optional<std::string> baseline;           ///< an earlier --json result to compare constraints with
    double regression_threshold = 0.05;            ///< a max duration this much longer is a regression
    Verbosity verbosity = Verbosity::Normal;
};

struct CfgOptions {
    std::string elf;
    std::string function;  ///< empty: all functions
    std::string dot;       ///< Graphviz output
    std::string json;
};

int run_command(const RunOptions& options);
struct CrosscheckOptions {
    std::string snapshot;  ///< OpenCSD snapshot directory
    unsigned trace_id = 0;  ///< 0: every PTM source
    std::string json;
    std::string events;    ///< the decoded capture as JSON Lines, as `run --events` writes
    std::string elf;       ///< symbols for coverage and the profile, and the firmware to emulate
    std::string scenario;  ///< emulate the ELF on this scenario and compare with the capture
    std::string cmdline;   ///< the emulated firmware's semihosting command line
};

/// Decodes a trace capture (OpenCSD snapshot directory) and prints what it holds; with an ELF,
/// coverage and a per-function profile; with a scenario too, the comparison with an emulated
/// run. Returns 1 when the paths differ.
int crosscheck_command(const CrosscheckOptions& options);
/// Prints each function's blocks, edges, loops and calls; optionally DOT and JSON.
int cfg_command(const CfgOptions& options);

struct WcetOptions {
    std::string elf;
    std::string scenario;                 ///< empty: the built-in board
    std::string function;                 ///< overrides the scenario's wcet.function
    std::string cmdline;                  ///< semihosting command line of the run
    std::vector<std::string> stats_in;    ///< statistics of earlier runs to merge
    std::string stats_out;                ///< where to save the merged statistics
    bool no_run = false;                  ///< only merge and solve
    bool all = false;                     ///< bound every function that ran, as a table
    std::string json, dot;
};
int wcet_command(const WcetOptions& options);

struct SiliconOptions {
    std::string dir;           ///< <category>/<test>.tzst measurements
    std::string json;
    std::size_t show = 0;      ///< print this many mismatching configurations in detail
    double min_rate = 0;       ///< exit 1 below this exact-match rate (0..1)
};
int silicon_command(const SiliconOptions& options);
int info_command(const std::string& elf);
/// Prints a compact trace file, with function names when an ELF is given.
int dump_command(const std::string& trace, const std::string& elf);

}  // namespace emutrace::app
