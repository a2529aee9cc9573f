// emutrace crosscheck: a PTM/PFT capture decoded with OpenCSD, analysed, compared with emulation.
#include "app/cli/analysis_options.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class CrosscheckSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd =
            parser.subcommand("crosscheck", "Decode a PTM/PFT capture (OpenCSD snapshot directory) with OpenCSD; compare it with an emulated run.");
        cmd.option("--snapshot", cc_.snapshot, "Snapshot directory (snapshot.ini, trace.ini, device .ini files)").required().existing_directory();
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
            "Example: emutrace run fw.elf --snapshot snap/ && emutrace crosscheck --snapshot snap/ --elf fw.elf --calltrace -s board.yaml");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
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
