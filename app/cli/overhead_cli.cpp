// emutrace overhead: the probe effect of on-target tracing, predicted before deploying.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class OverheadSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd = parser.subcommand(
            "overhead", "Predict the probe effect of on-target tracing before deploying: the original, disabled and selective builds side by side.");
        cmd.option("elf", overhead_.elf, "The instrumented build (-finstrument-functions, firmware/ontarget, -Wl,--emit-relocs)")
            .required()
            .existing_file();
        cmd.option("-s,--scenario", overhead_.scenario, "The board's scenario, with the timing constraints to keep").required().existing_file();
        cmd.option("--original", overhead_.original, "The build without instrumentation (configuration a)").existing_file();
        cmd.option("--enable", overhead_.enable, "Configuration c's traced functions (globs, repeatable); default every one").type_name("GLOB");
        cmd.option("--budget", overhead_.budget,
                   "Disable the most frequently called traced function until c grows the constraints (or the work) at most this much over b, "
                   "e.g. 5%; prints the patch command (exit 1 when not met)");
        cmd.footer(
            "Configurations after the entry/exit tracing paper: a original, b instrumented with every hook disabled, c selectively\n"
            "instrumented. Example: emutrace overhead fw_traced.elf -s board.yaml --original fw.elf --budget 10% (docs/ontarget.md)");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override { return overhead_command(registry, overhead_); }

private:
    OverheadOptions overhead_;
};

}  // namespace

std::unique_ptr<Subcommand> overhead_subcommand() {
    return std::make_unique<OverheadSubcommand>();
}

}  // namespace emutrace::app::cli
