#include "analysis/wcet/ipet.h"

#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// The integer program (maximised):
//   columns  x_e per edge; x1_b per block (executions outside loops or in a first iteration of the
//            block's innermost loop); x2_b per block inside a loop (later iterations); exit_b per
//            block that may leave the graph. All are integers >= 0; a context in which a block was
//            never measured gets the upper bound 0.
//   rows     per block: inflow = x1_b + x2_b and x1_b + x2_b = outflow;
//            per loop L entered E_L times: x1_h = E_L, x1_b <= E_L for the other blocks whose
//            innermost loop is L, and x1_h + x2_h <= bound * E_L;
//            per recursion budget: what it counts <= its most x each call into the recursion from
//            outside.
//   objective  sum of first_cost * x1_b + later_cost * x2_b, less per edge e = (b, t) its discount
//              times x_e: what b costs less when it leaves for t (an edge whose time was measured).
//              A block with a cycle cap contributes a column y_b instead, with y_b <= that sum of its
//              own terms and y_b <= most x (runs of its scope).

namespace emutrace::analysis::wcet {

namespace {

struct Term {
    int col = 0;
    double coef = 0;
};

struct Row {
    std::vector<Term> terms;
    int type = GLP_FX;  ///< GLP_FX (terms = rhs) or GLP_UP (terms <= rhs)
    double rhs = 0;
};

/// A block as the chosen mode sees it: what each execution costs and where it may execute.
struct Effective {
    double first_cost = 0, later_cost = 0;
    bool first_allowed = false, later_allowed = false;
};

/// Column numbers (1-based, as GLPK counts them); 0 where a block has no such column.
struct Columns {
    int count = 0;
    int first_edge = 1;  ///< edge i is column first_edge + i
    std::vector<int> x1, x2, exit;
    std::vector<int> call;        ///< per call: the times a conditional one is made; 0 for an unconditional one
    std::vector<int> later_part;  ///< per edge: its later-iteration part (add_split_edges), or 0
    std::vector<int> cycles;      ///< per block: its cycles y_b when it has a cycle cap, or 0

