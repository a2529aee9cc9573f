// emutrace silicon: real-silicon cycle measurements against the emulation.
#include "app/cli/subcommand.h"
#include "session/scenario.h"

namespace emutrace::app::cli {
namespace {

class SiliconSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd = parser.subcommand(
            "silicon", "Run real-silicon cycle measurements (tests/data/silicon format) and compare every dumped region with the emulation.");
        cmd.option("dir", silicon_.dir, "Folder of <category>/<test>.tzst archives, e.g. tests/data/silicon/stm32f100")
            .required()
            .existing_directory();
        std::string presets;
        for (const auto& name : session::board_preset_names()) presets += (presets.empty() ? "" : ", ") + name;
        cmd.option("--board", silicon_.board,
                   "Board preset (" + presets +
                       ") or scenario file (default: the preset the folder's path names, e.g. .../stm32f100rbt6/..., else stm32f100)");
        cmd.option("--timing", silicon_.timing, "Cycle model instead of the board's: trm (per block), pipeline (components, cycle by cycle) or none");
        cmd.option("--split", silicon_.split, "Tests to run: given, validation (every 5th of a category, held aside) or all (default)")
            .one_of({"given", "validation", "all"});
        cmd.option("--max-instructions", silicon_.max_instructions,
                   "A configuration not at its exit after this many fails (default 0: none; a -O0 benchmark runs billions, and "
                   "--timeout bounds a runaway)");
        cmd.option("--timeout", silicon_.timeout,
                   "Host seconds per configuration (default 300, or 1 per million --max-instructions and at least 30 when that is "
                   "given; 0 = no limit). Without --max-instructions, a compiled program gets 1 s per 2 M cycles its dump measured if "
                   "that is longer")
            .non_negative();
        cmd.option("--progress", silicon_.progress,
                   "The progress line on stderr (tests and configurations done, those running and for how long), redrawn each "
                   "second: auto (default: when stderr is a terminal), always or never")
            .one_of({"auto", "always", "never"});
        cmd.option("-j,--jobs", silicon_.jobs,
                   "Configurations run at a time, each on its own thread (default 0: one per core, at most 16); the results do not "
                   "depend on it")
            .count_range(0, 256);
        cmd.option("--report", silicon_.report, "Write a self-contained HTML page: exact rates per set and category, the error histogram")
            .type_name("FILE.html");
        cmd.option("--json", silicon_.json, "Write per test and configuration: exact or not, differing words, code; sets, error histograms");
        cmd.option("--show", silicon_.show, "Print this many mismatching configurations with their values and code");
        cmd.option("--min-rate", silicon_.min_rate, "Exit 1 when the exact-match rate is below this fraction (0-1)").range(0.0, 1.0);
        cmd.footer(
            "Each configuration runs its flash image on the board preset from emulator_main_addr to emulator_exit_addr; it is\n"
            "exact when every mem_dump region (times, results, DWT counters) equals the emulated memory byte for byte. After\n"
            "the table: per category and dumped region, how far each word is off (emulated - measured, in cycles) and the mean\n"
            "absolute error in % of the measured; with --split all, the exact rates of the given and validation sets apart.\n"
            "A compiled benchmark (a dump with a cyccnt region, the DWT counters over the whole program) is judged on its\n"
            "whole-program cycles: each benchmark's row says how many configurations are within 0.5% and 1% and the worst, and\n"
            "the last lines give the set's, given and validation apart.\n"
            "Examples: emutrace silicon tests/data/silicon --split given --json silicon.json\n"
            "          emutrace silicon stm32f100-bench --board stm32f100   (compiled: whole-program error per benchmark)");
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return silicon_command(silicon_); }

private:
    SiliconOptions silicon_;
};

}  // namespace

std::unique_ptr<Subcommand> silicon_subcommand() {
    return std::make_unique<SiliconSubcommand>();
}

}  // namespace emutrace::app::cli
