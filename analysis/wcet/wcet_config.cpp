#include "analysis/wcet/wcet_config.h"

namespace emutrace::analysis::wcet {

WcetConfig parse_wcet_config(const config::Node& n) {
    WcetConfig w;
    if (!n.defined()) return w;
    n.allow_only({"function", "flow_facts", "max_cycles"});
    n.require({"function"});
    w.enabled = true;
    w.function = n["function"].str();
    if (n.has("max_cycles")) w.max_cycles = n["max_cycles"].integer();
    if (!n.has("flow_facts")) return w;
    for (const auto& f : n["flow_facts"].items()) {
        f.allow_only({"function", "loop", "header", "bound", "total"});
        if (!f.has("bound") && !f.has("total"))
            f.fail("a flow fact gives `bound` (per entry of the loop), `total` (per entry of its enclosing loop), or both");
        FlowFact fact;
        if (f.has("bound")) {
            fact.bound = f["bound"].integer();
            if (fact.bound == 0) f["bound"].fail("a loop bound counts header executions per entry: at least 1");
        }
        if (f.has("total")) {
            fact.total = f["total"].integer();
            if (fact.total == 0) f["total"].fail("a loop total counts header executions per entry of the enclosing loop: at least 1");
        }
        if (f.has("header")) {
            if (f.has("function") || f.has("loop")) f.fail("a flow fact names its loop by header, or by function and loop, not both");
            fact.header = f["header"].u32();
        } else {
            f.require({"function", "loop"});
            fact.function = f["function"].str();
            fact.loop = static_cast<int>(f["loop"].u32());
        }
        w.flow_facts.push_back(fact);
    }
    return w;
}

}  // namespace emutrace::analysis::wcet