    int edge(std::size_t i) const { return first_edge + static_cast<int>(i); }
};

struct ProbDeleter {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using ProbPtr = std::unique_ptr<glp_prob, ProbDeleter>;

std::string loop_label(const IpetProblem& problem, std::size_t l) {
    const std::string& name = problem.loops[l].name;
    return name.empty() ? "loop " + std::to_string(l) + " (header block " + std::to_string(problem.loops[l].header) + ")" : name;
}

// GLPK aborts the process on out-of-range indices, so malformed input is rejected here instead.
void validate(const IpetProblem& problem) {
    const std::size_t n = problem.blocks.size();
    auto check = [](bool ok, const std::string& what) {
        if (!ok) throw std::invalid_argument("IPET: " + what);
    };
    check(n > 0, "the problem has no blocks");
    check(problem.entry < n, "the entry block is out of range");
    for (std::size_t b = 0; b < n; ++b) {
        const IpetBlock& blk = problem.blocks[b];
        check(std::isfinite(blk.first_cost) && std::isfinite(blk.later_cost), "block " + std::to_string(b) + " has a non-finite cost");
        check(blk.loop < static_cast<int>(problem.loops.size()), "block " + std::to_string(b) + " names a loop out of range");
    }
    for (const IpetEdge& e : problem.edges)
        check(e.from < n && e.to < n && std::isfinite(e.first_exit_cost) && std::isfinite(e.later_exit_cost), "an edge names a block out of range");
    for (const IpetCall& c : problem.calls)
        check(c.caller < n && c.callee < n && c.instead_of_edge < static_cast<int>(problem.edges.size()) &&
                  (c.instead_of_edge < 0 || problem.edges[static_cast<std::size_t>(c.instead_of_edge)].from == c.caller),
              "a call names a block or an edge out of range");
    for (const IpetCap& c : problem.caps) {
        check(c.block < n, "a cap names a block out of range");
        for (const auto& [first, last] : c.scopes) check(first < last && last <= n, "a cap names a scope out of range");
    }
    std::vector<bool> cycle_capped(n, false);
    for (const IpetCycleCap& c : problem.cycle_caps) {
        check(c.block < n && !cycle_capped[c.block], "a cycle cap names a block out of range, or one capped already");
        cycle_capped[c.block] = true;
        for (const auto& [first, last] : c.scopes) check(first < last && last <= n, "a cycle cap names a scope out of range");
    }
    for (const IpetRecursion& r : problem.recursions) {
        for (std::size_t k : r.outer) check(k < problem.calls.size(), r.name + ": a call out of range");
        for (const auto& b : r.budgets) {
            check(b.most.size() == r.outer.size() && (!r.entry || b.entry_most >= b.entry_counted), r.name + ": " + b.what + ": malformed budget");
            for (std::size_t k : b.calls) check(k < problem.calls.size(), r.name + ": " + b.what + ": a call out of range");
            for (std::size_t blk : b.blocks) check(blk < n, r.name + ": " + b.what + ": a block out of range");
        }
    }
    for (std::size_t l = 0; l < problem.loops.size(); ++l) {
        const IpetLoop& loop = problem.loops[l];
        // The header belongs to the loop it heads; otherwise it would have no later-iteration count.
        check(loop.header < n && problem.blocks[loop.header].loop == static_cast<int>(l),
              loop_label(problem, l) + ": the header's innermost loop is not this loop");
        for (std::size_t e : loop.entries)
            check(e < problem.edges.size() && problem.edges[e].to == loop.header,
                  loop_label(problem, l) + ": an entry is not an edge into the header");
        check(loop.parent < static_cast<int>(problem.loops.size()) && loop.parent != static_cast<int>(l),
              loop_label(problem, l) + ": the enclosing loop is out of range");
        for (const auto& [outer, total] : loop.outer_totals)
            check(outer < problem.loops.size() && outer != l, loop_label(problem, l) + ": a loop around it is out of range");
    }
    // GLPK counts rows and columns in int; stay far from the limit.
    check(n < INT_MAX / 8 && problem.edges.size() < INT_MAX / 8, "the problem is too large for GLPK");
}

std::vector<Effective> effective_blocks(const IpetProblem& problem, bool context_sensitive) {
    std::vector<Effective> out(problem.blocks.size());
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
        const IpetBlock& blk = problem.blocks[b];
        Effective& e = out[b];
        if (blk.loop < 0) {
            // Outside loops there is no later iteration: later_cost and later_seen carry no meaning
            // (and later_seen defaults to true, which must not let an unseen block in).
            e.first_cost = e.later_cost = blk.first_cost;
            e.first_allowed = blk.first_seen;
        } else if (context_sensitive) {
            e = {blk.first_cost, blk.later_cost, blk.first_seen, blk.later_seen};
        } else {
            const double cost = std::max(blk.first_cost, blk.later_cost);
            const bool seen = blk.first_seen || blk.later_seen;
            e = {cost, cost, seen, seen};
        }
    }
    return out;
}

// A loop without a bound would make the longest path infinite; only a header that can never
// execute (it was not measured in any allowed context) may go without one.
void require_loop_bounds(const IpetProblem& problem, const std::vector<Effective>& eff) {
    for (std::size_t l = 0; l < problem.loops.size(); ++l) {
        const IpetLoop& loop = problem.loops[l];
        const Effective& h = eff[loop.header];
        if (loop.bound == 0 && (h.first_allowed || h.later_allowed))
            throw std::runtime_error(loop_label(problem, l) + ": no loop bound (never observed iterating and no flow fact)");
    }
}

Columns lay_out_columns(const IpetProblem& problem) {
    Columns c;
    const std::size_t n = problem.blocks.size();
    c.x1.assign(n, 0);
    c.x2.assign(n, 0);
    c.exit.assign(n, 0);
    int next = c.first_edge + static_cast<int>(problem.edges.size());
    for (std::size_t b = 0; b < n; ++b) {
        c.x1[b] = next++;
        if (problem.blocks[b].loop >= 0) c.x2[b] = next++;
        if (problem.blocks[b].may_exit) c.exit[b] = next++;
    }
    c.call.assign(problem.calls.size(), 0);
    for (std::size_t k = 0; k < problem.calls.size(); ++k)
        if (problem.calls[k].conditional) c.call[k] = next++;
    c.count = next - 1;
    return c;
}

/// Adds coef * (all executions of block b) to `terms`.
void add_executions(std::vector<Term>& terms, const Columns& c, std::size_t b, double coef) {
    terms.push_back({c.x1[b], coef});
    if (c.x2[b] != 0) terms.push_back({c.x2[b], coef});
}

/// Adds coef * (the times call k is made) to `terms`.
void add_calls(std::vector<Term>& terms, const IpetProblem& problem, const Columns& c, std::size_t k, double coef) {
    if (c.call[k] != 0)
        terms.push_back({c.call[k], coef});
    else
        add_executions(terms, c, problem.calls[k].caller, coef);
}

/// Two rows per block: inflow = executions = outflow.
void add_flow_rows(const IpetProblem& problem, const Columns& c, std::vector<Row>& rows) {
    const std::size_t n = problem.blocks.size();
    std::vector<Row> in(n), out(n);
    for (std::size_t b = 0; b < n; ++b) {
        add_executions(in[b].terms, c, b, 1);
        add_executions(out[b].terms, c, b, 1);
        if (c.exit[b] != 0) out[b].terms.push_back({c.exit[b], -1});
    }
    in[problem.entry].rhs = 1;  // the entry is entered once from outside
    for (std::size_t i = 0; i < problem.edges.size(); ++i) {
        in[problem.edges[i].to].terms.push_back({c.edge(i), -1});
        out[problem.edges[i].from].terms.push_back({c.edge(i), -1});
    }
    // Every call enters the callee once more: an unconditional one at every execution of its
    // block, a conditional one at most that often.
    for (std::size_t k = 0; k < problem.calls.size(); ++k) add_calls(in[problem.calls[k].callee].terms, problem, c, k, -1);
    for (std::size_t b = 0; b < n; ++b) {
        rows.push_back(std::move(in[b]));
        rows.push_back(std::move(out[b]));
    }
    // A conditional call happens at most once per execution of its block; a group of them
    // (one indirect call's targets) at most once together.
    std::map<int, Row> groups;
    for (std::size_t k = 0; k < problem.calls.size(); ++k) {
        if (c.call[k] == 0) continue;
        const IpetCall& call = problem.calls[k];
        if (call.group >= 0 && groups.count(call.group)) {
            groups[call.group].terms.push_back({c.call[k], 1});
            continue;
        }
        Row at_most{{{c.call[k], 1}}, GLP_UP, 0};
        add_executions(at_most.terms, c, call.caller, -1);
        if (call.instead_of_edge >= 0) at_most.terms.push_back({c.edge(static_cast<std::size_t>(call.instead_of_edge)), 1});
        if (call.group >= 0)
            groups[call.group] = std::move(at_most);
        else
            rows.push_back(std::move(at_most));
    }
    for (auto& [group, row] : groups) rows.push_back(std::move(row));
}

/// The times loop `l` is entered, as terms (coefficient 1) plus a constant. Besides the entry
/// edges this counts entries from outside the graph: a header that is the graph's entry or a
/// callee's entry block (a function that begins with its loop) has no entry edge at all.
struct EntryFlow {
    std::vector<Term> terms;
    double constant = 0;
};

EntryFlow entry_flow(const IpetProblem& problem, const Columns& c, const std::vector<std::vector<std::size_t>>& callers_of, std::size_t l) {
    const IpetLoop& loop = problem.loops[l];
    EntryFlow f;
    for (std::size_t e : loop.entries) f.terms.push_back({c.edge(e), 1});
    for (std::size_t k : callers_of[loop.header]) add_calls(f.terms, problem, c, k, 1);
    if (loop.header == problem.entry) f.constant = 1;
    return f;
}

/// The row lhs - scale * E_L (= or <=) scale * constant.
Row loop_row(std::vector<Term> lhs, const EntryFlow& f, double scale, int type) {
    Row r{std::move(lhs), type, scale * f.constant};
    for (const Term& t : f.terms) r.terms.push_back({t.col, -scale * t.coef});
    return r;
}

bool in_scope(const std::vector<std::pair<std::size_t, std::size_t>>& scopes, std::size_t b) {
    return std::any_of(scopes.begin(), scopes.end(), [&](const auto& r) { return b >= r.first && b < r.second; });
}

/// Makes `row` (terms <= 0) terms <= most x (runs of the scope `scopes`): each unit of flow into
/// one of its block ranges, and the problem's one entry if it is in one; no ranges: the entry alone.
void add_scope_runs(Row& row, const IpetProblem& problem, const Columns& c, const std::vector<std::pair<std::size_t, std::size_t>>& scopes,
                    double most) {
    for (std::size_t k = 0; k < problem.calls.size(); ++k)
        if (in_scope(scopes, problem.calls[k].callee)) add_calls(row.terms, problem, c, k, -most);
    if (scopes.empty() || in_scope(scopes, problem.entry)) row.rhs = most;
}

void add_loop_rows(const IpetProblem& problem, const Columns& c, std::vector<Row>& rows) {
    std::vector<std::vector<std::size_t>> callers_of(problem.blocks.size());
    for (std::size_t k = 0; k < problem.calls.size(); ++k) callers_of[problem.calls[k].callee].push_back(k);  // call indices
    // A capped block: executions <= most x (runs of its scope).
    for (const IpetCap& cap : problem.caps) {
        Row row{{}, GLP_UP, 0};
        add_executions(row.terms, c, cap.block, 1);
        add_scope_runs(row, problem, c, cap.scopes, static_cast<double>(cap.most));
        rows.push_back(std::move(row));
    }
    // A recursion's budgets: what they count <= the most per activation x the activations.
    for (const IpetRecursion& r : problem.recursions)
        for (const auto& b : r.budgets) {
            Row row{{}, GLP_UP, r.entry ? static_cast<double>(b.entry_most - b.entry_counted) : 0.0};
            for (std::size_t k : b.calls) add_calls(row.terms, problem, c, k, 1);
            for (std::size_t blk : b.blocks) add_executions(row.terms, c, blk, 1);
            for (std::size_t i = 0; i < r.outer.size(); ++i) add_calls(row.terms, problem, c, r.outer[i], -static_cast<double>(b.most[i]));
            rows.push_back(std::move(row));
        }
    std::vector<std::vector<std::size_t>> members(problem.loops.size());
    for (std::size_t b = 0; b < problem.blocks.size(); ++b)
        if (problem.blocks[b].loop >= 0) members[static_cast<std::size_t>(problem.blocks[b].loop)].push_back(b);

    for (std::size_t l = 0; l < problem.loops.size(); ++l) {
        const std::size_t h = problem.loops[l].header;
        const EntryFlow f = entry_flow(problem, c, callers_of, l);
        // Each entry starts exactly one first iteration, which runs the header once...
        rows.push_back(loop_row({{c.x1[h], 1}}, f, 1, GLP_FX));
        // ...and every other block of the loop (not of a loop nested in it) at most once.
        for (std::size_t b : members[l])
            if (b != h) rows.push_back(loop_row({{c.x1[b], 1}}, f, 1, GLP_UP));
        const double bound = static_cast<double>(problem.loops[l].bound);
        rows.push_back(loop_row({{c.x1[h], 1}, {c.x2[h], 1}}, f, bound, GLP_UP));
        // A nested loop's header executions over one entry of its parent, summed.
        const IpetLoop& loop = problem.loops[l];
        if (loop.parent >= 0 && loop.total > 0) {
            const EntryFlow parent = entry_flow(problem, c, callers_of, static_cast<std::size_t>(loop.parent));
            rows.push_back(loop_row({{c.x1[h], 1}, {c.x2[h], 1}}, parent, static_cast<double>(loop.total), GLP_UP));
        }
        for (const auto& [outer, total] : loop.outer_totals) {
            const EntryFlow around = entry_flow(problem, c, callers_of, outer);
            rows.push_back(loop_row({{c.x1[h], 1}, {c.x2[h], 1}}, around, static_cast<double>(total), GLP_UP));
        }
    }
}

// glp_load_matrix rejects a repeated (row, column) pair, which a call from a block into its own
// graph or a repeated entry edge would produce; such terms are summed.
void merge_terms(std::vector<Term>& terms) {
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.col < b.col; });
    std::vector<Term> merged;
    for (const Term& t : terms) {
        if (!merged.empty() && merged.back().col == t.col)
            merged.back().coef += t.coef;
        else
            merged.push_back(t);
    }
    std::erase_if(merged, [](const Term& t) { return t.coef == 0; });
    terms = std::move(merged);
}

