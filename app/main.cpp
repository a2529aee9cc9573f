// emutrace: run ARM Cortex-M firmware in an emulator and turn the run into trace streams.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <algorithm>

#include <cstdio>
#include <exception>

#include "analysis/sampler/marker_scheme.h"
#include "app/commands.h"
#include "config/config_error.h"
#include "config/units.h"
#include "emu/peripherals/registry.h"
#include "models/core.h"
#include "session/scenario.h"

namespace {

constexpr const char* kRunFooter = R"(
Examples:
  emutrace run build/firmware/compute.elf
  emutrace run fw.elf --scenario scenarios/stub-sensor/stub-sensor.yaml --json result.json
  emutrace run fw.elf --cpu cortex-m4 --clock 168MHz --json result.json
  emutrace run fw.elf --cpu cortex-m0 --max-instructions 1e6 --events events.jsonl

Without --scenario the firmware runs on the built-in MPS2-AN385 layout: Cortex-M3 at 25 MHz,
flash at 0x0 (4 MiB), SRAM at 0x20000000 (4 MiB), CMSDK UART0 at 0x40004000.

Exit status: the firmware's exit code when it exits through semihosting; 0 when it reaches
--stop-at; 1 when a timing constraint is violated; 2 for bad input or a firmware fault; 3 max
instructions; 4 wall-clock limit; 5 hang; 6 reset requested. A firmware's own code can be any of
these: with --exit-status emutrace only emutrace's statuses are used, and a firmware that exits
non-zero gives 8 (a CI gate then tells "the firmware failed" from "emutrace stopped it").

The analysis options above come from the registry: 'emutrace analyses' lists each analysis with
its scenario section; --plugin FILE (before or after 'run') adds the options of out-of-tree ones.)";

void set_up_logging(emutrace::app::Verbosity v) {
    auto logger = spdlog::stderr_color_st("emutrace");
    logger->set_pattern("emutrace: %^%l%$: %v");
    logger->set_level(v == emutrace::app::Verbosity::Verbose ? spdlog::level::debug
                      : v == emutrace::app::Verbosity::Quiet ? spdlog::level::err
                                                             : spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

// --plugin FILE (or --plugin=FILE) anywhere on the command line: loaded before the options are
// declared, so that a plug-in's own options parse like the built-in ones.
std::vector<std::string> plugin_arguments(int argc, char** argv) {
    std::vector<std::string> out;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--plugin" && i + 1 < argc)
            out.push_back(argv[++i]);
        else if (a.starts_with("--plugin="))
            out.push_back(a.substr(9));
    }
    return out;
}

// Declares every registered analysis's outputs and options on a command; after parsing,
// collect() gathers those given into the options map.
class AnalysisOptions {
public:
    void declare(CLI::App& cmd, const emutrace::AnalysisRegistry& registry) {
        for (const auto& t : registry.types()) {
            for (const auto& o : t.outputs) add(cmd, o, true);
            for (const auto& f : t.flags) add(cmd, f, false);
        }
    }
    void collect(std::map<std::string, std::string>& into) const {
        for (const auto& [name, option, value] : declared_)
            if (option->count()) into[name] = *value;
    }

private:
    void add(CLI::App& cmd, const emutrace::AnalysisOption& o, bool output) {
        // outputs.events_limit is --events-limit on the command line.
        std::string flag = "--" + o.name;
        std::replace(flag.begin(), flag.end(), '_', '-');
        // The command's own option of that name wins (crosscheck's --snapshot is the capture it reads).
        if (cmd.get_option_no_throw(flag)) return;
        auto value = std::make_shared<std::string>();
        CLI::Option* opt =
            o.value_name.empty() ? cmd.add_flag(flag, o.help) : cmd.add_option(flag, *value, o.help + (output ? " (outputs." + o.name + ")" : ""));
        if (!o.value_name.empty()) opt->type_name(o.value_name);
        declared_.push_back({o.name, opt, value});
    }
    struct Declared {
        std::string name;
        CLI::Option* option;
        std::shared_ptr<std::string> value;
    };
    std::vector<Declared> declared_;
};

std::string peripheral_list() {
    std::string s;
    for (const auto& t : emutrace::emu::peripheral_types()) s += "\n  " + std::string(t.name) + ": " + std::string(t.summary);
    return s;
}

}  // namespace

