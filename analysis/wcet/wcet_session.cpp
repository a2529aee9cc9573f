#include "analysis/wcet/wcet_session.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "config/units.h"
#include "decode/cfg_dot.h"
#include "decode/source_lines.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {

namespace {

// FNV-1a over the executable segments: the same code, the same block addresses.
std::string code_id_of(const decode::ElfImage& image) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const auto& s : image.segments()) {
        if (!s.executable) continue;
        for (std::uint8_t b : s.bytes) h = (h ^ b) * 0x100000001b3ull;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
}

}  // namespace

WcetSession::WcetSession(const decode::ElfImage& image, unsigned call_depth)
    : image_(image), lines_(image.path()), program_(decode::Program::build(image)), points_(program_), aggregator_(program_, points_, call_depth),
      tracer_(image), code_id_(code_id_of(image)), firmware_(image.path()) {
    tracer_.add_listener(call_times_);
}

void WcetSession::profile(const std::string& function) {
    const auto& fns = program_.functions();
    for (std::size_t f = 0; f < fns.size(); ++f)
        if (fns[f].name == function) aggregator_.profile(static_cast<std::uint32_t>(f));
}

std::vector<trace::TraceSink*> WcetSession::sinks() {
    ran_ = true;
    return {&background_, &tracer_background_};
}

const SoundnessReport& WcetSession::soundness() const {
    if (!soundness_)
        soundness_ = check_soundness(program_, aggregator_.table(), call_times_, tracer_.unmatched_returns(), aggregator_.tracker().saturations());
    return *soundness_;
}

WcetResult WcetSession::bound_so_far(WcetQuery query) {
    background_.settle();
    tracer_background_.settle();
    try {
        WcetResult r = bound(statistics({}, true), std::move(query));
        soundness_.reset();  // worked out on part of the run: the end works it out again
        return r;
    } catch (...) {
        soundness_.reset();
        throw;
    }
}

StatisticsTable WcetSession::statistics(const std::vector<std::string>& stats_in, bool include_run) const {
    StatisticsTable t;
    if (include_run) {
        t = aggregator_.table();
        t.checked_runs = ran_ && soundness().passed() ? 1 : 0;
    }
    t.firmware = firmware_;
    t.code_id = code_id_;
    for (const auto& path : stats_in) {
        StatisticsTable in = StatisticsTable::load(path);
        if (in.code_id.empty()) in.code_id = code_id_;  // written without one: trust the user
        try {
            t.merge(in);
        } catch (const ConfigError& e) {
            throw ConfigError(path + ": " + e.what());
        }
    }
    return t;
}

