#include "analysis/wcet/wcet_bound.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "analysis/wcet/ipet.h"
#include "analysis/wcet/path_counts.h"
#include "analysis/wcet/recursion.h"
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
// indirect ones, callers before callees (the root first), and the calls between them.
struct CallGraph {
    std::vector<std::size_t> order;
    std::vector<CallEdge> edges;
};
CallGraph reachable_functions(const decode::Program& program, const CallTargets& targets, const StatisticsTable& stats, std::size_t root,
                              std::vector<std::string>& warnings) {
    const auto& fns = program.functions();
    CallGraph g;
    std::vector<bool> seen(fns.size(), false);
    auto visit = [&](auto&& self, std::size_t f) -> void {
        seen[f] = true;
        g.order.push_back(f);
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
            std::set<std::uint32_t> observed = observed_targets(fns[f], c, stats, fns[root].start);
            if (observed.empty()) {
                if (!c.tail)  // an indirect jump that entered no function stays a local jump: warned below
                    warnings.push_back(fns[f].name + ": indirect call at " + config::hex32(c.at) + " never seen to call anything within " +
                                       fns[root].name + " (its callee's time is not in the bound)");
                continue;
            }
            for (std::uint32_t t : observed) sites.push_back({c.at, t, c.tail, false, true});
        }
        for (const auto& c : sites) {
            auto callee = targets.at(c.target);
            if (!callee) {
                warnings.push_back(fns[f].name + ": call at " + config::hex32(c.at) + " to " + config::hex32(c.target) +
                                   ", not code of a sized function: its time is not in the bound");
                continue;
            }
            if (callee->function == f && callee->block != 0) continue;  // a BL to its own code: no recursion
            g.edges.push_back({f, callee->function, callee->block == 0});
            if (!seen[callee->function]) self(self, callee->function);
        }
    };
    visit(visit, root);
    for (std::size_t f : g.order)
        for (const auto& c : fns[f].calls)
            if (c.tail && !c.target && ran_at(fns[f], c.at, stats) && observed_targets(fns[f], c, stats, fns[root].start).empty())
                warnings.push_back(fns[f].name + ": the indirect branch at " + config::hex32(c.at) +
                                   " is neither a return nor a decoded jump table, and was not seen entering a function: "
                                   "the paths through it are taken as leaving the function");
    return g;
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

std::uint64_t to_cycles(double bound) {
    if (!(bound >= 0) || bound >= 9.2e18) throw ConfigError("wcet: the bound does not fit 64 bits of cycles (corrupt statistics?)");
    return static_cast<std::uint64_t>(bound + 0.5);
}

// The statistics of one call-string context of the bound, relative to the bounded function: the
// recorded contexts whose call string ends with it (all of them while it is shorter than the
// statistics' k, as the bounded function itself may have been called from anywhere), merged.
class ContextStatistics {
public:
    ContextStatistics(const StatisticsTable& stats, unsigned depth) : stats_(stats), depth_(depth) {
        if (depth_ == 0) return;
        for (const auto& [key, record] : stats.contexts) {
            std::vector<std::uint32_t> calls = key.calls;
            if (calls.size() > depth_) calls.erase(calls.begin(), calls.end() - depth_);
            by_last_[calls.empty() ? 0 : calls.back()].push_back({std::move(calls), key.function, &record});
        }
    }
    unsigned depth() const { return depth_; }

    /// The merged record of context `calls` (its last k call blocks): only the blocks and loops of
    /// `fn` are looked up.
    ContextRecord gather(const decode::Function& fn, const std::vector<std::uint32_t>& calls) const {
        ContextRecord out;
        auto take = [&](const ContextRecord& from, std::uint32_t function) {
            if (function == fn.start) out.merge_recursion(from);  // a recursion's counts are its outermost activations' in the context: fn's only
            for (const auto& b : fn.blocks)
                if (auto it = from.blocks.find(b.start); it != from.blocks.end()) out.blocks[b.start].merge(it->second);
            for (const auto& l : fn.loops) {
                const std::uint32_t h = fn.blocks[l.header].start;
                if (auto it = from.loop_bounds.find(h); it != from.loop_bounds.end()) out.loop_bounds[h] = std::max(out.loop_bounds[h], it->second);
                if (auto it = from.loop_totals.find(h); it != from.loop_totals.end()) out.loop_totals[h] = std::max(out.loop_totals[h], it->second);
                for (auto it = from.loop_totals_over.lower_bound({h, 0}); it != from.loop_totals_over.end() && it->first.first == h; ++it)
                    out.loop_totals_over[it->first] = std::max(out.loop_totals_over[it->first], it->second);
            }
        };
        if (depth_ == 0) {
            if (stats_.contexts.empty() || stats_.contexts_folded) {  // only the union is complete
                ContextRecord all{stats_.blocks, stats_.loop_bounds, stats_.loop_totals, {}};
                take(all, fn.start);
                for (const auto& [key, record] : stats_.contexts)  // folded: the recursion counts are still per context
                    if (key.function == fn.start) out.merge_recursion(record);
            } else {
                for (const auto& [key, record] : stats_.contexts) take(record, key.function);
            }
            return out;
        }
        for (const Entry* e : matching(calls)) take(*e->record, e->function);
        return out;
    }
    /// Whether a recorded call string `recorded` (as the statistics keep it) is context `calls`.
    bool matches(std::vector<std::uint32_t> recorded, const std::vector<std::uint32_t>& calls) const {
        if (depth_ == 0) return true;
        if (recorded.size() > depth_) recorded.erase(recorded.begin(), recorded.end() - depth_);
        return ends_with(recorded, calls);
    }

private:
    struct Entry {
        std::vector<std::uint32_t> calls;
        std::uint32_t function;
        const ContextRecord* record;
    };
    static bool ends_with(const std::vector<std::uint32_t>& s, const std::vector<std::uint32_t>& tail) {
        return s.size() >= tail.size() && std::equal(tail.begin(), tail.end(), s.end() - static_cast<std::ptrdiff_t>(tail.size()));
    }
    std::vector<const Entry*> matching(const std::vector<std::uint32_t>& calls) const {
        std::vector<const Entry*> out;
        auto consider = [&](const std::vector<Entry>& list) {
            for (const Entry& e : list)
                if (calls.size() >= depth_ ? e.calls == calls : ends_with(e.calls, calls)) out.push_back(&e);
        };
        if (calls.empty()) {
            for (const auto& [last, list] : by_last_) consider(list);
        } else if (auto it = by_last_.find(calls.back()); it != by_last_.end()) {
            consider(it->second);
        }
        return out;
    }
    const StatisticsTable& stats_;
    unsigned depth_;
    std::map<std::uint32_t, std::vector<Entry>> by_last_;
};

