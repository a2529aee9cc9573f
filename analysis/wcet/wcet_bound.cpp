#include "analysis/wcet/wcet_bound.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "analysis/wcet/ipet.h"
#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

// The function holding a call's target and the target's block there: the entry block for a call,
// another block for a branch into shared code of another function (libgcc's).
struct CallTarget {
    std::size_t function = 0, block = 0;
};
class CallTargets {
public:
    explicit CallTargets(const decode::Program& program) : fns_(program.functions()) {
        for (std::size_t f = 0; f < fns_.size(); ++f) by_start_.emplace(fns_[f].start, f);
    }
    std::optional<CallTarget> at(std::uint32_t target) const {
        auto it = by_start_.upper_bound(target);
        if (it == by_start_.begin()) return std::nullopt;
        --it;
        const decode::Function& f = fns_[it->second];
        int b = target < f.end ? f.block_at(target) : -1;
        if (b < 0 || f.blocks[static_cast<std::size_t>(b)].start != target) return std::nullopt;
        return CallTarget{it->second, static_cast<std::size_t>(b)};
    }

private:
    const std::vector<decode::Function>& fns_;
    std::map<std::uint32_t, std::size_t> by_start_;
};

// The functions an indirect call at `site` of `f` was seen to enter while `root` was running.
std::set<std::uint32_t> observed_targets(const decode::Function& f, const decode::CallSite& site, const StatisticsTable& stats, std::uint32_t root) {
    std::set<std::uint32_t> out;
    int b = f.block_at(site.at);
    if (b < 0) return out;
    auto it = stats.indirect_targets.find(f.blocks[static_cast<std::size_t>(b)].start);
    if (it == stats.indirect_targets.end()) return out;
    for (const auto& [target, within] : it->second)
        if (within.count(root)) out.insert(target);
    return out;
}

// Whether the block holding the instruction at `at` of `f` ran in the measured runs.
bool ran_at(const decode::Function& f, std::uint32_t at, const StatisticsTable& stats) {
    int b = f.block_at(at);
    return b >= 0 && stats.blocks.count(f.blocks[static_cast<std::size_t>(b)].start) > 0;
}

// A function's call sites, and its returns as indirect tail calls: ARMv6-M code may enter a
// function by popping its address into pc (libgcc's __aeabi_ldivmod enters __aeabi_ldiv0 so),
// which the run records like the target of a bx rN.
std::vector<decode::CallSite> sites_of(const decode::Function& f) {
    std::vector<decode::CallSite> sites = f.calls;
    for (const auto& b : f.blocks)
        if (b.exit == decode::BlockExit::Return) sites.push_back({b.start, 0, true, false, true});
    return sites;
}

// The target and every function it can reach through direct calls and the observed targets of
// indirect ones, callees after callers.
std::vector<std::size_t> reachable_functions(const decode::Program& program, const StatisticsTable& stats, std::size_t root,
                                             std::vector<std::string>& warnings) {
    const auto& fns = program.functions();
    CallTargets targets(program);
    std::vector<std::size_t> order;
    std::vector<int> state(fns.size(), 0);  // 0 unseen, 1 on the stack, 2 done
    std::vector<std::string> stack;
    auto visit = [&](auto&& self, std::size_t f) -> void {
        state[f] = 1;
        stack.push_back(fns[f].name);
        order.push_back(f);
        std::vector<decode::CallSite> sites;  // indirect calls as the direct calls they were seen to make
        for (const auto& c : sites_of(fns[f])) {
            // A call whose block never ran executes 0 times in the bound, as the block does: it
            // is not followed, so that a call cycle no run took (newlib's __sfp -> __sinit
            // guard) is no recursion.
            if (!ran_at(fns[f], c.at, stats)) continue;
            if (c.target) {
                sites.push_back(c);
                continue;
            }
            std::set<std::uint32_t> seen = observed_targets(fns[f], c, stats, fns[root].start);
            if (seen.empty()) {
                if (!c.tail)  // an indirect jump that entered no function stays a local jump: warned below
                    warnings.push_back(fns[f].name + ": indirect call at " + config::hex32(c.at) + " never seen to call anything within " +
                                       fns[root].name + " (its callee's time is not in the bound)");
                continue;
            }
            for (std::uint32_t t : seen) sites.push_back({c.at, t, c.tail, false, true});
        }
        for (const auto& c : sites) {
            auto callee = targets.at(c.target);
            if (!callee) {
                warnings.push_back(fns[f].name + ": call at " + config::hex32(c.at) + " to " + config::hex32(c.target) +
                                   ", not code of a sized function: its time is not in the bound");
                continue;
            }
            if (callee->function == f && callee->block != 0) continue;  // a BL to its own code: no recursion
            if (state[callee->function] == 1) {
                std::string cycle;
                for (const auto& s : stack) cycle += s + " -> ";
                throw ConfigError(fns[root].name + ": recursion (" + cycle + fns[callee->function].name +
                                  "); the IPET bound needs a call graph without cycles");
            }
            if (state[callee->function] == 0) self(self, callee->function);
        }
        stack.pop_back();
        state[f] = 2;
    };
    visit(visit, root);
    for (std::size_t f : order)
        for (const auto& c : fns[f].calls)
            if (c.tail && !c.target && ran_at(fns[f], c.at, stats) && observed_targets(fns[f], c, stats, fns[root].start).empty())
                warnings.push_back(fns[f].name + ": the indirect branch at " + config::hex32(c.at) +
                                   " is neither a return nor a decoded jump table, and was not seen entering a function: "
                                   "the paths through it are taken as leaving the function");
    return order;
}