constexpr const char* kReplayFooter = R"(
The scenario's replay: section says which functions are which synchronisation operation and
which devices are inputs (docs/replay.md). The scenario's stimuli do not run: input reads return
the logged values and external interrupts arrive at their logged cycle (a recording emutrace made
on the same core, clock and timing: the run is reproduced cycle for cycle) or once the events
logged before them have run (a board's log, another cycle model, --in-order). A thread whose next
event's predecessor has not run yet is held in the section's hold call (a yield, or a delay of
one tick) until it has. The first event that differs from the log stops the replay with a report:
event, thread, expected and seen, call stack, cycle. The summary ends with each thread's
execution time with the replay's and the firmware recorder's overhead removed.

Examples:
  emutrace run fw.elf -s board.yaml --record run.log
  emutrace replay run.log fw.elf -s board.yaml --calltrace --races
  emutrace replay run.log fw.elf -s board.yaml --timing none --record replayed.log
  emutrace replay --from-dump board.core fw.elf -s board.yaml      # firmware/replay's ring in a memory dump
  emutrace replay --from-dump ram.bin --base 0x20000000 fw.elf -s board.yaml

Exit status: 0 the log was reproduced; 1 the replay diverged or an analysis failed; 2 bad input.)";

int usage_error_for(const std::string& command, const std::string& what) {
    std::fprintf(stderr, "emutrace: error: %s (see 'emutrace %s --help')\n", what.c_str(), command.c_str());
    return 2;
}

int usage_error(const std::string& what) {
    std::fprintf(stderr, "emutrace: error: %s (see 'emutrace replay --help')\n", what.c_str());
    return 2;
}

