#include "analysis/wcet/flow_facts.h"

#include "config/text_file.h"
#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

constexpr const char* kFormat = "emutrace-flow-facts";

std::string addresses(const std::vector<std::uint32_t>& list) {
    std::string s = "[";
    for (std::size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + config::hex32(list[i]);
    return s + "]";
}

// The context a fact holds in, if it names one.
void parse_context(const config::Node& f, FlowFact& fact) {
    if (!f.has("context")) return;
    std::vector<std::uint32_t> calls;
    for (const auto& a : f["context"].items()) calls.push_back(a.u32());
    if (calls.size() > 16) f["context"].fail("a context is at most 16 call sites");
    fact.context = std::move(calls);
}

}  // namespace

FlowFact parse_flow_fact(const config::Node& f) {
    f.allow_only({"function", "loop", "header", "bound", "total", "totals_over", "totals_over_callers", "context", "recursion", "block", "count",
                  "per", "cycles"});
    FlowFact fact;
    fact.origin = f.where();
    if (f.has("block") || f.has("count") || f.has("per") || f.has("cycles")) {
        if (f.has("loop") || f.has("header") || f.has("bound") || f.has("total") || f.has("totals_over") || f.has("totals_over_callers") ||
            f.has("recursion"))
            f.fail("a path count names a block and gives `count` (and `per`) alone (loops and recursions take their own facts)");
        f.require({"block", "count"});
        fact.block = f["block"].u32();
        fact.count = f["count"].integer();
        if (f.has("function")) fact.function = f["function"].str();
        if (f.has("per")) fact.per = f["per"].str();
        if (f.has("cycles")) fact.cycles = f["cycles"].integer();
        parse_context(f, fact);
        return fact;
    }
    if (f.has("recursion")) {
        if (f.has("loop") || f.has("header") || f.has("bound") || f.has("total") || f.has("totals_over"))
            f.fail("a recursion fact names a function and gives `recursion` alone (loops take their own facts)");
        f.require({"function"});
        fact.function = f["function"].str();
        fact.recursion = f["recursion"].integer();
        if (fact.recursion == 0)
            f["recursion"].fail("recursion counts entries into the function per call from outside it, that call included: at least 1");
        parse_context(f, fact);
        return fact;
    }
    if (!f.has("bound") && !f.has("total") && !f.has("totals_over") && !f.has("totals_over_callers"))
        f.fail(
            "a flow fact gives `bound` (per entry of the loop), `total` (per entry of its enclosing loop), `totals_over` (per entry "
            "of loops further out), or some of them; or, for a recursive function, `recursion`");
    if (f.has("bound")) {
        fact.bound = f["bound"].integer();
        if (fact.bound == 0) f["bound"].fail("a loop bound counts header executions per entry: at least 1");
    }
    if (f.has("total")) {
        fact.total = f["total"].integer();
        if (fact.total == 0) f["total"].fail("a loop total counts header executions per entry of the enclosing loop: at least 1");
    }
    if (f.has("totals_over")) {
        for (const auto& [loop, total] : f["totals_over"].entries()) {
            const std::optional<std::uint64_t> index = config::parse_integer(loop);
            if (!index || *index > 9999)
                total.fail("totals_over is a map from a loop's index in the function (as `emutrace cfg` prints it) to a total");
            if (total.integer() == 0) total.fail("a loop total counts header executions per entry of the loop further out: at least 1");
            fact.totals_over.push_back({static_cast<int>(*index), total.integer()});
        }
    }
    if (f.has("totals_over_callers"))
        for (const auto& [loop, total] : f["totals_over_callers"].entries()) {
            if (loop.find(" loop ") == std::string::npos)
                total.fail("totals_over_callers is a map from a caller's loop, \"function loop N\" (as `emutrace cfg` numbers it), to a total");
            if (total.integer() == 0) total.fail("a loop total counts header executions per entry of the caller's loop: at least 1");
            fact.totals_over_callers.push_back({loop, total.integer()});
        }
    if (f.has("header")) {
        if (f.has("function") || f.has("loop")) f.fail("a flow fact names its loop by header, or by function and loop, not both");
        fact.header = f["header"].u32();
    } else {
        f.require({"function", "loop"});
        fact.function = f["function"].str();
        fact.loop = static_cast<int>(f["loop"].u32());
    }
    parse_context(f, fact);
    return fact;
}

std::vector<FlowFact> read_flow_facts(const std::string& path) {
    config::Node root = config::Node::load_file(path);
    root.allow_only({"format", "version", "firmware", "function", "call_context", "flow_facts"});
    if (!root.has("format") || root["format"].str() != kFormat) root.fail(std::string("not an emutrace flow-facts file (format: ") + kFormat + ")");
    if (root.has("version") && root["version"].integer() != 1) root["version"].fail("version 1 is the one this emutrace reads");
    std::vector<FlowFact> out;
    if (root.has("flow_facts"))
        for (const auto& f : root["flow_facts"].items()) out.push_back(parse_flow_fact(f));
    return out;
}

