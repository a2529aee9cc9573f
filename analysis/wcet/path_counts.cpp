#include "analysis/wcet/path_counts.h"

#include <algorithm>
#include <map>

#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

std::string origin_of(const FlowFact& fact) {
    return fact.origin.empty() ? "wcet" : fact.origin;
}

// The fact that gives block `start` of instance `in` a count: one for its context first, then one
// for every context.
const FlowFact* fact_for(const std::vector<FlowFact>& facts, const decode::Function& fn, const PathCountView::Instance& in, std::uint32_t start) {
    const FlowFact* general = nullptr;
    for (const FlowFact& f : facts) {
        if (!f.block || *f.block != start || (!f.function.empty() && f.function != fn.name)) continue;
        if (!f.context) {
            if (!general) general = &f;
        } else if (*f.context == in.call_instructions) {
            return &f;
        }
    }
    return general;
}

// A fact must name a block of a function: a typo would silently leave the runs' count.
void check_facts_name_blocks(const std::vector<decode::Function>& fns, const std::vector<FlowFact>& facts) {
    for (const FlowFact& f : facts) {
        if (!f.block) continue;
        const bool found = std::any_of(fns.begin(), fns.end(), [&](const decode::Function& fn) {
            return (f.function.empty() || fn.name == f.function) &&
                   std::any_of(fn.blocks.begin(), fn.blocks.end(), [&](const decode::BasicBlock& b) { return b.start == *f.block; });
        });
        if (!found)
            throw ConfigError(origin_of(f) + ": path count for " + (f.function.empty() ? "" : f.function + " ") + "block " + config::hex32(*f.block) +
                              ": no basic block of " + (f.function.empty() ? "any function" : f.function) + " starts there (see emutrace cfg)");
    }
}

}  // namespace

std::vector<PathCountUsed> hold_path_counts(const std::vector<decode::Function>& fns, const PathCountView& view, const std::vector<FlowFact>& facts,
                                            bool observed, IpetProblem& problem) {
    check_facts_name_blocks(fns, facts);
    // A scope's runs are the flow into any instance of its function.
    std::map<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>> ranges_of;
    std::map<std::string, std::size_t> by_name;
    for (const auto& in : view.instances) {
        ranges_of[in.function].push_back({in.base, in.base + fns[in.function].blocks.size()});
        by_name.emplace(fns[in.function].name, in.function);
    }
    auto scope_ranges = [&](int scope) {
        return scope < 0 ? std::vector<std::pair<std::size_t, std::size_t>>{} : ranges_of[static_cast<std::size_t>(scope)];
    };
    auto scope_name = [&](int scope) { return scope < 0 ? std::string() : fns[static_cast<std::size_t>(scope)].name; };

    std::vector<PathCountUsed> used;
    for (const auto& in : view.instances) {
        const decode::Function& fn = fns[in.function];
        // The runs of the scope the context ran in: its blocks' most (its entry ran in each).
        std::uint64_t runs = 0;
        for (const auto& [address, record] : in.stats->blocks) runs = std::max(runs, record.per_scope.scopes);
        for (std::size_t b = 0; b < fn.blocks.size(); ++b) {
            const std::uint32_t start = fn.blocks[b].start;
            auto record = in.stats->blocks.find(start);
            const ScopeCount* counted = record == in.stats->blocks.end() || !record->second.per_scope.seen() ? nullptr : &record->second.per_scope;
            PathCountUsed u{fn.name, in.label, in.call_instructions, start, 0, "", "", counted ? counted->scopes : 0, problem.caps.size(), false};
            auto hold_cycles = [&](std::uint64_t cycles, int scope) {
                u.cycles = cycles;
                u.cycle_cap = problem.cycle_caps.size();
                problem.cycle_caps.push_back({in.base + b, cycles, scope_ranges(scope)});
            };
            if (const FlowFact* fact = fact_for(facts, fn, in, start)) {
                int scope = -1;
                if (!fact->per.empty()) {
                    auto it = by_name.find(fact->per);
                    if (it == by_name.end())
                        throw ConfigError(origin_of(*fact) + ": path count for " + fn.name + " block " + config::hex32(start) + " per run of " +
                                          fact->per + ": that function does not run in this bound (give one that calls " + fn.name +
                                          ", or leave out `per` for the bounded function's run)");
                    scope = static_cast<int>(it->second);
                }
                // Checked against the runs where the fact's scope is the one they were counted per:
                // past the bounded function a run of the scope may hold several of its runs, unless
                // it ran once in each.
                const bool comparable = scope == in.scope && (scope >= 0 || view.root_once_per_scope);
                auto refuse_below = [&](const char* what, std::uint64_t given, const ScopeCount* run) {
                    if (!comparable || !run || !run->seen() || run->most <= given) return;
                    throw ConfigError(origin_of(*fact) + ": path count" + what + " " + std::to_string(given) + " for " + fn.name + " block " +
                                      config::hex32(start) + " is below what a run did (" + std::to_string(run->most) + " in one run of " +
                                      (scope < 0 ? "the bounded function" : fact->per) + "): raise it to at least that");
                };
                if (fact->cycles)
                    refuse_below(" cycles", fact->cycles, record == in.stats->blocks.end() ? nullptr : &record->second.cycles_per_scope);
                refuse_below("", fact->count, counted);
                u.count = fact->count;
                u.per = scope_name(scope);
                u.source = "flow fact";
                problem.caps.push_back({in.base + b, fact->count, scope_ranges(scope)});
                if (fact->cycles) hold_cycles(fact->cycles, scope);
                used.push_back(u);
                continue;
            }
            // A count that differed between runs of the scope, or a block some runs skipped,
            // depends on the input: no count.
            if (!observed || !in.own_context || !counted || counted->least != counted->most || counted->scopes != runs) continue;
            auto scopes = scope_ranges(in.scope);
            if (in.scope >= 0 && scopes.empty()) continue;
            u.count = counted->most;
            u.per = scope_name(in.scope);
            u.source = "observed";
            problem.caps.push_back({in.base + b, counted->most, std::move(scopes)});
            // Its cycles too, where every run of the scope spent the same in it and that is below
            // its executions at their slowest: a block whose time depends on data.
            const ScopeCount& cycles = record->second.cycles_per_scope;
            const std::uint64_t slowest = std::max(record->second.context[0].max, record->second.context[1].max);
            if (cycles.seen() && cycles.least == cycles.most && cycles.scopes == runs && cycles.most < slowest * counted->most)
                hold_cycles(cycles.most, in.scope);
            used.push_back(u);
        }
    }
    return used;
}

}  // namespace emutrace::analysis::wcet