// What leaving by edge e saves on its block's cost, per context of the block: a context in which
// the edge was not measured saves nothing there, so every execution still pays at least what the
// runs saw it pay on that edge in that context.
struct Savings {
    double first = 0, later = 0;
};
Savings edge_savings(const IpetEdge& e, const Effective& b, bool context_sensitive) {
    auto saving = [](double cost, double exit_cost) { return exit_cost < 0 ? 0.0 : std::max(0.0, cost - exit_cost); };
    if (!context_sensitive) {
        if (e.first_exit_cost < 0 && e.later_exit_cost < 0) return {};
        const double exit_cost =
            std::max(e.first_exit_cost < 0 ? b.first_cost : e.first_exit_cost, e.later_exit_cost < 0 ? b.later_cost : e.later_exit_cost);
        const double d = saving(b.first_cost, exit_cost);
        return {d, d};
    }
    return {b.first_allowed ? saving(b.first_cost, e.first_exit_cost) : 0.0, b.later_allowed ? saving(b.later_cost, e.later_exit_cost) : 0.0};
}

std::vector<Savings> all_savings(const IpetProblem& problem, const std::vector<Effective>& eff, bool context_sensitive) {
    std::vector<Savings> out;
    out.reserve(problem.edges.size());
    for (const IpetEdge& e : problem.edges) out.push_back(edge_savings(e, eff[e.from], context_sensitive));
    return out;
}

