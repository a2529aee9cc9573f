// emutrace patch: hook calls of an instrumented ELF turned into NOPs and back.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class PatchSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd =
            parser.subcommand("patch", "Turn the -finstrument-functions hook calls of an ELF into NOPs and back, per function, without recompiling.");
        cmd.option("elf", patch_.elf, "ELF built with -finstrument-functions and firmware/ontarget (link with -Wl,--emit-relocs to re-enable)")
            .required()
            .existing_file();
        cmd.flag("--disable-all", patch_.disable_all, "Every hook call becomes a NOP.W (first)");
        cmd.option("--enable", patch_.enable, "Hook calls of the functions this glob matches become calls again (then; repeatable)")
            .type_name("GLOB");
        cmd.option("--disable", patch_.disable, "Hook calls of the functions this glob matches become NOPs (last; repeatable)").type_name("GLOB");
        cmd.option("-o,--output", patch_.output, "The patched ELF").type_name("FILE");
        cmd.flag("--list", patch_.list, "List each instrumented function with its hook calls on");
        cmd.footer(
            "Prints the functions whose hook calls changed. A call site that is neither a BL to the hook nor a NOP.W is refused with its\n"
            "address. Example: emutrace patch fw.elf --disable-all --enable 'render_*' --disable put_dot -o fw_selective.elf (docs/ontarget.md)");
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return patch_command(patch_); }

private:
    PatchOptions patch_;
};

}  // namespace

std::unique_ptr<Subcommand> patch_subcommand() {
    return std::make_unique<PatchSubcommand>();
}

}  // namespace emutrace::app::cli
