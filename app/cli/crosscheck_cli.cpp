// emutrace crosscheck: a PTM/PFT capture decoded with OpenCSD, analysed, compared with emulation.
#include "app/cli/analysis_options.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class CrosscheckSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd = parser.subcommand(
            "crosscheck",
            "Decode a probe's capture (a PTM/PFT snapshot, or an SWO stream) and compare it with an emulated run of the same firmware.");
        cmd.option("--snapshot", cc_.snapshot, "Snapshot directory (snapshot.ini, trace.ini, device .ini files)").existing_directory();
        cmd.option("--swo", cc_.swo, "An SWO capture (ITM/DWT packets): PC samples by function and exception spacing against the emulated run")
            .existing_file();
        cmd.option("--timestamp-prescale", cc_.timestamp_prescale, "With --swo: the capture's ITM_TCR.TSPrescale (1, 4, 16 or 64)").range(1, 64);
        cmd.option("--max-share-difference", cc_.max_share_difference,
                   "With --swo and -s: exit 1 when a function's share of the time differs by more points than this");
        cmd.option("--id", cc_.trace_id, "Only this trace ID").range(0, 127);
        cmd.option("--elf", cc_.elf, "The traced firmware: function coverage and profile by its symbols").existing_file();
        cmd.option("-s,--scenario", cc_.scenario, "Also run --elf on this scenario and compare paths with the capture").existing_file();
        cmd.option("--cmdline", cc_.cmdline, "Semihosting command line of the emulated run");
        outputs_.add(cmd, "--json", "json", "Write totals, profile, the analyses' results and the comparison as JSON");
        outputs_.add(cmd, "--report", "report",
                     "Write a self-contained HTML page: the capture's summary and analyses, and the emulated-vs-captured comparison", "FILE.html");
        analyses_.declare(cmd, registry);
        cmd.footer(
            "The registered analyses run on the capture as on an emulated run (--calltrace, --wcet FUNCTION, --events, ...;\n"
            "a WCET bound needs a cycle-accurate capture). Exit status: 0 decoded whole (and, with --scenario, the paths match),\n"
            "1 paths differ or an analysis failed, 2 bad input or no instruction decoded (an empty, garbage or unreadable capture),\n"
            "7 part of the capture could not be decoded (OpenCSD errors, or bytes skipped to resynchronise: each with its byte\n"
            "offset in the summary and the JSON), the rest analysed as usual.\n"
            "Example: emutrace run fw.elf --snapshot snap/ && emutrace crosscheck --snapshot snap/ --elf fw.elf --calltrace -s board.yaml\n"
            "SWO: emutrace crosscheck --swo probe.swo --elf fw.elf -s board.yaml compares the capture's PC samples by function with the\n"
            "emulated run's cycles, and each exception's count and spacing (timestamps in core cycles over --timestamp-prescale).");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        if (cc_.snapshot.empty() == cc_.swo.empty()) return usage_error("crosscheck", "give the capture: --snapshot DIR or --swo FILE, one of them");
        analyses_.collect(cc_.options);
        outputs_.collect(cc_.options);
        return crosscheck_command(registry, cc_);
    }

private:
    CrosscheckOptions cc_;
    NamedOutputs outputs_;
    AnalysisOptions analyses_;
};

}  // namespace

std::unique_ptr<Subcommand> crosscheck_subcommand() {
    return std::make_unique<CrosscheckSubcommand>();
}

}  // namespace emutrace::app::cli
