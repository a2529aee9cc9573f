// emutrace decode: a recorded trace read by a registered source, analysed.
#include "app/cli/analysis_options.h"
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class DecodeSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry& registry) override {
        Command cmd = parser.subcommand("decode", "Read a recorded trace (a probe's capture, a device's dump) and run the analyses on it.");
        std::string names, inputs;
        for (const auto& t : registry.sources()) {
            names += (names.empty() ? "" : ", ") + t.name;
            inputs += "  " + t.name + std::string(t.name.size() < 8 ? 8 - t.name.size() : 1, ' ') + t.summary + ";\n" + std::string(10, ' ') +
                      "INPUT: " + t.input + (t.needs_firmware ? " (needs --elf)" : "") + "\n";
        }
        cmd.option("source", decode_.source, "The kind of trace: " + names).required();
        cmd.option("input", decode_.input, "The trace's file or directory").required();
        cmd.option("--elf", decode_.elf, "The traced firmware: names, coverage, the analyses' symbols").existing_file();
        cmd.option("-s,--scenario", decode_.scenario, "Scenario: the analyses' sections (calltrace:, constraints:), rtos: for thread names")
            .existing_file();
        outputs_.add(cmd, "--json", "json", "Write the source's totals and every analysis's result as JSON");
        outputs_.add(cmd, "--junit", "junit", "Write the analyses' test cases (timing constraints, WCET bounds) as JUnit XML");
        outputs_.add(cmd, "--report", "report", "Write a self-contained HTML page of the analyses", "FILE.html");
        analyses_.declare_sources(cmd, registry);
        analyses_.declare(cmd, registry);
        cmd.footer("Sources (emutrace analyses lists them with their options):\n" + inputs +
                   "The registered analyses run on the trace as on an emulated run (--calltrace, --wcet FUNCTION, --events FILE, ...).\n"
                   "Exit status: 0 decoded, 1 an analysis failed, 2 bad input or nothing decoded, 7 part of the trace could not be decoded\n"
                   "(the summary and the JSON say where). Example: emutrace decode ptm snap/ --elf fw.elf --calltrace");
        return cmd;
    }
    int run(const AnalysisRegistry& registry) override {
        analyses_.collect(decode_.options);
        outputs_.collect(decode_.options);
        return decode_command(registry, decode_);
    }

private:
    DecodeOptions decode_;
    NamedOutputs outputs_;
    AnalysisOptions analyses_;
};

}  // namespace

std::unique_ptr<Subcommand> decode_subcommand() {
    return std::make_unique<DecodeSubcommand>();
}

}  // namespace emutrace::app::cli