// The IPET problem of one function and the functions it calls, built in steps (flow facts
// checked; each function once per call-string context, with its loops, blocks and edges; the
// calls between them; the caps of cycles no loop bounds), solved, and its answer explained per
// function, context and block, beside the longest run.
class WcetBuild {
public:
    WcetBuild(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query)
        : fns_(program.functions()), program_(program), stats_(stats), query_(query), contexts_(stats, depth_of(stats, query)), targets_(program) {
        auto root = std::find_if(fns_.begin(), fns_.end(), [&](const decode::Function& f) { return f.name == query.function; });
        if (root == fns_.end()) throw ConfigError("wcet: no function named '" + query.function + "' with a size in the ELF's symbols");
        root_ = &*root;
        r_.function = query.function;
        const auto root_index = static_cast<std::size_t>(root - fns_.begin());
        CallGraph graph = reachable_functions(program, targets_, stats, root_index, r_.warnings);
        order_ = std::move(graph.order);
        std::vector<std::string> names;
        for (const auto& f : fns_) names.push_back(f.name);
        recursions_ = find_recursions(root_index, graph.edges, names);
        recursion_of_.assign(fns_.size(), -1);
        for (std::size_t k = 0; k < recursions_.size(); ++k)
            for (std::size_t f : recursions_[k].functions) recursion_of_[f] = static_cast<int>(k);
        if (stats.contexts_folded && query.call_depth > 0)
            r_.warnings.push_back(
                "the statistics do not tell call sites apart (written by an older emutrace, or too many contexts): "
                "every function is bounded once, whatever calls it");
        r_.coverage.call_depth = contexts_.depth();
    }

    WcetResult run() {
        check_flow_facts();
        add_instances();
        nest_called_loops();
        bound_recursions();
        problem_.entry = 0;
        cap_irreducible_cycles();
        hold_path_counts();
        check_loops_bounded();
        r_.blocks = problem_.blocks.size();
        solve();
        explain();
        explain_gap();
        return std::move(r_);
    }

private:
    static unsigned depth_of(const StatisticsTable& stats, const WcetQuery& q) {
        return stats.contexts_folded ? 0 : std::min(q.call_depth, stats.call_depth);
    }

    // One function in one call-string context.
    struct Instance {
        std::size_t function = 0;
        std::vector<std::uint32_t> calls;  ///< the last k calling blocks' start addresses, from the bounded function
        std::size_t base = 0, loop_base = 0;
        ContextRecord stats;
        std::vector<std::uint32_t> call_instructions;  ///< of `calls`, as FlowFact::context names them
        std::string label;                             ///< "f@0x... > g@0x...", "" for the bounded function
        bool own_context = true;                       ///< `stats` are this context's, not every context's
    };
    struct Origin {
        std::size_t instance, block;
    };

    // Flow facts must name loops (or functions) that exist: a typo would silently leave the
    // observed bound.
    void check_flow_facts() const {
        for (const auto& fact : query_.flow_facts) {
            if (fact.block) continue;  // a path count: hold_path_counts checks it
            if (fact.recursion) {
                if (std::none_of(fns_.begin(), fns_.end(), [&](const decode::Function& f) { return f.name == fact.function; }))
                    throw ConfigError((fact.origin.empty() ? "wcet" : fact.origin) + ": recursion fact for " + fact.function +
                                      ": no function of that name with a size in the ELF's symbols");
                continue;
            }
            bool found = false;
            for (const auto& f : fns_)
                for (std::size_t l = 0; l < f.loops.size(); ++l)
                    found = found || (fact.header ? f.blocks[f.loops[l].header].start == *fact.header
                                                  : f.name == fact.function && fact.loop == static_cast<int>(l));
            if (!found)
                throw ConfigError((fact.origin.empty() ? "wcet" : fact.origin) + ": flow fact for " +
                                  (fact.header ? "header " + config::hex32(*fact.header) : fact.function + " loop " + std::to_string(fact.loop)) +
                                  ": no such loop (see emutrace cfg)");
        }
    }

    // The call instructions of the calling blocks `calls` (their start addresses), and the context
    // they make as users read it ("f@0x... > g@0x..."): addresses found in a disassembly.
    void name_context(Instance& in) const {
        for (std::uint32_t block : in.calls) {
            std::uint32_t at = block;
            std::string function = config::hex32(block);
            if (auto caller = targets_.at(block)) {
                const decode::Function& f = fns_[caller->function];
                const decode::BasicBlock& b = f.blocks[caller->block];
                function = f.name;
                for (const auto& c : f.calls)
                    if (c.at >= b.start && c.at < b.end) {
                        at = c.at;
                        break;
                    }
            }
            in.call_instructions.push_back(at);
            in.label += (in.label.empty() ? "" : " > ") + function + "@" + config::hex32(at);
        }
    }

