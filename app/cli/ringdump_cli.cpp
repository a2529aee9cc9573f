// emutrace ringdump: the on-target tracer's ring from a device's memory dump, analysed.
#include "app/cli/analysis_options.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class RingdumpSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd = parser.subcommand(
            "ringdump", "Decode the on-target tracer's ring (firmware/ontarget) from a device's memory dump and run the analyses on it.");
        cmd.option("dump", ring_.dump, "Memory dump: ELF core (gdb gcore, emutrace run --dump-ram), Intel HEX, or raw binary with --base")
            .required()
            .existing_file();
        cmd.option("--elf", ring_.elf, "The traced firmware: names, and the check that the ring is its").required().existing_file();
        cmd.option("--base", ring_.base, "Address of a raw dump's first byte, e.g. 0x20000000");
        cmd.option("-s,--scenario", ring_.scenario, "Scenario: calltrace:/constraints: sections, rtos: for thread names").existing_file();
        cmd.flag("--compare", ring_.compare,
                 "Also run --elf on the scenario in emulation: where the call traces part, and per function the calls, time and timing-model "
                 "error side by side (exit 1 when they part)");
        outputs_.add(cmd, "--json", "json", "Write the ring's totals and every analysis's result as JSON");
        outputs_.add(cmd, "--junit", "junit", "Write the analyses' test cases (timing constraints) as JUnit XML");
        outputs_.add(cmd, "--report", "report", "Write a self-contained HTML page: the ring's calls as profile, flame graph, constraints",
                     "FILE.html");
        analyses_.declare(cmd, registry);
        cmd.footer(
            "The registered analyses run on the board's trace as on an emulated run (--calltrace, --perfetto FILE, --trace FILE, constraints\n"
            "from the scenario). A wrapped ring holds the most recent events; a torn event at its head and corrupt records are skipped\n"
            "and counted. Exit status: 0 decoded, 1 a constraint was violated, 2 bad input (no ring, a damaged header, another firmware's\n"
            "ring). Example: emutrace run fw_traced.elf -s board.yaml --dump-ram board.core && emutrace ringdump board.core --elf\n"
            "fw_traced.elf -s board.yaml --calltrace (docs/ontarget.md)");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        analyses_.collect(ring_.options);
        outputs_.collect(ring_.options);
        return ringdump_command(registry, ring_);
    }

private:
    RingdumpOptions ring_;
    NamedOutputs outputs_;
    AnalysisOptions analyses_;
};

}  // namespace

std::unique_ptr<Subcommand> ringdump_subcommand() {
    return std::make_unique<RingdumpSubcommand>();
}

}  // namespace emutrace::app::cli
