// emutrace dump: a compact trace file as text.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class DumpSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd = parser.subcommand("dump", "Print a compact trace written by 'run --trace', with names from an ELF.");
        cmd.option("file", file_, "Compact trace file").required().existing_file();
        cmd.option("--elf", elf_, "The firmware the trace came from, for function names").existing_file();
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return dump_command(file_, elf_); }

private:
    std::string file_, elf_;
};

}  // namespace

std::unique_ptr<Subcommand> dump_subcommand() {
    return std::make_unique<DumpSubcommand>();
}

}  // namespace emutrace::app::cli