namespace {

std::string cycles_and_time(std::uint64_t cycles, std::uint64_t clock_hz) {
    char buf[96];
    double us = clock_hz ? static_cast<double>(cycles) * 1e6 / static_cast<double>(clock_hz) : 0;
    std::snprintf(buf, sizeof buf, "%10llu cycles  %10.2f us", static_cast<unsigned long long>(cycles), us);
    return buf;
}

std::string line(const char* fmt, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

}  // namespace

WcetResult WcetSession::bound(const StatisticsTable& stats, WcetQuery query) const {
    if (!query.source_line) query.source_line = [this](std::uint32_t address) { return lines_.at(address).value_or(""); };
    const decode::Function* f = program_.function(query.function);
    if (f && !f->blocks.empty() && !stats.blocks.count(f->blocks.front().start)) {
        // IPET would only say "infeasible": say why there is nothing to bound.
        std::string where;
        for (const auto& site : lines_.inlined_copies(query.function)) where += (where.empty() ? "" : ", ") + site;
        throw ConfigError("wcet: " + query.function + " never ran in the measured runs" +
                          (where.empty() ? std::string(": no run called it; give an input or scenario that does")
                                         : ": GCC inlined it into " + where + "; bound the function it was inlined into instead"));
    }
    WcetResult r = compute_wcet(program_, stats, query);
    std::uint64_t unchecked = stats.runs - std::min(stats.runs, stats.checked_runs);
    if (ran_) {
        // What concerns this bound: the whole run, and the functions in its ILP.
        std::set<std::uint32_t> in_bound;
        for (const auto& share : r.functions)
            if (const decode::Function* g = program_.function(share.name)) in_bound.insert(g->start);
        const SoundnessReport& check = soundness();
        std::vector<std::string> found;  // first in the report: they explain a bound below a run
        for (const auto& d : check.disagreements)
            if (d.function == 0 || in_bound.count(d.function)) found.push_back("cross-check: " + d.text);
        for (std::uint32_t start : check.switched_out)
            if (in_bound.count(start))
                found.push_back("cross-check: " + image_.symbols().describe(start) +
                                " ran while its thread was switched out (it blocked): its observed time includes other threads' time; "
                                "bound a function that does not block");
        r.errors.insert(r.errors.begin(), found.begin(), found.end());
        if (found.empty() && !check.passed())
            r.warnings.push_back("the run's cross-check found disagreements, none in a function of this bound (wcet --all lists them)");
        if (!check.passed() && unchecked) --unchecked;  // this run: said above as far as it concerns this bound
    }
    if (unchecked)
        r.warnings.push_back(std::to_string(unchecked) +
                             " of the merged runs did not pass the cross-check (statistics of an older emutrace, "
                             "or a run whose function times disagreed)");
    r.cross_check = "function times from the CFG equal those from the branch events in " + std::to_string(stats.checked_runs) + " of " +
                    std::to_string(stats.runs) + (stats.runs == 1 ? " run" : " runs");
    return r;
}

namespace {

constexpr std::size_t kCalledLoopsShown = 12;  ///< loops of called functions in the text report

std::string format_gap(const WcetResult& r) {
    if (r.gap.empty()) return "";
    std::string s = line("  where the bound parts from the longest run (%llu cycles), largest first (count x mean cycles):\n",
                         static_cast<unsigned long long>(r.profiled_cycles));
    std::size_t shown = 0;
    for (const auto& g : r.gap) {
        if (g.gap() <= 0 || shown++ == 8) break;
        const double bound_mean = g.bound_count ? static_cast<double>(g.bound_cycles) / static_cast<double>(g.bound_count) : 0;
        const double run_mean = g.observed_count ? static_cast<double>(g.observed_cycles) / static_cast<double>(g.observed_count) : 0;
        std::string what = g.from_count() >= g.gap() / 2 ? "more executions" : "slower executions";
        s += line("    %s %-18s bound %6llu x %6.2f  run %6llu x %6.2f  gap %+7lld (%s)%s\n", config::hex32(g.start).c_str(), g.function.c_str(),
                  static_cast<unsigned long long>(g.bound_count), bound_mean, static_cast<unsigned long long>(g.observed_count), run_mean,
                  static_cast<long long>(g.gap()), what.c_str(), g.context.empty() ? "" : (" from " + g.context).c_str());
    }
    return s;
}

// How many blocks the runs' path counts held, and the bound over any path mix beside it.
std::string format_path_counts(const WcetResult& r) {
    std::size_t observed = 0, facts = 0, binding = 0, timed = 0;
    for (const auto& u : r.path_counts) {
        (u.source == "observed" ? observed : facts) += 1;
        binding += u.binding && u.source == "observed";
        timed += u.cycles > 0 && u.source == "observed";
    }
    std::string s;
    if (observed)
        s += line(
            "  path counts: %zu blocks held to their executions per run of their caller (%zu also to their cycles there), each the same in "
            "every such run; %zu of them cut the worst path of any mix (--flow-facts-out lists those)\n",
            observed, timed, binding);
    else
        s += "  path counts: none from the runs" +
             (r.path_counts_unused.empty() ? std::string(" (no block ran as often in every run)") : ": " + r.path_counts_unused) + "\n";
    if (facts) s += line("  path counts: %zu from flow facts (they hold in the any-mix bound too)\n", facts);
    return s;
}

std::string format_coverage(const WcetResult& r) {
    const Coverage& c = r.coverage;
    std::string s = r.path_counts.empty()
                        ? "  meaning: a measurement-based bound, safe for the paths, loop counts and call contexts the runs covered (not a static "
                          "proof):\n"
                        : "  meaning: a measurement-based bound, safe for the paths, loop counts, path counts and call contexts the runs covered "
                          "(not a static proof; one input: that input's bound):\n";
    s += line("    covered: %zu of %zu blocks, %zu of %zu edges, %zu call context%s (call strings of up to %u call sites)\n", c.blocks_seen, c.blocks,
              c.edges_seen, c.edges, c.contexts, c.contexts == 1 ? "" : "s", c.call_depth);
    if (!c.unseen_contexts.empty()) {
        s += line("    calls no run made (%zu; their callees are not in the bound from there):\n", c.unseen_contexts.size());
        for (std::size_t i = 0; i < c.unseen_contexts.size() && i < 8; ++i) s += "      " + c.unseen_contexts[i] + "\n";
        if (c.unseen_contexts.size() > 8) s += line("      ... and %zu more (in the JSON)\n", c.unseen_contexts.size() - 8);
    }
    return s;
}

// The loops' bounds and totals: every loop of the function, the first few of its callees' (the
// rest in the JSON), one line for each loop no context entered.
std::string format_loops(const WcetResult& r) {
    std::string s;
    std::map<std::string, std::size_t> never_entered;                   // one line for a loop no context entered
    std::size_t called_shown = 0, called_hidden = 0, called_never = 0;  // callees' loops: the first few, the rest in the JSON
    for (const auto& l : r.loops) {
        if (l.source == "never entered") {
            if (l.context.empty())
                ++never_entered[l.function + " loop " + std::to_string(l.loop) + " at " + config::hex32(l.header)];
            else
                ++called_never;
            continue;
        }
        if (!l.context.empty() && called_shown++ >= kCalledLoopsShown) {
            ++called_hidden;
            continue;
        }
        std::string what = std::to_string(l.bound) + " iterations per entry (" + l.source + ")";
        if (l.total)
            what += ", " + std::to_string(l.total) + " per entry of " + (l.total_over.empty() ? "the enclosing loop" : l.total_over) + " (" +
                    l.total_source + ")";
        for (const auto& [outer, total] : l.outer_totals)
            what += ", " + std::to_string(total) + " per entry of " + outer + " (" + l.outer_totals_source + ")";
        s += "  loop: " + l.function + " loop " + std::to_string(l.loop) + " at " + config::hex32(l.header) +
             (l.line.empty() ? "" : " (" + l.line + ")") + (l.context.empty() ? "" : " from " + l.context) + ": " + what + "\n";
    }
    if (called_hidden)
        s += line("  loop: ... and %zu more in called functions' contexts (--json and --flow-facts-out list them all)\n", called_hidden);
    for (const auto& [loop, contexts] : never_entered) s += "  loop: " + loop + ": never entered\n";
    if (called_never) s += line("  loop: %zu loops of called functions never entered in their contexts (listed in --json)\n", called_never);
    for (const auto& rec : r.recursions)
        s += "  recursion: " + rec.function + rec.others() + (rec.context.empty() ? "" : " from " + rec.context) + ": " +
             std::to_string(rec.entries) + " entries per call from outside (" + rec.source + ")\n";
    if (!r.cycles.empty()) {
        std::uint64_t most = 0;
        for (const auto& c : r.cycles) most = std::max(most, c.most_per_call);
        s += line("  irreducible cycles: %zu blocks bounded by their most executions per call (observed, up to %llu), first at %s in %s\n",
                  r.cycles.size(), static_cast<unsigned long long>(most), r.cycles.front().where.c_str(), r.cycles.front().function.c_str());
    }
    return s;
}

// Where the worst path spends its cycles: by function (with the longest run beside it when
// runs were profiled), then its heaviest blocks, then the blocks it leaves out.
std::string format_worst_path(const WcetResult& r) {
    std::string s = "  worst path by function:" + std::string(r.gap.empty() ? "" : "                     longest run      gap") + "\n";
    for (const auto& f : r.functions) {
        s += line("    %-28s %10llu cycles %6.1f%%  entered %llu times", f.name.c_str(), static_cast<unsigned long long>(f.cycles),
                  r.bound_cycles ? 100.0 * static_cast<double>(f.cycles) / static_cast<double>(r.bound_cycles) : 0.0,
                  static_cast<unsigned long long>(f.entries));
        if (!r.gap.empty())
            s += line("  %10llu %+8lld", static_cast<unsigned long long>(f.observed_cycles),
                      static_cast<long long>(f.cycles) - static_cast<long long>(f.observed_cycles));
        if (f.contexts > 1) s += line("  in %zu contexts", f.contexts);
        s += "\n";
    }
    s += format_gap(r);
    std::vector<PathBlock> heavy = r.path;
    std::sort(heavy.begin(), heavy.end(), [](const auto& a, const auto& b) { return a.cycles > b.cycles; });
    if (heavy.size() > 8) heavy.resize(8);
    s += "  heaviest blocks on the worst path (first iteration count x cost + later x cost, less what cheaper edges save):\n";
    for (const auto& b : heavy)
        s += line("    %s-%s %-20s %5llu x %-5llu + %5llu x %-5llu = %llu\n", config::hex32(b.start).c_str(), config::hex32(b.end).c_str(),
                  b.function.c_str(), static_cast<unsigned long long>(b.first_count), static_cast<unsigned long long>(b.first_cost),
                  static_cast<unsigned long long>(b.later_count), static_cast<unsigned long long>(b.later_cost),
                  static_cast<unsigned long long>(b.cycles));
    if (!r.never_executed.empty()) {
        s += "  never executed (" + std::to_string(r.never_executed.size()) + " blocks, not in the bound):\n";
        for (const auto& b : r.never_executed)
            s += line("    %s-%s %-20s %s\n", config::hex32(b.start).c_str(), config::hex32(b.end).c_str(), b.function.c_str(),
                      b.reachable ? "untested path (reachable in the CFG): add an input that runs it"
                                  : "dead code (no CFG path from the function's entry)");
    }
    return s;
}

}  // namespace

std::string format_wcet(const WcetResult& r, std::uint64_t clock_hz) {
    std::string s = "WCET of " + r.function + " (" + std::to_string(r.blocks) + " blocks in the ILP" +
                    (r.ilp_rows ? line(", %zu rows x %zu columns, solves %.0f ms", r.ilp_rows, r.ilp_columns, r.solve_seconds * 1e3) : "") + "):\n";
    s += "  bound, loop context        " + cycles_and_time(r.bound_cycles, clock_hz) + "\n";
    if (r.any_path_bound_cycles != r.bound_cycles)
        s += "  bound, any path mix        " + cycles_and_time(r.any_path_bound_cycles, clock_hz) +
             line("  (bound/observed %.3f: for inputs that take the paths in other proportions)\n",
                  r.observed_max_cycles ? static_cast<double>(r.any_path_bound_cycles) / static_cast<double>(r.observed_max_cycles) : 0.0);
    double gain = r.insensitive_bound_cycles
                      ? 100.0 * (1.0 - static_cast<double>(r.any_path_bound_cycles) / static_cast<double>(r.insensitive_bound_cycles))
                      : 0;
    s += "  bound, one max per block   " + cycles_and_time(r.insensitive_bound_cycles, clock_hz) +
         line("  (%sthe loop context saves %.1f%%)\n", r.any_path_bound_cycles != r.bound_cycles ? "any path mix; " : "", gain);
    if (r.observed_runs)
        s += "  longest observed           " + cycles_and_time(r.observed_max_cycles, clock_hz) +
             line("  (%llu runs; bound/observed %.3f)\n", static_cast<unsigned long long>(r.observed_runs),
                  r.observed_max_cycles ? static_cast<double>(r.bound_cycles) / static_cast<double>(r.observed_max_cycles) : 0.0);
    else
        s += "  longest observed           (no complete call of " + r.function + " was seen)\n";
    s += format_path_counts(r);
    s += format_loops(r);
    s += format_worst_path(r);
    s += format_coverage(r);
    for (const auto& w : r.warnings) s += "  warning: " + w + "\n";
    if (!r.cross_check.empty()) s += "  cross-check: " + r.cross_check + "\n";
    if (!r.trusted()) {
        s += "  ERROR: do not trust this bound:\n";
        for (const auto& e : r.errors) s += "    " + e + "\n";
    }
    return s;
}

std::size_t WcetTable::untrusted() const {
    std::size_t n = 0;
    for (const auto& r : rows) n += !r.errors.empty();
    return n;
}

WcetTable bound_every_function(const WcetSession& session, const StatisticsTable& stats, const std::vector<FlowFact>& flow_facts, unsigned call_depth,
                               bool path_counts) {
    WcetTable t;
    for (const auto& f : session.program().functions()) {
        auto ran = stats.functions.find(f.start);
        if (ran == stats.functions.end()) continue;
        WcetTable::Row row;
        row.function = f.name;
        row.runs = ran->second.time.count;
        row.observed_max = ran->second.time.max;
        try {
            WcetResult r = session.bound(stats, {f.name, flow_facts, {}, call_depth, path_counts});
            row.bounded = true;
            row.bound = r.bound_cycles;
            row.errors = r.errors;
            if (t.cross_check.empty()) {
                t.cross_check = r.cross_check;
                for (const auto& w : r.warnings)
                    if (w.find("merged runs") != std::string::npos) t.notes.push_back(w);
            }
        } catch (const ConfigError& e) {
            row.why_none = e.what();
        }
        t.rows.push_back(row);
    }
    return t;
}

std::string format_wcet_table(const WcetTable& table, std::uint64_t clock_hz) {
    std::string s = line("%-28s %7s %14s %14s %8s  %s\n", "function", "runs", "observed max", "bound", "ratio", "verdict");
    for (const auto& r : table.rows) {
        std::string verdict = !r.bounded ? "no bound: " + r.why_none : !r.errors.empty() ? "NOT TRUSTED: " + r.errors.front() : "ok";
        std::string bound = r.bounded ? std::to_string(r.bound) : "-";
        std::string ratio = r.bounded && r.observed_max ? line("%.3f", static_cast<double>(r.bound) / static_cast<double>(r.observed_max)) : "-";
        s += line("%-28s %7llu %14llu %14s %8s  ", r.function.c_str(), static_cast<unsigned long long>(r.runs),
                  static_cast<unsigned long long>(r.observed_max), bound.c_str(), ratio.c_str()) +
             verdict + "\n";
    }
    s += line("cycles at %.3f MHz; ", static_cast<double>(clock_hz) / 1e6) + "cross-check: " + table.cross_check + "\n";
    for (const auto& n : table.notes) s += "warning: " + n + "\n";
    return s;
}

nlohmann::json wcet_table_json(const WcetTable& table) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : table.rows) {
        nlohmann::json j = {
            {"function", r.function}, {"runs", r.runs}, {"observed_max_cycles", r.observed_max}, {"errors", r.errors}, {"trusted", r.errors.empty()}};
        if (r.bounded)
            j["bound_cycles"] = r.bound;
        else
            j["no_bound"] = r.why_none;
        rows.push_back(j);
    }
    return {{"functions", rows}, {"cross_check", table.cross_check}, {"warnings", table.notes}, {"trusted", table.trusted()}};
}