void write_flow_facts(const std::string& path, const WcetResult& r, const std::string& firmware) {
    std::string s = "# Flow facts of " + r.function +
                    ", from the runs emutrace measured (docs/wcet.md, \"Flow facts\").\n"
                    "# bound: most header executions per entry of the loop; total: per entry of the loop around it (in\n"
                    "# the same function, or around the call that leads here); totals_over: per entry of loops further\n"
                    "# out in the function, by their index; totals_over_callers: per entry of callers' loops beyond the\n"
                    "# one around the call, by name; recursion: most entries into a recursive function per call\n"
                    "# from outside its recursion, that call included. context: the call instructions that\n"
                    "# lead to the loop's function, outermost first. block, count, per: a path count, the most\n"
                    "# executions of the block starting there per run of function `per` (none: of the bounded\n"
                    "# function), and with cycles the most cycles they take in all; those that cut the worst path\n"
                    "# of any mix are listed, the runs' others still apply. Edit a value\n"
                    "# (one below what a run did is refused), add one, and give the file back:\n"
                    "# emutrace wcet ... --flow-facts FILE\n";
    s += std::string("format: ") + kFormat + "\nversion: 1\n";
    std::string quoted;
    for (char c : firmware) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    s += "firmware: \"" + quoted + "\"\nfunction: " + r.function + "\ncall_context: " + std::to_string(r.coverage.call_depth) + "\n";
    std::string facts;
    std::size_t written = 0;
    for (const auto& l : r.loops) {
        if (l.bound == 0) continue;
        facts += "  - {function: " + l.function + ", loop: " + std::to_string(l.loop);
        if (!l.context_calls.empty()) facts += ", context: " + addresses(l.context_calls);
        facts += ", bound: " + std::to_string(l.bound);
        if (l.total) facts += ", total: " + std::to_string(l.total);
        if (!l.outer_total_loops.empty()) {
            facts += ", totals_over: {";
            for (std::size_t i = 0; i < l.outer_total_loops.size(); ++i)
                facts += (i ? ", " : "") + std::to_string(l.outer_total_loops[i]) + ": " + std::to_string(l.outer_totals[i].second);
            facts += "}";
        } else if (!l.outer_totals.empty()) {  // an outermost loop's: over callers' loops
            facts += ", totals_over_callers: {";
            for (std::size_t i = 0; i < l.outer_totals.size(); ++i)
                facts += (i ? ", \"" : "\"") + l.outer_totals[i].first + "\": " + std::to_string(l.outer_totals[i].second);
            facts += "}";
        }
        facts += "}  # " + l.source + (l.total ? ", total " + l.total_source + (l.total_over.empty() ? "" : " per entry of " + l.total_over) : "") +
                 "; header " + config::hex32(l.header) + (l.line.empty() ? "" : " (" + l.line + ")") +
                 (l.context.empty() ? "" : "; called from " + l.context) + "\n";
        ++written;
    }
    for (const auto& rec : r.recursions) {
        facts += "  - {function: " + rec.function;
        if (!rec.context_calls.empty()) facts += ", context: " + addresses(rec.context_calls);
        facts +=
            ", recursion: " + std::to_string(rec.entries) + "}  # " + rec.source + "; entries per call from outside the recursion" + rec.others();
        facts += (rec.context.empty() ? "" : "; called from " + rec.context) + "\n";
        ++written;
    }
    for (const auto& u : r.path_counts) {
        if (!u.binding && u.source == "observed") continue;  // one that does not hold the bound: the runs' still applies when read back
        facts += "  - {function: " + u.function + ", block: " + config::hex32(u.block);
        if (!u.context_calls.empty()) facts += ", context: " + addresses(u.context_calls);
        facts += ", count: " + std::to_string(u.count) + (u.cycles ? ", cycles: " + std::to_string(u.cycles) : "") +
                 (u.per.empty() ? "" : ", per: " + u.per) + "}  # " + u.source;
        if (u.source == "observed") facts += u.runs == 1 ? " in 1 run" : ", the same in " + std::to_string(u.runs) + " runs";
        facts += "; per run of " + (u.per.empty() ? r.function : u.per) + (u.context.empty() ? "" : "; called from " + u.context) + "\n";
        ++written;
    }
    s += written ? "flow_facts:\n" + facts : "flow_facts: []\n";
    for (const auto& l : r.loops)
        if (l.bound == 0)
            s += "# never entered: {function: " + l.function + ", loop: " + std::to_string(l.loop) + "} header " + config::hex32(l.header) +
                 (l.context.empty() ? "" : " from " + l.context) + "\n";
    config::write_text_file(path, s, "flow facts");
}

}  // namespace emutrace::analysis::wcet
