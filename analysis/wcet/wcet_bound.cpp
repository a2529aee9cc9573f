#include "analysis/wcet/wcet_bound.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "analysis/wcet/ipet.h"
#include "config/config_error.h"
#include "config/units.h"

namespace emutrace::analysis::wcet {
namespace {

// The target and every function it can reach through direct calls, callees after callers.
std::vector<std::size_t> reachable_functions(const decode::Program& program, std::size_t root, std::vector<std::string>& warnings) {
    const auto& fns = program.functions();
    std::map<std::uint32_t, std::size_t> by_start;
    for (std::size_t f = 0; f < fns.size(); ++f) by_start.emplace(fns[f].start, f);
    std::vector<std::size_t> order;
    std::vector<int> state(fns.size(), 0);  // 0 unseen, 1 on the stack, 2 done
    std::vector<std::string> stack;
    auto visit = [&](auto&& self, std::size_t f) -> void {
        state[f] = 1;
        stack.push_back(fns[f].name);
        order.push_back(f);
        for (const auto& c : fns[f].calls) {
            if (!c.target) {
                warnings.push_back(fns[f].name + ": indirect call at " + config::hex32(c.at) + " not followed (its callee's time is not in the bound)");
                continue;
            }
            auto it = by_start.find(c.target);
            if (it == by_start.end()) {
                warnings.push_back(fns[f].name + ": call at " + config::hex32(c.at) + " to " + config::hex32(c.target) +
                                   ", not a sized function: its time is not in the bound");
                continue;
            }
            if (state[it->second] == 1) {
                std::string cycle;
                for (const auto& s : stack) cycle += s + " -> ";
                throw ConfigError(fns[root].name + ": recursion (" + cycle + fns[it->second].name +
                                  "); the IPET bound needs a call graph without cycles");
            }
            if (state[it->second] == 0) self(self, it->second);
        }
        stack.pop_back();
        state[f] = 2;
    };
    visit(visit, root);
    for (std::size_t f : order)
        if (fns[f].has_unknown_indirect)
            warnings.push_back(fns[f].name + ": an indirect branch that is neither a return nor a decoded jump table: "
                               "the paths through it are taken as leaving the function");
    return order;
}

std::vector<bool> reachable_blocks(const decode::Function& f) {
    std::vector<bool> seen(f.blocks.size(), false);
    if (f.blocks.empty()) return seen;
    std::vector<std::size_t> work{0};
    seen[0] = true;
    while (!work.empty()) {
        std::size_t b = work.back();
        work.pop_back();
        for (const auto& e : f.edges)
            if (e.from == b && !seen[e.to]) {
                seen[e.to] = true;
                work.push_back(e.to);
            }
    }
    return seen;
}

const FlowFact* fact_for(const WcetQuery& q, const decode::Function& f, std::size_t loop, std::uint32_t header) {
    for (const auto& fact : q.flow_facts) {
        if (fact.header && *fact.header == header) return &fact;
        if (!fact.header && fact.function == f.name && fact.loop == static_cast<int>(loop)) return &fact;
    }
    return nullptr;
}

std::uint64_t to_cycles(double bound) {
    if (!(bound >= 0) || bound >= 9.2e18) throw ConfigError("wcet: the bound does not fit 64 bits of cycles (corrupt statistics?)");
    return static_cast<std::uint64_t>(bound + 0.5);
}

}  // namespace

WcetResult compute_wcet(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query) {
    const auto& fns = program.functions();
    auto root_it = std::find_if(fns.begin(), fns.end(), [&](const decode::Function& f) { return f.name == query.function; });
    if (root_it == fns.end()) throw ConfigError("wcet: no function named '" + query.function + "' with a size in the ELF's symbols");
    WcetResult r;
    r.function = query.function;
    std::vector<std::size_t> order = reachable_functions(program, static_cast<std::size_t>(root_it - fns.begin()), r.warnings);

    // Flow facts must name loops that exist: a typo would silently leave the observed bound.
    for (const auto& fact : query.flow_facts) {
        bool found = false;
        for (const auto& f : fns)
            for (std::size_t l = 0; l < f.loops.size(); ++l)
                found = found || (fact.header ? f.blocks[f.loops[l].header].start == *fact.header
                                              : f.name == fact.function && fact.loop == static_cast<int>(l));
        if (!found)
            throw ConfigError("wcet: flow fact for " + (fact.header ? "header " + config::hex32(*fact.header)
                                                                     : fact.function + " loop " + std::to_string(fact.loop)) +
                              ": no such loop (see emutrace cfg)");
    }

    IpetProblem problem;
    std::vector<std::size_t> base(fns.size(), 0);
    struct Origin {
        std::size_t function, block;
    };
    std::vector<Origin> origin;
    for (std::size_t f : order) {
        base[f] = problem.blocks.size();
        const decode::Function& fn = fns[f];
        std::vector<bool> reach = reachable_blocks(fn);
        std::size_t loop_base = problem.loops.size();
        for (std::size_t l = 0; l < fn.loops.size(); ++l) {
            const decode::Loop& loop = fn.loops[l];
            IpetLoop il;
            il.header = base[f] + loop.header;
            std::uint32_t header = fn.blocks[loop.header].start;
            il.name = fn.name + " loop " + std::to_string(l) + " at " + config::hex32(header);
            LoopBoundUsed used{fn.name, static_cast<int>(l), header, 0, "never entered"};
            if (const FlowFact* fact = fact_for(query, fn, l, header)) {
                il.bound = fact->bound;
                used.bound = fact->bound;
                used.source = "flow fact";
            } else if (auto it = stats.loop_bounds.find(header); it != stats.loop_bounds.end()) {
                il.bound = it->second;
                used.bound = it->second;
                used.source = "observed";
            }
            for (std::size_t e = 0; e < fn.edges.size(); ++e)
                if (fn.edges[e].to == loop.header && !std::binary_search(loop.blocks.begin(), loop.blocks.end(), fn.edges[e].from))
                    il.entries.push_back(problem.edges.size() + e);
            problem.loops.push_back(il);
            r.loops.push_back(used);
        }
        for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
            const decode::BasicBlock& block = fn.blocks[b];
            IpetBlock ib;
            auto it = stats.blocks.find(block.start);
            const TimeStat none;
            const TimeStat& first = it == stats.blocks.end() ? none : it->second.context[0];
            const TimeStat& later = it == stats.blocks.end() ? none : it->second.context[1];
            ib.first_cost = static_cast<double>(first.max);
            ib.later_cost = static_cast<double>(later.max);
            ib.first_seen = first.seen();
            ib.later_seen = block.loop >= 0 && later.seen();
            ib.loop = block.loop >= 0 ? static_cast<int>(loop_base) + block.loop : -1;
            ib.may_exit = block.exit == decode::BlockExit::Return || block.exit == decode::BlockExit::TailCall ||
                          block.exit == decode::BlockExit::Indirect;
            if (!first.seen() && !later.seen()) r.never_executed.push_back({fn.name, block.start, block.end, static_cast<bool>(reach[b])});
            problem.blocks.push_back(ib);
            origin.push_back({f, b});
        }
        for (const auto& e : fn.edges) problem.edges.push_back({base[f] + e.from, base[f] + e.to});
    }
    // Calls after all functions have their block numbers.
    std::map<std::uint32_t, std::size_t> entry_of;
    for (std::size_t f : order) entry_of[fns[f].start] = base[f];
    for (std::size_t f : order)
        for (const auto& c : fns[f].calls) {
            auto callee = entry_of.find(c.target);
            int b = fns[f].block_at(c.at);
            if (callee == entry_of.end() || b < 0) continue;
            problem.calls.push_back({base[f] + static_cast<std::size_t>(b), callee->second});
        }
    problem.entry = base[order.front()];
    r.blocks = problem.blocks.size();