int run(int argc, char** argv) {
    using namespace emutrace::app;
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    for (const auto& plugin : plugin_arguments(argc, argv)) registry.load_plugin(plugin);

    CLI::App cli{"emutrace: runs unmodified ARM Cortex-M firmware in an emulator and reports what it did."};
    std::vector<std::string> plugins;
    cli.add_option("--plugin", plugins, "Load out-of-tree analyses from this shared object (repeatable); see 'emutrace analyses'")->type_name("FILE");
    cli.require_subcommand(1);
    cli.fallthrough();  // --plugin may come after the subcommand
    cli.footer("Run 'emutrace <command> --help' for a command's options. Scenario format: docs/scenario.md.");

    RunOptions run;
    bool verbose = false, quiet = false;
    std::string max_instructions;
    std::string wall_clock;
    // run and replay take the same machine options into the same variables (one subcommand parses).
    std::string run_json, run_junit, run_checkpoint, run_report;
    std::vector<CLI::Option*> json_options, junit_options, checkpoint_options, report_options;
    std::string progress = "auto";
    auto declare_run_options = [&](CLI::App* cmd) {
        // Not CLI::ExistingFile: a misspelt option before a value would then be reported as that
        // value not being a file; the loader names a missing ELF itself.
        cmd->add_option("elf", run.elf, "Firmware ELF (32-bit ARM, linked); default: the scenario's firmware");
        cmd->add_option("-s,--scenario", run.scenario, "Scenario YAML: core, clock, memory, peripherals, stops, outputs")->check(CLI::ExistingFile);
        cmd->add_option("--set", run.settings,
                        "Set a scenario key over the file's (repeatable): --set clock=36MHz --set stimuli[0].jitter=200us "
                        "--set 'peripherals[1].params.registers[0].sequence=[1, 2, 3]'")
            ->type_name("PATH=VALUE");
        cmd->add_option("--cpu", run.machine.cpu,
                        "Core, overriding the scenario: " + emutrace::models::core_names() +
                            " (default: the scenario's cpu, else the core the ELF's build attributes name, else cortex-m3)");
        cmd->add_option("--clock", run.machine.clock, "Core clock, overriding the scenario, e.g. 168MHz");
        cmd->add_option("--timing", run.machine.timing,
                        "Cycle model: pipeline (the pipeline and bus components, through their block-cost cache; default), trm (per-block "
                        "costs from the core's TRM timings) or none (1 cycle per instruction)");
        cmd->add_option("--max-instructions", max_instructions, "Stop after this many instructions (e.g. 5000000 or 5e6)");
        cmd->add_option("--wall-clock", wall_clock, "Host-time limit, e.g. 10s or 500ms (default 60s; 0 = none)");
        cmd->add_option("--stop-at", run.machine.stop_at, "Stop when execution reaches this symbol");
        cmd->add_option("--cmdline", run.machine.cmdline, "Text the firmware reads with semihosting SYS_GET_CMDLINE");
        cmd->add_option("--dump-ram", run.dump_ram,
                        "At the end, write the RAM regions as an ELF core file (a board's memory dump: readelf, objcopy, replay --from-dump)")
            ->type_name("FILE");
        cmd->add_option("--seed", run.machine.seed, "Seed of the stimuli's jitter, overriding the scenario's (same seed, same run)");
        json_options.push_back(cmd->add_option("--json", run_json, "Write the run summary and every analysis's result as JSON to this file"));
        junit_options.push_back(cmd->add_option("--junit", run_junit, "Write the analyses' test cases (timing constraints, ...) as JUnit XML"));
        report_options.push_back(cmd->add_option("--report", run_report,
                                                 "Write one self-contained HTML page (no network needed to view it): summary, "
                                                 "constraints, timeline, profile, flame graph and each analysis's charts")
                                     ->type_name("FILE.html"));
        checkpoint_options.push_back(cmd->add_option("--checkpoint-every", run_checkpoint,
                                                     "Rewrite the --json result every this much emulated time, e.g. 1h: a long run that is "
                                                     "killed keeps its figures up to the last one (outputs.checkpoint_every)")
                                         ->type_name("DURATION"));
        cmd->add_option("--progress", progress,
                        "The progress line on stderr (emulated time, instructions, MIPS, events) of a run longer than a second: "
                        "auto (default: when stderr is a terminal), always or never; -q turns it off")
            ->check(CLI::IsMember({"auto", "always", "never"}));
    };
    CLI::App* run_cmd = cli.add_subcommand("run", "Run an ELF until it exits, faults, hangs or hits a limit; print a summary.");
    declare_run_options(run_cmd);
    std::string exit_statuses = "firmware";
    run_cmd
        ->add_option("--exit-status", exit_statuses,
                     "Whose codes the exit status is: firmware (default: the firmware's own exit code when it exits) or emutrace "
                     "(emutrace's statuses only; a firmware exiting non-zero gives 8, its code is in the summary and the JSON)")
        ->check(CLI::IsMember({"firmware", "emutrace"}));
    AnalysisOptions run_analysis_options;
    run_analysis_options.declare(*run_cmd, registry);
    run_cmd->add_flag("-v,--verbose", verbose, "Log debug detail");
    run_cmd->add_flag("-q,--quiet", quiet, "Print only errors; no summary");
    run_cmd->footer(std::string(kRunFooter) + "\n\nPeripheral types for scenarios:" + peripheral_list());

    std::string replay_log;
    CLI::App* replay_cmd = cli.add_subcommand(
        "replay", "Replay a log written by 'run --record': the same inputs, interrupts and happens-before order, analyses attached.");
    replay_cmd->add_option("log", replay_log, "Event log written by 'emutrace run --record LOG' (or give --from-dump)")->check(CLI::ExistingFile);
    declare_run_options(replay_cmd);
    replay_cmd->add_option("--elf", run.elf, "Firmware ELF (the same as the positional one)")->check(CLI::ExistingFile);
    AnalysisOptions replay_analysis_options;
    replay_analysis_options.declare(*replay_cmd, registry);
    replay_cmd->add_flag("-v,--verbose", verbose, "Log debug detail");
    replay_cmd->add_flag("-q,--quiet", quiet, "Print only errors; no summary");
    replay_cmd->footer(kReplayFooter);

    std::string dump_file, dump_elf;
    CLI::App* dump_cmd = cli.add_subcommand("dump", "Print a compact trace written by 'run --trace', with names from an ELF.");
    dump_cmd->add_option("file", dump_file, "Compact trace file")->required()->check(CLI::ExistingFile);
    dump_cmd->add_option("--elf", dump_elf, "The firmware the trace came from, for function names")->check(CLI::ExistingFile);

    emutrace::app::CfgOptions cfg;
    CLI::App* cfg_cmd = cli.add_subcommand("cfg", "Print the control-flow graphs: basic blocks, edges, jump tables, loops, calls.");
    cfg_cmd->add_option("elf", cfg.elf, "Firmware ELF")->required()->check(CLI::ExistingFile);
    cfg_cmd->add_option("--function", cfg.function, "Only this function");
    cfg_cmd->add_option("--dot", cfg.dot, "Write Graphviz DOT (dot -Tsvg FILE > cfg.svg)");
    cfg_cmd->add_option("--json", cfg.json, "Write the graphs as JSON");

    emutrace::app::CrosscheckOptions cc;
    CLI::App* cc_cmd =
        cli.add_subcommand("crosscheck", "Decode a PTM/PFT capture (OpenCSD snapshot directory) with OpenCSD; compare it with an emulated run.");
    cc_cmd->add_option("--snapshot", cc.snapshot, "Snapshot directory (snapshot.ini, trace.ini, device .ini files)")
        ->required()
        ->check(CLI::ExistingDirectory);
    cc_cmd->add_option("--id", cc.trace_id, "Only this trace ID")->check(CLI::Range(0, 127));
    cc_cmd->add_option("--elf", cc.elf, "The traced firmware: function coverage and profile by its symbols")->check(CLI::ExistingFile);
    cc_cmd->add_option("-s,--scenario", cc.scenario, "Also run --elf on this scenario and compare paths with the capture")->check(CLI::ExistingFile);
    cc_cmd->add_option("--cmdline", cc.cmdline, "Semihosting command line of the emulated run");
    std::string cc_json;
    CLI::Option* cc_json_opt = cc_cmd->add_option("--json", cc_json, "Write totals, profile, the analyses' results and the comparison as JSON");
    std::string cc_report;
    CLI::Option* cc_report_opt =
        cc_cmd
            ->add_option("--report", cc_report,
                         "Write a self-contained HTML page: the capture's summary and analyses, and the emulated-vs-captured comparison")
            ->type_name("FILE.html");
    AnalysisOptions cc_analysis_options;
    cc_analysis_options.declare(*cc_cmd, registry);
    cc_cmd->footer(
        "The registered analyses run on the capture as on an emulated run (--calltrace, --wcet FUNCTION, --events, ...;\n"
        "a WCET bound needs a cycle-accurate capture). Exit status: 0 decoded whole (and, with --scenario, the paths match),\n"
        "1 paths differ or an analysis failed, 2 bad input or no instruction decoded (an empty, garbage or unreadable capture),\n"
        "7 part of the capture could not be decoded (OpenCSD errors, or bytes skipped to resynchronise: each with its byte\n"
        "offset in the summary and the JSON), the rest analysed as usual.\n"
        "Example: emutrace run fw.elf --snapshot snap/ && emutrace crosscheck --snapshot snap/ --elf fw.elf --calltrace -s board.yaml");

    emutrace::app::RingdumpOptions ring;
    CLI::App* ring_cmd = cli.add_subcommand(
        "ringdump", "Decode the on-target tracer's ring (firmware/ontarget) from a device's memory dump and run the analyses on it.");
    ring_cmd->add_option("dump", ring.dump, "Memory dump: ELF core (gdb gcore, emutrace run --dump-ram), Intel HEX, or raw binary with --base")
        ->required()
        ->check(CLI::ExistingFile);
    ring_cmd->add_option("--elf", ring.elf, "The traced firmware: names, and the check that the ring is its")->required()->check(CLI::ExistingFile);
    ring_cmd->add_option("--base", ring.base, "Address of a raw dump's first byte, e.g. 0x20000000");
    ring_cmd->add_option("-s,--scenario", ring.scenario, "Scenario: calltrace:/constraints: sections, rtos: for thread names")
        ->check(CLI::ExistingFile);
    ring_cmd->add_flag("--compare", ring.compare,
                       "Also run --elf on the scenario in emulation: where the call traces part, and per function the calls, time and timing-model "
                       "error side by side (exit 1 when they part)");
    std::string ring_json, ring_junit;
    CLI::Option* ring_json_opt = ring_cmd->add_option("--json", ring_json, "Write the ring's totals and every analysis's result as JSON");
    CLI::Option* ring_junit_opt = ring_cmd->add_option("--junit", ring_junit, "Write the analyses' test cases (timing constraints) as JUnit XML");
    std::string ring_report;
    CLI::Option* ring_report_opt =
        ring_cmd->add_option("--report", ring_report, "Write a self-contained HTML page: the ring's calls as profile, flame graph, constraints")
            ->type_name("FILE.html");
    AnalysisOptions ring_analysis_options;
    ring_analysis_options.declare(*ring_cmd, registry);
    ring_cmd->footer(
        "The registered analyses run on the board's trace as on an emulated run (--calltrace, --perfetto FILE, --trace FILE, constraints\n"
        "from the scenario). A wrapped ring holds the most recent events; a torn event at its head and corrupt records are skipped\n"
        "and counted. Exit status: 0 decoded, 1 a constraint was violated, 2 bad input (no ring, a damaged header, another firmware's\n"
        "ring). Example: emutrace run fw_traced.elf -s board.yaml --dump-ram board.core && emutrace ringdump board.core --elf\n"
        "fw_traced.elf -s board.yaml --calltrace (docs/ontarget.md)");

    emutrace::app::PatchOptions patch;
    CLI::App* patch_cmd =
        cli.add_subcommand("patch", "Turn the -finstrument-functions hook calls of an ELF into NOPs and back, per function, without recompiling.");
    patch_cmd->add_option("elf", patch.elf, "ELF built with -finstrument-functions and firmware/ontarget (link with -Wl,--emit-relocs to re-enable)")
        ->required()
        ->check(CLI::ExistingFile);
    patch_cmd->add_flag("--disable-all", patch.disable_all, "Every hook call becomes a NOP.W (first)");
    patch_cmd->add_option("--enable", patch.enable, "Hook calls of the functions this glob matches become calls again (then; repeatable)")
        ->type_name("GLOB");
    patch_cmd->add_option("--disable", patch.disable, "Hook calls of the functions this glob matches become NOPs (last; repeatable)")
        ->type_name("GLOB");
    patch_cmd->add_option("-o,--output", patch.output, "The patched ELF")->type_name("FILE");
    patch_cmd->add_flag("--list", patch.list, "List each instrumented function with its hook calls on");
    patch_cmd->footer(
        "Prints the functions whose hook calls changed. A call site that is neither a BL to the hook nor a NOP.W is refused with its\n"
        "address. Example: emutrace patch fw.elf --disable-all --enable 'render_*' --disable put_dot -o fw_selective.elf (docs/ontarget.md)");

    emutrace::app::OverheadOptions overhead;
    CLI::App* overhead_cmd = cli.add_subcommand(
        "overhead", "Predict the probe effect of on-target tracing before deploying: the original, disabled and selective builds side by side.");
    overhead_cmd->add_option("elf", overhead.elf, "The instrumented build (-finstrument-functions, firmware/ontarget, -Wl,--emit-relocs)")
        ->required()
        ->check(CLI::ExistingFile);
    overhead_cmd->add_option("-s,--scenario", overhead.scenario, "The board's scenario, with the timing constraints to keep")
        ->required()
        ->check(CLI::ExistingFile);
    overhead_cmd->add_option("--original", overhead.original, "The build without instrumentation (configuration a)")->check(CLI::ExistingFile);
    overhead_cmd->add_option("--enable", overhead.enable, "Configuration c's traced functions (globs, repeatable); default every one")
        ->type_name("GLOB");
    overhead_cmd->add_option(
        "--budget", overhead.budget,
        "Disable the most frequently called traced function until c grows the constraints (or the work) at most this much over b, "
        "e.g. 5%; prints the patch command (exit 1 when not met)");
    overhead_cmd->footer(
        "Configurations after the entry/exit tracing paper: a original, b instrumented with every hook disabled, c selectively\n"
        "instrumented. Example: emutrace overhead fw_traced.elf -s board.yaml --original fw.elf --budget 10% (docs/ontarget.md)");

    emutrace::app::WcetOptions wcet;
    CLI::App* wcet_cmd =
        cli.add_subcommand("wcet", "Run the firmware, aggregate per-block times by loop context, and bound a function's WCET with IPET (GLPK).");
    wcet_cmd->add_option("elf", wcet.elf, "Firmware ELF")->required()->check(CLI::ExistingFile);
    wcet_cmd->add_option("-s,--scenario", wcet.scenario, "Scenario YAML (board, stimuli, wcet: {function, flow_facts, max_cycles})")
        ->check(CLI::ExistingFile);
    wcet_cmd->add_option("-f,--function", wcet.function, "The function to bound (overrides the scenario's)");
    wcet_cmd->add_option("--cmdline", wcet.cmdline, "Text the firmware reads with semihosting SYS_GET_CMDLINE");
    wcet_cmd->add_option("--stats-in", wcet.stats_in, "Statistics of earlier runs (--stats-out files) to merge; repeatable")
        ->check(CLI::ExistingFile);
    wcet_cmd->add_option("--stats-out", wcet.stats_out, "Save the merged statistics (JSON) for later runs");
    wcet_cmd->add_flag("--no-run", wcet.no_run, "Do not run the firmware: bound from --stats-in alone");
    wcet_cmd->add_flag("--all", wcet.all, "Bound every function that ran: a table of observed and bound per function (--json writes it)");
    wcet_cmd->add_option("--json", wcet.json, "Write bound, observed time, worst path and never-executed blocks as JSON");
    wcet_cmd->add_option("--dot", wcet.dot, "Write the CFGs with the worst path's counts as Graphviz DOT");
    wcet_cmd->add_option("--report", wcet.report, "Write a self-contained HTML page: the bound beside the longest run, the worst path on each CFG")
        ->type_name("FILE.html");
    wcet_cmd->footer(
        "The bound covers the function and its callees, interrupts excluded, from the blocks' measured maxima;\n"
        "loop bounds are the most iterations observed per entry unless a flow fact in the scenario says otherwise.\n"
        "Every bound is cross-checked: the function times measured from the CFG must equal those the call tracer\n"
        "measures from the same run's branch events, and the bound must not be below the longest run.\n"
        "Exit status: 0; 1 when the bound exceeds the scenario's max_cycles or is not to be trusted;\n"
        "2 bad input, a function that cannot be bounded (recursion, never ran, never returned) or a firmware fault.\n"
        "Examples: emutrace wcet build/firmware/wcet.elf --function wcet_scan --stats-out scan.json\n"
        "          emutrace wcet build/firmware/libcalls.elf --all");

    emutrace::app::SiliconOptions silicon;
    CLI::App* silicon_cmd = cli.add_subcommand(
        "silicon", "Run real-silicon cycle measurements (tests/data/silicon format) and compare every dumped region with the emulation.");
    silicon_cmd->add_option("dir", silicon.dir, "Folder of <category>/<test>.tzst archives, e.g. tests/data/silicon/stm32f100")
        ->required()
        ->check(CLI::ExistingDirectory);
    std::string presets;
    for (const auto& name : emutrace::session::board_preset_names()) presets += (presets.empty() ? "" : ", ") + name;
    silicon_cmd->add_option(
        "--board", silicon.board,
        "Board preset (" + presets + ") or scenario file (default: the preset the folder's path names, e.g. .../stm32f100rbt6/..., else stm32f100)");
    silicon_cmd->add_option("--timing", silicon.timing,
                            "Cycle model instead of the board's: trm (per block), pipeline (components, cycle by cycle) or none");
    silicon_cmd->add_option("--split", silicon.split, "Tests to run: given, validation (every 5th of a category, held aside) or all (default)")
        ->check(CLI::IsMember({"given", "validation", "all"}));
    silicon_cmd->add_option("--max-instructions", silicon.max_instructions,
                            "A configuration not at its exit after this many fails (default 300000000; 0 = no limit)");
    silicon_cmd
        ->add_option("--timeout", silicon.timeout,
                     "Host seconds per configuration (default: 1 per million --max-instructions, at least 30; 0 = no limit)")
        ->check(CLI::NonNegativeNumber);
    silicon_cmd->add_option("--report", silicon.report, "Write a self-contained HTML page: exact rates per set and category, the error histogram")
        ->type_name("FILE.html");
    silicon_cmd->add_option("--json", silicon.json, "Write per test and configuration: exact or not, differing words, code; sets, error histograms");
    silicon_cmd->add_option("--show", silicon.show, "Print this many mismatching configurations with their values and code");
    silicon_cmd->add_option("--min-rate", silicon.min_rate, "Exit 1 when the exact-match rate is below this fraction (0-1)")
        ->check(CLI::Range(0.0, 1.0));
    CampaignOptions campaign;
    CLI::App* campaign_cmd =
        cli.add_subcommand("campaign", "Run many cases (firmware x scenario x a matrix of scenario keys) and merge their results.");
    campaign_cmd->add_option("file", campaign.file, "Campaign YAML: runs (firmware, scenario, matrix, args) and outputs")->check(CLI::ExistingFile);
    campaign_cmd->add_option("-j,--jobs", campaign.jobs, "Cases at a time (default: one per core)");
    campaign_cmd->add_option("--engine", campaign.engine, "local (default: this machine) or slurm (a job array and a merge job, sbatch)")
        ->check(CLI::IsMember({"local", "slurm"}));
    campaign_cmd->add_option("--shards", campaign.shards, "With --engine slurm: array tasks (default: one per case, at most 100)");
    campaign_cmd->add_option("--partition", campaign.partition, "With --engine slurm: the partition (default: the cluster's)");
    campaign_cmd->add_option("--sbatch-arg", campaign.sbatch_args, "With --engine slurm: one more sbatch option, e.g. --time=2:00:00 (repeatable)")
        ->allow_extra_args(false);
    campaign_cmd->add_flag("--retry-failed", campaign.retry_failed, "With --engine slurm: submit again the shards of the cases not complete");
    std::string shard;
    campaign_cmd->add_option("--shard", shard, "Run only shard I of N (index mod N == I), no merge: what a Slurm array task runs")->type_name("I/N");
    CLI::App* campaign_status = campaign_cmd->add_subcommand("status", "Which cases are complete, passed or not, and the Slurm jobs' state");
    campaign_status->add_option("file", campaign.file, "Campaign YAML")->required()->check(CLI::ExistingFile);
    CLI::App* campaign_merge = campaign_cmd->add_subcommand("merge", "Merge the cases' results as they are (the Slurm merge job runs this)");
    campaign_merge->add_option("file", campaign.file, "Campaign YAML")->required()->check(CLI::ExistingFile);
    campaign_merge->add_option("--json", campaign.json, "Write the merged result as JSON (overrides outputs.json)");
    campaign_merge->add_option("--junit", campaign.junit, "Write one JUnit test case per case and constraint (overrides outputs.junit)");
    campaign_merge->add_option("--report", campaign.report, "Write a self-contained HTML page of the merged result")->type_name("FILE.html");
    campaign_merge->add_flag("-q,--quiet", campaign.quiet, "No summary");
    campaign_cmd->add_flag("--resume", campaign.resume, "Keep the cases already complete in the results directory; run the rest");
    campaign_cmd->add_option("--json", campaign.json, "Write the merged result as JSON (overrides outputs.json)");
    campaign_cmd->add_option("--junit", campaign.junit, "Write one JUnit test case per case and constraint (overrides outputs.junit)");
    campaign_cmd->add_option("--report", campaign.report, "Write a self-contained HTML page of the merged result: statuses, constraints, WCET")
        ->type_name("FILE.html");
    campaign_cmd->add_flag("-q,--quiet", campaign.quiet, "No progress line and no summary");
    campaign_cmd->footer(
        "Each case is 'emutrace run' with the matrix's values as --set PATH=VALUE, in a process of its own; its result.json,\n"
        "result.xml, stdout, stderr and exit status go to <results>/case-NNNN/. Merging adds counts, keeps extremes with\n"
        "the case they came from, and weighs means by their counts; per run entry and over all. Exit status: 0 every case\n"
        "passed, 1 some case did not (listed), 2 a bad campaign file. docs/campaign.md has the file format.\n"
        "Example:\n"
        "  runs:\n"
        "    - firmware: franking\n"
        "      scenario: scenarios/franking/franking.yaml\n"
        "      matrix: {seed: [1, 2, 3], clock: [48MHz, 40MHz], \"stimuli[0].jitter\": [0us, 300us]}\n"
        "  outputs: {results: nightly.results, json: nightly.json, junit: nightly.xml}");
    silicon_cmd->footer(
        "Each configuration runs its flash image on the board preset from emulator_main_addr to emulator_exit_addr; it is\n"
        "exact when every mem_dump region (times, results, DWT counters) equals the emulated memory byte for byte. After\n"
        "the table: per category and dumped region, how far each word is off (emulated - measured, in cycles) and the mean\n"
        "absolute error in % of the measured; with --split all, the exact rates of the given and validation sets apart.\n"
        "Example: emutrace silicon tests/data/silicon --split given --json silicon.json");

    emutrace::app::MarkersOptions markers;
    CLI::App* markers_cmd =
        cli.add_subcommand("markers", "Plan markers for a sampling monitor: the sampling period a function needs with each step of a marker scheme.");
    markers_cmd->add_option("elf", markers.elf, "Firmware ELF")->required()->check(CLI::ExistingFile);
    markers_cmd->add_option("-f,--function", markers.function, "The function to monitor")->required();
    markers_cmd->add_option("--scheme", markers.scheme, "Marker scheme: " + emutrace::analysis::sampler::scheme_names() + " (default bitvec+)");
    markers_cmd->add_option("--steps", markers.steps, "Instrumentation steps at most (default 50)")->check(CLI::Range(0, 64));
    markers_cmd->add_option(
        "--cpu", markers.cpu,
        "Core whose timing gives the blocks' best-case cycles (default: the core the ELF's build attributes name, else cortex-m3)");
    markers_cmd->add_option("--max-delta-t", markers.max_delta_t, "Search for intersecting paths up to this many cycles (default 100000)");
    markers_cmd->add_option("--report", markers.report, "Write a self-contained HTML page: Δt after each step of markers, where they go")
        ->type_name("FILE.html");
    markers_cmd->add_option("--json", markers.json, "Write Δt per step, the plan and the metrics as JSON");
    markers_cmd->add_option("--header", markers.header, "Write the plan as a C header: marker variables and one macro per block");
    markers_cmd->add_flag("-v,--verbose", markers.verbose, "Print each step's two paths that a sample could not tell apart");
    markers_cmd->add_flag("--exact-durations", markers.exact_durations,
                          "Blocks take exactly their best-case cycles, as in the paper (default: they may take longer, as on a core)");
    markers_cmd->footer(
        "Δt is the shortest distance between two samples at which two different paths give the same samples (block and\n"
        "markers); sampling faster than that reconstructs every path. Each step tells that pair apart.\n"
        "Example: emutrace markers build/firmware/kernels.elf -f crc32 --scheme bitvec --steps 20");

    CLI::App* analyses_cmd = cli.add_subcommand("analyses", "List the registered analyses: scenario sections, outputs, options, events.");

    std::string info_elf;
    CLI::App* info_cmd = cli.add_subcommand("info", "Show an ELF's entry point, loadable segments and functions.");
    info_cmd->add_option("elf", info_elf, "Firmware ELF")->required()->check(CLI::ExistingFile);

    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return cli.exit(e);  // --help
        std::fprintf(stderr, "emutrace: error: %s (see 'emutrace --help')\n", e.what());
        return 2;
    }
    run_analysis_options.collect(run.options);
    replay_analysis_options.collect(run.options);
    if (*replay_cmd) {
        if (run.options.count("from-dump")) {
            // `replay --from-dump DUMP fw.elf`: the one positional is the firmware.
            if (!replay_log.empty() && run.elf.empty())
                run.elf = replay_log;
            else if (!replay_log.empty())
                return usage_error("replay: give a LOG or --from-dump DUMP, not both");
        } else if (replay_log.empty()) {
            return usage_error("replay: give the LOG to replay (emutrace run --record LOG), or --from-dump DUMP");
        } else {
            run.options["replay"] = replay_log;
        }
    }
    if (!run.dump_ram.empty()) run.options["dump-ram"] = run.dump_ram;
    for (CLI::Option* o : json_options)
        if (o->count()) run.options["json"] = run_json;
    for (CLI::Option* o : junit_options)
        if (o->count()) run.options["junit"] = run_junit;
    for (CLI::Option* o : report_options)
        if (o->count()) run.options["report"] = run_report;
    for (CLI::Option* o : checkpoint_options)
        if (o->count()) run.options["checkpoint_every"] = run_checkpoint;
    cc_analysis_options.collect(cc.options);
    ring_analysis_options.collect(ring.options);
    if (ring_json_opt->count()) ring.options["json"] = ring_json;
    if (ring_junit_opt->count()) ring.options["junit"] = ring_junit;
    if (ring_report_opt->count()) ring.options["report"] = ring_report;
    if (cc_json_opt->count()) cc.options["json"] = cc_json;
    if (cc_report_opt->count()) cc.options["report"] = cc_report;
    run.verbosity = verbose ? Verbosity::Verbose : quiet ? Verbosity::Quiet : Verbosity::Normal;
    set_up_logging(run.verbosity);

    try {
        if (*run_cmd || *replay_cmd) {
            if (!max_instructions.empty()) {
                double v = 0;
                try {
                    std::size_t used = 0;
                    v = std::stod(max_instructions, &used);
                    if (used != max_instructions.size() || v < 1 || v > 1e18) throw std::invalid_argument("range");
                } catch (const std::exception&) {
                    throw emutrace::ConfigError("--max-instructions: expected a positive count, got '" + max_instructions + "'");
                }
                run.machine.max_instructions = static_cast<std::uint64_t>(v);
            }
            if (!wall_clock.empty()) {
                auto s = emutrace::config::parse_seconds(wall_clock);
                if (!s) throw emutrace::ConfigError("--wall-clock: expected a duration such as 10s, got '" + wall_clock + "'");
                run.machine.wall_clock_seconds = *s;
            }
            run.emutrace_statuses = exit_statuses == "emutrace";
            run.progress = progress == "always"  ? emutrace::RunRequest::Progress::Always
                           : progress == "never" ? emutrace::RunRequest::Progress::Never
                                                 : emutrace::RunRequest::Progress::Auto;
            return run_command(registry, run);
        }
        if (*dump_cmd) return dump_command(dump_file, dump_elf);
        if (*cfg_cmd) return cfg_command(cfg);
        if (*cc_cmd) return crosscheck_command(registry, cc);
        if (*ring_cmd) return ringdump_command(registry, ring);
        if (*patch_cmd) return patch_command(patch);
        if (*overhead_cmd) return overhead_command(registry, overhead);
        if (*analyses_cmd) return analyses_command(registry);
        if (*markers_cmd) return markers_command(markers);
        if (*wcet_cmd) return wcet_command(wcet);
        if (*silicon_cmd) return silicon_command(silicon);
        if (*campaign_cmd) {
            if (*campaign_status) campaign.action = CampaignOptions::Action::Status;
            if (*campaign_merge) campaign.action = CampaignOptions::Action::Merge;
            if (campaign.file.empty()) return usage_error_for("campaign", "give the campaign file");
            if (!shard.empty()) {
                unsigned i = 0, n = 0;
                char rest = 0;
                if (std::sscanf(shard.c_str(), "%u/%u%c", &i, &n, &rest) != 2 || n == 0 || i >= n)
                    return usage_error_for("campaign", "--shard " + shard + ": give I/N with 0 <= I < N, e.g. 3/16");
                campaign.shard_index = i, campaign.shard_count = n;
            }
            return campaign_command(campaign);
        }
        return info_command(info_elf);
    } catch (const emutrace::ConfigError& e) {
        std::fprintf(stderr, "emutrace: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "emutrace: internal error: %s\n", e.what());
        return 2;
    }
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const emutrace::ConfigError& e) {  // a plug-in that does not load
        std::fprintf(stderr, "emutrace: error: %s\n", e.what());
        return 2;
    }
}
