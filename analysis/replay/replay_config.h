#pragma once
// The scenario's replay: section: which firmware functions are which synchronisation operation,
// which devices are inputs, which interrupts are events, and where replay holds a thread
// (docs/replay.md). Shared by recording, replay and the race detector.

#include "analysis/replay/recorder.h"
#include "analysis/replay/replayer.h"
#include "emutrace/analysis.h"

namespace emutrace::decode {
class Program;
}  // namespace emutrace::decode

namespace emutrace::decode {
struct RtosPreset;
}  // namespace emutrace::decode

namespace emutrace::analysis::replay {

/// Cycles a call of the firmware-side recorder costs at its call site on a Cortex-M3 (argument
/// set-up, the call and the pipeline refill), beyond the recorder's own functions, under the cycle
/// model `cycle_model` ("trm", "pipeline", "none"): calibrated by bench/bench_replay on the replay
/// application's seeds 1-10, per model, since each times the same instructions its own way
/// (docs/replay.md).
std::uint32_t default_site_cycles(std::string_view cycle_model);

using AddressRanges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

struct ReplaySection {
    RecorderConfig calls;
    std::optional<HoldCall> hold;
    /// The functions whose cycles are recording overhead (instrumentation: globs; default the
    /// firmware-side recorder's er_*), as [start, end).
    AddressRanges instrumentation;
    /// What a call into instrumentation costs its caller (--site-cycles).
    std::uint32_t site_cycles = 0;
};

/// [start, end) of every function of the image whose name matches one of the globs (fnmatch).
AddressRanges function_ranges(const decode::Program& program, const std::vector<std::string>& globs);

/// The scenario's `rtos: NAME` preset (decode/rtos_preset.h), or null.
const decode::RtosPreset* rtos_preset(const AnalysisSetup& setup);
/// Whether the scenario says what to record: a replay: section, or an RTOS preset.
bool has_replay_config(const AnalysisSetup& setup);
/// The functions the RTOS preset's kernel sources define (from DWARF): their accesses to the
/// kernel's own state are synchronisation, not data. Empty without a preset.
std::vector<std::string> kernel_functions(const AnalysisSetup& setup);

/// Parses the section (which may be undefined when an RTOS preset names the calls); fails
/// (naming file and line) on an unknown key, a function not in the image, an acquisition that
/// can leave other than by a return, or a section naming nothing. An RTOS preset's calls come
/// first; a function of the firmware's that the preset names is watched as the preset says.
ReplaySection parse_replay_section(const AnalysisSetup& setup, const config::Node& section);

/// The watch-point addresses of the configured functions.
std::vector<std::uint32_t> watch_addresses(const RecorderConfig& calls);

}  // namespace emutrace::analysis::replay
