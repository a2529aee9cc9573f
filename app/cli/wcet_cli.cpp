// emutrace wcet: a function's WCET bound from loop-context block statistics and IPET.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class WcetSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        Command cmd =
            parser.subcommand("wcet", "Run the firmware, aggregate per-block times by loop context, and bound a function's WCET with IPET (GLPK).");
        cmd.option("elf", wcet_.elf, "Firmware ELF").required().existing_file();
        cmd.option("-s,--scenario", wcet_.scenario, "Scenario YAML (board, stimuli, wcet: {function, flow_facts, max_cycles})").existing_file();
        cmd.option("-f,--function", wcet_.function, "The function to bound (overrides the scenario's)");
        cmd.option("--cmdline", wcet_.cmdline, "Text the firmware reads with semihosting SYS_GET_CMDLINE");
        cmd.option("--stats-in", wcet_.stats_in, "Statistics of earlier runs (--stats-out files) to merge; repeatable").existing_file();
        cmd.option("--stats-out", wcet_.stats_out, "Save the merged statistics (JSON) for later runs");
        cmd.flag("--no-run", wcet_.no_run, "Do not run the firmware: bound from --stats-in alone");
        cmd.flag("--all", wcet_.all, "Bound every function that ran: a table of observed and bound per function (--json writes it)");
        cmd.option("--json", wcet_.json, "Write bound, observed time, worst path and never-executed blocks as JSON");
        cmd.option("--dot", wcet_.dot, "Write the CFGs with the worst path's counts as Graphviz DOT");
        cmd.option("--call-context", wcet_.call_context,
                   "Call-string length K: each callee is measured and bounded per distinct last K call sites (default 2; 0: once per "
                   "function)")
            .type_name("K");
        cmd.option("--flow-facts", wcet_.flow_facts_in,
                   "Loop bounds and totals, recursions' entries, to use (a file --flow-facts-out wrote, edited); repeatable")
            .existing_file();
        cmd.option("--flow-facts-out", wcet_.flow_facts_out,
                   "Write the loop bounds and totals and the recursions' entries the bound used, per context, as an editable flow-facts file");
        cmd.option("--path-counts", wcet_.path_counts,
                   "runs (default): hold each block to how often the runs took it per run of its caller, where every run agreed; "
                   "any: allow any path mix (the bound for inputs whose paths differ)")
            .one_of({"runs", "any"});
        cmd.option("--report", wcet_.report, "Write a self-contained HTML page: the bound beside the longest run, the worst path on each CFG")
            .type_name("FILE.html");
        cmd.footer(
            "The bound covers the function and its callees, interrupts excluded, from the blocks' measured maxima per\n"
            "call-string context and per CFG edge; loop bounds are the most iterations observed per entry, and a loop\n"
            "nested in another (in the same function or through a call) is also held to its most iterations over one\n"
            "entry of that loop, unless a flow fact (scenario, or --flow-facts FILE) says otherwise. A recursion is\n"
            "bounded by the most entries into it the runs saw per call from outside it (or a `recursion` flow fact). A block\n"
            "whose executions per run of its caller were the same in every run (one run: always) is held to that count, so a\n"
            "soft-float routine keeps the runs' mix of fast and slow paths; runs that differ free it (--path-counts any: all).\n"
            "It is a measurement-based bound: safe for the paths, loop counts, path counts and contexts the runs covered,\n"
            "which it lists; with one input it is that input's bound, and more inputs (--stats-in) make it hold for more.\n"
            "Every bound is cross-checked: the function times measured from the CFG must equal those the call tracer\n"
            "measures from the same run's branch events, and the bound must not be below the longest run.\n"
            "Exit status: 0; 1 when the bound exceeds the scenario's max_cycles or is not to be trusted;\n"
            "2 bad input, a function that cannot be bounded (never ran, never returned, a recursion entered at two functions)\n"
            "or a firmware fault.\n"
            "Examples: emutrace wcet build/firmware/wcet.elf --function wcet_scan --stats-out scan.json\n"
            "          emutrace wcet build/firmware/wcet_kernels.elf -f k_stats --flow-facts-out stats.facts.yaml\n"
            "          emutrace wcet build/firmware/wcet_kernels.elf -f k_stats --flow-facts stats.facts.yaml\n"
            "          emutrace wcet build/firmware/libcalls.elf --all");
        return cmd;
    }
    int run(const AnalysisRegistry&) override { return wcet_command(wcet_); }

private:
    WcetOptions wcet_;
};

}  // namespace

std::unique_ptr<Subcommand> wcet_subcommand() {
    return std::make_unique<WcetSubcommand>();
}

}  // namespace emutrace::app::cli
