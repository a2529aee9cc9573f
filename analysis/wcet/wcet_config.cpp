#include "analysis/wcet/wcet_config.h"

#include <filesystem>

#include "analysis/wcet/flow_facts.h"

namespace emutrace::analysis::wcet {

WcetConfig parse_wcet_config(const config::Node& n) {
    WcetConfig w;
    if (!n.defined()) return w;
    n.allow_only({"function", "flow_facts", "flow_facts_file", "call_context", "max_cycles", "path_counts"});
    n.require({"function"});
    w.enabled = true;
    w.function = n["function"].str();
    if (n.has("max_cycles")) w.max_cycles = n["max_cycles"].integer();
    if (n.has("call_context")) {
        std::uint64_t k = n["call_context"].integer();
        if (k > 8) n["call_context"].fail("a call string of at most 8 call sites (each site multiplies the contexts; 1 or 2 is usual)");
        w.call_context = static_cast<unsigned>(k);
    }
    if (n.has("path_counts")) w.path_counts = n["path_counts"].choice({"runs", "any"}) == "runs";
    if (n.has("flow_facts_file")) {
        std::filesystem::path file = n["flow_facts_file"].str();
        if (file.is_relative()) file = std::filesystem::path(n.file()).parent_path() / file;
        w.flow_facts_file = file.string();
    }
    if (n.has("flow_facts"))
        for (const auto& f : n["flow_facts"].items()) w.flow_facts.push_back(parse_flow_fact(f));
    return w;
}

}  // namespace emutrace::analysis::wcet