std::string loop_key(const decode::Function& fn, std::size_t l, const std::string& what) {
    return "{function: " + fn.name + ", loop: " + std::to_string(l) + ", " + what + ": N}";
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

// The IPET problem of one function and the functions it calls, built in steps (flow facts
// checked, each function's loops, blocks and edges, the calls between them, the caps of cycles no
// loop bounds), solved, and its answer explained per function and block.
class WcetBuild {
public:
    WcetBuild(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query)
        : fns_(program.functions()), program_(program), stats_(stats), query_(query), base_(fns_.size(), 0), loop_base_(fns_.size(), 0) {
        auto root = std::find_if(fns_.begin(), fns_.end(), [&](const decode::Function& f) { return f.name == query.function; });
        if (root == fns_.end()) throw ConfigError("wcet: no function named '" + query.function + "' with a size in the ELF's symbols");
        root_ = &*root;
        r_.function = query.function;
        order_ = reachable_functions(program, stats, static_cast<std::size_t>(root - fns_.begin()), r_.warnings);
    }

    WcetResult run() {
        check_flow_facts();
        for (std::size_t f : order_) add_function(f);
        add_calls();  // after all functions have their block numbers
        problem_.entry = base_[order_.front()];
        cap_irreducible_cycles();
        check_loops_bounded();
        r_.blocks = problem_.blocks.size();
        solve();
        explain();
        return std::move(r_);
    }

private:
    struct Origin {
        std::size_t function, block;
    };

    // Flow facts must name loops that exist: a typo would silently leave the observed bound.
    void check_flow_facts() const {
        for (const auto& fact : query_.flow_facts) {
            bool found = false;
            for (const auto& f : fns_)
                for (std::size_t l = 0; l < f.loops.size(); ++l)
                    found = found || (fact.header ? f.blocks[f.loops[l].header].start == *fact.header
                                                  : f.name == fact.function && fact.loop == static_cast<int>(l));
            if (!found)
                throw ConfigError("wcet: flow fact for " +
                                  (fact.header ? "header " + config::hex32(*fact.header) : fact.function + " loop " + std::to_string(fact.loop)) +
                                  ": no such loop (see emutrace cfg)");
        }
    }

    void add_function(std::size_t f) {
        base_[f] = problem_.blocks.size();
        const decode::Function& fn = fns_[f];
        loop_base_[f] = problem_.loops.size();
        loop_function_.resize(loop_base_[f] + fn.loops.size(), f);
        for (std::size_t l = 0; l < fn.loops.size(); ++l) add_loop(f, l);
        const std::vector<bool> reach = reachable_blocks(fn);
        for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
            const decode::BasicBlock& block = fn.blocks[b];
            IpetBlock ib;
            auto it = stats_.blocks.find(block.start);
            const TimeStat none;
            const TimeStat& first = it == stats_.blocks.end() ? none : it->second.context[0];
            const TimeStat& later = it == stats_.blocks.end() ? none : it->second.context[1];
            ib.first_cost = static_cast<double>(first.max);
            ib.later_cost = static_cast<double>(later.max);
            ib.first_seen = first.seen();
            ib.later_seen = block.loop >= 0 && later.seen();
            ib.loop = block.loop >= 0 ? static_cast<int>(loop_base_[f]) + block.loop : -1;
            ib.may_exit = block.may_leave();
            if (!first.seen() && !later.seen()) r_.never_executed.push_back({fn.name, block.start, block.end, static_cast<bool>(reach[b])});
            problem_.blocks.push_back(ib);
            origin_.push_back({f, b});
        }
        for (const auto& e : fn.edges) problem_.edges.push_back({base_[f] + e.from, base_[f] + e.to});
    }

    // A loop's bound and, nested, its total over one entry of its parent: a flow fact's, else the
    // runs' (a total only with an observed bound).
    void add_loop(std::size_t f, std::size_t l) {
        const decode::Function& fn = fns_[f];
        const decode::Loop& loop = fn.loops[l];
        IpetLoop il;
        il.header = base_[f] + loop.header;
        const std::uint32_t header = fn.blocks[loop.header].start;
        il.name = fn.name + " loop " + std::to_string(l) + " at " + config::hex32(header);
        if (query_.source_line)
            if (std::string line = query_.source_line(header); !line.empty()) il.name += " (" + line + ")";
        LoopBoundUsed used{fn.name, static_cast<int>(l), header, 0, "never entered", 0, "", ""};
        const FlowFact* fact = fact_for(query_, fn, l, header);
        if (fact && fact->bound) {
            il.bound = used.bound = fact->bound;
            used.source = "flow fact";
        } else if (auto it = stats_.loop_bounds.find(header); it != stats_.loop_bounds.end()) {
            il.bound = used.bound = it->second;
            used.source = "observed";
        }
        if (loop.parent >= 0) {
            il.parent = static_cast<int>(loop_base_[f]) + loop.parent;
            if (fact && fact->total) {
                il.total = used.total = fact->total;
                used.total_source = "flow fact";
            } else if (auto it = stats_.loop_totals.find(header); it != stats_.loop_totals.end() && used.source == "observed") {
                il.total = used.total = it->second;
                used.total_source = "observed";
            }
        } else if (fact && fact->total) {
            throw ConfigError("wcet: flow fact for " + il.name +
                              ": `total` bounds a nested loop over its enclosing loop, and this loop is outermost (give `bound`)");
        }
        if (query_.source_line) used.line = query_.source_line(header);
        for (std::size_t e = 0; e < fn.edges.size(); ++e)
            if (fn.edges[e].to == loop.header && !std::binary_search(loop.blocks.begin(), loop.blocks.end(), fn.edges[e].from))
                il.entries.push_back(problem_.edges.size() + e);
        problem_.loops.push_back(il);
        r_.loops.push_back(used);
    }

    void add_calls() {
        CallTargets targets(program_);
        std::vector<bool> in_problem(fns_.size(), false);
        for (std::size_t f : order_) in_problem[f] = true;
        auto target_block = [&](std::uint32_t target) -> std::optional<std::size_t> {
            auto callee = targets.at(target);
            if (!callee || !in_problem[callee->function]) return std::nullopt;  // not followed (a block that never ran)
            return base_[callee->function] + callee->block;
        };
        int group = 0;
        for (std::size_t f : order_)
            for (const auto& c : sites_of(fns_[f])) {
                int b = fns_[f].block_at(c.at);
                if (b < 0) continue;
                std::size_t caller = base_[f] + static_cast<std::size_t>(b);
                if (!c.target) {  // each execution calls one of the targets it was seen to call
                    for (std::uint32_t t : observed_targets(fns_[f], c, stats_, root_->start))
                        if (auto callee = target_block(t)) problem_.calls.push_back({caller, *callee, true, group});
                    ++group;
                    continue;
                }
                if (auto callee = target_block(c.target)) problem_.calls.push_back({caller, *callee, c.conditional});
            }
    }

    // What the IPET could only call infeasible or unbounded, said with the loop and its line.
    std::string where(std::uint32_t address) const {
        std::string line = query_.source_line ? query_.source_line(address) : "";
        return config::hex32(address) + (line.empty() ? "" : " (" + line + ")");
    }

    // Cycles no loop bounds (entered at more than one block): each of their blocks runs at most as
    // often per call as it was seen to.
    void cap_irreducible_cycles() {
        for (std::size_t f : order_) {
            const decode::Function& fn = fns_[f];
            for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
                const decode::BasicBlock& block = fn.blocks[b];
                if (!block.irreducible || !stats_.blocks.count(block.start)) continue;
                auto most = stats_.most_per_call.find(block.start);
                if (most == stats_.most_per_call.end())
                    throw ConfigError("wcet: " + fn.name + ": the block at " + where(block.start) +
                                      " is on a cycle entered at more than one block (irreducible control flow, e.g. a goto into a "
                                      "loop), and the statistics do not say how often it ran per call (written by an older emutrace?)");
                problem_.caps.push_back({base_[f] + b, most->second, base_[f], base_[f] + fn.blocks.size()});
                r_.cycles.push_back({fn.name, block.start, most->second, where(block.start)});
            }
        }
    }

    void check_loops_bounded() const {
        for (std::size_t l = 0; l < problem_.loops.size(); ++l) {
            const decode::Function& fn = fns_[loop_function_[l]];
            const std::size_t local = l - loop_base_[loop_function_[l]];
            const std::uint32_t header = fn.blocks[fn.loops[local].header].start;
            if (problem_.loops[l].bound == 0 && stats_.blocks.count(header))
                throw ConfigError("wcet: " + fn.name + " loop " + std::to_string(local) + " at " + where(header) +
                                  " has no bound: no run was seen iterating it and no flow fact bounds it; add to the scenario's "
                                  "wcet.flow_facts " +
                                  loop_key(fn, local, "bound") + " (N: most header executions per entry)");
        }
    }

    void solve() {
        IpetSolution flat;
        try {
            best_ = solve_ipet(problem_, true);
            flat = solve_ipet(problem_, false);
        } catch (const std::exception& e) {  // GLPK's verdicts and malformed problems alike
            bool returned = std::any_of(root_->blocks.begin(), root_->blocks.end(),
                                        [&](const decode::BasicBlock& b) { return b.may_leave() && stats_.blocks.count(b.start); });
            if (!returned)
                throw ConfigError("wcet: " + root_->name +
                                  " never returned in the measured runs (it does not return, or every run was cut "
                                  "off): a function that does not finish has no execution time to bound");
            throw ConfigError(std::string("wcet: ") + e.what());
        }
        r_.bound_cycles = to_cycles(best_.bound);
        r_.insensitive_bound_cycles = to_cycles(flat.bound);
    }

    // The worst path's blocks and each function's share of the bound, beside what the runs saw.
    void explain() {
        std::map<std::size_t, FunctionShare> shares;
        for (const auto& c : problem_.calls)
            if (origin_[c.callee].block == 0) shares[origin_[c.callee].function].entries += best_.first[c.caller] + best_.later[c.caller];
        shares[order_.front()].entries = 1;
        for (std::size_t i = 0; i < problem_.blocks.size(); ++i) {
            const decode::Function& fn = fns_[origin_[i].function];
            const decode::BasicBlock& block = fn.blocks[origin_[i].block];
            FunctionShare& share = shares[origin_[i].function];
            share.name = fn.name;
            if (best_.first[i] + best_.later[i] == 0) continue;
            PathBlock pb{fn.name,
                         block.start,
                         block.end,
                         best_.first[i],
                         best_.later[i],
                         static_cast<std::uint64_t>(problem_.blocks[i].first_cost),
                         static_cast<std::uint64_t>(problem_.blocks[i].later_cost),
                         0};
            pb.cycles = pb.first_count * pb.first_cost + pb.later_count * pb.later_cost;
            share.cycles += pb.cycles;
            r_.path.push_back(pb);
        }
        for (std::size_t f : order_) r_.functions.push_back(shares[f]);
        if (auto it = stats_.functions.find(root_->start); it != stats_.functions.end()) {
            r_.observed_max_cycles = it->second.time.max;
            r_.observed_runs = it->second.time.count;
        }
        // The bound combines measured paths, so it cannot be below a run unless the model lost one.
        if (r_.observed_runs && r_.bound_cycles < r_.observed_max_cycles)
            r_.errors.push_back("the bound is below the longest observed run (" + std::to_string(r_.observed_max_cycles) +
                                " cycles): a path or loop was not modelled");
    }

    const std::vector<decode::Function>& fns_;
    const decode::Program& program_;
    const StatisticsTable& stats_;
    const WcetQuery& query_;
    const decode::Function* root_ = nullptr;
    std::vector<std::size_t> order_;  ///< the functions in the problem, the root first
    WcetResult r_;
    IpetProblem problem_;
    IpetSolution best_;
    std::vector<std::size_t> base_;           ///< per function: its first block's number in the problem
    std::vector<std::size_t> loop_base_;      ///< per function: its first loop's number in the problem
    std::vector<std::size_t> loop_function_;  ///< per loop of the problem: its function
    std::vector<Origin> origin_;              ///< per block of the problem: its function and block
};

}  // namespace

WcetResult compute_wcet(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query) {
    return WcetBuild(program, stats, query).run();
}

}  // namespace emutrace::analysis::wcet