    // The instances reachable from the bounded function, callers before callees: a call from a
    // block that ran in its context leads to the callee in the context one call longer (a tail
    // call, or a branch into another function's code, keeps the context, as the aggregation does).
    void add_instances() {
        std::vector<bool> in_problem(fns_.size(), false);
        for (std::size_t f : order_) in_problem[f] = true;
        std::map<std::pair<std::size_t, std::vector<std::uint32_t>>, std::size_t> ids;
        // `entered`: the block the call enters (the entry, or shared code a branch reaches).
        auto instance = [&](std::size_t f, std::vector<std::uint32_t> calls, std::size_t entered) {
            if (calls.size() > contexts_.depth()) calls.erase(calls.begin(), calls.end() - contexts_.depth());
            auto [it, added] = ids.try_emplace({f, calls}, instances_.size());
            if (added) {
                Instance in{f, calls, 0, 0, contexts_.gather(fns_[f], calls), {}, {}};
                name_context(in);
                // A context the statistics do not know although the function ran (code reached in
                // a way the aggregation followed differently): the function's every context.
                const std::uint32_t at = fns_[f].blocks.empty() ? 0 : fns_[f].blocks[entered].start;
                if (!fns_[f].blocks.empty() && !in.stats.blocks.count(at) && stats_.blocks.count(at)) {
                    r_.warnings.push_back(fns_[f].name + " ran in no recorded context matching " + (in.label.empty() ? "its own" : in.label) +
                                          ": bounded there over all its contexts");
                    in.stats = ContextStatistics(stats_, 0).gather(fns_[f], {});
                    in.own_context = false;
                }
                instances_.push_back(std::move(in));
            }
            return it->second;
        };
        instance(order_.front(), {}, 0);
        int group = 0;
        for (std::size_t i = 0; i < instances_.size(); ++i) {  // grows as callees are found
            add_instance_blocks(i);
            const std::size_t f = instances_[i].function;
            for (const auto& c : sites_of(fns_[f])) {
                int b = fns_[f].block_at(c.at);
                if (b < 0) continue;
                const decode::BasicBlock& block = fns_[f].blocks[static_cast<std::size_t>(b)];
                const bool ran = instances_[i].stats.blocks.count(block.start) > 0;
                std::vector<std::uint32_t> targets_of;
                if (c.target)
                    targets_of.push_back(c.target);
                else
                    for (std::uint32_t t : observed_targets(fns_[f], c, stats_, root_->start)) targets_of.push_back(t);
                for (std::uint32_t t : targets_of) {
                    auto callee = targets_.at(t);
                    if (!callee || !in_problem[callee->function]) continue;
                    if (!ran) {
                        if (!c.tail)
                            r_.coverage.unseen_contexts.push_back(fns_[f].name + " calls " + fns_[callee->function].name + " at " +
                                                                  config::hex32(c.at) +
                                                                  (instances_[i].label.empty() ? "" : " (in " + instances_[i].label + ")"));
                        continue;
                    }
                    if (callee->function == f && callee->block != 0) {
                        // A BL into its own code (libgcc's `bleq Lml_s`): the special case there
                        // returns to the caller's caller, instead of the code after the BL.
                        problem_.blocks[instances_[i].base + static_cast<std::size_t>(b)].may_exit = true;
                        pending_calls_.push_back(
                            {i, static_cast<std::size_t>(b), i, callee->block, true, -1, fall_through_edge(i, static_cast<std::size_t>(b))});
                        continue;
                    }
                    std::vector<std::uint32_t> calls = instances_[i].calls;
                    if (!c.tail && callee->block == 0) calls.push_back(block.start);
                    const std::size_t j = instance(callee->function, calls, callee->block);
                    pending_calls_.push_back(
                        {i, static_cast<std::size_t>(b), j, callee->block, c.target ? c.conditional : true, c.target ? -1 : group});
                }
                if (!c.target) ++group;
            }
        }
        for (const auto& pc : pending_calls_)
            problem_.calls.push_back(
                {instances_[pc.caller].base + pc.block, instances_[pc.callee].base + pc.callee_block, pc.conditional, pc.group, pc.instead_of});
        r_.coverage.contexts = instances_.size();
    }

    // A function called only from inside a loop of one caller instance (or of a caller further up,
    // when the calls are outside the caller's loops) has its outermost loops' totals over one entry
    // of that loop: the loop nest goes on through the call, as the aggregation counts it.
    void nest_called_loops() {
        std::vector<std::set<std::size_t>> callers(instances_.size());
        std::vector<std::vector<std::size_t>> call_blocks(instances_.size());
        for (const auto& pc : pending_calls_) {
            if (pc.caller == pc.callee) continue;  // a BL into its own code: no other caller
            callers[pc.callee].insert(pc.caller);
            call_blocks[pc.callee].push_back(pc.block);
        }
        // (instance, problem loop) enclosing each instance; instances come after their callers.
        std::vector<int> enclosing(instances_.size(), -1);
        for (std::size_t i = 1; i < instances_.size(); ++i) {
            if (callers[i].size() != 1) continue;
            const std::size_t p = *callers[i].begin();
            if (same_recursion(instances_[p].function, instances_[i].function)) continue;  // its nest is the recursion's
            const decode::Function& caller = fns_[instances_[p].function];
            int common = -2;  // the innermost loop of the caller holding every call block
            for (std::size_t b : call_blocks[i]) {
                int l = caller.blocks[b].loop;
                if (common == -2) {
                    common = l;
                    continue;
                }
                while (common >= 0 && !loop_holds(caller, static_cast<std::size_t>(common), l))
                    common = caller.loops[static_cast<std::size_t>(common)].parent;
            }
            enclosing[i] = common >= 0 ? static_cast<int>(instances_[p].loop_base) + common : enclosing[p];
            if (enclosing[i] < 0) continue;
            const decode::Function& fn = fns_[instances_[i].function];
            for (std::size_t l = 0; l < fn.loops.size(); ++l) {
                IpetLoop& il = problem_.loops[instances_[i].loop_base + l];
                LoopBoundUsed& used = r_.loops[instances_[i].loop_base + l];
                const std::uint32_t header = fn.blocks[fn.loops[l].header].start;
                auto total = instances_[i].stats.loop_totals.find(header);
                if (fn.loops[l].parent >= 0) continue;
                const std::string over = problem_.loops[static_cast<std::size_t>(enclosing[i])].name;
                if (auto fact = outer_fact_totals_.find(instances_[i].loop_base + l); fact != outer_fact_totals_.end()) {
                    il.parent = enclosing[i];
                    il.total = used.total = fact->second->total;
                    used.total_source = "flow fact";
                    facts_raise_ = facts_raise_ || total == instances_[i].stats.loop_totals.end() || il.total > total->second;
                    used.total_over = over;
                    outer_fact_totals_.erase(fact);
                } else if (total != instances_[i].stats.loop_totals.end() && used.source == "observed") {
                    il.parent = enclosing[i];
                    il.total = used.total = total->second;
                    used.total_source = "observed";
                    used.total_over = over;
                }
                add_caller_totals(i, l, enclosing);
            }
        }
        for (const auto& [l, fact] : outer_fact_totals_) fail_outer_total(*fact, problem_.loops[l].name);
    }
    // A called function's outermost loop l of instance i: its totals over the callers' loops
    // around the call beyond the nearest (`enclosing`'s), as a flow fact gives them or, with the
    // observed bound and no fact for the loop, as the runs saw them.
    void add_caller_totals(std::size_t i, std::size_t l, const std::vector<int>& enclosing) {
        const Instance& in = instances_[i];
        const decode::Function& fn = fns_[in.function];
        const std::uint32_t header = fn.blocks[fn.loops[l].header].start;
        IpetLoop& il = problem_.loops[in.loop_base + l];
        LoopBoundUsed& used = r_.loops[in.loop_base + l];
        std::vector<std::pair<std::size_t, std::string>> around;  // problem loop and "f loop N", beyond the nearest
        for (int x = loop_around(static_cast<std::size_t>(enclosing[i]), enclosing); x >= 0 && around.size() < 4;
             x = loop_around(static_cast<std::size_t>(x), enclosing)) {
            const Instance& owner = instances_[loop_instance_[static_cast<std::size_t>(x)]];
            around.push_back({static_cast<std::size_t>(x), fns_[owner.function].name + " loop " + std::to_string(x - owner.loop_base)});
        }
        auto observed = [&](std::size_t x) -> std::optional<std::uint64_t> {
            const Instance& owner = instances_[loop_instance_[x]];
            const decode::Function& f = fns_[owner.function];
            auto it = in.stats.loop_totals_over.find({header, f.blocks[f.loops[x - owner.loop_base].header].start});
            if (it == in.stats.loop_totals_over.end()) return std::nullopt;
            return it->second;
        };
        const FlowFact* fact = fact_for(in, l, header);
        if (fact && !fact->totals_over_callers.empty()) {
            const std::string where = fact->origin.empty() ? "wcet" : fact->origin;
            for (const auto& [name, total] : fact->totals_over_callers) {
                auto it = std::find_if(around.begin(), around.end(), [&](const auto& a) { return a.second == name; });
                if (it == around.end())
                    throw ConfigError(where + ": flow fact totals_over_callers names " + name + ", which is not a caller's loop around the call to " +
                                      fn.name + " beyond the nearest (that one takes `total`)");
                const auto seen = observed(it->first);
                if (seen && *seen > total)
                    throw ConfigError(where + ": flow fact total " + std::to_string(total) + " of " + fn.name + " loop " + std::to_string(l) +
                                      " over " + name + " is below what a run did (" + std::to_string(*seen) +
                                      " in one entry): raise it to at least that");
                facts_raise_ = facts_raise_ || !seen || total > *seen;
                il.outer_totals.push_back({it->first, total});
                used.outer_totals.push_back({name, total});
                used.outer_totals_source = "flow fact";
            }
            return;
        }
        if (used.source != "observed" || (fact && (fact->bound || fact->total))) return;
        for (const auto& [x, name] : around)
            if (auto seen = observed(x)) {
                il.outer_totals.push_back({x, *seen});
                used.outer_totals.push_back({name, *seen});
                used.outer_totals_source = "observed";
            }
    }
    // The problem loop around loop x: its parent in its function, or for an outermost loop the
    // caller's loop around the call (`enclosing`); -1 none.
    int loop_around(std::size_t x, const std::vector<int>& enclosing) const {
        const std::size_t owner = loop_instance_[x];
        const int parent = fns_[instances_[owner].function].loops[x - instances_[owner].loop_base].parent;
        return parent >= 0 ? static_cast<int>(instances_[owner].loop_base) + parent : enclosing[owner];
    }
    bool same_recursion(std::size_t f, std::size_t g) const { return recursion_of_[f] >= 0 && recursion_of_[f] == recursion_of_[g]; }