std::map<std::uint32_t, PathBlock> path_by_block(const WcetResult& r) {
    std::map<std::uint32_t, PathBlock> out;
    for (const auto& b : r.path) {
        auto [it, added] = out.try_emplace(b.start, b);
        if (added) {
            it->second.context.clear();
            continue;
        }
        PathBlock& m = it->second;
        m.first_count += b.first_count;
        m.later_count += b.later_count;
        m.first_cost = std::max(m.first_cost, b.first_cost);
        m.later_cost = std::max(m.later_cost, b.later_cost);
        m.cycles += b.cycles;
    }
    return out;
}

std::vector<std::string> wcet_failures(const WcetResult& r, std::uint64_t max_cycles) {
    std::vector<std::string> out;
    if (!r.trusted()) out.push_back("error: the WCET bound of " + r.function + " is not trustworthy: " + r.errors.front());
    if (max_cycles && r.bound_cycles > max_cycles)
        out.push_back("WCET bound of " + r.function + " is " + std::to_string(r.bound_cycles) + " cycles, above max_cycles " +
                      std::to_string(max_cycles));
    return out;
}

namespace {

// The worst path's blocks, per context.
nlohmann::json path_json(const WcetResult& r) {
    nlohmann::json path = nlohmann::json::array();
    for (const auto& b : r.path)
        path.push_back({{"function", b.function},
                        {"context", b.context},
                        {"start", b.start},
                        {"end", b.end},
                        {"first_count", b.first_count},
                        {"later_count", b.later_count},
                        {"first_cost", b.first_cost},
                        {"later_cost", b.later_cost},
                        {"cycles", b.cycles}});
    return path;
}

// Each function's share of the worst path, and of the longest run when runs were profiled.
nlohmann::json functions_json(const WcetResult& r) {
    nlohmann::json functions = nlohmann::json::array();
    for (const auto& f : r.functions) {
        nlohmann::json fj = {{"name", f.name}, {"cycles", f.cycles}, {"entries", f.entries}, {"contexts", f.contexts}};
        if (!r.gap.empty()) {
            fj["observed_cycles"] = f.observed_cycles;
            fj["observed_entries"] = f.observed_entries;
        }
        functions.push_back(fj);
    }
    return functions;
}

// Where bound and longest run part, per block and context.
nlohmann::json gap_json(const WcetResult& r) {
    nlohmann::json gap = nlohmann::json::array();
    for (const auto& g : r.gap)
        gap.push_back({{"function", g.function},
                       {"context", g.context},
                       {"start", g.start},
                       {"end", g.end},
                       {"bound_count", g.bound_count},
                       {"bound_cycles", g.bound_cycles},
                       {"observed_count", g.observed_count},
                       {"observed_cycles", g.observed_cycles},
                       {"gap_cycles", g.gap()},
                       {"gap_from_count", g.from_count()}});
    return gap;
}

// Every loop's bound and totals, and where each came from.
nlohmann::json loops_json(const WcetResult& r) {
    nlohmann::json loops = nlohmann::json::array();
    for (const auto& l : r.loops)
        loops.push_back({{"function", l.function},
                         {"loop", l.loop},
                         {"header", l.header},
                         {"line", l.line},
                         {"bound", l.bound},
                         {"source", l.source},
                         {"total", l.total},
                         {"total_source", l.total_source},
                         {"total_over", l.total_over},
                         {"outer_totals", l.outer_totals},
                         {"outer_totals_source", l.outer_totals_source},
                         {"context", l.context},
                         {"context_calls", l.context_calls}});
    return loops;
}

// The path counts the bound used, and the bound without the runs'.
nlohmann::json path_counts_json(const WcetResult& r) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& u : r.path_counts)
        blocks.push_back({{"function", u.function},
                          {"block", u.block},
                          {"count", u.count},
                          {"per", u.per},
                          {"source", u.source},
                          {"runs", u.runs},
                          {"binding", u.binding},
                          {"context", u.context},
                          {"context_calls", u.context_calls}});
    return {{"any_path_bound_cycles", r.any_path_bound_cycles}, {"unused", r.path_counts_unused}, {"blocks", blocks}};
}