// An edge whose block saves differently in its two contexts gets a second column, the times it is
// taken from a later iteration (y_e <= x_e): sum of (x_e - y_e) over the block's edges <= x1_b, and
// sum of y_e <= x2_b. Its objective is -first * x_e + (first - later) * y_e.
void add_split_edges(const IpetProblem& problem, const std::vector<Savings>& savings, Columns& c) {
    c.later_part.assign(problem.edges.size(), 0);
    int next = c.count + 1;
    for (std::size_t i = 0; i < problem.edges.size(); ++i)
        if (c.x2[problem.edges[i].from] != 0 && savings[i].first != savings[i].later) c.later_part[i] = next++;
    c.count = next - 1;
}

void add_split_rows(const IpetProblem& problem, const Columns& c, std::vector<Row>& rows) {
    std::map<std::size_t, std::pair<Row, Row>> by_block;  // (first part <= x1, later part <= x2)
    for (std::size_t i = 0; i < problem.edges.size(); ++i) {
        if (c.later_part[i] == 0) continue;
        const std::size_t b = problem.edges[i].from;
        auto [it, added] = by_block.try_emplace(b);
        if (added) {
            it->second.first = Row{{{c.x1[b], -1}}, GLP_UP, 0};
            it->second.second = Row{{{c.x2[b], -1}}, GLP_UP, 0};
        }
        it->second.first.terms.push_back({c.edge(i), 1});
        it->second.first.terms.push_back({c.later_part[i], -1});
        it->second.second.terms.push_back({c.later_part[i], 1});
        rows.push_back(Row{{{c.later_part[i], 1}, {c.edge(i), -1}}, GLP_UP, 0});
    }
    for (auto& [b, pair] : by_block) {
        rows.push_back(std::move(pair.first));
        rows.push_back(std::move(pair.second));
    }
}

