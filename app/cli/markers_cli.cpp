// emutrace markers: a marker plan for a sampling monitor of one function.
#include "analysis/sampler/marker_scheme.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class MarkersSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        MarkersOptions& m = markers_;
        Command cmd = parser.subcommand(
            "markers", "Plan markers for a sampling monitor: the sampling period a function needs with each step of a marker scheme.");
        cmd.option("elf", m.elf, "Firmware ELF").required().existing_file();
        cmd.option("-f,--function", m.function, "The function to monitor").required();
        cmd.option("--scheme", m.scheme, "Marker scheme: " + analysis::sampler::scheme_names() + " (default bitvec+)");
        cmd.option("--steps", m.steps, "Instrumentation steps at most (default 50)").range(0, 64);
        cmd.option("--cpu", m.cpu,
                   "Core whose timing gives the blocks' best-case cycles (default: the core the ELF's build attributes name, else cortex-m3)");
        cmd.option("--max-delta-t", m.max_delta_t, "Search for intersecting paths up to this many cycles (default 100000)");
        cmd.option("--report", m.report, "Write a self-contained HTML page: Δt after each step of markers, where they go").type_name("FILE.html");
        cmd.option("--json", m.json, "Write Δt per step, the plan and the metrics as JSON");
        cmd.option("--header", m.header, "Write the plan as a C header: marker variables and one macro per block");
        cmd.flag("-v,--verbose", m.verbose, "Print each step's two paths that a sample could not tell apart");
        cmd.flag("--exact-durations", m.exact_durations,
                 "Blocks take exactly their best-case cycles, as in the paper (default: they may take longer, as on a core)");
        cmd.footer(
            "Δt is the shortest distance between two samples at which two different paths give the same samples (block and\n"
            "markers); sampling faster than that reconstructs every path. Each step tells that pair apart.\n"
            "Example: emutrace markers build/firmware/kernels.elf -f crc32 --scheme bitvec --steps 20");
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return markers_command(markers_); }

private:
    MarkersOptions markers_;
};

}  // namespace

std::unique_ptr<Subcommand> markers_subcommand() {
    return std::make_unique<MarkersSubcommand>();
}

}  // namespace emutrace::app::cli