    IpetSolution best, flat;
    try {
        best = solve_ipet(problem, true);
        flat = solve_ipet(problem, false);
    } catch (const std::exception& e) {  // GLPK's verdicts and malformed problems alike
        throw ConfigError(std::string("wcet: ") + e.what());
    }
    r.bound_cycles = to_cycles(best.bound);
    r.insensitive_bound_cycles = to_cycles(flat.bound);

    std::map<std::size_t, FunctionShare> shares;
    for (const auto& c : problem.calls) shares[origin[c.callee].function].entries += best.first[c.caller] + best.later[c.caller];
    shares[order.front()].entries = 1;
    for (std::size_t i = 0; i < problem.blocks.size(); ++i) {
        const decode::Function& fn = fns[origin[i].function];
        const decode::BasicBlock& block = fn.blocks[origin[i].block];
        FunctionShare& share = shares[origin[i].function];
        share.name = fn.name;
        if (best.first[i] + best.later[i] == 0) continue;
        PathBlock pb{fn.name, block.start, block.end, best.first[i], best.later[i],
                     static_cast<std::uint64_t>(problem.blocks[i].first_cost), static_cast<std::uint64_t>(problem.blocks[i].later_cost), 0};
        pb.cycles = pb.first_count * pb.first_cost + pb.later_count * pb.later_cost;
        share.cycles += pb.cycles;
        r.path.push_back(pb);
    }
    for (std::size_t f : order) r.functions.push_back(shares[f]);
    if (auto it = stats.functions.find(root_it->start); it != stats.functions.end()) {
        r.observed_max_cycles = it->second.time.max;
        r.observed_runs = it->second.time.count;
    }
    // The bound combines measured paths, so it cannot be below a run unless the model lost one.
    if (r.observed_runs && r.bound_cycles < r.observed_max_cycles)
        r.warnings.push_back("the bound is below the longest observed run (" + std::to_string(r.observed_max_cycles) +
                             " cycles): a path or loop was not modelled; do not trust this bound");
    return r;
}

}  // namespace emutrace::analysis::wcet