    // Each recursion's activations, started by the calls into it from outside, are held to what
    // a run's did in the same context: entries into its functions and its loops' iterations.
    void bound_recursions() {
        if (recursions_.empty()) return;
        RecursionView view;
        for (const Instance& in : instances_) view.instances.push_back({in.function, in.base, &in.stats});
        for (const IpetCall& c : problem_.calls)
            view.calls.push_back({origin_[c.caller].instance, origin_[c.callee].instance, origin_[c.callee].block});
        for (const Recursion& rec : recursions_) {
            std::map<std::size_t, std::uint64_t> most_of;  // per head instance entered from outside
            bool raised = false;                           // a fact above what a run did
            IpetRecursion ir = recursion_budgets(rec, fns_, view, [&](std::size_t j) {
                auto [it, added] = most_of.try_emplace(j, 0);
                if (added) it->second = recursion_most(rec, j, raised);
                return it->second;
            });
            // A fact above what the runs did states the recursion's size for inputs they did not
            // have: what their activations did inside it no longer holds it.
            if (raised) ir.budgets.resize(1);
            facts_raise_ = facts_raise_ || raised;
            problem_.recursions.push_back(std::move(ir));
        }
    }
    // The most entries into the recursion's head per call from outside, in instance j's context;
    // `raised` is set when a flow fact gives more than a run did.
    std::uint64_t recursion_most(const Recursion& rec, std::size_t j, bool& raised) {
        const Instance& in = instances_[j];
        RecursionBoundUsed used{fns_[rec.head].name, {}, in.label, in.call_instructions, in.stats.recursion, "observed"};
        for (std::size_t f : rec.functions) used.cycle.push_back(fns_[f].name);
        const FlowFact* fact = nullptr;
        for (const auto& f : query_.flow_facts)
            if (f.recursion && f.function == used.function && (!f.context || *f.context == in.call_instructions) && (!fact || f.context)) fact = &f;
        if (fact) {
            if (in.stats.recursion > fact->recursion)
                throw ConfigError((fact->origin.empty() ? "wcet" : fact->origin) + ": recursion fact " + std::to_string(fact->recursion) + " for " +
                                  used.function + " is below what a run did (" + std::to_string(in.stats.recursion) +
                                  " entries per call from outside): raise it to at least that");
            used.entries = fact->recursion;
            used.source = "flow fact";
            raised = raised || fact->recursion > in.stats.recursion;
        } else if (used.entries == 0) {
            if (!stats_.counts_recursion)
                throw ConfigError("wcet: " + used.function + " is recursive (" + fns_[rec.head].name +
                                  "), and the statistics were written by an emutrace that did not count recursion: measure again, or give "
                                  "a flow fact {function: " +
                                  used.function + ", recursion: N}");
            used.entries = 1;
            used.source = "no recursion seen";
        }
        r_.recursions.push_back(used);
        return used.entries;
    }

    [[noreturn]] static void fail_outer_total(const FlowFact& fact, const std::string& loop) {
        throw ConfigError((fact.origin.empty() ? "wcet" : fact.origin) + ": flow fact for " + loop +
                          ": `total` bounds a loop over the loop around it, and this loop is outermost, with no loop around every call "
                          "that leads to it in this context (give `bound`)");
    }
    // Whether loop `outer` of `f` holds loop `inner` (or is it); -1 is no loop.
    static bool loop_holds(const decode::Function& f, std::size_t outer, int inner) {
        for (int l = inner; l >= 0; l = f.loops[static_cast<std::size_t>(l)].parent)
            if (static_cast<std::size_t>(l) == outer) return true;
        return false;
    }