// Every recursion's entries per call from outside, per context, and where each came from.
nlohmann::json recursions_json(const WcetResult& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& rec : r.recursions)
        out.push_back({{"function", rec.function},
                       {"cycle", rec.cycle},
                       {"entries", rec.entries},
                       {"source", rec.source},
                       {"context", rec.context},
                       {"context_calls", rec.context_calls}});
    return out;
}

}  // namespace

nlohmann::json wcet_json(const WcetResult& r, std::uint64_t clock_hz) {
    using nlohmann::json;
    json never = json::array();
    const Coverage& c = r.coverage;
    json coverage = {{"meaning", r.path_counts.empty() ? "measurement-based: safe for the paths, loop counts and call contexts the runs covered"
                                                       : "measurement-based: safe for the paths, loop counts, path counts and call contexts the runs "
                                                         "covered"},
                     {"blocks", c.blocks},
                     {"blocks_seen", c.blocks_seen},
                     {"edges", c.edges},
                     {"edges_seen", c.edges_seen},
                     {"contexts", c.contexts},
                     {"call_depth", c.call_depth},
                     {"unseen_contexts", c.unseen_contexts}};
    for (const auto& b : r.never_executed)
        never.push_back({{"function", b.function}, {"start", b.start}, {"end", b.end}, {"reason", b.reachable ? "untested" : "dead code"}});
    json cycles = json::array();
    for (const auto& c : r.cycles) cycles.push_back({{"function", c.function}, {"block", c.block}, {"most_per_call", c.most_per_call}});
    double hz = static_cast<double>(clock_hz ? clock_hz : 1);
    return {{"function", r.function},
            {"bound_cycles", r.bound_cycles},
            {"bound_seconds", static_cast<double>(r.bound_cycles) / hz},
            {"insensitive_bound_cycles", r.insensitive_bound_cycles},
            {"observed_max_cycles", r.observed_max_cycles},
            {"observed_runs", r.observed_runs},
            {"ilp_blocks", r.blocks},
            {"ilp_rows", r.ilp_rows},
            {"ilp_columns", r.ilp_columns},
            {"solve_seconds", r.solve_seconds},
            {"coverage", coverage},
            {"gap", gap_json(r)},
            {"profiled_run_cycles", r.profiled_cycles},
            {"path", path_json(r)},
            {"functions", functions_json(r)},
            {"never_executed", never},
            {"loops", loops_json(r)},
            {"recursions", recursions_json(r)},
            {"path_counts", path_counts_json(r)},
            {"irreducible_blocks", cycles},
            {"warnings", r.warnings},
            {"errors", r.errors},
            {"trusted", r.trusted()},
            {"cross_check", r.cross_check}};
}

