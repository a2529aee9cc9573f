// emutrace replay: a recorded run's inputs, interrupts and order, with analyses attached.
#include "app/cli/run_options.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

constexpr const char* kFooter = R"(
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

class ReplaySubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd = parser.subcommand(
            "replay", "Replay a log written by 'run --record': the same inputs, interrupts and happens-before order, analyses attached.");
        cmd.option("log", log_, "Event log written by 'emutrace run --record LOG' (or give --from-dump)").existing_file();
        run_.declare_machine(cmd);
        cmd.option("--elf", run_.options.elf, "Firmware ELF (the same as the positional one)").existing_file();
        run_.declare_analyses(cmd, registry);
        cmd.footer(kFooter);
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        run_.finish();
        RunOptions& run = run_.options;
        if (run.options.count("from-dump")) {
            // `replay --from-dump DUMP fw.elf`: the one positional is the firmware.
            if (!log_.empty() && run.elf.empty())
                run.elf = log_;
            else if (!log_.empty())
                return usage_error("replay", "replay: give a LOG or --from-dump DUMP, not both");
        } else if (log_.empty()) {
            return usage_error("replay", "replay: give the LOG to replay (emutrace run --record LOG), or --from-dump DUMP");
        } else {
            run.options["replay"] = log_;
        }
        return run_command(registry, run);
    }
    Verbosity verbosity() const override { return run_.verbosity(); }

private:
    RunOptionsDeclaration run_;
    std::string log_;
};

}  // namespace

std::unique_ptr<Subcommand> replay_subcommand() {
    return std::make_unique<ReplaySubcommand>();
}

}  // namespace emutrace::app::cli