    void add_instance_blocks(std::size_t i) {
        Instance& in = instances_[i];
        const decode::Function& fn = fns_[in.function];
        in.base = problem_.blocks.size();
        in.loop_base = problem_.loops.size();
        for (std::size_t l = 0; l < fn.loops.size(); ++l) add_loop(i, l);
        const std::vector<bool> reach = reachable_blocks(fn);
        const bool first_instance = std::none_of(instances_.begin(), instances_.begin() + static_cast<std::ptrdiff_t>(i),
                                                 [&](const Instance& o) { return o.function == in.function; });
        for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
            const decode::BasicBlock& block = fn.blocks[b];
            IpetBlock ib;
            auto it = in.stats.blocks.find(block.start);
            const TimeStat none;
            const TimeStat& first = it == in.stats.blocks.end() ? none : it->second.context[0];
            const TimeStat& later = it == in.stats.blocks.end() ? none : it->second.context[1];
            ib.first_cost = static_cast<double>(first.max);
            ib.later_cost = static_cast<double>(later.max);
            ib.first_seen = first.seen();
            ib.later_seen = block.loop >= 0 && later.seen();
            ib.loop = block.loop >= 0 ? static_cast<int>(in.loop_base) + block.loop : -1;
            ib.may_exit = block.may_leave();
            if (first_instance) {
                ++r_.coverage.blocks;
                if (stats_.blocks.count(block.start))
                    ++r_.coverage.blocks_seen;
                else
                    r_.never_executed.push_back({fn.name, block.start, block.end, static_cast<bool>(reach[b])});
            }
            problem_.blocks.push_back(ib);
            origin_.push_back({i, b});
        }
        for (const auto& e : fn.edges) {
            IpetEdge ie{in.base + e.from, in.base + e.to};
            const decode::BasicBlock& from = fn.blocks[e.from];
            if (auto it = in.stats.blocks.find(from.start); it != in.stats.blocks.end())
                if (auto x = it->second.exits.find(fn.blocks[e.to].start); x != it->second.exits.end()) {
                    if (x->second[0].seen()) ie.first_exit_cost = static_cast<double>(x->second[0].max);
                    if (x->second[1].seen()) ie.later_exit_cost = static_cast<double>(x->second[1].max);
                }
            if (first_instance) {
                ++r_.coverage.edges;
                r_.coverage.edges_seen += edge_seen(fn, e);
            }
            problem_.edges.push_back(ie);
        }
    }

    // An edge ran: its block's exit to it was timed, or (a block whose time ends in a call, or an
    // exception) both ends ran and the block has no other successor.
    bool edge_seen(const decode::Function& fn, const decode::Edge& e) const {
        auto it = stats_.blocks.find(fn.blocks[e.from].start);
        if (it == stats_.blocks.end() || !stats_.blocks.count(fn.blocks[e.to].start)) return false;
        if (it->second.exits.count(fn.blocks[e.to].start)) return true;
        std::size_t successors = 0;
        for (const auto& o : fn.edges) successors += o.from == e.from;
        return successors == 1;
    }

    const FlowFact* fact_for(const Instance& in, std::size_t loop, std::uint32_t header) const {
        const decode::Function& f = fns_[in.function];
        const FlowFact* general = nullptr;
        for (const auto& fact : query_.flow_facts) {
            const bool names = fact.header ? *fact.header == header : fact.function == f.name && fact.loop == static_cast<int>(loop);
            if (!names) continue;
            if (!fact.context) {
                if (!general) general = &fact;
                continue;
            }
            // A fact for one context names it by its call instructions.
            if (*fact.context == in.call_instructions) return &fact;
        }
        return general;
    }

    // A loop's bound and, nested, its total over one entry of its parent: a flow fact's, else the
    // runs' in this context (a total only with an observed bound).
    void add_loop(std::size_t i, std::size_t l) {
        const Instance& in = instances_[i];
        const decode::Function& fn = fns_[in.function];
        const decode::Loop& loop = fn.loops[l];
        IpetLoop il;
        il.header = in.base + loop.header;
        const std::uint32_t header = fn.blocks[loop.header].start;
        il.name = fn.name + " loop " + std::to_string(l) + " at " + config::hex32(header);
        if (query_.source_line)
            if (std::string line = query_.source_line(header); !line.empty()) il.name += " (" + line + ")";
        if (!in.label.empty()) il.name += " called from " + in.label;
        LoopBoundUsed used{fn.name, static_cast<int>(l), header, 0, in.label, in.call_instructions, "never entered", 0, "", "", {}, {}, "", ""};
        const FlowFact* fact = fact_for(in, l, header);
        if (fact && fact->bound) {
            il.bound = used.bound = fact->bound;
            used.source = "flow fact";
        } else if (auto it = in.stats.loop_bounds.find(header); it != in.stats.loop_bounds.end()) {
            il.bound = used.bound = it->second;
            used.source = "observed";
        }
        if (loop.parent >= 0) {
            il.parent = static_cast<int>(in.loop_base) + loop.parent;
            if (fact && fact->total) {
                il.total = used.total = fact->total;
                used.total_source = "flow fact";
            } else if (auto it = in.stats.loop_totals.find(header); it != in.stats.loop_totals.end() && used.source == "observed") {
                il.total = used.total = it->second;
                used.total_source = "observed";
            }
        } else if (fact && fact->total) {
            if (i == 0) fail_outer_total(*fact, il.name);      // the bounded function: no caller's loop around it in the bound
            outer_fact_totals_[problem_.loops.size()] = fact;  // over a caller's loop: nest_called_loops()
        }
        if (fact && !fact->totals_over.empty())
            add_fact_outer_totals(in, l, *fact, il, used);
        else if (loop.parent >= 0 && used.source == "observed" && !(fact && fact->total))
            add_outer_totals(in, l, il, used);
        if (fact) {
            check_fact_against_runs(*fact, in, header, il.name);
            facts_raise_ = facts_raise_ || raises(*fact, in, header);
        }
        if (query_.source_line) used.line = query_.source_line(header);
        for (std::size_t e = 0; e < fn.edges.size(); ++e)
            if (fn.edges[e].to == loop.header && !std::binary_search(loop.blocks.begin(), loop.blocks.end(), fn.edges[e].from))
                il.entries.push_back(problem_.edges.size() + e);
        problem_.loops.push_back(il);
        r_.loops.push_back(used);
        loop_instance_.push_back(i);
    }

    // The observed totals of loop l over the entries of the loops around its parent.
    void add_outer_totals(const Instance& in, std::size_t l, IpetLoop& il, LoopBoundUsed& used) const {
        for (int outer : loops_around_parent(fns_[in.function], l))
            if (auto observed = observed_total_over(in, l, outer)) add_outer_total(in, outer, *observed, "observed", il, used);
    }

    // A flow fact's totals of loop l over loops further out: each must be around l's parent, and
    // at least what a run did.
    void add_fact_outer_totals(const Instance& in, std::size_t l, const FlowFact& fact, IpetLoop& il, LoopBoundUsed& used) {
        const decode::Function& fn = fns_[in.function];
        const std::string where = fact.origin.empty() ? "wcet" : fact.origin;
        const std::string name = fn.name + " loop " + std::to_string(l);
        const std::vector<int> around = loops_around_parent(fn, l);
        for (const auto& [outer, total] : fact.totals_over) {
            if (std::find(around.begin(), around.end(), outer) == around.end())
                throw ConfigError(where + ": flow fact totals_over names loop " + std::to_string(outer) + ", which is not a loop around " + name +
                                  "'s parent in " + fn.name + " (its own parent takes `total`)");
            const auto observed = observed_total_over(in, l, outer);
            if (observed && *observed > total)
                throw ConfigError(where + ": flow fact total " + std::to_string(total) + " of " + name + " over loop " + std::to_string(outer) +
                                  " is below what a run did (" + std::to_string(*observed) + " in one entry): raise it to at least that");
            facts_raise_ = facts_raise_ || !observed || total > *observed;
            add_outer_total(in, outer, total, "flow fact", il, used);
        }
    }

    // The loops around loop l's parent in `fn`, innermost first (none for an outermost loop).
    static std::vector<int> loops_around_parent(const decode::Function& fn, std::size_t l) {
        std::vector<int> out;
        if (fn.loops[l].parent < 0) return out;
        for (int o = fn.loops[static_cast<std::size_t>(fn.loops[l].parent)].parent; o >= 0; o = fn.loops[static_cast<std::size_t>(o)].parent)
            out.push_back(o);
        return out;
    }
    // The most executions of loop l's header the runs saw in one entry of loop `outer`.
    std::optional<std::uint64_t> observed_total_over(const Instance& in, std::size_t l, int outer) const {
        const decode::Function& fn = fns_[in.function];
        auto it =
            in.stats.loop_totals_over.find({fn.blocks[fn.loops[l].header].start, fn.blocks[fn.loops[static_cast<std::size_t>(outer)].header].start});
        if (it == in.stats.loop_totals_over.end()) return std::nullopt;
        return it->second;
    }
    void add_outer_total(const Instance& in, int outer, std::uint64_t total, const char* source, IpetLoop& il, LoopBoundUsed& used) const {
        il.outer_totals.push_back({in.loop_base + static_cast<std::size_t>(outer), total});
        used.outer_totals.push_back({fns_[in.function].name + " loop " + std::to_string(outer), total});
        used.outer_total_loops.push_back(outer);
        used.outer_totals_source = source;
    }

    // A fact that lets the loop iterate more than the runs did (per entry, or in total).
    static bool raises(const FlowFact& fact, const Instance& in, std::uint32_t header) {
        auto bound = in.stats.loop_bounds.find(header);
        auto total = in.stats.loop_totals.find(header);
        return (fact.bound && (bound == in.stats.loop_bounds.end() || fact.bound > bound->second)) ||
               (fact.total && (total == in.stats.loop_totals.end() || fact.total > total->second));
    }

    // Path counts (analysis/wcet/path_counts.h): the runs' where every run of the scope agreed,
    // unless a flow fact lets a loop or a recursion do more than the runs did (their counts were
    // measured with the runs' iterations); flow facts' own counts in any case.
    void hold_path_counts() {
        bool observed = query_.path_counts;
        if (!observed)
            r_.path_counts_unused = "not asked for (any path mix)";
        else if (facts_raise_)
            r_.path_counts_unused = "a flow fact lets a loop or recursion run more than the runs did, so their path counts do not hold";
        observed = observed && !facts_raise_;
        PathCountView view;
        for (const Instance& in : instances_) {
            int scope = -1;
            bool known = in.own_context;
            if (contexts_.depth() == 0) {
                scope = static_cast<int>(in.function);
            } else if (in.calls.size() >= contexts_.depth()) {  // the string's outermost call is in the bound
                auto caller = targets_.at(in.calls.front());
                known = known && caller.has_value();
                if (caller) scope = static_cast<int>(caller->function);
            }
            view.instances.push_back({in.function, in.base, &in.stats, scope, known, in.call_instructions, in.label});
        }
        if (!root_->blocks.empty() && root_->blocks.front().loop < 0 && !root_->blocks.front().irreducible)
            if (auto entry = instances_.front().stats.blocks.find(root_->start); entry != instances_.front().stats.blocks.end())
                view.root_once_per_scope = entry->second.per_scope.seen() && entry->second.per_scope.most == 1;
        r_.path_counts = wcet::hold_path_counts(fns_, view, query_.flow_facts, observed, problem_);
    }

    // A flow fact below what a run did is wrong, and a bound from it would be below that run.
    void check_fact_against_runs(const FlowFact& fact, const Instance& in, std::uint32_t header, const std::string& name) const {
        auto bound = in.stats.loop_bounds.find(header);
        auto total = in.stats.loop_totals.find(header);
        std::string where = fact.origin.empty() ? "wcet" : fact.origin;
        if (fact.bound && bound != in.stats.loop_bounds.end() && bound->second > fact.bound)
            throw ConfigError(where + ": flow fact bound " + std::to_string(fact.bound) + " for " + name + " is below what a run did (" +
                              std::to_string(bound->second) + " iterations in one entry): raise it to at least that");
        if (fact.total && total != in.stats.loop_totals.end() && total->second > fact.total)
            throw ConfigError(where + ": flow fact total " + std::to_string(fact.total) + " for " + name + " is below what a run did (" +
                              std::to_string(total->second) + " in one entry of its enclosing loop): raise it to at least that");
    }

    // What the IPET could only call infeasible or unbounded, said with the loop and its line.
    std::string where(std::uint32_t address) const {
        std::string line = query_.source_line ? query_.source_line(address) : "";
        return config::hex32(address) + (line.empty() ? "" : " (" + line + ")");
    }

    // Cycles no loop bounds (entered at more than one block): each of their blocks runs at most as
    // often per call as it was seen to.
    void cap_irreducible_cycles() {
        std::set<std::uint32_t> said;
        for (const Instance& in : instances_) {
            const decode::Function& fn = fns_[in.function];
            for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
                const decode::BasicBlock& block = fn.blocks[b];
                if (!block.irreducible || !in.stats.blocks.count(block.start)) continue;
                auto most = stats_.most_per_call.find(block.start);
                if (most == stats_.most_per_call.end())
                    throw ConfigError("wcet: " + fn.name + ": the block at " + where(block.start) +
                                      " is on a cycle entered at more than one block (irreducible control flow, e.g. a goto into a "
                                      "loop), and the statistics do not say how often it ran per call (written by an older emutrace?)");
                problem_.caps.push_back({in.base + b, most->second, {{in.base, in.base + fn.blocks.size()}}});
                if (said.insert(block.start).second) r_.cycles.push_back({fn.name, block.start, most->second, where(block.start)});
            }
        }
    }

    void check_loops_bounded() const {
        for (std::size_t l = 0; l < problem_.loops.size(); ++l) {
            const Instance& in = instances_[loop_instance_[l]];
            const decode::Function& fn = fns_[in.function];
            const std::size_t local = l - in.loop_base;
            const std::uint32_t header = fn.blocks[fn.loops[local].header].start;
            if (problem_.loops[l].bound == 0 && in.stats.blocks.count(header))
                throw ConfigError("wcet: " + fn.name + " loop " + std::to_string(local) + " at " + where(header) +
                                  " has no bound: no run was seen iterating it and no flow fact bounds it; add to the scenario's "
                                  "wcet.flow_facts " +
                                  loop_key(fn, local, "bound") + " (N: most header executions per entry)");
        }
    }

    void solve() {
        IpetSolution flat;
        const auto started = std::chrono::steady_clock::now();
        try {
            best_ = solve_ipet(problem_, true);
            r_.any_path_bound_cycles = to_cycles(best_.bound);
            // One max per block is the classic bound: over any path mix, as the loop context's gain is said against it.
            const IpetProblem any = without_observed_counts();
            if (any.caps.size() != problem_.caps.size() || any.cycle_caps.size() != problem_.cycle_caps.size()) {
                any_path_ = solve_ipet(any, true);
                r_.any_path_bound_cycles = to_cycles(any_path_.bound);
            }
            flat = solve_ipet(any, false);
        } catch (const std::exception& e) {  // GLPK's verdicts and malformed problems alike
            bool returned = std::any_of(root_->blocks.begin(), root_->blocks.end(),
                                        [&](const decode::BasicBlock& b) { return b.may_leave() && stats_.blocks.count(b.start); });
            if (!returned)
                throw ConfigError("wcet: " + root_->name +
                                  " never returned in the measured runs (it does not return, or every run was cut "
                                  "off): a function that does not finish has no execution time to bound");
            throw ConfigError(std::string("wcet: ") + e.what());
        }
        r_.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        r_.ilp_rows = best_.rows;
        r_.ilp_columns = best_.columns;
        r_.bound_cycles = to_cycles(best_.bound);
        r_.insensitive_bound_cycles = to_cycles(flat.bound);
        mark_binding_counts();
    }

    // The problem without the runs' path counts (flow facts' still hold).
    IpetProblem without_observed_counts() const {
        IpetProblem any = problem_;
        std::vector<bool> observed(problem_.caps.size(), false), observed_cycles(problem_.cycle_caps.size(), false);
        for (const PathCountUsed& u : r_.path_counts) {
            observed[u.cap] = u.source == "observed";
            if (u.cycles) observed_cycles[u.cycle_cap] = u.source == "observed";
        }
        any.caps.clear();
        for (std::size_t k = 0; k < problem_.caps.size(); ++k)
            if (!observed[k]) any.caps.push_back(problem_.caps[k]);
        any.cycle_caps.clear();
        for (std::size_t k = 0; k < problem_.cycle_caps.size(); ++k)
            if (!observed_cycles[k]) any.cycle_caps.push_back(problem_.cycle_caps[k]);
        return any;
    }

    // A count binds where the worst path over any path mix runs its block more often than the
    // count allows: it is one of those that cut that path (a fact's count: against the bound's own
    // worst path, where it binds when that path runs the block as often as it allows).
    void mark_binding_counts() {
        for (PathCountUsed& u : r_.path_counts) {
            const bool fact = u.source != "observed";
            const IpetSolution& s = fact || any_path_.first.empty() ? best_ : any_path_;
            const IpetCap& cap = problem_.caps[u.cap];
            const std::uint64_t runs = scope_runs(problem_, s, cap.scopes);
            const std::uint64_t x = s.first[cap.block] + s.later[cap.block];
            u.binding = fact ? x > 0 && x == u.count * runs : x > u.count * runs;
            // Its cycles cut it too where the slowest executions of any mix spend more.
            if (!fact && u.cycles) u.binding = u.binding || s.cycles[cap.block] > static_cast<double>(u.cycles * runs) + 0.5;
        }
    }

    // A block's cycles on the worst path, as the solver charged them: its executions times its
    // costs less what its edges save, or what its cycle cap allowed.
    double path_cycles(std::size_t i) const { return best_.cycles[i]; }

    // The worst path's blocks and each function's share of the bound, beside what the runs saw.
    void explain() {
        std::map<std::size_t, FunctionShare> shares;
        for (std::size_t k = 0; k < problem_.calls.size(); ++k) {  // a call into shared code enters that function too
            const IpetCall& c = problem_.calls[k];
            if (origin_[c.callee].instance != origin_[c.caller].instance || origin_[c.callee].block == 0)  // not a BL into its own code
                shares[instances_[origin_[c.callee].instance].function].entries += best_.calls[k];
        }
        shares[order_.front()].entries += 1;
        for (const Instance& in : instances_) ++shares[in.function].contexts;
        for (std::size_t i = 0; i < problem_.blocks.size(); ++i) {
            const Instance& in = instances_[origin_[i].instance];
            const decode::Function& fn = fns_[in.function];
            const decode::BasicBlock& block = fn.blocks[origin_[i].block];
            FunctionShare& share = shares[in.function];
            share.name = fn.name;
            if (best_.first[i] + best_.later[i] == 0) continue;
            PathBlock pb{fn.name,
                         in.label,
                         block.start,
                         block.end,
                         best_.first[i],
                         best_.later[i],
                         static_cast<std::uint64_t>(problem_.blocks[i].first_cost),
                         static_cast<std::uint64_t>(problem_.blocks[i].later_cost),
                         static_cast<std::uint64_t>(std::llround(std::max(0.0, path_cycles(i))))};
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

    // Per block and context, the worst path beside the longest run's profile.
    void explain_gap() {
        if (!stats_.longest_run || stats_.longest_run->function != root_->start) return;
        const RunProfile& run = *stats_.longest_run;
        r_.profiled_cycles = run.cycles;
        std::map<std::pair<std::size_t, std::uint32_t>, GapBlock> gaps;  // (instance, block start)
        for (std::size_t i = 0; i < problem_.blocks.size(); ++i) {
            const Instance& in = instances_[origin_[i].instance];
            const decode::BasicBlock& block = fns_[in.function].blocks[origin_[i].block];
            GapBlock& g = gaps[{origin_[i].instance, block.start}];
            g = {fns_[in.function].name,
                 in.label,
                 block.start,
                 block.end,
                 best_.first[i] + best_.later[i],
                 static_cast<std::uint64_t>(std::llround(std::max(0.0, path_cycles(i)))),
                 0,
                 0};
        }
        // A profile entry belongs to the instances of its block whose context it matches; with
        // k-limited contexts an instance can stand for several call paths, and each gets it once.
        std::map<std::uint32_t, std::vector<std::size_t>> instances_of_block;
        for (std::size_t i = 0; i < instances_.size(); ++i)
            for (const auto& b : fns_[instances_[i].function].blocks) instances_of_block[b.start].push_back(i);
        for (const auto& [where, e] : run.blocks) {
            auto it = instances_of_block.find(where.second);
            if (it == instances_of_block.end()) continue;
            for (std::size_t i : it->second) {
                if (!contexts_.matches(where.first.calls, instances_[i].calls)) continue;
                GapBlock& g = gaps[{i, where.second}];
                g.observed_count += e[0].count + e[1].count;
                g.observed_cycles += e[0].cycles + e[1].cycles;
                break;
            }
        }
        for (auto& [key, g] : gaps) {
            if (g.bound_cycles == 0 && g.observed_cycles == 0) continue;
            r_.gap.push_back(g);
            for (auto& share : r_.functions)
                if (share.name == g.function) {
                    share.observed_cycles += g.observed_cycles;
                    if (fns_[instances_[key.first].function].blocks.front().start == g.start) share.observed_entries += g.observed_count;
                }
        }
        std::stable_sort(r_.gap.begin(), r_.gap.end(), [](const GapBlock& a, const GapBlock& b) { return a.gap() > b.gap(); });
    }

    struct PendingCall {
        std::size_t caller, block, callee, callee_block;
        bool conditional;
        int group;
        int instead_of = -1;  ///< IpetCall::instead_of_edge
    };

    // The problem's edge from block b of instance i to the next block in address order, or -1 (rare:
    // a BL into its own code; a linear search).
    int fall_through_edge(std::size_t i, std::size_t b) const {
        const decode::Function& fn = fns_[instances_[i].function];
        for (std::size_t e = 0; e < problem_.edges.size(); ++e)
            if (problem_.edges[e].from == instances_[i].base + b && b + 1 < fn.blocks.size() && problem_.edges[e].to == instances_[i].base + b + 1)
                return static_cast<int>(e);
        return -1;
    }

    const std::vector<decode::Function>& fns_;
    const decode::Program& program_;
    const StatisticsTable& stats_;
    const WcetQuery& query_;
    ContextStatistics contexts_;
    CallTargets targets_;
    const decode::Function* root_ = nullptr;
    std::vector<std::size_t> order_;  ///< the functions in the problem, the root first
    std::vector<Recursion> recursions_;
    std::vector<int> recursion_of_;  ///< per function: its recursion's index in recursions_, or -1
    WcetResult r_;
    IpetProblem problem_;
    IpetSolution best_;
    IpetSolution any_path_;                                     ///< without the runs' path counts, when some were used
    std::vector<Instance> instances_;                           ///< the bounded function's first
    std::vector<PendingCall> pending_calls_;                    ///< calls between instances, numbered once all have blocks
    std::vector<std::size_t> loop_instance_;                    ///< per loop of the problem: its instance
    std::vector<Origin> origin_;                                ///< per block of the problem: its instance and block
    std::map<std::size_t, const FlowFact*> outer_fact_totals_;  ///< per problem loop: a fact's total for an outermost loop
    bool facts_raise_ = false;                                  ///< a flow fact lets a loop or recursion do more than the runs did
};

}  // namespace

