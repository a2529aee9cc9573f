#include "app/cli/run_options.h"

#include <stdexcept>

#include "config/units.h"
#include "emutrace/config_error.h"
#include "models/core.h"
#include "session/scenario.h"

namespace emutrace::app::cli {

void RunOptionsDeclaration::declare_machine(Command& cmd) {
    RunOptions& run = options;
    // Not existing_file(): a misspelt option before a value would then be reported as that
    // value not being a file; the loader names a missing ELF itself.
    cmd.option("elf", run.elf, "Firmware ELF (32-bit ARM, linked); default: the scenario's firmware");
    std::string presets;
    for (const auto& name : session::board_preset_names()) presets += (presets.empty() ? "" : ", ") + name;
    cmd.option("-s,--scenario", run.scenario,
               "Scenario YAML (core, clock, memory, peripherals, stops, outputs), or a board preset by name: " + presets);
    cmd.option("--set", run.settings,
               "Set a scenario key over the file's (repeatable): --set clock=36MHz --set stimuli[0].jitter=200us "
               "--set 'peripherals[1].params.registers[0].sequence=[1, 2, 3]'")
        .type_name("PATH=VALUE");
    cmd.option("--cpu", run.machine.cpu,
               "Core, overriding the scenario: " + emutrace::models::core_names() +
                   " (default: the scenario's cpu, else the core the ELF's build attributes name, else cortex-m3)");
    cmd.option("--clock", run.machine.clock, "Core clock, overriding the scenario, e.g. 168MHz");
    cmd.option("--timing", run.machine.timing,
               "Cycle model: pipeline (the pipeline and bus components, through their block-cost cache; default), trm (per-block "
               "costs from the core's TRM timings) or none (1 cycle per instruction)");
    cmd.option("--max-instructions", max_instructions_, "Stop after this many instructions (e.g. 5000000 or 5e6)");
    cmd.option("--wall-clock", wall_clock_, "Host-time limit, e.g. 10s or 500ms (default 60s; 0 = none)");
    cmd.option("--stop-at", run.machine.stop_at, "Stop when execution reaches this symbol");
    cmd.option("--cmdline", run.machine.cmdline, "Text the firmware reads with semihosting SYS_GET_CMDLINE");
    cmd.option("--dump-ram", run.dump_ram,
               "At the end, write the RAM regions as an ELF core file (a board's memory dump: readelf, objcopy, replay --from-dump)")
        .type_name("FILE");
    cmd.option("--gdb", run.gdb,
               "Wait for GDB before the reset handler runs and serve it on [HOST:]PORT (127.0.0.1 unless a host is given; 0 picks a free "
               "port): breakpoints, watchpoints, stepping, registers, memory, RTOS threads, monitor cycles; in a replay also "
               "reverse-stepi and reverse-continue; in GDB: target remote HOST:PORT. The cycle count is the same attached or not; "
               "the wall-clock limit is off unless --wall-clock is given (docs/gdb.md)")
        .type_name("[HOST:]PORT");
    cmd.option("--seed", run.machine.seed, "Seed of the stimuli's jitter, overriding the scenario's (same seed, same run)");
    outputs_.add(cmd, "--json", "json", "Write the run summary and every analysis's result as JSON to this file");
    outputs_.add(cmd, "--junit", "junit", "Write the analyses' test cases (timing constraints, ...) as JUnit XML");
    outputs_.add(cmd, "--report", "report",
                 "Write one self-contained HTML page (no network needed to view it): summary, constraints, timeline, profile, flame graph "
                 "and each analysis's charts",
                 "FILE.html");
    outputs_.add(cmd, "--checkpoint-every", "checkpoint_every",
                 "Rewrite the --json result every this much emulated time, e.g. 1h: a long run that is killed keeps its figures up to the "
                 "last one (outputs.checkpoint_every)",
                 "DURATION");
    cmd.option("--progress", progress_,
               "The progress line on stderr (emulated time, instructions, MIPS, events) of a run longer than a second: "
               "auto (default: when stderr is a terminal), always or never; -q turns it off")
        .one_of({"auto", "always", "never"});
}

void RunOptionsDeclaration::declare_analyses(Command& cmd, const AnalysisRegistry& registry) {
    analyses_.declare(cmd, registry);
    cmd.flag("-v,--verbose", verbose_, "Log debug detail");
    cmd.flag("-q,--quiet", quiet_, "Print only errors; no summary");
}

void RunOptionsDeclaration::finish() {
    RunOptions& run = options;
    analyses_.collect(run.options);
    outputs_.collect(run.options);
    if (!run.dump_ram.empty()) run.options["dump-ram"] = run.dump_ram;
    if (!run.gdb.empty()) run.options["gdb"] = run.gdb;
    if (!max_instructions_.empty()) {
        double v = 0;
        try {
            std::size_t used = 0;
            v = std::stod(max_instructions_, &used);
            if (used != max_instructions_.size() || v < 1 || v > 1e18) throw std::invalid_argument("range");
        } catch (const std::exception&) {
            throw ConfigError("--max-instructions: expected a positive count, got '" + max_instructions_ + "'");
        }
        run.machine.max_instructions = static_cast<std::uint64_t>(v);
    }
    if (!wall_clock_.empty()) {
        auto s = config::parse_seconds(wall_clock_);
        if (!s) throw ConfigError("--wall-clock: expected a duration such as 10s, got '" + wall_clock_ + "'");
        run.machine.wall_clock_seconds = *s;
    }
    run.progress = progress_ == "always"  ? RunRequest::Progress::Always
                   : progress_ == "never" ? RunRequest::Progress::Never
                                          : RunRequest::Progress::Auto;
    run.verbosity = verbosity();
}

}  // namespace emutrace::app::cli
