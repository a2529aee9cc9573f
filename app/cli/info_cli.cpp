// emutrace info: an ELF's entry point, segments and functions.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class InfoSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd = parser.subcommand("info", "Show an ELF's entry point, loadable segments and functions.");
        cmd.option("elf", elf_, "Firmware ELF").required().existing_file();
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return info_command(elf_); }

private:
    std::string elf_;
};

}  // namespace

std::unique_ptr<Subcommand> info_subcommand() {
    return std::make_unique<InfoSubcommand>();
}

}  // namespace emutrace::app::cli