std::string RecursionBoundUsed::others() const {
    std::string s;
    for (std::size_t i = 1; i < cycle.size(); ++i) s += (i == 1 ? " (with " : ", ") + cycle[i] + (i + 1 == cycle.size() ? ")" : "");
    return s;
}

std::int64_t GapBlock::from_count() const {
    if (bound_count == 0) return -static_cast<std::int64_t>(observed_cycles);
    const double per = static_cast<double>(bound_cycles) / static_cast<double>(bound_count);
    return static_cast<std::int64_t>(std::llround(per * (static_cast<double>(bound_count) - static_cast<double>(observed_count))));
}

WcetResult compute_wcet(const decode::Program& program, const StatisticsTable& stats, const WcetQuery& query) {
    try {
        return WcetBuild(program, stats, query).run();
    } catch (const ConfigError& e) {
        // Code the call contexts follow differently from the aggregation (a shape not met before)
        // can leave a context's blocks without a way out: bound without contexts, and say so.
        if (query.call_depth == 0 || stats.call_depth == 0 || std::string(e.what()).find("infeasible") == std::string::npos) throw;
        WcetQuery flat = query;
        flat.call_depth = 0;
        WcetResult r = WcetBuild(program, stats, flat).run();
        r.warnings.push_back(
            "with call contexts the measured blocks admitted no path (code entered in a way the contexts do not follow): "
            "bounded once per function, whatever calls it");
        return r;
    }
}

}  // namespace emutrace::analysis::wcet