/// Per block, its terms of the objective: its costs, less what its edges save.
std::vector<std::vector<Term>> block_objectives(const IpetProblem& problem, const Columns& c, const std::vector<Effective>& eff,
                                                const std::vector<Savings>& savings) {
    std::vector<std::vector<Term>> out(problem.blocks.size());
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
        out[b].push_back({c.x1[b], eff[b].first_cost});
        if (c.x2[b] != 0) out[b].push_back({c.x2[b], eff[b].later_cost});
    }
    for (std::size_t i = 0; i < problem.edges.size(); ++i) {
        auto& terms = out[problem.edges[i].from];
        terms.push_back({c.edge(i), -savings[i].first});
        if (c.later_part[i] != 0) terms.push_back({c.later_part[i], savings[i].first - savings[i].later});
    }
    return out;
}

/// A cycle-capped block's column y_b: y_b <= its objective terms, y_b <= most x (runs of its scope).
void add_cycle_caps(const IpetProblem& problem, Columns& c, const std::vector<std::vector<Term>>& objectives, std::vector<Row>& rows) {
    c.cycles.assign(problem.blocks.size(), 0);
    for (const IpetCycleCap& cap : problem.cycle_caps) {
        const int y = c.cycles[cap.block] = ++c.count;
        Row own{{{y, 1}}, GLP_UP, 0};
        for (const Term& t : objectives[cap.block]) own.terms.push_back({t.col, -t.coef});
        rows.push_back(std::move(own));
        Row most{{{y, 1}}, GLP_UP, 0};
        add_scope_runs(most, problem, c, cap.scopes, static_cast<double>(cap.most));
        rows.push_back(std::move(most));
    }
}

