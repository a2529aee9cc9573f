// emutrace cfg: the control-flow graphs of an ELF.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class CfgSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd = parser.subcommand("cfg", "Print the control-flow graphs: basic blocks, edges, jump tables, loops, calls.");
        cmd.option("elf", cfg_.elf, "Firmware ELF").required().existing_file();
        cmd.option("--function", cfg_.function, "Only this function");
        cmd.option("--dot", cfg_.dot, "Write Graphviz DOT (dot -Tsvg FILE > cfg.svg)");
        cmd.option("--json", cfg_.json, "Write the graphs as JSON");
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return cfg_command(cfg_); }

private:
    CfgOptions cfg_;
};

}  // namespace

std::unique_ptr<Subcommand> cfg_subcommand() {
    return std::make_unique<CfgSubcommand>();
}

}  // namespace emutrace::app::cli
