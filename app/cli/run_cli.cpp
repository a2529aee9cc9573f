// emutrace run: the firmware on its scenario, with the analyses asked for.
#include "app/cli/run_options.h"
#include "app/cli/subcommand.h"
#include "emu/peripherals/registry.h"

namespace emutrace::app::cli {
namespace {

constexpr const char* kFooter = R"(
Examples:
  emutrace run build/firmware/compute.elf
  emutrace run fw.elf --scenario scenarios/stub-sensor/stub-sensor.yaml --json result.json
  emutrace run fw.elf --cpu cortex-m4 --clock 168MHz --json result.json
  emutrace run fw.elf --cpu cortex-m0 --max-instructions 1e6 --events events.jsonl

Without --scenario the firmware runs on the built-in MPS2-AN385 layout: Cortex-M3 at 25 MHz,
flash at 0x0 (4 MiB), SRAM at 0x20000000 (4 MiB), CMSDK UART0 at 0x40004000.

Exit status: the firmware's exit code when it exits through semihosting (255 for one past 255 or
negative); 0 when it reaches --stop-at; 1 when a timing constraint is violated; 2 for bad input or
a firmware fault; 3 max instructions; 4 wall-clock limit; 5 hang; 6 reset requested. A firmware's own code can be any of
these: with --exit-status emutrace only emutrace's statuses are used, and a firmware that exits
non-zero gives 8 (a CI gate then tells "the firmware failed" from "emutrace stopped it").

The analysis options above come from the registry: 'emutrace analyses' lists each analysis with
its scenario section; --plugin FILE (before or after 'run') adds the options of out-of-tree ones.)";

std::string peripheral_list() {
    std::string s;
    for (const auto& t : emu::peripheral_types()) s += "\n  " + std::string(t.name) + ": " + std::string(t.summary);
    return s;
}

class RunSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd = parser.subcommand("run", "Run an ELF until it exits, faults, hangs or hits a limit; print a summary.");
        run_.declare_machine(cmd);
        cmd.option("--exit-status", exit_statuses_,
                   "Whose codes the exit status is: firmware (default: the firmware's own exit code when it exits) or emutrace "
                   "(emutrace's statuses only; a firmware exiting non-zero gives 8, its code is in the summary and the JSON)")
            .one_of({"firmware", "emutrace"});
        run_.declare_analyses(cmd, registry);
        cmd.footer(std::string(kFooter) + "\n\nPeripheral types for scenarios:" + peripheral_list());
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        run_.finish();
        run_.options.emutrace_statuses = exit_statuses_ == "emutrace";
        return run_command(registry, run_.options);
    }
    Verbosity verbosity() const override { return run_.verbosity(); }

private:
    RunOptionsDeclaration run_;
    std::string exit_statuses_ = "firmware";
};

}  // namespace

std::unique_ptr<Subcommand> run_subcommand() {
    return std::make_unique<RunSubcommand>();
}

}  // namespace emutrace::app::cli