void set_columns(glp_prob* p, const IpetProblem& problem, const Columns& c, const std::vector<Effective>& eff,
                 const std::vector<std::vector<Term>>& objectives) {
    glp_add_cols(p, c.count);
    for (int j = 1; j <= c.count; ++j) {
        glp_set_col_kind(p, j, GLP_IV);
        glp_set_col_bnds(p, j, GLP_LO, 0, 0);
    }
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
        if (c.cycles[b] != 0) {
            glp_set_obj_coef(p, c.cycles[b], 1);
        } else {
            for (const Term& t : objectives[b]) glp_set_obj_coef(p, t.col, t.coef);
        }
        if (!eff[b].first_allowed) glp_set_col_bnds(p, c.x1[b], GLP_FX, 0, 0);
        if (c.x2[b] != 0 && !eff[b].later_allowed) glp_set_col_bnds(p, c.x2[b], GLP_FX, 0, 0);
    }
}

void set_rows(glp_prob* p, std::vector<Row>& rows) {
    glp_add_rows(p, static_cast<int>(rows.size()));
    // Triplets, 1-based: GLPK ignores element 0.
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        Row& r = rows[i];
        const int row = static_cast<int>(i) + 1;
        glp_set_row_bnds(p, row, r.type, r.rhs, r.rhs);
        merge_terms(r.terms);
        for (const Term& t : r.terms) {
            ia.push_back(row);
            ja.push_back(t.col);
            ar.push_back(t.coef);
        }
    }
    glp_load_matrix(p, static_cast<int>(ar.size()) - 1, ia.data(), ja.data(), ar.data());
}

[[noreturn]] void fail_infeasible() {
    throw std::runtime_error("IPET: the measured blocks admit no path from the entry to an exit (the integer program is infeasible)");
}
[[noreturn]] void fail_unbounded() {
    throw std::runtime_error("IPET: the longest path is unbounded (a cycle that is not a bounded loop, or unbounded recursion)");
}
[[noreturn]] void fail_glpk(const char* step, int code) {
    throw std::runtime_error(std::string("IPET: GLPK ") + step + " failed (code " + std::to_string(code) + ")");
}

// The LP relaxation first, so that an infeasible or unbounded problem is told apart from a solver
// failure; then branch and bound from its optimal basis.
void solve(glp_prob* p) {
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.presolve = GLP_ON;
    const int lp = glp_simplex(p, &smcp);
    if (lp == GLP_ENOPFS) fail_infeasible();
    if (lp == GLP_ENODFS) fail_unbounded();
    if (lp != 0) fail_glpk("simplex", lp);
    switch (glp_get_status(p)) {
        case GLP_OPT: break;
        case GLP_NOFEAS: fail_infeasible();
        case GLP_UNBND: fail_unbounded();
        default: fail_glpk("simplex status", glp_get_status(p));
    }

    glp_iocp iocp;
    glp_init_iocp(&iocp);
    iocp.msg_lev = GLP_MSG_OFF;
    // Path counts make the relaxation fractional (a count times a scope's calls); Gomory cuts close
    // most of that at the root: libcalls' main, 6,117 blocks, 0.58 s of branching down to 0.10 s.
    iocp.gmi_cuts = GLP_ON;
    const int mip = glp_intopt(p, &iocp);
    if (mip != 0) fail_glpk("intopt", mip);
    switch (glp_mip_status(p)) {
        case GLP_OPT: break;
        case GLP_NOFEAS: fail_infeasible();
        default: fail_glpk("intopt status", glp_mip_status(p));
    }
}