void write_wcet_dot(const std::string& path, const decode::Program& program, const WcetResult& r) {
    std::vector<const decode::Function*> chosen;
    for (const auto& share : r.functions)
        if (const decode::Function* f = program.function(share.name)) chosen.push_back(f);
    const std::map<std::uint32_t, PathBlock> merged = path_by_block(r);
    std::map<std::uint32_t, const PathBlock*> on_path;
    for (const auto& [start, b] : merged) on_path[start] = &b;
    std::map<std::uint32_t, bool> never;
    for (const auto& b : r.never_executed) never[b.start] = true;
    decode::write_cfg_dot(path, chosen, [&](std::size_t k, std::size_t b) {
        std::uint32_t start = chosen[k]->blocks[b].start;
        if (never.count(start)) return decode::DotBlockStyle{"\\nnever executed", "style=dashed, color=gray"};
        auto it = on_path.find(start);
        if (it == on_path.end()) return decode::DotBlockStyle{"\\nnot on the worst path", "color=gray"};
        const auto& p = *it->second;
        return decode::DotBlockStyle{"\\n" + std::to_string(p.first_count) + " x " + std::to_string(p.first_cost) + " + " +
                                         std::to_string(p.later_count) + " x " + std::to_string(p.later_cost) + " = " + std::to_string(p.cycles) +
                                         " cycles",
                                     "color=red"};
    });
}

}  // namespace emutrace::analysis::wcet
