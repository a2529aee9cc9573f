#include <cstdio>

#include "analysis/wcet/flow_facts.h"
#include "analysis/wcet/wcet_config.h"
#include "analysis/wcet/wcet_report.h"
#include "analysis/wcet/wcet_session.h"
#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "decode/elf_image.h"
#include "emu/machine.h"
#include "emutrace/config_error.h"
#include "report/page.h"
#include "session/scenario.h"

namespace emutrace::app {

using namespace analysis::wcet;

namespace {

// The function to bound ("" with --all), once the options agree with each other.
std::string function_to_bound(const WcetOptions& o, const WcetConfig& wcet) {
    std::string function = !o.function.empty() ? o.function : wcet.function;
    if (o.all && !o.function.empty()) throw ConfigError("wcet: --all bounds every function that ran; leave out --function");
    if (o.all) function.clear();
    if (function.empty() && !o.all)
        throw ConfigError("wcet: which function? give --function NAME (or wcet: {function: NAME} in the scenario), or --all");
    if (o.no_run && o.stats_in.empty()) throw ConfigError("wcet: --no-run needs statistics to read (--stats-in FILE)");
    if (o.call_context && *o.call_context > 8)
        throw ConfigError("wcet: --call-context " + std::to_string(*o.call_context) + ": at most 8 call sites (1 or 2 is usual)");
    if (o.all && !o.flow_facts_out.empty()) throw ConfigError("wcet: --flow-facts-out writes one function's facts; give --function NAME");
    if (o.all && (!o.dot.empty() || !o.report.empty()))
        throw ConfigError("wcet: --dot and --report draw one function's worst path; give --function NAME");
    return function;
}

// The flow facts: each file's (the scenario's file first), then the scenario's own; a later
// file's fact wins over an earlier one's.
std::vector<FlowFact> flow_facts(const WcetOptions& o, const WcetConfig& wcet) {
    std::vector<FlowFact> facts = wcet.flow_facts;
    std::vector<std::string> fact_files = o.flow_facts_in;
    if (!wcet.flow_facts_file.empty()) fact_files.insert(fact_files.begin(), wcet.flow_facts_file);
    for (const auto& file : fact_files) {
        std::vector<FlowFact> more = read_flow_facts(file);
        facts.insert(facts.begin(), more.begin(), more.end());
    }
    return facts;
}

// Runs the firmware with the session's sinks: 0, or the exit status of a run that stopped early
// (what ran before the stop is still measured and written).
int run_measured(const WcetOptions& o, session::Scenario& sc, const decode::ElfImage& image, WcetSession& session) {
    sc.machine.trace_points = session.trace_points();
    emu::Machine machine(std::move(sc.machine), image);
    for (trace::TraceSink* sink : session.sinks()) machine.add_sink(*sink);
    emu::RunResult result = machine.run();
    sc.machine.clock_hz = machine.config().clock_hz;
    if (result.reason == emu::StopReason::Exited || result.reason == emu::StopReason::SymbolReached) return 0;
    std::fprintf(stderr, "emutrace: error: %s: %s\n", o.elf.c_str(), result.message.c_str());
    return emu::exit_status(result);
}

// --all: a bound for every function that ran, as one table.
int bound_all(const WcetOptions& o, const WcetSession& session, const StatisticsTable& stats, const std::vector<FlowFact>& facts,
              unsigned call_context, bool path_counts, std::uint64_t clock_hz, int status) {
    WcetTable table = bound_every_function(session, stats, facts, call_context, path_counts);
    std::printf("%s", format_wcet_table(table, clock_hz).c_str());
    if (!o.json.empty()) config::write_text_file(o.json, config::json_text(wcet_table_json(table), 2) + "\n", "JSON result");
    if (status == 0 && !table.trusted()) {
        std::fprintf(stderr, "emutrace: error: %zu of %zu bounds are not trustworthy (see the table)\n", table.untrusted(), table.rows.size());
        return 1;
    }
    return status;
}

// One function's bound, and the files it is written to.
void write_outputs(const WcetOptions& o, const WcetSession& session, const StatisticsTable& stats, const WcetResult& r, std::uint64_t clock_hz,
                   std::uint64_t max_cycles, const std::vector<std::string>& failures) {
    if (!o.json.empty()) {
        nlohmann::json j = wcet_json(r, clock_hz);
        j["statistics_runs"] = stats.runs;
        config::write_text_file(o.json, config::json_text(j, 2) + "\n", "JSON result");
    }
    if (!o.dot.empty()) write_wcet_dot(o.dot, session.program(), r);
    if (!o.flow_facts_out.empty()) write_flow_facts(o.flow_facts_out, r, o.elf);
    if (!o.report.empty()) {
        report::Page page;
        page.title = "emutrace wcet: " + r.function;
        page.facts = {o.elf, "statistics of " + std::to_string(stats.runs) + (stats.runs == 1 ? " run" : " runs")};
        page.failures = failures;
        page.passed = "the bound is trusted" + std::string(max_cycles ? " and within max_cycles" : "");
        page.sections.push_back(wcet_report_html(session.program(), r, clock_hz, max_cycles));
        config::write_text_file(o.report, page.html(), "HTML report");
    }
}

}  // namespace

int wcet_command(const WcetOptions& o) {
    session::Scenario sc = o.scenario.empty() ? session::default_scenario() : session::load_scenario_file(o.scenario);
    const WcetConfig wcet = parse_wcet_config((*sc.root)["wcet"]);
    sc.machine.echo_output = false;
    if (!o.cmdline.empty()) sc.machine.semihosting.cmdline = o.cmdline;
    const std::string function = function_to_bound(o, wcet);
    const unsigned call_context = o.call_context ? static_cast<unsigned>(*o.call_context) : wcet.call_context;
    const std::vector<FlowFact> facts = flow_facts(o, wcet);
    const bool path_counts = o.path_counts.empty() ? wcet.path_counts : o.path_counts == "runs";

    decode::ElfImage image = decode::ElfImage::load(o.elf);
    session::take_core_built_for(sc, image);
    WcetSession session(image, call_context);
    if (!o.all) session.profile(function);
    if (!o.all && !session.program().function(function))
        throw ConfigError(o.elf + ": no function named '" + function + "' with a size in the symbol table (see emutrace cfg)");
    const int status = o.no_run ? 0 : run_measured(o, sc, image, session);
    StatisticsTable stats = session.statistics(o.stats_in, !o.no_run);
    if (!o.stats_out.empty()) stats.save(o.stats_out);
    if (o.all) return bound_all(o, session, stats, facts, call_context, path_counts, sc.machine.clock_hz, status);

    WcetResult r;
    try {
        r = session.bound(stats, {function, facts, {}, call_context, path_counts});
    } catch (const ConfigError&) {
        if (status == 0) throw;
        return status;  // the run stopped before the function ran: its error, said above, is the one
    }
    std::printf("%s", format_wcet(r, sc.machine.clock_hz).c_str());
    if (stats.runs > 1) std::printf("  statistics aggregated over %llu runs\n", static_cast<unsigned long long>(stats.runs));
    const std::vector<std::string> failures = wcet_failures(r, wcet.max_cycles);
    write_outputs(o, session, stats, r, sc.machine.clock_hz, wcet.max_cycles, failures);
    for (const auto& f : failures) std::fprintf(stderr, "emutrace: %s\n", f.c_str());
    if (status == 0 && !failures.empty()) return 1;
    return status;
}

}  // namespace emutrace::app
