#pragma once
// Runs a folder of real-silicon cycle measurements (tests/data/silicon's format: per test a .tzst of
// N.flash images and N.dump MessagePack results) in the emulator and compares every dumped memory
// region with what the emulated run left there (docs/silicon.md).

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emu/machine_config.h"

namespace emutrace::silicon {

/// A 32-bit word the board and the emulator disagree on.
struct WordMismatch {
    std::string region;       ///< the dump's symbol, e.g. "times"
    std::uint32_t index = 0;  ///< word index in the region
    std::uint32_t measured = 0, emulated = 0;
    /// emulated - measured, as a signed 32-bit difference (a counter that wrapped stays small).
    std::int64_t error() const { return static_cast<std::int32_t>(emulated - measured); }
};

/// Error bins of a compared word, emulated - measured: <-10, -10..-6, -5..-3, -2, -1, 0, +1, +2,
/// +3..+5, +6..+10, >+10.
inline constexpr std::size_t kErrorBins = 11;
constexpr std::size_t error_bin(std::int64_t e) {
    if (e < -10) return 0;
    if (e <= -6) return 1;
    if (e <= -3) return 2;
    if (e <= 2) return static_cast<std::size_t>(e + 5);
    if (e <= 5) return 8;
    if (e <= 10) return 9;
    return 10;
}

/// How one dumped region compared, all its words (matching or not).
struct RegionWords {
    std::string region;
    std::array<std::uint64_t, kErrorBins> bins{};  ///< its words by error_bin
    std::uint32_t words = 0;                       ///< whole 32-bit words compared
    std::uint64_t abs_error = 0;                   ///< sum of |emulated - measured| over them
    std::uint32_t nonzero = 0;                     ///< words measured other than 0
    double relative_error = 0;                     ///< sum of |emulated - measured| / measured over those
};

/// Differing words a configuration keeps: a dump of 32 MiB all different (from a 184 KB archive)
/// would otherwise hold and write millions.
inline constexpr std::size_t kMostMismatchesKept = 1000;

/// A compiled program's whole run as the board's DWT counted it: the first word of a dumped region
/// named `cyccnt` (CYCCNT over the whole program, then CPICNT, LSUCNT, FOLDCNT), against the
/// emulated run's. The figure a compiled set is judged on, rather than every word's exactness.
struct WholeProgram {
    std::uint32_t measured = 0, emulated = 0;
    /// emulated - measured as a signed 32-bit difference (CYCCNT wraps).
    std::int64_t error() const { return static_cast<std::int32_t>(emulated - measured); }
    /// The error in percent of the measured count (0 when both are 0).
    double error_percent() const { return measured ? 100.0 * static_cast<double>(error()) / measured : error() ? 100.0 : 0.0; }
};
inline constexpr std::string_view kWholeProgramRegion = "cyccnt";

struct SiliconConfiguration {
    std::uint32_t number = 0;                   ///< N of N.flash / N.dump
    std::string name;                           ///< the dump's configuration_name
    bool exact = false;                         ///< every dumped region matched byte for byte
    std::string error;                          ///< the emulated run did not reach the exit address: why
    std::uint64_t instructions = 0;             ///< executed by the emulated run
    std::vector<WordMismatch> mismatches;       ///< the first kMostMismatchesKept differing words, in dump order
    std::uint64_t mismatched_words = 0;         ///< how many differ in all
    std::vector<RegionWords> regions;           ///< every compared region, in dump order
    std::optional<WholeProgram> whole_program;  ///< when the dump has the whole program's counters
    std::vector<std::string> code;              ///< the measured instruction sequence, disassembled
};

/// Which tests run: the validation set is every 5th archive, in path order, of each category folder
/// (indices 4, 9, 14, ...), held aside so the model is not tuned on it; the given set is the rest.
enum class Split : std::uint8_t { Given, Validation, All };
std::string_view to_string(Split split);
/// Archive `index` (0-based, path order) of its category folder is in the validation set.
constexpr bool in_validation_set(std::size_t index) {
    return index % 5 == 4;
}

struct SiliconTest {
    std::string category, name;
    bool validation = false;  ///< in the held-aside validation set
    std::vector<SiliconConfiguration> configurations;
    std::size_t exact() const;
};

struct SiliconRunOptions {
    /// A fresh machine of the board for each configuration (devices keep state): memory map, core,
    /// clock. The runner adds entry, stop, DWT and logging on top, and loads each flash image at
    /// the board's vector table (or its first read-only region). Called from the worker threads,
    /// one at a time.
    std::function<emu::MachineConfig()> board;
    std::uint64_t max_instructions = 0;  ///< a run that has not reached its exit by then fails; 0 = no limit
    double wall_clock_seconds = 300;     ///< host time per configuration; 0 = no limit
    /// Host seconds a configuration gets per million cycles its dump measured over the whole
    /// program (cyccnt), when that is more than wall_clock_seconds: a long benchmark on a slow host
    /// still ends; 0 = none.
    double seconds_per_million_measured_cycles = 0;
    Split split = Split::All;
    unsigned jobs = 1;  ///< configurations run at a time, each on a thread and a machine of its own
};

/// What a suite's run is doing, for a progress line.
struct SuiteStatus {
    std::size_t tests = 0, tests_done = 0;  ///< of the split
    std::size_t configurations_done = 0;
    struct Running {
        std::string test;  ///< "category/test"
        std::uint32_t number = 0;
        double seconds = 0;  ///< host time so far
    };
    std::vector<Running> running;
};

/// Runs every `<category>/<test>.tzst` under `dir` of `options.split` in name order, `options.jobs`
/// configurations at a time; `progress` (if given) hears of each test as it finishes, in that order,
/// and `watch` (if given), on the calling thread, of the run's status about once a second while it
/// waits for configurations. A stop signal (emu/stop_signal.h) ends the configurations running
/// (each says so in its error) and the reading: the tests read by then are the result. Throws ConfigError naming the file when an
/// archive or dump is malformed, or when the board has no flash for the images.
std::vector<SiliconTest> run_silicon_suite(const std::string& dir, const SiliconRunOptions& options,
                                           const std::function<void(const SiliconTest&)>& progress = {},
                                           const std::function<void(const SuiteStatus&)>& watch = {});

}  // namespace emutrace::silicon