std::uint64_t count_of(glp_prob* p, int col) {
    if (col == 0) return 0;
    const long long v = std::llround(glp_mip_col_val(p, col));
    return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

IpetSolution read_solution(glp_prob* p, const IpetProblem& problem, const Columns& c) {
    IpetSolution s;
    s.bound = glp_mip_obj_val(p);
    s.first.resize(problem.blocks.size());
    s.later.resize(problem.blocks.size());
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
        s.first[b] = count_of(p, c.x1[b]);
        s.later[b] = count_of(p, c.x2[b]);
    }
    s.edges.resize(problem.edges.size());
    for (std::size_t i = 0; i < problem.edges.size(); ++i) s.edges[i] = count_of(p, c.edge(i));
    s.calls.resize(problem.calls.size());
    for (std::size_t k = 0; k < problem.calls.size(); ++k)
        s.calls[k] = c.call[k] != 0 ? count_of(p, c.call[k]) : s.first[problem.calls[k].caller] + s.later[problem.calls[k].caller];
    return s;
}

}  // namespace

std::uint64_t scope_runs(const IpetProblem& problem, const IpetSolution& s, const std::vector<std::pair<std::size_t, std::size_t>>& scopes) {
    std::uint64_t runs = scopes.empty() || in_scope(scopes, problem.entry) ? 1 : 0;
    for (std::size_t k = 0; k < problem.calls.size() && k < s.calls.size(); ++k)
        if (in_scope(scopes, problem.calls[k].callee)) runs += s.calls[k];
    return runs;
}

IpetSolution solve_ipet(const IpetProblem& problem, bool context_sensitive) {
    validate(problem);
    const std::vector<Effective> eff = effective_blocks(problem, context_sensitive);
    require_loop_bounds(problem, eff);

    const std::vector<Savings> savings = all_savings(problem, eff, context_sensitive);
    Columns columns = lay_out_columns(problem);
    add_split_edges(problem, savings, columns);
    std::vector<Row> rows;
    rows.reserve(2 * problem.blocks.size() + 2 * problem.loops.size());
    add_flow_rows(problem, columns, rows);
    add_loop_rows(problem, columns, rows);
    add_split_rows(problem, columns, rows);
    const std::vector<std::vector<Term>> objectives = block_objectives(problem, columns, eff, savings);
    add_cycle_caps(problem, columns, objectives, rows);

    ProbPtr prob(glp_create_prob());
    glp_set_obj_dir(prob.get(), GLP_MAX);
    set_columns(prob.get(), problem, columns, eff, objectives);
    set_rows(prob.get(), rows);
    solve(prob.get());
    IpetSolution s = read_solution(prob.get(), problem, columns);
    s.rows = rows.size();
    s.columns = static_cast<std::size_t>(columns.count);
    s.discounts.reserve(problem.edges.size());
    for (std::size_t i = 0; i < problem.edges.size(); ++i) {
        // What the edge's executions saved in total, over the edge's count (its mean saving).
        const double later = static_cast<double>(count_of(prob.get(), columns.later_part[i]));
        const double taken = static_cast<double>(s.edges[i]);
        s.discounts.push_back(taken > 0 ? (savings[i].first * (taken - later) + savings[i].later * later) / taken : savings[i].first);
    }
    s.cycles.reserve(problem.blocks.size());
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
        double cycles = 0;
        if (columns.cycles[b] != 0) {
            cycles = glp_mip_col_val(prob.get(), columns.cycles[b]);
        } else {
            for (const Term& t : objectives[b]) cycles += t.coef * glp_mip_col_val(prob.get(), t.col);
        }
        s.cycles.push_back(cycles);
    }
    return s;
}

}  // namespace emutrace::analysis::wcet
