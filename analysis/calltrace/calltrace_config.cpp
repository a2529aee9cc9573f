#include "analysis/calltrace/calltrace_config.h"

#include "config/units.h"

namespace emutrace::analysis {
namespace {

TraceEventConfig parse_trace_event(const config::Node& n) {
    n.allow_only({"enter", "exit", "marker", "exception", "thread"});
    TraceEventConfig e;
    e.where = n.where();
    auto entries = n.entries();
    if (n.has("thread")) {  // only in this thread (as its RTOS names it: rtos:)
        e.thread = n["thread"].str();
        std::erase_if(entries, [](const auto& entry) { return entry.first == "thread"; });
    }
    if (entries.size() != 1) n.fail("name exactly one of: enter, exit, marker, exception (and optionally thread)");
    e.kind = entries[0].first;
    if (e.kind == "enter" || e.kind == "exit")
        e.function = entries[0].second.str();
    else
        e.value = entries[0].second.u32();
    return e;
}

ConstraintConfig parse_constraint(const config::Node& n) {
    n.allow_only({"name", "start", "end", "deadline", "limit", "by_payload"});
    n.require({"name", "start", "end"});
    ConstraintConfig c;
    c.name = n["name"].str();
    c.start = parse_trace_event(n["start"]);
    c.end = parse_trace_event(n["end"]);
    if (n.has("deadline")) c.deadline = parse_trace_event(n["deadline"]);
    if (n.has("limit")) {
        std::string limit = n["limit"].str();
        if (limit.size() > 6 && limit.ends_with("cycles")) {
            auto v = config::parse_integer(limit.substr(0, limit.size() - 6));
            if (!v) n["limit"].fail("expected a number of cycles such as '30000 cycles'");
            if (!*v) n["limit"].fail("a limit of 0 cycles can never be met: give at least one cycle, or leave the limit out");
            c.limit_cycles = *v;
        } else {
            c.limit_seconds = n["limit"].seconds();
            if (!(c.limit_seconds > 0)) n["limit"].fail("a limit of no time can never be met: give a time such as '50us', or leave the limit out");
        }
        c.limit_text = limit.substr(0, 80);
        c.limit_where = n["limit"].where();
    } else if (!c.deadline) {
        n.fail("a constraint needs a limit, a deadline, or both");
    }
    if (n.has("by_payload")) c.by_payload = n["by_payload"].boolean();
    return c;
}

void parse_calltrace(const config::Node& n, CalltraceConfig& c) {
    n.allow_only({"phases", "top", "include", "exclude", "buffer", "event_budget"});
    if (!n.defined()) return;
    c.enabled = true;
    if (n.has("phases"))
        for (const auto& p : n["phases"].items()) c.phases.push_back(p.str());
    if (n.has("include"))
        for (const auto& p : n["include"].items()) c.include.push_back(p.str());
    if (n.has("exclude"))
        for (const auto& p : n["exclude"].items()) c.exclude.push_back(p.str());
    if (n.has("event_budget")) {
        c.event_budget = static_cast<double>(n["event_budget"].integer());
        if (c.event_budget <= 0) n["event_budget"].fail("must be a positive number of events per second");
    }
    if (n.has("buffer")) {
        c.buffer_bytes = n["buffer"].size();
        if (c.buffer_bytes < 21 || c.buffer_bytes > (1ull << 30)) n["buffer"].fail("must be between 21 bytes and 1 GiB");
    }
    if (n.has("top")) c.top = n["top"].u32();
}

}  // namespace

CalltraceConfig parse_calltrace_config(const config::Node& calltrace, const config::Node& constraints) {
    CalltraceConfig c;
    parse_calltrace(calltrace, c);
    if (constraints.defined()) {
        for (const auto& n : constraints.items()) c.constraints.push_back(parse_constraint(n));
        c.enabled = true;
    }
    return c;
}

}  // namespace emutrace::analysis
